"""ResponseInterceptor: which results are rewritten, and the DCP lifecycle through it
(mirroring the dcp-gateway's ResponseInterceptor suite)."""

from __future__ import annotations

import json
import sys
from typing import Any

import orjson
import pytest

import gcxwire
from gcxwire import tokens
from gcxwire.mcp import is_hint
from gcxwire.proxy.cli import build_interceptor
from gcxwire.proxy.interceptor import ResponseInterceptor
from gcxwire.proxy.jsonrpc import PendingRequest
from gcxwire.proxy.link import UpstreamLink
from gcxwire.proxy.options import parse_options
from gcxwire.proxy.stats import ProxyStats
from gcxwire.proxy.tabular import Table
from gcxwire.proxy.upstream import Upstream


def interceptor(*options: str) -> ResponseInterceptor:
    parsed = parse_options([*options, "--", "server"])
    return build_interceptor(parsed, ProxyStats(parsed.server_name))


def text_result(value: Any, **extra: Any) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": json.dumps(value, indent=2)}], **extra}


def rows(n: int, start: int = 0, **extra: Any) -> list[dict[str, Any]]:
    return [
        {"id": i, "login": f"user{i}", "score": i / 4, "gone": None, **extra}
        for i in range(start, start + n)
    ]


def encoded(result: dict[str, Any] | None) -> str:
    assert result is not None, "expected a rewrite"
    return str(result["content"][-1]["text"])


def header_id(text: str) -> str:
    for line in text.splitlines():
        if line.startswith('["$S"'):
            return str(orjson.loads(line)[1])
    raise AssertionError(f"no $S header in {text!r}")


# -- DCP lifecycle through the interceptor ---------------------------------------


def test_first_call_is_valid_dcp_with_a_provisional_v1() -> None:
    ic = interceptor("--format", "dcp")
    text = encoded(ic.rewrite_tool_result("list_users", text_result(rows(4))))
    assert header_id(text) == "list_users:v1"
    assert gcxwire.decode(text) == rows(4)
    assert ic.stats.tool("list_users").schema_status == "provisional"


def test_upgrades_to_confirmed_v2_after_n_rows() -> None:
    ic = interceptor("--format", "dcp", "--confirm-after", "10")
    ids = [header_id(encoded(ic.rewrite_tool_result("t", text_result(rows(3))))) for _ in range(5)]
    assert ids == ["t:v1", "t:v1", "t:v1", "t:v1", "t:v2"]
    assert ic.stats.tool("t").schema_id == "t:v2"
    assert ic.stats.tool("t").schema_status == "confirmed"


def test_batch_promotion_drops_always_null_fields() -> None:
    ic = interceptor("--format", "dcp", "--confirm-after", "10")
    first = encoded(ic.rewrite_tool_result("t", text_result(rows(12))))
    assert gcxwire.decode(first) == rows(12)  # v1 still carries "gone"
    second = encoded(ic.rewrite_tool_result("t", text_result(rows(12, 12))))
    assert header_id(second) == "t:v2"
    assert "gone" not in second.splitlines()[0]
    # The named loss of a confirmed schema: a field null in every sampled row is left out.
    assert gcxwire.decode(second) == [
        {k: v for k, v in row.items() if k != "gone"} for row in rows(12, 12)
    ]


def test_drift_mid_stream_stays_valid() -> None:
    ic = interceptor("--format", "dcp", "--confirm-after", "4")
    ic.rewrite_tool_result("t", text_result(rows(4)))  # v1, promotes to v2
    ic.rewrite_tool_result("t", text_result(rows(4)))  # v2
    drifted = rows(3, email="a@b.c")
    text = encoded(ic.rewrite_tool_result("t", text_result(drifted)))
    assert header_id(text) == "t:v3"
    assert gcxwire.decode(text) == drifted  # nothing lost: "gone" is back with the new field
    typed = [{**row, "score": str(row["score"])} for row in drifted]
    text = encoded(ic.rewrite_tool_result("t", text_result(typed)))
    assert header_id(text) == "t:v4"
    assert gcxwire.decode(text) == typed


