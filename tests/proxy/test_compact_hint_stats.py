"""Results that are not tables get compacted, the hint is said once per session,
and the stats measure against both the text as sent and compact JSON."""

from __future__ import annotations

import json
import re
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gcxwire import _auto, tokens
from gcxwire.mcp import HINT_OPENING, MARKERS, is_hint, reading_hint
from gcxwire.proxy.cli import build_interceptor
from gcxwire.proxy.interceptor import ResponseInterceptor, instructions_hint
from gcxwire.proxy.jsonrpc import PendingRequest, _suspect, numbers_survive
from gcxwire.proxy.options import parse_options
from gcxwire.proxy.stats import ProxyStats


def interceptor(*options: str) -> ResponseInterceptor:
    parsed = parse_options([*options, "--", "server"])
    return build_interceptor(parsed, ProxyStats(parsed.server_name))


def pretty(value: Any) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": json.dumps(value, indent=2)}]}


def as_result(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}]}


def rows(n: int, start: int = 0) -> list[dict[str, Any]]:
    return [{"id": i, "login": f"user{i}", "score": i / 4} for i in range(start, start + n)]


def texts_of(result: dict[str, Any] | None) -> list[str]:
    assert result is not None, "expected a rewrite"
    return [block["text"] for block in result["content"]]


# mcp-server-time's answer: a small object, pretty-printed by the server.
TIME = {
    "timezone": "Europe/Warsaw",
    "datetime": "2026-11-30T12:00:00+01:00",
    "day_of_week": "Monday",
    "is_dst": False,
}


# -- compact what is not tabular ------------------------------------------------------


def test_a_small_pretty_object_becomes_compact_json() -> None:
    ic = interceptor()
    new = ic.rewrite_tool_result("get_current_time", pretty(TIME))
    assert texts_of(new) == [json.dumps(TIME, separators=(",", ":"))]  # no hint for JSON
    counters = ic.stats.tool("get_current_time")
    assert counters.rewritten == 1 and counters.format == "json"
    assert counters.tokens_after == counters.tokens_compact < counters.tokens_before


def test_structured_content_of_a_compacted_result_follows_the_structured_option() -> None:
    result = {**pretty(TIME), "structuredContent": TIME}
    dropped = interceptor().rewrite_tool_result("t", result)
    assert dropped is not None and "structuredContent" not in dropped
    kept = interceptor("--structured", "keep").rewrite_tool_result("t", result)
    assert kept is not None and kept["structuredContent"] == TIME


@pytest.mark.parametrize("literal", ["1.50", "1e3", "1E+2", "-0", "100.000", "1e16"])
def test_a_number_literal_that_would_change_passes_the_result_through(literal: str) -> None:
    text = '{\n  "price": ' + literal + ',\n  "name": "widget"\n}'
    assert not numbers_survive(text.encode(), long_ints=True)
    assert interceptor().rewrite_tool_result("t", as_result(text)) is None
    table = "[\n" + ",\n".join(f'  {{"id": {i}, "price": {literal}}}' for i in range(20)) + "\n]"
    assert interceptor().rewrite_tool_result("t", as_result(table)) is None


@pytest.mark.parametrize("literal", ["1.5", "0.25", "-3", "100.0", "12345678901234567890123"])
def test_number_literals_written_as_the_codecs_write_them_are_rewritten(literal: str) -> None:
    text = '{\n  "price": ' + literal + ',\n  "name": "widget 1.50e3"\n}'
    assert numbers_survive(text.encode(), long_ints=True)
    new = interceptor().rewrite_tool_result("t", as_result(text))
    assert texts_of(new) == ['{"price":' + literal + ',"name":"widget 1.50e3"}']


def test_a_list_of_scalars_is_compacted_and_reads_back() -> None:
    value = list(range(40))
    new = interceptor().rewrite_tool_result("t", pretty(value))
    assert _auto.decode(texts_of(new)[-1]) == value


# -- the hint, once per session --------------------------------------------------------


def hello(ic: ResponseInterceptor, instructions: str | None = None) -> dict[str, Any]:
    """The initialize result the client gets."""
    result: dict[str, Any] = {"protocolVersion": "2025-11-25", "capabilities": {}}
    if instructions is not None:
        result["instructions"] = instructions
    response = {"jsonrpc": "2.0", "id": 0, "result": result}
    new = ic.rewrite(PendingRequest(0, "initialize", {}), response)
    return result if new is None else dict(new["result"])


