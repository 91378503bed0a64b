"""JSON in and out of every format is exact: ints of any size the interpreter's digit
limit allows, lone surrogates, and bad or too-deep JSON text giving DecodeError, never
ValueError."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import pytest

import gcxwire
from gcxwire import _auto, dcp
from gcxwire.errors import DecodeError, EncodeValueError
from gcxwire.limits import Limits

HUGE = 7 * 10**5000 + 3  # 5001 digits: past the interpreter's default limit (4300)


@pytest.fixture
def no_digit_limit() -> Iterator[None]:
    """No interpreter limit on int <-> text (``sys.set_int_max_str_digits(0)``) for the test."""
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    yield
    sys.set_int_max_str_digits(before)


@pytest.mark.parametrize("fmt", ["auto", "json", "gcx"])
def test_huge_ints_round_trip_through_every_format(fmt: Any, no_digit_limit: None) -> None:
    value = {"items": [{"n": HUGE, "s": "x"}, {"n": -HUGE, "s": "y"}]}
    assert gcxwire.decode(gcxwire.encode(value, tool="t", format=fmt)) == value


@pytest.mark.parametrize("dialect", ["gateway", "v0.3"])
def test_dcp_huge_ints_and_lone_surrogates(dialect: Any, no_digit_limit: None) -> None:
    records = [{"n": HUGE, "s": "a\ud800b"}, {"n": 1, "s": "c"}]
    assert dcp.decode(dcp.encode(records, dialect=dialect)) == records


def test_dcp_py_dialect_refuses_what_it_cannot_write() -> None:
    with pytest.raises(EncodeValueError, match="more than 4300 digits"):
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
    # Read in halves: past the 4,300 digits int() converts, as Limits allows.
    expected = int("1" * 4000) * 10**1000 + int("1" * 1000)
    assert gcxwire.decode("1" * 5000, limits=Limits(max_int_digits=5000)) == expected