def test_wrapper_unwrap_is_preserved_through_the_lifecycle() -> None:
    ic = interceptor("--format", "dcp", "--confirm-after", "5")

    def wrapper(start: int) -> dict[str, Any]:
        return {"total_count": 4939, "items": rows(6, start), "incomplete_results": False}

    first = encoded(ic.rewrite_tool_result("search", text_result(wrapper(0))))
    assert first.splitlines()[0].startswith('{"total_count":4939')
    assert gcxwire.decode(first) == wrapper(0)
    second = encoded(ic.rewrite_tool_result("search", text_result(wrapper(6))))
    assert header_id(second) == "search:v2"
    expected = wrapper(6)
    expected["items"] = [{k: v for k, v in r.items() if k != "gone"} for r in expected["items"]]
    assert gcxwire.decode(second) == expected


def test_schemas_are_per_interceptor() -> None:
    first, second = interceptor("--format", "dcp"), interceptor("--format", "dcp")
    for _ in range(5):  # 12 rows after the 4th call: v2 from the 5th on
        first.rewrite_tool_result("t", text_result(rows(3)))
    second.rewrite_tool_result("t", text_result(rows(3)))
    assert first.stats.tool("t").schema_id == "t:v2"
    assert second.stats.tool("t").schema_id == "t:v1"


# -- what passes through ------------------------------------------------------------


@pytest.mark.parametrize(
    "result",
    [
        text_result(rows(20), isError=True),
        {"resultType": "input_required", "inputRequests": {}, "requestState": "s"},
        {**text_result(rows(20)), "resultType": "input_required"},
        {"task": {"taskId": "t1", "status": "working"}},
        {"content": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}]},
        {
            "content": [
                {"type": "text", "text": json.dumps(rows(20)), "annotations": {"priority": 1}}
            ]
        },
        {
            "content": [
                *text_result(rows(20))["content"],
                {"type": "image", "data": "", "mimeType": "x"},
            ]
        },
        {"content": [{"type": "text", "text": "[not json"}]},
        {"content": [{"type": "text", "text": "plain words"}]},
        {"content": [{"type": "text", "text": '{"ok":true,"count":2}'}]},  # compact already
        {"content": [{"type": "text", "text": "[1,2,3]"}]},  # not rows, compact already
        {"content": [{"type": "text", "text": '[{"a":1}]'}]},  # already as small as it gets
        {"content": []},
    ],
)
def test_results_that_pass_through_unchanged(result: dict[str, Any]) -> None:
    assert interceptor().rewrite_tool_result("t", result) is None


def test_integers_beyond_64_bits_keep_every_digit() -> None:
    big = [{"id": 2**70 + i, "name": f"n{i}"} for i in range(10)]
    text = encoded(interceptor().rewrite_tool_result("t", text_result(big)))
    assert gcxwire.decode(text) == big


def test_a_number_past_the_digit_limit_is_not_read_and_passes_through() -> None:
    # Reading an int costs more than linear time in its digits (12.8 M digits: 54 s on
    # the proxy's path); past the interpreter's limit the proxy does not read it at all.
    from gcxwire.proxy import codecs

    digits = "9" * (sys.get_int_max_str_digits() + 1)
    text = f'[{{"id": 1, "n": {digits}, "s": "x"}}, {{"id": 2, "n": 1, "s": "y"}}]'
    with pytest.raises(ValueError, match="digits"):
        codecs.loads(text)
    assert codecs.loads(text.replace(digits, "9" * 40)) == [
        {"id": 1, "n": 10**40 - 1, "s": "x"},
        {"id": 2, "n": 1, "s": "y"},
    ]
    assert codecs.loads(f'["{digits}"]') == [digits]  # digits in a string are no number
    result = {"content": [{"type": "text", "text": text}]}
    assert interceptor().rewrite_tool_result("t", result) is None


def test_structured_drop_removes_structured_content_only_when_rewritten() -> None:
    ic = interceptor()
    data = rows(10)
    new = ic.rewrite_tool_result("t", {**text_result(data), "structuredContent": {"result": data}})
    assert new is not None and "structuredContent" not in new
    small = {"content": [{"type": "text", "text": '{"a":1}'}], "structuredContent": {"a": 1}}
    assert ic.rewrite_tool_result("t", small) is None


def test_structured_keep_leaves_structured_content() -> None:
    data = rows(10)
    result = {**text_result(data), "structuredContent": {"result": data}, "_meta": {"k": 1}}
    new = interceptor("--structured", "keep").rewrite_tool_result("t", result)
    assert new is not None
    assert new["structuredContent"] == {"result": data} and new["_meta"] == {"k": 1}


