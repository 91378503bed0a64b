"""The typed profile: lossless round trips, stable re-encoding, reference-readable output."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import strategies as st

from gcxwire import gcx
from gcxwire.errors import DecodeError, EncodeValueError

from .. import reference_model
from ..strategies import json_values, responses, same, tables
from ..tiers import prove, tiers
from . import contract
from .gcx_checks import roundtrip

EXAMPLES = [
    [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}],
    [{"a": None, "b": ""}, {"b": "x"}, {}],
    [{"b": 1, "a": 2}, {"a": 3, "b": 4}],
    [{"a": 1, "c": 3}, {"a": 1, "b": 2, "c": 3}],
    {"total_count": 4939, "incomplete_results": False, "items": [{"id": 1}, {"id": 2}]},
    {"items": [{"id": 1}], "message": "Showing 1 of 1", "next": None},
    {"a": [{"x": 1}], "b": [{"y": 2}], "c": {"nested": [1, 2]}},
    {"of": "x", "is": 1, "tool": "t", "fields": "f", "rows": [{"k": 1}]},
    {"title": "no tables here", "n": 1},
    {},
    [],
    [1, "2", None, [3], {"a": 4}],
    [{"a": 1}, 2],
    "plain",
    "",
    None,
    True,
    0.1,
    -0.0,
    10**30,
    -(10**4299),  # 4300 digits, the interpreter's default limit: converted in halves
    {"big": 10**4299, "deep": [[[[[]]]]]},
    [{"line": "ends in CR\r"}, {"line": "x"}],
    [{"first": "#not a comment", "b": 1}, {"first": "GCX1 tool=x fields=y", "b": 2}],
    [{"v": None}, {"v": ""}, {}],
    [{"s": s} for s in ["true", "false", "null", "12", "-1", "[", "{", '"', "\\", "\t\n"]],
    [{"a b": 1}],
    [{"x,y": 1}],
    [{"": 1, "k=v": 2}],
    {"text": "héllo\u2028wörld\x00\x1f😀"},
]


@pytest.mark.parametrize("value", EXAMPLES, ids=range(len(EXAMPLES)))
def test_examples_round_trip(value: Any) -> None:
    text = roundtrip(value)
    reference_model.decode(text)  # a reference decoder reads it without error


def test_table_shape() -> None:
    text = gcx.encode([{"id": 1, "ok": True, "why": None}, {"id": 2, "ok": False}], tool="search")
    assert text == "GCX1 tool=search fields=id,ok,why\n1\ttrue\tnull\n2\tfalse"


def test_null_heavy_section_flips_empty_to_null() -> None:
    rows = [{"a": i, "b": None, "c": None} for i in range(3)] + [{"a": 9}]
    text = gcx.encode(rows, tool="t")
    assert text.splitlines()[0] == "GCX1 tool=t fields=a,b,c empty=null"
    assert text.splitlines()[1:] == ["0", "1", "2", "9\t\\\t\\"]
    assert gcx.decode(text) == rows


def test_float_column_drops_point_zero() -> None:
    rows = [{"id": i, "score": s} for i, s in enumerate([1.0, 0.5, 2.0, -0.0, 3.0])]
    text = gcx.encode(rows, tool="t")
    assert text == "GCX1 tool=t fields=id,score float=score\n0\t1\n1\t0.5\n2\t2\n3\t-0\n4\t3"
    back = gcx.decode(text)
    assert all(type(r["score"]) is float for r in back) and same(back, rows)


def test_wrapper_shape_keeps_scalars_in_header() -> None:
    text = gcx.encode({"total": 2, "items": [{"id": 1}, {"id": 2}], "truncated": False}, tool="s")
    assert text == "GCX1 tool=s fields=id total=2 of=items truncated=false\n1\n2"


def test_trailing_empty_cells_are_left_out() -> None:
    rows = [{"a": 1, "b": 2, "c": 3}, {"a": 4}, {"c": 5}, {}]
    text = gcx.encode(rows, tool="t")
    assert text.splitlines()[1:] == ["1\t2\t3", "4", "\t\t5", "\\"]
    assert gcx.decode(text) == rows
    assert reference_model.decode(text)["sections"][0]["rows"][1] == {"a": "4", "b": "", "c": ""}


def test_nested_objects_spread_over_dotted_columns() -> None:
    rows: list[dict[str, Any]] = [
        {"id": 1, "owner": {"login": "a", "site": {"x": 1}}, "license": None},
        {"id": 2, "owner": {"login": "b", "site": {"x": 2, "y": 3}}, "license": {"k": 1}},
    ]
    text = gcx.encode(rows, tool="t")
    assert text.splitlines() == [
        "GCX1 tool=t fields=id,owner{login,site{x,y}},license flat={}",
        "1\ta\t1\t\tnull",
        '2\tb\t2\t3\t{"k":1}',
    ]
    assert same(gcx.decode(text), rows)
    # Where a name would repeat in the reference reading, it is qualified by its group.
    for row in rows:  # `owner{login,id,site{…}}` would repeat the field `id`
        owner = row["owner"]
        row["owner"] = {"login": owner["login"], "id": row["id"] * 10, "site": owner["site"]}
    text = gcx.encode(rows, tool="t")
    assert text.splitlines()[0] == (
        "GCX1 tool=t fields=id,owner{login,owner.id,site{x,y}},license flat={}"
    )
    assert same(gcx.decode(text), rows)


def test_flattening_never_merges_colliding_names() -> None:
    rows = [{"a": {"b": {"c": 1}, "b.c": 2}}, {"a": {"b": {"c": 3}, "b.c": 4}}]
    assert same(gcx.decode(gcx.encode(rows, tool="t")), rows)
    rows2 = [{"a": {"x": 1}, "a.x": 2}, {"a": {"x": 3}, "a.x": 4}]
    assert same(gcx.decode(gcx.encode(rows2, tool="t")), rows2)


def test_constant_columns_are_written_once_in_the_header() -> None:
    rows = [{"id": i, "kind": "ref", "ok": True, "w": 1.0, "n": None} for i in range(3)]
    text = gcx.encode(rows, tool="t")
    assert text == "GCX1 tool=t fields=id,kind=ref,ok=true,w=1.0,n=null\n0\n1\n2"
    back = gcx.decode(text)
    assert same(back, rows) and [list(r) for r in back] == [list(r) for r in rows]
    # Reference decoders read a field named `kind=ref` and empty cells.
    assert reference_model.decode(text)["sections"][0]["fields"][1] == "kind=ref"


def test_constant_columns_keep_their_place_and_nesting() -> None:
    rows = [{"k": "x_1", "u": {"t": "U.S.", "i": i}, "z": i, "w": "tail"} for i in range(3)]
    text = gcx.encode(rows, tool="t")
    # Before the last cell a constant keeps a blank cell, so reference decoders
    # still give every cell to its field; the trailing run leaves the rows.
    assert text.splitlines() == [
        "GCX1 tool=t fields=k=x_1,u{t=U.S.,i},z,w=tail flat={}",
        "\t\t0\t0",
        "\t\t1\t1",
        "\t\t2\t2",
    ]
    back = gcx.decode(text)
    assert same(back, rows) and [list(r) for r in back] == [list(r) for r in rows]
    assert reference_model.decode(text)["sections"][0]["rows"][0]["i}"] == "0"


def test_constant_cells_must_be_blank() -> None:
    with pytest.raises(DecodeError, match="Constant column 'k'") as info:
        gcx.decode("GCX1 tool=t fields=k=x_1,a\n\t1\ny\t2")
    assert (info.value.lineno, info.value.colno) == (3, 1)
    assert gcx.decode("GCX1 tool=t fields=k=x_1,a empty=null\n\t1\n\\\t2") == [
        {"k": "x_1", "a": 1},
        {"k": "x_1", "a": 2},
    ]


@pytest.mark.parametrize(
    "rows",
    [
        [{"a": 1, "b": 2}],  # one row: nothing to gain
        [{"a": 1, "b": "x y"}, {"a": 2, "b": "x y"}],  # whitespace cannot sit in a header
        [{"a": 1, "b": "x,y"}, {"a": 2, "b": "x,y"}],  # nor a comma
        [{"a": 1, "b": [1]}, {"a": 2, "b": [1]}],  # only scalars
        [{"a": 1, "b": 1}, {"a": 2, "b": 1.0}],  # 1 and 1.0 differ
        [{"a": 1, "b": 0.0}, {"a": 2, "b": -0.0}],  # so do 0.0 and -0.0
        [{"a": 1, "b": 1}, {"a": 2}],  # absent in a row
        [{"a": 1}, {"a": 1}],  # one column always stays in the rows
        [{"a": "word", "b": i} for i in range(4)],  # "\tword" costs what a blank cell does
    ],
)
def test_what_is_not_a_constant_column(rows: list[dict[str, Any]]) -> None:
    text = roundtrip(rows)
    header = gcx.Decoder()
    header.feed(text)
    assert header.headers[0].constants == ()


def test_field_names_holding_equals_signs_are_not_constants() -> None:
    rows = [{"a=b": i, "c": i} for i in range(3)]
    text = roundtrip(rows)
    assert text.splitlines()[0] == "GCX1 tool=t fields=a\\\\=b,c"
    assert reference_model.decode(text)["sections"][0]["fields"] == ["a=b", "c"]


def test_string_that_looks_like_a_number_is_escaped() -> None:
    assert gcx.encode([{"zip": "02134", "n": "62"}], tool="t").splitlines()[1] == "02134\t\\62"


@tiers(fast=40, many=200)
def test_any_json_value_round_trips(examples: int) -> None:
    prove(examples, roundtrip, json_values())


@tiers(fast=25, many=200)
def test_tables_round_trip(examples: int) -> None:
    prove(examples, roundtrip, tables())


@tiers(fast=25, many=200)
def test_styled_tables_round_trip(examples: int) -> None:
    prove(examples, roundtrip, tables(styled=True))


@tiers(fast=25, many=200)
def test_responses_round_trip(examples: int) -> None:
    prove(examples, roundtrip, responses())


@tiers(fast=25, many=200)
def test_reference_decoder_reads_every_string_cell(examples: int) -> None:
    tools = st.sampled_from(["t", "search_symbols", "a.b"])
    prove(examples, reads_every_string_cell, st.one_of(tables(), responses()), tools)


def reads_every_string_cell(value: Any, tool: str) -> None:
    """What gcxwire writes reads in the reference model, each unmarked string cell the same."""
    contract.holds(value, gcx.encode(value, tool=tool))


def test_words_as_text_escape_a_letter_no_json_escape_uses() -> None:
    # tru\e, not t\rue (a model reads \r as CR), nor \false (form feed) or n\ull (\u).
    text = roundtrip([{"a": "true", "b": "false", "c": "null", "d": True}], tool="t")
    assert text.split("\n")[1] == "tru\\e\tfals\\e\tnul\\l\ttrue"
    assert gcx.decode("GCX1 tool=t fields=a,b,c\nt\\rue\t\\false\tn\\ull") == [
        {"a": "true", "b": "false", "c": "null"}
    ]  # the older escapes still read as the words


@pytest.mark.parametrize("depth", [600, 10_000])
def test_deep_nesting_raises_encode_error_not_recursion(depth: int) -> None:
    value: Any = []
    for _ in range(depth):
        value = [value]
    with pytest.raises(EncodeValueError, match="Nesting deeper") as info:
        gcx.encode({"rows": [{"v": value}]}, tool="t")
    assert info.value.path.startswith("$.rows[0].v")
