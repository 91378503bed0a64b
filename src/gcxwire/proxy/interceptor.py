"""Rewrite the answers worth rewriting: ``tools/list``, JSON ``tools/call`` results,
and the reading hint in the ``initialize`` (or ``server/discover``) result.

One :class:`ResponseInterceptor` serves one upstream server; it owns that
server's schema lifecycle, filters and stats, so several servers never share
schema ids or versions.

A ``tools/call`` result is rewritten only when all of these hold:

- it is a complete, successful result: no ``isError``, no ``input_required``,
  no task handle;
- its content is text only (no images, audio, resources, annotations) and the
  text is JSON whose number literals read back as written (``jsonrpc.numbers_survive``);
- the cheapest exact form (GCX1 or DCP for a table, :mod:`.tabular`; compact JSON,
  or ``gcxwire.encode``'s pick, for any other value) plus any hint it still
  needs costs fewer tokens than the original text.

Otherwise the original message goes out byte for byte. The rewritten result has
the optional hint block, then one text block with the encoding, every other
member kept. With ``structured="drop"`` its ``structuredContent`` is removed and
``tools/list`` advertises no ``outputSchema``, so no client validates a value
that changed; with ``"keep"`` both stay as the server sent them.

The hint (how to read GCX1 and DCP) is said once per session: by default in
the ``instructions`` of the ``initialize``/``server/discover`` result, merged
with the server's own; a result carries hint lines only for what the session
has not been told yet (:class:`HintSession`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

import orjson

from ..errors import GcxwireError
from ..mcp import MARKERS, hint_markers, reading_hint
from . import codecs
from .codecs import DcpCodec, Format
from .jsonrpc import JsonObject, LineNumbers, PendingRequest, line_numbers, numbers_survive
from .later import later
from .lifecycle import SchemaLifecycle, SchemaVersion
from .presets import FieldFilter
from .slim import slim_tools_list
from .stats import ProxyStats, ToolStats
from .tabular import Table, find_table, parse_text_blocks

__all__ = [
    "Encoding",
    "HintMode",
    "HintSession",
    "ResponseInterceptor",
    "instructions_hint",
]

log = logging.getLogger(__name__)

# Text that is not JSON is passed through; above this many characters its tokens
# are not counted (8 MB of one repeated character take cl100k ~7 s of CPU), only bytes.
COUNT_LIMIT = 1 << 20

HintMode = Literal["session", "first-use", "per-result", "off"]

# A table of at least twice this many rows is sampled (this many rows, evenly
# spaced) to tell whether its DCP is worth writing in full. Below that the sample
# costs as much as the whole DCP (0.5 against 0.35 ms plus its count at 50 rows).
SAMPLED_ROWS = 32
# Schemas the user chose (a preset, a declared layout): their DCP is always written.
_CHOSEN = ("preset", "declared")

# A race among a table's candidates (GCX1, DCP, compact JSON) is remembered for
# results of the same tool and shape (keys, kind, row-count octave, DCP schema id)
# when its winner beat every other by over this share, and the text as sent too.
# Such a result is written only in the winning format, still read back and
# checked in full, and its tokens are estimated from a small sample (a close
# call is counted exactly); every VERDICT_USES-th one races again.
VERDICT_MARGIN = 0.1
VERDICT_USES = 16
VERDICTS_KEPT = 256
# Under ``format="auto"`` a result of at most one row (or no table) whose
# compact JSON is at most this many characters (about 50 tokens) goes out as
# compact JSON, with no other candidate written: a header costs about what one
# row's keys save (one row of the benchmark table: GCX1 33 tokens, compact JSON
# 32, DCP 37). Several short rows still race: four of them can save 40 %.
SMALL_JSON = 200


class HintSession:
    """Which markers of the payloads (``gcxwire.mcp.hint_markers``) the client
    has been told how to read.

    ``session`` (the default): how to read the format's tables goes into the
    ``instructions`` of the ``initialize``/``server/discover`` result; a result
    carries the lines only for markers the session has not been told (the rarer
    ones; everything when a 2026-07-28 client never asks for ``server/discover``).
    ``first-use``: nothing in the instructions, so a session that never gets a
    table pays nothing; each marker is explained with the first result using it.
    ``per-result``: every rewritten result carries the hint for the markers it
    uses. ``off``: never. One session may serve several interceptors (a gateway's
    servers share the client).
    """

    def __init__(self, mode: HintMode = "session") -> None:
        self.mode: HintMode = mode
        self._told: set[str] = set()

    def for_result(self, text: str) -> tuple[str, tuple[str, ...]]:
        """The hint to put before a result whose payload is ``text`` (``""``:
        none), and the markers it explains."""
        if self.mode == "off":
            return "", ()
        markers = hint_markers(text)
        if self.mode != "per-result":
            markers = tuple(m for m in markers if m not in self._told)
        if not markers:
            return "", ()
        return reading_hint(text, explained=set(hint_markers(text)) - set(markers)), markers

    def told(self, markers: Iterable[str]) -> None:
        """A result explaining ``markers`` went to the client."""
        if self.mode != "per-result":
            self._told.update(markers)

    def with_instructions(self, result: JsonObject, format: str) -> tuple[JsonObject, str] | None:
        """``result`` (of initialize or server/discover) with :func:`instructions_hint`
        after the server's own ``instructions``, and that hint; ``None`` for no change."""
        if self.mode != "session":
            return None
        hint = instructions_hint(format)
        own = result.get("instructions")
        text = f"{own}\n\n{hint}" if isinstance(own, str) and own.strip() else hint
        self._told.update(_BASE_MARKERS[format])
        return {**result, "instructions": text}, hint


