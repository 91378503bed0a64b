"""Rewrite the answers worth rewriting: ``tools/list`` and tabular ``tools/call`` results.

One :class:`ResponseInterceptor` serves one upstream server; it owns that
server's schema lifecycle, filters and stats, so several servers never share
schema ids or versions.

A ``tools/call`` result is rewritten only when all of these hold:

- it is a complete, successful result: no ``isError``, no ``input_required``,
  no task handle;
- its content is text only (no images, audio, resources, annotations) and the
  text is JSON of a tabular shape (:mod:`.tabular`);
- the encoding plus the hint costs fewer tokens than the original text.

Otherwise the original message goes out byte for byte. The rewritten result has
the optional hint block, then one text block with the encoding, every other
member kept. With ``structured="drop"`` its ``structuredContent`` is removed and
``tools/list`` advertises no ``outputSchema``, so no client validates a value
that changed; with ``"keep"`` both stay as the server sent them.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Literal

import orjson

from ..errors import GcxwireError
from . import codecs
from .codecs import DcpCodec, Format
from .jsonrpc import JsonObject, PendingRequest
from .lifecycle import SchemaLifecycle, SchemaVersion
from .presets import FieldFilter
from .slim import slim_tools_list
from .stats import ProxyStats
from .tabular import Table, find_table, parse_text_blocks

__all__ = ["HINTS", "Encoding", "ResponseInterceptor", "hint_for"]

log = logging.getLogger("gcxwire.proxy")

# How a model reads each encoding, at most two lines. Without one the
# dcp-gateway measured ~15 % column-offset errors on $S payloads.
HINTS: dict[str, str] = {
    "dcp": 'DCP: the ["$S",schema,field...] line names the columns; each next array is one row.',
    "gcx": "GCX1: fields= names the columns; each next line is one row, cells TAB-separated.",
}
WRAPPER_HINTS: dict[str, str] = {
    "dcp": "The {...} line first holds the other members of the object around the rows.",
    "gcx": "The rows sit under the member named by of=; pairs like total_count=4 are its siblings.",
}


def hint_for(format: str, wrapped: bool) -> str | None:
    """The hint for an encoding (``None`` for JSON, which needs none)."""
    hint = HINTS.get(format)
    if hint is not None and wrapped:
        hint += "\n" + WRAPPER_HINTS[format]
    return hint


@dataclass(frozen=True)
class Encoding:
    """The text chosen for one result and what it cost."""

    text: str
    format: str  # "gcx", "dcp" or "json"
    tokens: int
    schema: SchemaVersion | None = None


class ResponseInterceptor:
    def __init__(
        self,
        *,
        stats: ProxyStats,
        format: Literal["auto", "gcx", "dcp"] = "auto",
        structured: Literal["keep", "drop"] = "drop",
        hint: bool = True,
        slim_tools: bool = True,
        lifecycle: SchemaLifecycle | None = None,
        dcp: DcpCodec | None = None,
        filters: dict[str, FieldFilter] | None = None,
    ) -> None:
        self.stats = stats
        self.format = format
        self.structured = structured
        self.hint = hint
        self.slim_tools = slim_tools
        self.lifecycle = lifecycle
        self.dcp = dcp
        self.filters = dict(filters or {})

    # -- the relay's hook -------------------------------------------------------

    def rewrite(self, request: PendingRequest, response: JsonObject) -> JsonObject | None:
        result = response.get("result")
        if not isinstance(result, dict):
            return None
        if request.method == "tools/list":
            new = self.rewrite_tools_list(result)
        elif request.tool is not None:
            new = self.rewrite_tool_result(request.tool, result)
        else:
            return None
        return None if new is None else {**response, "result": new}

    # -- tools/list -----------------------------------------------------------

    def rewrite_tools_list(self, result: JsonObject) -> JsonObject | None:
        drop = self.structured == "drop"
        if self.slim_tools:
            new = slim_tools_list(result, drop_output_schema=drop)
        elif drop and isinstance(result.get("tools"), list):
            new = {**result, "tools": [_without_output_schema(t) for t in result["tools"]]}
        else:
            return None
        tools = result.get("tools")
        before = orjson.dumps(tools).decode()
        after = orjson.dumps(new.get("tools")).decode()
        counters = self.stats.tools_list
        counters.lists += 1
        counters.tools = len(tools) if isinstance(tools, list) else 0
        counters.bytes_before += len(before.encode())
        counters.bytes_after += len(after.encode())
        counters.tokens_before += codecs.count_tokens(before)
        counters.tokens_after += codecs.count_tokens(after)
        return None if new == result else new  # nothing to slim: the original bytes go out

    # -- tools/call -----------------------------------------------------------

    def rewrite_tool_result(self, tool: str, result: JsonObject) -> JsonObject | None:
        counters = self.stats.tool(tool)
        counters.calls += 1
        size = len(orjson.dumps(result))
        counters.bytes_before += size
        texts = _plain_texts(result)
        value = None if texts is None else parse_text_blocks(texts, codecs.loads)
        table = None if value is None else find_table(value)
        if texts is None or table is None:
            counters.bytes_after += size
            return None
        before = sum(codecs.count_tokens(text) for text in texts)
        chosen = self._encode(tool, table)
        hint = None
        if chosen is not None and self.hint:
            hint = hint_for(chosen.format, table.wrapper_key is not None)
        hint_cost = 0 if hint is None else codecs.count_tokens(hint)
        if chosen is None or chosen.tokens + hint_cost >= before:
            counters.bytes_after += size
            counters.tokens_before += before
            counters.tokens_after += before
            self._note_schema(tool, None)
            return None
        content: list[JsonObject] = []
        if hint is not None:
            content.append({"type": "text", "text": hint})
        content.append({"type": "text", "text": chosen.text})
        new = {**result, "content": content}
        if self.structured == "drop":
            new.pop("structuredContent", None)
        counters.rewritten += 1
        counters.bytes_after += len(orjson.dumps(new))
        counters.tokens_before += before
        counters.tokens_after += chosen.tokens + hint_cost
        counters.hint_tokens += hint_cost
        counters.format = chosen.format
        self._note_schema(tool, chosen.schema)
        return new

    def _note_schema(self, tool: str, used: SchemaVersion | None) -> None:
        """Stats show the schema that encoded the result, else the tool's current one."""
        schema = used or (self.lifecycle.current(tool) if self.lifecycle else None)
        if schema is not None:
            counters = self.stats.tool(tool)
            counters.schema_id, counters.schema_status = schema.id, schema.status

    def _filtered(self, tool: str, table: Table) -> Table:
        field_filter = self.filters.get(tool) or self.filters.get("*")
        return table.map_rows(field_filter.apply) if field_filter else table

    def _encode(self, tool: str, table: Table) -> Encoding | None:
        """The cheapest exact encoding of ``table`` in the chosen format, or ``None``."""
        table = self._filtered(tool, table)
        if self.format == "gcx":
            return self._encode_select(tool, table.value, "gcx")
        dcp = self._encode_dcp(tool, table)
        if self.format == "dcp":
            return dcp or self._encode_select(tool, table.value, "dcp")
        if dcp is None:
            return self._encode_select(tool, table.value, "auto")
        # The tool's own DCP carries its versioned schema id (tool:vN); select's
        # DCP would be the same format under a generic id, so it does not compete.
        others = [self._encode_select(tool, table.value, fmt) for fmt in ("gcx", "json")]
        return min([dcp, *(c for c in others if c is not None)], key=lambda c: c.tokens)

    def _encode_select(self, tool: str, value: Any, fmt: Format) -> Encoding | None:
        """``gcxwire.select``'s encoding in ``fmt``, if it reads back exactly
        (``auto`` checks that itself; compact JSON needs no check)."""
        try:
            text = codecs.encode(value, tool=tool, format=fmt)
        except GcxwireError as exc:  # this format cannot carry the value
            log.debug("%s cannot encode a result of %s: %s", fmt, tool, exc)
            return None
        if fmt not in ("auto", "json") and not codecs.same_value(codecs.decode(text), value):
            log.debug("%s does not read back exactly for %s", fmt, tool)
            return None
        return Encoding(text, codecs.detect(text), codecs.count_tokens(text))

    def _encode_dcp(self, tool: str, table: Table) -> Encoding | None:
        """DCP with the tool's lifecycle schema, kept only if it reads back exactly."""
        rows = table.rows
        if self.dcp is None or self.lifecycle is None or rows is None:
            return None
        schema = self.lifecycle.schema_for(tool, rows)
        if schema.status == "preset":  # the user chose its fields: no exactness to check
            try:
                text = self.dcp.encode(table, schema)
                codecs.decode(text)
            except Exception as exc:
                log.warning("preset %s cannot encode a result of %s: %r", schema.id, tool, exc)
                return None
            return Encoding(text, "dcp", codecs.count_tokens(text), schema)
        try:
            text = self.dcp.encode(table, schema)
            if codecs.same_value(codecs.decode(text), _expected(table, schema.dropped)):
                return Encoding(text, "dcp", codecs.count_tokens(text), schema)
            log.debug("DCP with %s does not read back exactly for %s", schema.id, tool)
        except Exception as exc:  # a codec limit is a reason to pass, not to fail
            log.debug("DCP with %s failed for %s: %r", schema.id, tool, exc)
        return None