def call(ic: ResponseInterceptor, i: int, value: Any) -> list[str]:
    response = {"jsonrpc": "2.0", "id": i, "result": pretty(value)}
    new = ic.rewrite(PendingRequest(i, "tools/call", {"name": "t"}), response)
    return texts_of(None if new is None else new["result"])


def hint_count(texts: list[str]) -> int:
    """How often the client was told how to read a GCX1 table (what these results are)."""
    return sum(text.count(MARKERS["gcx"]) for text in texts)


def test_the_hint_goes_into_the_instructions_once_and_no_result_repeats_it() -> None:
    ic = interceptor("--format", "gcx")
    result = hello(ic, "Use the search tool first.")
    assert result["instructions"] == "Use the search tool first.\n\n" + instructions_hint("gcx")
    outputs = [result["instructions"]]
    for i in range(1, 21):
        outputs += call(ic, i, rows(12, i))
    assert hint_count(outputs) == 1  # one hint for the whole session, 20 calls
    # The rows' float= column is explained once, with the first result; no marker twice.
    assert len(outputs) == 22 and is_hint(outputs[1]) and MARKERS["float"] in outputs[1]
    for line in MARKERS.values():
        assert sum(text.count(line) for text in outputs) <= 1
    assert ic.stats.instructions_hint_tokens == tokens.count(instructions_hint("gcx"))
    assert ic.stats.tool("t").hint_tokens == tokens.count(outputs[1])


def test_instructions_explain_both_formats_under_auto_and_rarer_markers_come_once() -> None:
    ic = interceptor()
    result = hello(ic)
    assert result["instructions"] == instructions_hint("auto")
    assert MARKERS["dcp"] in result["instructions"] and MARKERS["gcx"] in result["instructions"]
    assert MARKERS["of"] not in result["instructions"]  # said when a result first uses it
    assert tokens.count(instructions_hint("auto")) < tokens.count(reading_hint("auto")) / 2
    wrapper = {"total_count": 40, "items": rows(40)}
    first, second = call(ic, 1, wrapper), call(ic, 2, wrapper)
    assert is_hint(first[0]) and MARKERS["of"] in first[0] and MARKERS["gcx"] not in first[0]
    assert len(second) == 1


def test_without_a_handshake_each_marker_is_explained_once() -> None:
    ic = interceptor("--format", "gcx")  # a 2026-07-28 client that never asks server/discover
    first = call(ic, 1, rows(12))
    assert is_hint(first[0]) and MARKERS["gcx"] in first[0] and len(first) == 2
    assert MARKERS["of"] not in first[0]  # a plain table uses no of=
    assert len(call(ic, 2, rows(12, 12))) == 1  # told already
    wrapped = call(ic, 3, {"total_count": 12, "items": rows(12)})
    assert MARKERS["of"] in wrapped[0] and MARKERS["gcx"] not in wrapped[0]  # only what is new
    assert len(call(ic, 4, {"total_count": 12, "items": rows(12)})) == 1


def test_first_use_says_nothing_until_a_table_needs_it() -> None:
    ic = interceptor("--hint", "first-use", "--format", "gcx")
    assert "instructions" not in hello(ic)  # a session without tables pays nothing
    outputs = [text for i in range(5) for text in call(ic, i, rows(12, i))]
    assert hint_count(outputs) == 1 and is_hint(outputs[0])
    assert ic.stats.instructions_hint_tokens == 0


def test_per_result_hints_every_rewritten_result() -> None:
    ic = interceptor("--hint", "per-result", "--format", "gcx")
    assert "instructions" not in hello(ic)
    outputs = [text for i in range(5) for text in call(ic, i, rows(12, i))]
    assert hint_count(outputs) == 5


def test_hint_off_and_no_hint_say_nothing() -> None:
    for options in (("--hint", "off"), ("--no-hint",)):
        ic = interceptor(*options)
        response = {"jsonrpc": "2.0", "id": 0, "result": {"capabilities": {}}}
        assert ic.rewrite(PendingRequest(0, "initialize", {}), response) is None
        assert hint_count(call(ic, 1, rows(12))) == 0


