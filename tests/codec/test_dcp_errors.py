"""Malformed DCP: every bad input is a DecodeError with its line and column, nothing else."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gcxwire import dcp
from gcxwire.dcp import DcpSchema, SchemaRegistry, infer_schema
from gcxwire.errors import DecodeError

H = '["$S","x:v1","a"]'
SCHEMA = infer_schema(
    [{"id": 1, "name": "n", "teams": [{"id": "t", "role": "r"}]}],
    domain="u",
)


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        (H + "\n[1,2]", 2, 1, "Row has 2 values but the header has 1"),
        (H + "\n[]", 2, 1, "Row has 0 values"),
        (H + "\n[1", 2, 3, "Invalid JSON"),
        (H + '\n{"a":1}', 2, 1, "must be a JSON array"),
        (H + "\n\n[1]", 2, 1, "Invalid JSON"),
        (H + "\n[NaN]", 2, 1, "NaN is not valid JSON"),
        (H + "\n[1e400]", 2, 1, "out of range"),
        (H + "\n[1]\n[2]\nnope", 4, 1, "Invalid JSON"),
        ('{"total":1}', 1, 12, "must be followed by a $S header"),
        ("[1,2]", 1, 1, 'starts with "$S"'),
        ('"text"', 1, 1, "Expected a $S header"),
        ("garbage", 1, 1, "Invalid JSON"),
        ('["$S"]', 1, 1, "schema id"),
        ('["$S",5,"a"]', 1, 1, "schema id"),
        ('["$S","x:v1",2,"a"]', 1, 1, "says 2 fields but names 1"),
        ('["$S","x:v1","a",1]', 1, 1, "names must be strings"),
        ('["$S","x:v1#zz","a"]', 1, 1, "Bad presence mask"),
        ('["$S","x:v1#","a"]', 1, 1, "Bad presence mask"),
        ('["$S","x:v1","a","a"]', 1, 1, "Duplicate field names"),
        ('{"$dcp":"schema","id":"x:v1"}', 1, 1, 'needs "id" and "fields"'),
        ('{"$dcp":"schema","id":"x:v1","fields":["a"],"fieldCount":3}', 1, 1, "fieldCount"),
        ("Fields: a, b\na: 1", 1, 1, "L4"),
        ("[" * 100_000, 1, 1, "JSON"),
        ('{"m":1}\n' + H + "\n[1,2]", 3, 1, "Row has 2 values"),
    ],
)
def test_malformed_text_names_line_and_column(
    text: str, line: int, column: int, message: str
) -> None:
    with pytest.raises(DecodeError) as info:
        dcp.decode(text)
    assert message in info.value.msg
    assert (info.value.lineno, info.value.colno) == (line, column)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ('["$S","other:v1","id"]\n[1]', 1, "Unknown schema id"),
        ('["$S","u:v2","id"]\n[1]', 1, "Unknown schema id"),
        ('["$S","u:v1","name","id"]\n["n",1]', 1, "differ from schema"),
        ('["$S","u:v1","id"]\n[1]', 1, "differ from schema"),  # no mask: all three fields
        ('["$S","u:v1#f","id"]\n[1]', 1, "does not have"),
        ('["$S","u:v1",2]\n[1,2]', 1, "the schema has 3"),
        ('["id","zzz"]\n[1,2]', 1, "do not fit schema"),
        ('["$S","u:v1#3","name","teams"]\n["n",["$R","u.other:v1"]]', 2, "Unknown sub-schema"),
        ('["$S","u:v1#3","name","teams"]\n["n",["$R",7]]', 2, "sub-schema id"),
        ('["$S","u:v1#3","name","teams"]\n["n",["$R","u.teams:v1",["t"]]]', 2, "array of 2"),
        ('["$S","u:v1#3","name","teams"]\n["n",["$R","u.teams:v1",5]]', 2, "array of 2"),
        ('["$S","u:v1#3","name","teams"]\n["n",["$R","u.teams:v1#9"]]', 2, "does not have"),
        ('["$S","u:v1#3","name","teams"]\n["n",["$R","u.teams:v1#q"]]', 2, "Bad presence mask"),
    ],
)
def test_schema_mismatches_name_the_line(text: str, line: int, message: str) -> None:
    with pytest.raises(DecodeError) as info:
        dcp.decode(text, schema=SCHEMA)
    assert message in info.value.msg
    assert info.value.lineno == line


def test_a_good_schema_decode_for_contrast() -> None:
    text = '["$S","u:v1#3","name","teams"]\n["n",["$R","u.teams:v1#1",["r"]]]'
    assert dcp.decode(text, schema=SCHEMA) == [{"name": "n", "teams": [{"role": "r"}]}]


def test_registry_lookup_and_unknown_id(tmp_path: Any) -> None:
    registry = SchemaRegistry()
    registry.add(SCHEMA)
    text = dcp.encode([{"id": 1, "name": "n", "teams": []}], SCHEMA)
    assert dcp.decode(text, schema=registry) == [{"id": 1, "name": "n", "teams": []}]
    with pytest.raises(DecodeError, match="Unknown schema id"):
        dcp.decode('["$S","nope:v1","a"]\n[1]', schema=registry)
    with pytest.raises(DecodeError, match="Unknown schema id"):
        dcp.decode('["a"]\n[1]', schema=registry)


def test_other_bad_arguments() -> None:
    assert dcp.decode(b'["$S","x:v1"]') == []  # UTF-8 bytes read as their text, as json.loads
    with pytest.raises(TypeError, match="Expected str, bytes or bytearray"):
        dcp.decode(None)  # type: ignore[arg-type]
    with pytest.raises(DecodeError, match="dialect"):
        dcp.decode(H + "\n[1]", dialect="toon")  # type: ignore[arg-type]
    with pytest.raises(DecodeError, match="DcpSchema"):
        dcp.decode(H + "\n[1]", schema={"id": "x"})  # type: ignore[arg-type]
    with pytest.raises(DecodeError, match="no text line") as info:
        dcp.decode(H + "\n[1]\ntext\n[2]", text_key="t")
    assert info.value.lineno == 4


def test_empty_text_and_one_trailing_newline_are_fine() -> None:
    assert dcp.decode("") == []
    assert dcp.decode(H + "\n[1]\n") == [{"a": 1}]


def test_schema_from_a_file_decodes_dcp_wrap_abbreviated_headers() -> None:
    schema = DcpSchema(id="x:v1", fields=("a", "b"))
    assert dcp.decode('["$S","x:v1"]\n[1,2]', schema=schema) == [{"a": 1, "b": 2}]
    assert dcp.decode('["$S","x:v1#1"]\n[2]', schema=schema) == [{"b": 2}]


# --- fuzz: nothing but DecodeError ------------------------------------------------------------

VALID = dcp.encode(
    {"total": 2, "items": [{"id": 1, "u": {"l": "a"}, "t": [{"k": 1}]}, {"id": 2, "u": None}]}
)
WITH_SCHEMA = dcp.encode([{"id": 1, "name": "x", "teams": [{"id": "t", "role": "r"}]}], SCHEMA)


def _decode_or_decode_error(text: str, schema: DcpSchema | None = None) -> None:
    try:
        dcp.decode(text, schema=schema)
    except DecodeError as exc:
        assert exc.lineno >= 1 and exc.colno >= 1
        assert 0 <= exc.pos <= len(text)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet='[]{}",:$SRN0123456789-.eE \nabx#\\tfrulse', max_size=60))
def test_random_text_raises_only_decode_error(text: str) -> None:
    _decode_or_decode_error(text)
    _decode_or_decode_error(text, SCHEMA)


@settings(max_examples=200, deadline=None)
@given(
    source=st.sampled_from([VALID, WITH_SCHEMA]),
    at=st.integers(min_value=0, max_value=200),
    cut=st.integers(min_value=0, max_value=3),
    insert=st.text(alphabet='[]{}",:-\n#0a', max_size=3),
)
def test_mutated_output_raises_only_decode_error(
    source: str, at: int, cut: int, insert: str
) -> None:
    at = at % (len(source) + 1)
    text = source[:at] + insert + source[at + cut :]
    _decode_or_decode_error(text)
    _decode_or_decode_error(text, SCHEMA)