def test_hint_comes_first_and_is_counted() -> None:
    ic = interceptor("--format", "gcx")  # no handshake: the first table carries the hint
    new = ic.rewrite_tool_result("t", text_result(rows(10)))
    assert new is not None and len(new["content"]) == 2
    assert is_hint(new["content"][0]["text"])
    assert ic.stats.tool("t").hint_tokens > 0
    bare = interceptor("--no-hint").rewrite_tool_result("t", text_result(rows(10)))
    assert bare is not None and len(bare["content"]) == 1


def test_one_text_block_per_row_becomes_one_table() -> None:
    data = rows(6)
    blocks = [{"type": "text", "text": json.dumps(row, indent=2)} for row in data]
    new = interceptor().rewrite_tool_result("t", {"content": blocks})
    assert gcxwire.decode(encoded(new)) == data


def test_never_more_tokens_than_the_original() -> None:
    ic = interceptor()
    for n in (1, 2, 3, 5, 10, 40):
        data = rows(n)
        compact = {"content": [{"type": "text", "text": json.dumps(data, separators=(",", ":"))}]}
        ic.rewrite_tool_result(f"t{n}", compact)
        counters = ic.stats.tool(f"t{n}")
        assert counters.tokens_after <= counters.tokens_before


def test_field_filters_apply_before_encoding(tmp_path: Any) -> None:
    (tmp_path / "server.filter.json").write_text(json.dumps({"t": {"ignore": ["score", "gone"]}}))
    ic = interceptor("--presets", str(tmp_path))
    text = encoded(ic.rewrite_tool_result("t", text_result(rows(10))))
    assert gcxwire.decode(text) == [{"id": r["id"], "login": r["login"]} for r in rows(10)]


def test_preset_schema_is_used_from_the_first_call(tmp_path: Any) -> None:
    preset = {"$dcp": "schema", "id": "t:v5", "fields": ["id", "login"], "fieldCount": 2}
    (tmp_path / "github.json").write_text(json.dumps(preset))
    ic = interceptor("--presets", str(tmp_path), "--format", "dcp")
    text = encoded(ic.rewrite_tool_result("t", text_result(rows(10))))
    assert header_id(text) == "t:v5"
    assert ic.stats.tool("t").schema_status == "preset"


# -- tools/list -----------------------------------------------------------------------


def test_tools_list_is_slimmed_and_counted() -> None:
    ic = interceptor()
    tools = {
        "tools": [
            {
                "name": "rows",
                "inputSchema": {"type": "object", "$schema": "x", "properties": {}},
                "outputSchema": {"type": "object"},
            }
        ],
        "nextCursor": "c2",
    }
    new = ic.rewrite_tools_list(tools)
    assert new == {
        "tools": [{"name": "rows", "inputSchema": {"type": "object", "properties": {}}}],
        "nextCursor": "c2",
    }
    assert ic.stats.tools_list.bytes_after < ic.stats.tools_list.bytes_before


def test_tools_list_untouched_with_no_slim_and_keep() -> None:
    assert (
        interceptor("--no-slim", "--structured", "keep").rewrite_tools_list({"tools": []}) is None
    )


# -- any failure forwards the original -------------------------------------------------


class Exploding:
    def rewrite(self, request: PendingRequest, response: Any) -> Any:
        raise RuntimeError("codec bug")


def test_a_rewriter_exception_forwards_the_original_line() -> None:
    link = UpstreamLink(Upstream(["unused"], name="s"), Exploding(), deliver=None)  # type: ignore[arg-type]
    link.pending.add(PendingRequest(3, "tools/call", {"name": "t"}))
    line = b'{"jsonrpc":"2.0","id":3,"result":{"content":[]}}'
    assert link.answer(line) == line
    assert len(link.pending) == 0


def test_several_tables_in_one_object_read_back() -> None:
    graph = {
        "entities": [
            {"name": f"e{i}", "entityType": "person", "observations": ["x", "y"]} for i in range(8)
        ],
        "relations": [
            {"from": f"e{i}", "to": f"e{i + 1}", "relationType": "knows"} for i in range(7)
        ],
    }
    text = encoded(interceptor().rewrite_tool_result("read_graph", text_result(graph)))
    assert gcxwire.decode(text) == graph


