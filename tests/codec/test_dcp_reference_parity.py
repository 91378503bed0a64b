"""DCP inference and decoding where dcp-wrap 0.3.1 (or GCX1) showed gcxwire differing."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from gcxwire import dcp
from gcxwire._dcp_infer import _collation_key
from gcxwire._values import difference
from gcxwire.errors import DecodeError
from gcxwire.limits import Limits

# --- inference, as dcp-wrap 0.3.1's SchemaGenerator ----------------------------------------------


def test_a_field_nests_when_any_record_holds_objects_there() -> None:
    issues = [
        {"id": 1, "labels": []},  # GitHub issues without labels
        {"id": 2, "labels": [{"name": "bug", "color": "f00"}]},
        {"id": 3},
    ]
    schema = dcp.infer_schema(issues, domain="issues")
    assert schema.types["labels"] == {"type": "array"}
    assert schema.nest["labels"].fields == ("name", "color")
    text = dcp.encode(issues, schema)
    assert text.splitlines()[1:] == [
        '[1,["$R","issues.labels:v1"]]',
        '[2,["$R","issues.labels:v1",["bug","f00"]]]',
        "[3,null]",
    ]


def test_name_hints_match_whatever_the_case() -> None:
    records = [{"count": 1, "Name": "a"}, {"count": 2, "Name": "b"}]
    # "Name" is an identifier (rank 1) as "name" is, so it comes before the numeric "count"
    assert dcp.infer_schema(records, domain="d").fields == ("Name", "count")


def test_sub_schemas_nest_again_inside_sub_rows() -> None:
    records = [
        {"id": 1, "teams": [{"name": "core", "members": [{"login": "ann"}, {"login": "bo"}]}]},
        {"id": 2, "teams": [{"name": "ops", "members": []}]},
    ]
    schema = dcp.infer_schema(records, domain="d")
    members = schema.nest["teams"].nest["members"]
    assert members.id == "d.teams.members:v1"
    text = dcp.encode(records, schema)
    assert text.splitlines()[1] == (
        '[1,["$R","d.teams:v1",["core",["$R","d.teams.members:v1",["ann"],["bo"]]]]]'
    )
    assert difference(records, dcp.decode(text, schema=schema)) is None


def test_a_second_collision_keeps_the_parent_in_its_name() -> None:
    record = {"a": {"url": "x"}, "b": {"a": {"url": "y"}}, "c": {"a": {"url": "z"}}}
    assert dcp.infer_schema([record], domain="d").fields == ("url", "a_url", "a_url_2")


# --- decoding ------------------------------------------------------------------------------------


def test_blank_lines_before_the_header_are_skipped_as_in_gcx1() -> None:
    assert dcp.decode('\n\n["$S","x:v1","a"]\n[1]') == [{"a": 1}]
    with pytest.raises(DecodeError) as info:
        dcp.decode('\n\n["$S","x:v1","a"]\n[1,2]')
    assert info.value.lineno == 4  # lines are still counted from the top


def test_max_depth_holds_through_dotted_names() -> None:
    text = '["$S","x:v1","a.b.c"]\n[1]'
    assert dcp.decode(text, limits=Limits(max_depth=3)) == [{"a": {"b": {"c": 1}}}]
    with pytest.raises(DecodeError, match="nests deeper than 2"):
        dcp.decode(text, limits=Limits(max_depth=2))


def _decode_cpu(segments: int) -> float:
    name = ".".join(["a"] * segments)
    text = f'["$S","x:v1","{name}","b"]\n[1,2]'
    limits = Limits(max_depth=segments + 1)
    start = time.process_time()
    record: Any = dcp.decode(text, limits=limits)
    took = time.process_time() - start
    assert record[0]["b"] == 2
    return took


@pytest.mark.slow
def test_dotted_names_decode_in_linear_time() -> None:
    # CPU-time ratio in one process: 8x the segments cost 11-20x when linear (each segment is
    # a fresh nested dict, so memory effects add to the count) and 64x when quadratic; the
    # bound sits between the two. The lowest of up to three ratios: load on a shared machine
    # inflates single readings.
    _decode_cpu(1000)  # warm up
    readings = []
    for _ in range(3):
        small = min(_decode_cpu(4000) for _ in range(3))
        large = min(_decode_cpu(32000) for _ in range(3))
        readings.append((large / max(small, 1e-4), small, large))
        if readings[-1][0] < 32:
            break
    assert min(readings)[0] < 32, readings


# --- collation, as JavaScript's localeCompare ----------------------------------------------------

PAIRS = json.loads(
    (Path(__file__).parent.parent / "data" / "dcp" / "collation_pairs.json").read_text("utf-8")
)


@pytest.mark.parametrize("kind", ["latin", "all"])
def test_names_collate_as_localecompare_does(kind: str) -> None:
    special = set("æÆøØßıİœŒðþłđ") | {chr(c) for c in range(0xFF01, 0xFF5F)}
    pairs = [p for p in PAIRS if kind == "all" or special & set(p[0] + p[1])]
    assert pairs
    wrong = [(a, b) for a, b in pairs if not _collation_key(a) < _collation_key(b)]
    assert wrong == []


def test_field_order_follows_the_collation() -> None:
    # eight string fields of one rank and presence: only the collation orders them
    # (the expected order is what Node 20 sorts them to with localeCompare)
    names = ["øy", "oz", "ss", "ßa", "ıb", "ia", "ａb", "ac"]
    record = {name: f"v{i}" for i, name in enumerate(names)}
    fields = dcp.infer_schema([record, {**record}], domain="d", min_presence=0).fields
    assert fields == ("ａb", "ac", "ia", "ıb", "øy", "oz", "ss", "ßa")
