"""One rule in every format: what JSON cannot carry is refused, data in is str or UTF-8 bytes."""

from __future__ import annotations

import datetime
import enum
import math
import uuid
from collections.abc import Callable
from typing import Any

import pytest

import gcxwire
from gcxwire import DecodeError, EncodeError, dcp, gcx


class Color(enum.Enum):
    RED = "red"


NOT_JSON: dict[str, Any] = {
    "nan": math.nan,
    "inf": math.inf,
    "datetime": datetime.datetime(2026, 12, 1, 10, 0),
    "date": datetime.date(2026, 12, 1),
    "uuid": uuid.UUID(int=7),
    "enum": Color.RED,
    "set": {1},
}
FORMATS = ["json", "gcx", "dcp", "auto"]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", sorted(NOT_JSON))
def test_every_format_refuses_what_json_cannot_carry(fmt: str, name: str) -> None:
    rows = [{"id": 1, "a": "x"}, {"id": 2, "a": NOT_JSON[name]}]
    with pytest.raises(EncodeError) as caught:
        gcxwire.encode(rows, tool="t", format=fmt)  # type: ignore[arg-type]
    assert caught.value.path == "$[1].a"


@pytest.mark.parametrize("fmt", FORMATS)
def test_default_converts_in_every_format(fmt: str) -> None:
    rows = [{"id": i, "at": datetime.date(2026, 12, i), "ref": uuid.UUID(int=i)} for i in (1, 2)]
    text = gcxwire.encode(rows, tool="t", format=fmt, default=str)  # type: ignore[arg-type]
    assert gcxwire.decode(text) == [
        {"id": i, "at": f"2026-12-0{i}", "ref": str(uuid.UUID(int=i))} for i in (1, 2)
    ]
    assert rows[0]["at"] == datetime.date(2026, 12, 1)  # the caller's value is not changed


def test_the_same_default_hook_on_every_encoder() -> None:
    # gcx.encode and dcp.encode take the hook gcxwire.encode takes, and write the same.
    rows = [{"id": i, "at": datetime.date(2026, 12, i), "e": Color.RED} for i in (1, 2)]
    want = [{"id": i, "at": f"2026-12-0{i}", "e": "Color.RED"} for i in (1, 2)]
    gcx_text = gcx.encode(rows, tool="t", default=str)
    assert gcx_text == gcxwire.encode(rows, tool="t", format="gcx", default=str)
    assert gcx.decode(gcx_text) == want
    dcp_text = dcp.encode(rows, default=str, exact=True)
    assert dcp.decode(dcp_text) == want
    encoders: list[Callable[[], str]] = [
        lambda: gcx.encode(rows, tool="t"),
        lambda: dcp.encode(rows),
    ]
    for encode in encoders:
        with pytest.raises(EncodeError) as caught:  # without the hook: refused, as before
            encode()
        assert caught.value.path == "$[0].at"
    with pytest.raises(EncodeError, match="nan"):  # a hook converts types, not values
        gcx.encode([{"a": math.nan}], tool="t", default=str)


def test_default_is_not_asked_about_nan() -> None:
    with pytest.raises(EncodeError, match="nan"):
        gcxwire.encode([{"a": math.nan}], tool="t", format="json", default=str)


@pytest.mark.parametrize("fmt", FORMATS)
def test_empty_list_round_trips_in_every_format(fmt: str) -> None:
    text = gcxwire.encode([], tool="t", format=fmt)  # type: ignore[arg-type]
    assert gcxwire.decode(text) == []


@pytest.mark.parametrize("fmt", ["json", "gcx", "auto"])
def test_a_cycle_is_named_with_a_short_path(fmt: str) -> None:
    node: dict[str, Any] = {"id": 1}
    node["self"] = node
    with pytest.raises(EncodeError) as caught:
        gcxwire.encode([node], tool="t", format=fmt)  # type: ignore[arg-type]
    assert "Cycle" in str(caught.value)
    assert len(str(caught.value)) < 120
    # A GCX1 cell starts at .self; typed GCX1 spreads `self` over group columns three
    # levels deep first, and names the place by its keys, not by the dotted column.
    paths = ("$[0].self", "$[0].self.self", "$[0].self.self.self.self.self")
    assert caught.value.path in paths


def test_deep_nesting_error_stays_one_short_line() -> None:
    deep: list[Any] = []
    for _ in range(600):
        deep = [deep]
    with pytest.raises(EncodeError) as caught:
        gcxwire.encode(deep, tool="t", format="json")
    assert "Nesting deeper than 512" in str(caught.value)
    assert len(str(caught.value)) < 200


DECODERS: dict[str, Callable[[Any], Any]] = {
    "gcxwire.decode": gcxwire.decode,
    "gcx.decode": gcx.decode,
    "dcp.decode": dcp.decode,
}
TEXTS = {
    "gcxwire.decode": '{"a":"é"}',
    "gcx.decode": "GCX1 tool=t fields=a\né",
    "dcp.decode": '["$S","t:v1","a"]\n["é"]',
}


@pytest.mark.parametrize("name", sorted(DECODERS))
def test_decoders_read_str_bytes_and_bytearray_alike(name: str) -> None:
    decode, text = DECODERS[name], TEXTS[name]
    want = decode(text)
    assert decode(text.encode()) == want
    assert decode(bytearray(text.encode())) == want


@pytest.mark.parametrize("name", sorted(DECODERS))
@pytest.mark.parametrize("bad", [None, 5, ["x"], memoryview(b"[]")])
def test_decoders_refuse_other_types_with_a_clear_type_error(name: str, bad: object) -> None:
    with pytest.raises(TypeError, match="Expected str, bytes or bytearray, not "):
        DECODERS[name](bad)


@pytest.mark.parametrize("name", sorted(DECODERS))
def test_invalid_utf8_is_reported_where_it_is(name: str) -> None:
    data = TEXTS[name].encode().replace("é".encode(), b"ok \xff")
    with pytest.raises(DecodeError) as caught:
        DECODERS[name](data)
    where = data.index(b"\xff")
    line_start = data.rfind(b"\n", 0, where) + 1
    assert "not UTF-8" in caught.value.msg
    assert (caught.value.lineno, caught.value.colno) == (
        data.count(b"\n", 0, where) + 1,
        where - line_start + 1,
    )