# The markers every payload of a format uses: said once in the instructions. The
# others (of=, flat=, guards...) are said with the first result that uses them,
# so a session pays only for what it sees (all of them would be ~430 tokens).
_BASE_MARKERS: dict[str, tuple[str, ...]] = {
    "auto": ("gcx", "dcp"),
    "gcx": ("gcx",),
    "dcp": ("dcp",),
}


def instructions_hint(format: str) -> str:
    """The hint the instructions carry for ``--format format``: how to read its tables."""
    base = _BASE_MARKERS[format]
    return reading_hint(format, explained=[m for m in MARKERS if m not in base])


@dataclass(frozen=True)
class Encoding:
    """The text chosen for one result and what it cost."""

    text: str
    format: str  # "gcx", "dcp" or "json"
    tokens: int
    schema: SchemaVersion | None = None
    spread: float = 0.0  # the standard error of ``tokens`` when it is estimated (long texts)

    @classmethod
    def of(
        cls, text: str, format: str, schema: SchemaVersion | None = None, quick: bool = False
    ) -> Encoding:
        """Counted exactly up to ``codecs.EXACT_STATS`` characters, else estimated
        (``quick``: from ``codecs.QUICK_SAMPLE`` characters, for a remembered verdict)."""
        if quick:
            tokens, spread = codecs.quick_tokens(text)
            return cls(text, format, round(tokens), schema, spread)
        if len(text) <= codecs.EXACT_STATS:
            return cls(text, format, codecs.count_tokens(text), schema)
        tokens, spread = codecs.estimate_tokens(text)
        return cls(text, format, round(tokens), schema, spread)

    def exactly(self) -> Encoding:
        if not self.spread:
            return self
        return Encoding(self.text, self.format, codecs.count_tokens(self.text), self.schema)


@dataclass
class _Verdict:
    """The format that won a tool's last race by a wide margin, and how often it
    has decided since."""

    format: str
    uses: int = 0


@dataclass
class _Plan:
    """One table result of a tool whose races are remembered (``format="auto"``,
    a learned DCP schema): its filtered table and rows, the tool's DCP schema,
    and the verdict of an earlier race of the same shape, if any."""

    table: Table
    rows: list[Any]
    schema: SchemaVersion
    counted: bool  # whether the lifecycle has counted these rows (``schema`` is theirs)
    key: tuple[Any, ...]
    verdict: _Verdict | None
    clear: bool = False  # set by a race whose winner is clear enough to remember


def _clear_winner(chosen: Encoding, found: list[Encoding]) -> bool:
    """Whether ``chosen`` costs less than every other candidate by over
    ``VERDICT_MARGIN``, four standard errors included."""
    if len(found) < 2:  # nothing was beaten (the tool's DCP failed; auto chose)
        return False
    most = (chosen.tokens + 4 * chosen.spread) * (1 + VERDICT_MARGIN)
    return all(
        other.tokens - 4 * other.spread > most for other in found if other.format != chosen.format
    )


