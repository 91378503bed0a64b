"""JSON in and out of every format is exact: ints past 4,300 digits, lone
surrogates, and bad or too-deep JSON text giving DecodeError, never ValueError."""

from __future__ import annotations

from typing import Any

import pytest

import gcxwire
from gcxwire import _auto, dcp
from gcxwire.errors import DecodeError, EncodeValueError

HUGE = 7 * 10**5000 + 3


@pytest.mark.parametrize("fmt", ["auto", "json", "gcx"])
def test_huge_ints_round_trip_through_every_format(fmt: Any) -> None:
    value = {"items": [{"n": HUGE, "s": "x"}, {"n": -HUGE, "s": "y"}]}
    assert gcxwire.decode(gcxwire.encode(value, tool="t", format=fmt)) == value


@pytest.mark.parametrize("dialect", ["gateway", "v0.3"])
def test_dcp_huge_ints_and_lone_surrogates(dialect: Any) -> None:
    records = [{"n": HUGE, "s": "a\ud800b"}, {"n": 1, "s": "c"}]
    assert dcp.decode(dcp.encode(records, dialect=dialect)) == records


def test_dcp_py_dialect_refuses_what_it_cannot_write() -> None:
    with pytest.raises(EncodeValueError, match="dcp-py dialect"):
        dcp.encode([{"n": HUGE}], dialect="dcp-py")


def test_compact_json_escapes_lone_surrogates() -> None:
    assert _auto.compact_json(["a\ud800"]) == '["a\\ud800"]'


@pytest.mark.parametrize(
    "text",
    ["[" * 5000 + "1234567890123456789" + "]" * 5000, "NaN", "[1,", "1" * 5000 + "x"],
)
def test_bad_json_is_a_decode_error(text: str) -> None:
    with pytest.raises(DecodeError):
        gcxwire.decode(text)


def test_long_digit_runs_decode_exactly() -> None:
    expected = int("1" * 4000) * 10**1000 + int("1" * 1000)  # past the 4,300-digit limit
    assert gcxwire.decode("1" * 5000) == expected