def test_a_large_single_object_reads_back() -> None:
    record = {f"field_{i}": f"value number {i}" for i in range(12)}
    new = interceptor().rewrite_tool_result("get", text_result(record))
    if new is not None:  # rewritten only when cheaper; then it must read back exactly
        assert gcxwire.decode(encoded(new)) == record


def test_forced_gcx_reads_back_even_for_sparse_rows() -> None:
    sparse = [{"id": i, **({"note": f"n{i}"} if i % 2 else {})} for i in range(12)]
    text = encoded(interceptor("--format", "gcx").rewrite_tool_result("t", text_result(sparse)))
    assert text.startswith("GCX1 ") and gcxwire.decode(text) == sparse


def test_forced_dcp_compacts_what_dcp_cannot_carry() -> None:
    record = {f"field_{i}": f"value number {i}" for i in range(12)}
    new = interceptor("--format", "dcp").rewrite_tool_result("t", text_result(record))
    assert encoded(new) == json.dumps(record, separators=(",", ":"))  # compact JSON, no DCP
    sparse = [{"id": i, **({"note": f"n{i}"} if i % 2 else {})} for i in range(12)]
    # The gateway dialect writes an absent key as null: not exact, so not used.
    new = interceptor("--format", "dcp").rewrite_tool_result("t", text_result(sparse))
    assert new is None or gcxwire.decode(encoded(new)) == sparse


def test_max_fields_without_presets_caps_every_tool() -> None:
    text = encoded(interceptor("--max-fields", "2").rewrite_tool_result("t", text_result(rows(10))))
    assert gcxwire.decode(text) == [{"id": r["id"], "login": r["login"]} for r in rows(10)]


# -- DCP left unwritten where a row sample shows it losing ---------------------------


def _nested(n: int) -> list[dict[str, Any]]:  # DCP's nested rows beat GCX1's JSON cells
    return [{"n": {"x": i, "y": [i]}, "m": [i, {"z": None}]} for i in range(n)]


def _floats(n: int) -> list[dict[str, Any]]:  # DCP about 6 % above GCX1
    return [{"a": (i * 7919 % 1000) / 997, "b": i / 3} for i in range(n)]


def _words(n: int) -> list[dict[str, Any]]:
    return [{"w": ["true", "null", "x"][i % 3], "v": [True, None, 1][i % 3]} for i in range(n)]


@pytest.mark.parametrize("make", [_nested, _floats, _words, rows])
@pytest.mark.parametrize("n", [40, 64, 300])
def test_dcp_is_skipped_only_where_it_costs_over_one_percent_more(make: Any, n: int) -> None:
    ic = interceptor()
    value = make(n)
    table = Table("rows", value)
    assert ic.lifecycle is not None
    schema = ic.lifecycle.schema_for("t", value)
    gcx = ic._encode_select("t", value, "gcx")
    assert gcx is not None
    full = ic._encode_dcp("t", table, schema)
    assert full is not None
    if ic._dcp_clearly_loses(table, schema, gcx):
        assert tokens.count(full.text) > 1.01 * tokens.count(gcx.text)
    elif make is rows and n == 300:
        raise AssertionError("DCP far above GCX1 was written in full")


def test_a_table_dcp_wins_still_goes_out_as_dcp() -> None:
    text = encoded(interceptor().rewrite_tool_result("t", text_result(_nested(300))))
    assert text.startswith('["$S"') and gcxwire.decode(text) == _nested(300)


def test_a_table_with_child_sections_is_not_sampled_by_lines() -> None:
    value = [{"id": i, "labels": [{"k": f"l{j}"} for j in range(i % 3 + 1)]} for i in range(300)]
    ic = interceptor()
    assert ic.lifecycle is not None
    schema = ic.lifecycle.schema_for("t", value)
    gcx = ic._encode_select("t", value, "gcx")
    assert gcx is not None and "\nGCX1" in gcx.text
    assert not ic._dcp_clearly_loses(Table("rows", value), schema, gcx)


def test_a_gcx1_line_the_go_decoder_refuses_is_no_candidate() -> None:
    # gortex's Go decoder refuses a line of 4 MiB or more; a cell that long is one line.
    value = [{"id": 0, "a": "é" * (2 * 1024 * 1024)}, {"id": 1, "a": "b"}]  # 4 MiB of UTF-8
    ic = interceptor()
    assert ic._encode_select("t", value, "gcx") is None
    assert ic._encode_select("t", value[1:], "gcx") is not None