def _baseline(text: str, quick: bool) -> tuple[int, float]:
    """A text's tokens and their standard error (0: counted)."""
    if quick:
        tokens, spread = codecs.quick_tokens(text)
        return round(tokens), spread
    tokens_, exact = codecs.stats_tokens(text)
    return tokens_, 0.0 if exact else codecs.estimate_tokens(text)[1]


def no_more(a: Encoding, b: Encoding, extra: int = 0) -> bool:
    """``a.tokens <= b.tokens + extra``, counted exactly where estimates cannot tell."""
    if abs(a.tokens - b.tokens - extra) <= 4 * (a.spread**2 + b.spread**2) ** 0.5:
        a, b = a.exactly(), b.exactly()
    return a.tokens <= b.tokens + extra


def cheapest(found: list[Encoding]) -> Encoding:
    """The encoding with the fewest tokens (the first of equals); estimates
    decide only where they are over 1 % plus four standard errors apart, the
    rest are counted exactly, as ``gcxwire.encode`` decides."""
    best = min(found, key=lambda encoding: encoding.tokens)
    close = [
        encoding
        for encoding in found
        if encoding.tokens - best.tokens
        <= 0.01 * best.tokens + 4 * (encoding.spread**2 + best.spread**2) ** 0.5
    ]
    if len(close) == 1:
        return best
    return min((encoding.exactly() for encoding in close), key=lambda encoding: encoding.tokens)