def test_a_hint_block_does_not_begin_like_a_payload() -> None:
    ic = interceptor("--hint", "per-result", "--format", "gcx")
    hint, payload = call(ic, 1, rows(12))
    assert hint.startswith(HINT_OPENING) and not hint.startswith(("GCX", '["$S"', "{", "["))
    assert _auto.detect(hint) == "json" and _auto.decode(payload) == rows(12)


# -- honest numbers ----------------------------------------------------------------


def test_stats_count_both_baselines_and_results_passed_through() -> None:
    ic = interceptor()
    data = rows(30)
    ic.rewrite_tool_result("table", pretty(data))
    ic.rewrite_tool_result("words", as_result("plain words here"))
    table, words = ic.stats.tool("table"), ic.stats.tool("words")
    assert table.tokens_compact == tokens.count(json.dumps(data, separators=(",", ":")))
    assert table.tokens_before > table.tokens_compact > table.tokens_after > 0
    assert words.tokens_before == words.tokens_compact == words.tokens_after == 3
    stats = ic.stats.as_dict()
    assert stats["totals"]["tokens_before"] == table.tokens_before + words.tokens_before
    assert stats["totals"]["tokens_compact"] == table.tokens_compact + words.tokens_compact
    summary = ic.stats.summary()
    assert "vs the text as sent" in summary and "vs compact JSON" in summary
    assert "words: 1 calls, 0 rewritten" in summary and "3 -> 3 tokens" in summary


def test_a_table_whose_hint_costs_more_than_it_saves_goes_as_compact_json() -> None:
    ic = interceptor()  # no handshake: the first table would need the whole hint
    small = rows(3)
    new = ic.rewrite_tool_result("t", pretty(small))
    assert texts_of(new) == [json.dumps(small, separators=(",", ":"))]


def test_a_huge_text_that_is_not_json_counts_bytes_only() -> None:
    ic = interceptor()
    huge = "x" * ((1 << 20) + 1)
    assert ic.rewrite_tool_result("blob", as_result(huge)) is None
    counters = ic.stats.tool("blob")
    assert (counters.uncounted, counters.tokens_before, counters.tokens_after) == (1, 0, 0)
    assert counters.bytes_before == counters.bytes_after > len(huge)


def test_stats_file_carries_both_baselines(tmp_path: Any) -> None:
    ic = interceptor()
    ic.rewrite_tool_result("t", pretty(rows(10)))
    path = tmp_path / "stats.json"
    ic.stats.write_json(str(path))
    tool = orjson.loads(path.read_bytes())["tools"]["t"]
    assert tool["tokens_before"] > tool["tokens_compact"] >= tool["tokens_after"]


# -- the DCP schema id after confirmation ------------------------------------------------


def test_a_confirmed_schema_keeps_the_tool_id_when_a_nested_object_was_always_null() -> None:
    ic = interceptor("--format", "dcp", "--confirm-after", "10")
    ids = []
    for i in range(4):
        data = [{"id": n, "name": f"n{n}", "meta": {"x": None}} for n in range(i * 6, i * 6 + 6)]
        text = texts_of(ic.rewrite_tool_result("t", pretty(data)))[-1]
        ids.append(orjson.loads(text.splitlines()[0])[1])
        if i >= 2:  # the documented loss: an object whose members were all null reads absent
            assert _auto.decode(text) == [{"id": r["id"], "name": r["name"]} for r in data]
    assert ids == ["t:v1", "t:v1", "t:v2", "t:v2"]


# The one regex the pre-check was: each part of it is a way a literal can change.
_SUSPECT_REGEX = re.compile(rb"[0-9][eE]|-0(?![.0-9])|\.[0-9]*[0-9]0(?![0-9])|[0-9]{16}|[0-9.]{17}")


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=60).map(lambda raw: bytes(b"0123456789.eE-+ ,x"[b % 18] for b in raw)))
def test_the_number_pre_check_flags_what_the_one_regex_flags(text: bytes) -> None:
    assert _suspect(text) == (_SUSPECT_REGEX.search(text) is not None)


@pytest.mark.parametrize(
    "text",
    [b"1e5", b"x9E", b"-0", b"-0,", b"[1.50]", b"0.10", b"1234567890123456", b"1.34567890123456.7"],
)
def test_each_part_of_the_number_pre_check_flags_its_literal(text: bytes) -> None:
    assert _suspect(text) and _suspect(b'{"a": ' + text + b"}")
    assert not _suspect(b'{"a": 1.5, "b": [10, -1, 0.25]}')