def _without_output_schema(tool: Any) -> Any:
    if isinstance(tool, dict) and "outputSchema" in tool:
        return {k: v for k, v in tool.items() if k != "outputSchema"}
    return tool


def _plain_texts(result: JsonObject) -> list[str] | None:
    """The texts of a complete result whose content is only plain text blocks."""
    if result.get("isError") is True or result.get("resultType", "complete") != "complete":
        return None
    content = result.get("content")
    if not isinstance(content, list) or not content:
        return None
    texts: list[str] = []
    for block in content:
        if (
            not isinstance(block, dict)
            or block.get("type") != "text"
            or not isinstance(block.get("text"), str)
            or set(block) != {"type", "text"}
        ):
            return None
        texts.append(block["text"])
    return texts


def _expected(table: Table, dropped: tuple[str, ...]) -> Any:
    """What a decode must give back: the value, minus fields a confirmed schema
    left out because they were null in every sampled row."""
    if not dropped:
        return table.value
    return table.map_rows(lambda row: _drop_paths(row, dropped)).value


def _drop_paths(row: dict[str, Any], paths: tuple[str, ...]) -> dict[str, Any]:
    out = dict(row)
    for path in paths:
        head, _, rest = path.partition(".")
        if head not in out:
            continue
        if not rest:
            del out[head]
        elif isinstance(out[head], dict):
            out[head] = _drop_paths(out[head], (rest,))
    return out