class ResponseInterceptor:
    def __init__(
        self,
        *,
        stats: ProxyStats,
        format: Literal["auto", "gcx", "dcp"] = "auto",
        structured: Literal["keep", "drop"] = "drop",
        hint: bool | HintMode = "session",
        slim_tools: bool = True,
        lifecycle: SchemaLifecycle | None = None,
        dcp: DcpCodec | None = None,
        filters: dict[str, FieldFilter] | None = None,
        hints: HintSession | None = None,
        instructions: bool = True,
    ) -> None:
        self.stats = stats
        self.format = format
        self.structured = structured
        mode: HintMode = ("session" if hint else "off") if isinstance(hint, bool) else hint
        # A gateway's servers share one session; the gateway then writes the
        # instructions itself (``instructions=False``), once for all servers.
        self.hints = hints if hints is not None else HintSession(mode)
        self.instructions = instructions
        self.slim_tools = slim_tools
        self.lifecycle = lifecycle
        self.dcp = dcp
        self.filters = dict(filters or {})
        self._verdicts: dict[tuple[Any, ...], _Verdict] = {}

    @property
    def hint(self) -> bool:
        return self.hints.mode != "off"

    # -- the relay's hook -------------------------------------------------------

    def rewrite(self, request: PendingRequest, response: JsonObject) -> JsonObject | None:
        result = response.get("result")
        if not isinstance(result, dict):
            return None
        if request.method == "tools/list":
            new = self.rewrite_tools_list(result)
        elif request.tool is not None:
            new = self.rewrite_tool_result(request.tool, result)
        elif request.method in ("initialize", "server/discover") and self.instructions:
            new = self.rewrite_hello(result)
        else:
            return None
        return None if new is None else {**response, "result": new}

    def rewrite_hello(self, result: JsonObject) -> JsonObject | None:
        """The session's reading hint in the ``instructions`` of ``result``."""
        told = self.hints.with_instructions(result, self.format)
        if told is None:
            return None
        new, hint = told
        self.stats.instructions_hint_tokens += codecs.count_tokens(hint)
        return new

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
        counters = self.stats.tools_list
        counters.lists += 1
        counters.tools = len(tools) if isinstance(tools, list) else 0

        def count() -> None:
            before = orjson.dumps(tools)
            after = orjson.dumps(new.get("tools"))
            counters.bytes_before += len(before)
            counters.bytes_after += len(after)
            counters.tokens_before += codecs.count_tokens(before.decode())
            counters.tokens_after += codecs.count_tokens(after.decode())

        later(count)
        return None if new == result else new  # nothing to slim: the original bytes go out

    # -- tools/call -----------------------------------------------------------

    def rewrite_tool_result(self, tool: str, result: JsonObject) -> JsonObject | None:
        counters = self.stats.tool(tool)
        counters.calls += 1
        later(lambda: _add_bytes_before(counters, result))
        texts = _plain_texts(result)
        value = None if texts is None else parse_text_blocks(texts, _loads_for(line_numbers()))
        if texts is None or value is None:
            all_texts = _all_texts(result)
            if sum(len(text) for text in all_texts) > COUNT_LIMIT:
                counters.uncounted += 1  # bytes only: see COUNT_LIMIT
                later(lambda: _add_bytes_after(counters, result))
                return None

            def tokens() -> tuple[int, int]:
                sent = sum(codecs.count_tokens(text) for text in all_texts)
                return sent, sent

            self._passed(tool, result, tokens)
            return None
        # The proxy's parser keeps long ints exactly; any other literal must read back as written.
        if not _texts_numbers_survive(texts):
            log.debug("%s: a number literal would not read back as written; passing", tool)
            self._passed(
                tool,
                result,
                lambda: (
                    sum(_baseline(text, False)[0] for text in texts),
                    _baseline(_compact_baseline(texts, value), False)[0],
                ),
            )
            return None
        compact_text = _compact_baseline(texts, value)
        # orjson's bytes of the value, for the read-backs' comparison (one text block)
        value_json = compact_text.encode() if len(texts) == 1 else None
        # One short row goes out as compact JSON unraced, before any DCP
        # bookkeeping: DCP does not compete for it, so the lifecycle need not see it.
        small = self.format == "auto" and len(compact_text) <= SMALL_JSON and _one_row(value)
        plan = None if small else self._plan(tool, value)
        quick = plan is not None and plan.verdict is not None
        counted = [_baseline(text, quick) for text in texts]
        before = sum(tokens for tokens, _ in counted)
        before_spread = sum(spread**2 for _, spread in counted) ** 0.5
        if small:
            chosen = self._encode_select(tool, value, "json")
        elif plan is not None:
            chosen = self._by_verdict(tool, plan, value_json if plan.table.value is value else None)
        else:
            chosen = None
        hint, markers = ("", ()) if chosen is None else self.hints.for_result(chosen.text)
        raced = chosen is None or bool(hint)  # a hint is weighed against compact JSON by a race
        if raced:
            chosen = self._cheapest(tool, value, plan)
            hint, markers = ("", ()) if chosen is None else self.hints.for_result(chosen.text)
        # A race's winner is remembered only if it needed no hint (the hint may
        # hand the result to compact JSON below: that is no verdict on the shape).
        verdict = chosen if raced and plan is not None and not hint else None
        hint_cost = codecs.count_tokens(hint) if hint else 0
        if chosen is not None and hint and self.format == "auto":
            # Compact JSON needs no hint: counting the hint, it may be the cheapest.
            plain = self._encode_select(tool, value, "json")
            if plain is not None and no_more(plain, chosen, hint_cost):
                chosen, hint, markers, hint_cost = plain, "", (), 0
        if chosen is not None:
            error = 4 * (chosen.spread**2 + before_spread**2) ** 0.5
            if chosen.tokens + hint_cost + error >= before * 0.9:
                chosen = chosen.exactly()  # near: estimates cannot say which is smaller
                if before_spread:
                    before = sum(codecs.count_tokens(text) for text in texts)
        if chosen is None or chosen.tokens + hint_cost >= before:
            sent = before
            self._passed(tool, result, lambda: (sent, _baseline(compact_text, quick)[0]))
            return None
        if verdict is not None and verdict is chosen and plan is not None:
            self._remember(plan, chosen, before)
        self.hints.told(markers)
        content: list[JsonObject] = []
        if hint:
            content.append({"type": "text", "text": hint})
        content.append({"type": "text", "text": chosen.text})
        new = {**result, "content": content}
        if self.structured == "drop":
            new.pop("structuredContent", None)
        counters.rewritten += 1
        later(lambda: _add_bytes_after(counters, new))
        later(lambda: _add_compact(counters, _baseline(compact_text, quick)[0]))
        counters.tokens_before += before
        counters.tokens_after += chosen.tokens + hint_cost
        counters.hint_tokens += hint_cost
        counters.format = chosen.format
        self._note_schema(tool, chosen.schema)
        return new

    def _passed(self, tool: str, result: JsonObject, tokens: Callable[[], tuple[int, int]]) -> None:
        """Count a result that goes out as the server sent it: ``tokens()``
        gives its tokens as sent and as compact JSON (run once it is on its way)."""
        counters = self.stats.tool(tool)

        def count() -> None:
            sent, compact = tokens()
            _add_bytes_after(counters, result)
            counters.tokens_before += sent
            counters.tokens_compact += compact
            counters.tokens_after += sent
            self._note_schema(tool, None)

        later(count)

    def _plan(self, tool: str, value: Any) -> _Plan | None:
        """The plan for a table result whose race may be remembered.

        Its rows are counted for the tool's DCP schema here, except where a
        remembered verdict for another format decides it: DCP does not compete
        for that result, so the lifecycle need not see it (:meth:`_schema`
        counts them if the result goes to a race after all)."""
        lifecycle = self.lifecycle
        if self.format != "auto" or self.dcp is None or lifecycle is None:
            return None
        if lifecycle.preset(tool) is not None:  # the user's schema: always raced
            return None
        found = find_table(value)
        if found is None or found.rows is None:
            return None
        table = self._filtered(tool, found)
        rows = table.rows
        assert rows is not None
        around = tuple(value) if table.kind == "wrapper" else ()
        octave = len(rows).bit_length()
        shape = (tool, table.kind, table.wrapper_key, around, tuple(rows[0]), octave)
        current = lifecycle.current(tool)
        if current is not None:
            verdict = self._verdicts.get((*shape, current.id))
            if verdict is not None and verdict.format != "dcp":
                return _Plan(table, rows, current, False, (*shape, current.id), verdict)
        schema = lifecycle.schema_for(tool, rows)
        key = (*shape, schema.id)
        return _Plan(table, rows, schema, True, key, self._verdicts.get(key))

    def _schema(self, tool: str, plan: _Plan) -> SchemaVersion:
        """The plan's DCP schema, its rows counted by the lifecycle (once)."""
        if not plan.counted:
            assert self.lifecycle is not None
            plan.schema = self.lifecycle.schema_for(tool, plan.rows)
            plan.counted = True
        return plan.schema

    def _by_verdict(
        self, tool: str, plan: _Plan, value_json: bytes | None = None
    ) -> Encoding | None:
        """The result in its remembered winning format (``None``: race instead);
        ``value_json`` is ``orjson.dumps(plan.table.value)`` when the caller has it."""
        verdict = plan.verdict
        if verdict is None:
            return None
        verdict.uses += 1
        if verdict.uses >= VERDICT_USES:  # race again now and then
            del self._verdicts[plan.key]
            return None
        if verdict.format == "dcp":
            return self._encode_dcp(tool, plan.table, plan.schema, quick=True)
        value = plan.table.value
        return self._encode_select(tool, value, verdict.format, quick=True, value_json=value_json)

    def _remember(self, plan: _Plan, chosen: Encoding, before: int) -> None:
        """Keep the race's verdict if it was clear and well below the text as sent."""
        if not plan.clear or chosen.tokens * (1 + VERDICT_MARGIN) > before:
            return
        if len(self._verdicts) >= VERDICTS_KEPT:
            self._verdicts.clear()
        self._verdicts[plan.key] = _Verdict(chosen.format)

    def _cheapest(self, tool: str, value: Any, plan: _Plan | None = None) -> Encoding | None:
        """A table in the chosen format; any other JSON value (or a table no
        format carries more cheaply) as compact JSON or gcxwire.encode's pick."""
        table = find_table(value)
        if plan is not None:  # format="auto", a learned DCP schema: no layout to drift from
            chosen, found = self._race(tool, plan.table, self._schema(tool, plan))
            plan.clear = chosen is not None and _clear_winner(chosen, found)
        elif self._drifted(tool, value, table):  # as if the tool had no layout or DCP schema
            fmt: Format = self.format
            chosen = None if table is None else self._encode_select(tool, table.value, fmt)
        else:
            chosen = None if table is None else self._encode(tool, table)
        if chosen is not None and (self.format == "auto" or chosen.format != "json"):
            return chosen
        plain = self._encode_select(tool, value, "auto" if table is None else "json")
        if chosen is None or (plain is not None and not no_more(chosen, plain)):
            return plain
        return chosen

    def _drifted(self, tool: str, value: Any, table: Table | None) -> bool:
        """Whether a result of a tool with a declared layout does not fit it.

        A drift is counted in the stats and logged (its kinds and places, never a
        value); the result then goes out in the encoding inferred from the value
        itself, never under the layout's id (or as sent, if that is not smaller).
        """
        declared = self.lifecycle.preset(tool) if self.lifecycle is not None else None
        layout = None if declared is None else declared.layout
        if layout is None:
            return False
        drifts = layout.check(value if table is None else self._filtered(tool, table).value)
        if not drifts:
            return False
        first = drifts[0]
        counters = self.stats.tool(tool)
        counters.drifts += 1
        counters.last_drift = f"{first.kind} {first.field or '-'} at {first.path}, {layout.id}"
        more = f" and {len(drifts) - 1} more" if len(drifts) > 1 else ""
        log.warning(
            "%s: a result does not fit its layout (%s%s); sent in the inferred encoding",
            tool,
            first,
            more,
        )
        return True

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
        if self.format == "dcp":
            return self._encode_dcp(tool, table) or self._encode_select(tool, table.value, "dcp")
        if self.dcp is None or self.lifecycle is None or table.rows is None:
            return self._encode_select(tool, table.value, "auto")
        schema = self.lifecycle.schema_for(tool, table.rows)  # counts the rows either way
        return self._race(tool, table, schema)[0]

    def _race(
        self, tool: str, table: Table, schema: SchemaVersion
    ) -> tuple[Encoding | None, list[Encoding]]:
        """The cheapest of the tool's DCP, GCX1 and compact JSON, and the
        candidates it beat (none when the tool's DCP failed and ``auto`` chose)."""
        # The tool's own DCP carries its versioned schema id (tool:vN); _auto's
        # DCP would be the same format under a generic id, so it does not compete.
        others = [self._encode_select(tool, table.value, fmt) for fmt in ("gcx", "json")]
        gcx = others[0]
        loses = gcx is not None and self._dcp_clearly_loses(table, schema, gcx)
        dcp = None if loses else self._encode_dcp(tool, table, schema)
        if dcp is None and not loses:
            return self._encode_select(tool, table.value, "auto"), []
        found = [c for c in (dcp, *others) if c is not None]
        return cheapest(found), found

    def _dcp_clearly_loses(self, table: Table, schema: SchemaVersion, gcx: Encoding) -> bool:
        """Whether the tool's DCP would cost more than ``gcx`` by over 1 % plus
        four standard errors, judged from the same sampled rows in both (a
        table of at least ``SAMPLED_ROWS`` rows whose GCX1 writes a line per
        row). What it saves is writing and checking the whole DCP text (pure
        Python: 70 ms at 5,000 rows)."""
        rows = table.rows
        assert rows is not None and self.dcp is not None
        if table.kind != "rows" or len(rows) < 2 * SAMPLED_ROWS or schema.status in _CHOSEN:
            return False
        picked = [index * len(rows) // SAMPLED_ROWS for index in range(SAMPLED_ROWS)]
        lines = gcx.text.split("\n")
        head = len(lines) - len(rows)
        if head < 1 or not gcx.text.startswith("GCX1") or "\nGCX1" in gcx.text:
            return False  # child sections (of=): its lines are not one per row
        gcx_rows = [lines[head + index] + "\n" for index in picked]
        per_row = sum(map(len, gcx_rows)) / len(picked)
        if abs(len(gcx.text) - per_row * len(rows)) > 0.1 * len(gcx.text):
            return False  # rows the sample missed are unlike it
        try:
            sample = self.dcp.encode(Table("rows", [rows[index] for index in picked]), schema)
        except Exception:  # the whole table's encode will say why
            return False
        dcp_lines = sample.split("\n")
        dcp_head = len(dcp_lines) - len(picked)
        if dcp_head < 1:
            return False
        count = codecs.count_part
        differences = [
            count(dcp_lines[dcp_head + i] + "\n") - count(line) for i, line in enumerate(gcx_rows)
        ]
        headers = count("\n".join(dcp_lines[:dcp_head]) + "\n") - count(
            "\n".join(lines[:head]) + "\n"
        )
        more = headers + len(rows) * sum(differences) / len(differences)
        return more > 0.01 * gcx.tokens + 4 * codecs.spread_of_total(differences, len(rows))

    def _encode_select(
        self,
        tool: str,
        value: Any,
        fmt: Format | str,
        quick: bool = False,
        value_json: bytes | None = None,
    ) -> Encoding | None:
        """``gcxwire.encode``'s encoding in ``fmt``, if it reads back exactly
        (``auto`` checks that itself; compact JSON needs no check). ``value_json``
        is ``orjson.dumps(value)`` when the caller has it (``codecs.same``)."""
        try:
            text = (
                codecs.compact(value)
                if fmt == "json"
                else codecs.encode(value, tool=tool, format=fmt)  # type: ignore[arg-type]
            )
        except GcxwireError as exc:  # this format cannot carry the value
            log.debug("%s cannot encode a result of %s: %s", fmt, tool, exc)
            return None
        exact = fmt in ("auto", "json") or codecs.reads_back(value, codecs.decode(text), value_json)
        if not exact:
            log.debug("%s does not read back exactly for %s", fmt, tool)
            return None
        return Encoding.of(text, codecs.detect(text), quick=quick)

    def _encode_dcp(
        self, tool: str, table: Table, schema: SchemaVersion | None = None, quick: bool = False
    ) -> Encoding | None:
        """DCP with the tool's lifecycle schema, kept only if it reads back exactly."""
        rows = table.rows
        if self.dcp is None or self.lifecycle is None or rows is None:
            return None
        if schema is None:
            schema = self.lifecycle.schema_for(tool, rows)
        if schema.status == "preset":  # the user chose its fields: no exactness to check
            try:
                text = self.dcp.encode(table, schema)
                codecs.decode(text)
            except Exception as exc:
                log.warning("preset %s cannot encode a result of %s: %r", schema.id, tool, exc)
                return None
            return Encoding.of(text, "dcp", schema)
        try:
            text = self.dcp.encode(table, schema)
            if codecs.same(_expected(table, schema.dropped), codecs.decode(text)):
                return Encoding.of(text, "dcp", schema, quick)
            log.debug("DCP with %s does not read back exactly for %s", schema.id, tool)
        except Exception as exc:  # a codec limit is a reason to pass, not to fail
            log.debug("DCP with %s failed for %s: %r", schema.id, tool, exc)
        return None


def _add_bytes_before(counters: ToolStats, result: JsonObject) -> None:
    counters.bytes_before += len(orjson.dumps(result))


def _add_bytes_after(counters: ToolStats, result: JsonObject) -> None:
    counters.bytes_after += len(orjson.dumps(result))


def _add_compact(counters: ToolStats, tokens: int) -> None:
    counters.tokens_compact += tokens


def _one_row(value: Any) -> bool:
    """Whether ``value`` is no table, an object table, or a table of one row."""
    table = find_table(value)
    if table is None or table.kind == "object":
        return True
    rows = table.rows
    return rows is not None and len(rows) <= 1


def _loads_for(numbers: LineNumbers | None) -> Callable[[str], Any]:
    """The parser of a result's texts: with no search for long digit runs when
    the answer line is plain (no run of 16 digits, no ``\\u`` escape writing
    one, :class:`~.jsonrpc.LineNumbers`), as no string of it can then hold one."""
    if numbers is None:
        return codecs.loads
    return lambda text: codecs.loads(text, long_digits=not numbers.plain())


def _texts_numbers_survive(texts: list[str]) -> bool:
    """Whether every number literal of the texts reads back as written (long
    ints too: the proxy's parser keeps them). A plain answer line says so for
    all of them at once: no scan per text (4 ms for 5,000 rows)."""
    numbers = line_numbers()
    if numbers is not None and numbers.plain():
        return True
    return all(numbers_survive(text.encode(), long_ints=True) for text in texts)


def _compact_baseline(texts: list[str], value: Any) -> str:
    """What the server would have sent as compact JSON: each block compacted."""
    if len(texts) == 1:
        return codecs.compact(value)
    return "".join(codecs.compact(item) for item in value)


def _all_texts(result: JsonObject) -> list[str]:
    """The texts of every text block of a result, whatever else it holds."""
    content = result.get("content")
    if not isinstance(content, list):
        return []
    return [
        block["text"]
        for block in content
        if isinstance(block, dict) and isinstance(block.get("text"), str)
    ]


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
        elif isinstance(out[head], dict) and out[head]:
            inner = _drop_paths(out[head], (rest,))
            if inner:
                out[head] = inner
            else:  # every member was left out: DCP has no column left for the parent
                del out[head]
    return out
