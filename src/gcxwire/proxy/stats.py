"""Per-tool counters: what went in, what came out, which schema encoded it."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import orjson

__all__ = ["ProxyStats", "ToolStats", "ToolsListStats", "write_gateway_stats"]


@dataclass
class ToolStats:
    """Counters for one tool. Tokens are counted only for results the proxy
    compared encodings for (JSON with a tabular shape); bytes for every result."""

    calls: int = 0
    rewritten: int = 0
    bytes_before: int = 0
    bytes_after: int = 0
    tokens_before: int = 0
    tokens_after: int = 0
    hint_tokens: int = 0
    format: str | None = None
    schema_id: str | None = None
    schema_status: str | None = None


@dataclass
class ToolsListStats:
    lists: int = 0
    tools: int = 0
    bytes_before: int = 0
    bytes_after: int = 0
    tokens_before: int = 0
    tokens_after: int = 0


@dataclass
class ProxyStats:
    server: str
    tools: dict[str, ToolStats] = field(default_factory=dict)
    tools_list: ToolsListStats = field(default_factory=ToolsListStats)

    def tool(self, name: str) -> ToolStats:
        stats = self.tools.get(name)
        if stats is None:
            stats = self.tools[name] = ToolStats()
        return stats

    def _snapshot(self) -> list[tuple[str, ToolStats]]:
        # list() copies the items in one step under the GIL, so a SIGUSR1 report
        # is safe while a worker thread adds a tool (see link.OFFLOAD_BYTES).
        return sorted(list(self.tools.items()))

    def as_dict(self) -> dict[str, Any]:
        return {
            "server": self.server,
            "tools_list": asdict(self.tools_list),
            "tools": {name: asdict(stats) for name, stats in self._snapshot()},
        }

    def write_json(self, path: str) -> None:
        _write_atomically(path, self.as_dict())

    def summary(self) -> str:
        """A few human-readable lines for stderr."""
        lines = [f"gcxwire proxy stats for {self.server}:"]
        tl = self.tools_list
        if tl.lists:
            lines.append(
                f"  tools/list x{tl.lists} ({tl.tools} tools): {tl.bytes_before} -> "
                f"{tl.bytes_after} bytes, {tl.tokens_before} -> {tl.tokens_after} tokens"
                f"{_saving(tl.tokens_before, tl.tokens_after)}"
            )
        for name, s in self._snapshot():
            schema = f", {s.schema_id} ({s.schema_status})" if s.schema_id else ""
            tokens = ""
            if s.tokens_before:
                tokens = f", {s.tokens_before} -> {s.tokens_after} tokens" + _saving(
                    s.tokens_before, s.tokens_after
                )
            lines.append(
                f"  {name}: {s.calls} calls, {s.rewritten} rewritten"
                f"{f' as {s.format}' if s.format else ''}{schema}; "
                f"{s.bytes_before} -> {s.bytes_after} bytes{tokens}"
            )
        if len(lines) == 1:
            lines.append("  no tools/list or tools/call answers seen")
        return "\n".join(lines)


def _saving(before: int, after: int) -> str:
    if before <= 0:
        return ""
    return f" ({100 * (before - after) / before:.1f}% saved)"


def write_gateway_stats(path: str, all_stats: Sequence[ProxyStats]) -> None:
    """The stats of every server of a gateway, by alias, in one file."""
    _write_atomically(path, {"servers": {stats.server: stats.as_dict() for stats in all_stats}})


def _write_atomically(path: str, data: dict[str, Any]) -> None:
    """Write to a temporary file, then rename it: a reader never sees half a file."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".gcxwire-stats-")
    with os.fdopen(fd, "wb") as out:
        out.write(orjson.dumps(data, option=orjson.OPT_INDENT_2))
    os.replace(tmp, path)
