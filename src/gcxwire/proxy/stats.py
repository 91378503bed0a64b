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
    """Counters for one tool, over every result (rewritten or passed through).

    Two baselines: ``tokens_before`` is the server's text as sent (often
    pretty-printed JSON), ``tokens_compact`` the same values as compact JSON
    (for text that is not JSON, the text itself). ``tokens_after`` is what the
    client got, hint lines included; a result passed through counts the same
    before and after. Tokens are those of the text blocks; text that is not JSON
    and longer than 1 MiB counts bytes only (``uncounted``).
    """

    calls: int = 0
    rewritten: int = 0
    bytes_before: int = 0
    bytes_after: int = 0
    tokens_before: int = 0
    tokens_compact: int = 0
    tokens_after: int = 0
    hint_tokens: int = 0
    uncounted: int = 0  # results passed through whose text was too long to count tokens for
    # results that did not fit the tool's declared layout, and how the last one did not
    # (``new_field at $[0].email, search:v1``: kinds and places, never values)
    drifts: int = 0
    last_drift: str | None = None
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
    # the reading hint added once to the initialize/server/discover instructions
    instructions_hint_tokens: int = 0

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
            "instructions_hint_tokens": self.instructions_hint_tokens,
            "tools": {name: asdict(stats) for name, stats in self._snapshot()},
            "totals": self.totals(),
        }

    def totals(self) -> dict[str, int]:
        """All tools' results together, and the hint in the instructions."""
        tools = [stats for _, stats in self._snapshot()]
        return {
            "calls": sum(s.calls for s in tools),
            "rewritten": sum(s.rewritten for s in tools),
            "tokens_before": sum(s.tokens_before for s in tools),
            "tokens_compact": sum(s.tokens_compact for s in tools),
            "tokens_after": sum(s.tokens_after for s in tools) + self.instructions_hint_tokens,
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
            lines.append(
                f"  {name}: {s.calls} calls, {s.rewritten} rewritten"
                f"{f' as {s.format}' if s.format else ''}{schema}; "
                f"{s.bytes_before} -> {s.bytes_after} bytes, "
                + _two_baselines(s.tokens_before, s.tokens_compact, s.tokens_after)
                + (f"; {s.uncounted} too long to count tokens" if s.uncounted else "")
                + (f"; {s.drifts} drifted from the layout ({s.last_drift})" if s.drifts else "")
            )
        if self.tools:
            t = self.totals()
            hint = self.instructions_hint_tokens
            lines.append(
                f"  all results ({t['calls']} calls"
                + (f", the {hint}-token hint in the instructions" if hint else "")
                + "): "
                + _two_baselines(t["tokens_before"], t["tokens_compact"], t["tokens_after"])
            )
        if len(lines) == 1:
            lines.append("  no tools/list or tools/call answers seen")
        return "\n".join(lines)


def _saving(before: int, after: int) -> str:
    if before <= 0:
        return ""
    return f" ({100 * (before - after) / before:.1f}% saved)"


def _percent(before: int, after: int) -> str:
    return "n/a" if before <= 0 else f"{100 * (before - after) / before:.1f}%"


def _two_baselines(text: int, compact: int, after: int) -> str:
    """``1022 -> 376 tokens (63.2% saved vs the text as sent, 41.0% vs compact JSON 637)``."""
    return (
        f"{text} -> {after} tokens ({_percent(text, after)} saved vs the text as sent, "
        f"{_percent(compact, after)} vs compact JSON {compact})"
    )


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
