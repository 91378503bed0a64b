"""The shared value helpers: one spelling of a path, one exact loader, one rule for what is JSON."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gcxwire import dcp, gcx
from gcxwire._values import difference, dumps, has_long_digits, loads, long_digit_lines
from gcxwire.errors import EncodeError


def test_gcx1_and_dcp_spell_a_bad_place_the_same_way() -> None:
    bad: list[Any] = [{"é": math.nan}]
    with pytest.raises(EncodeError) as from_dcp:
        dcp.encode(bad)
    with pytest.raises(EncodeError) as from_gcx:
        gcx.encode(bad, tool="t")
    assert from_dcp.value.path == from_gcx.value.path == "$[0]['é']"


@pytest.mark.parametrize(
    "text",
    [
        "-9223372036854775809",  # the shortest literal orjson reads as a float
        "18446744073709551616",
        "[123456789012345678901234567890]",
        '{"a": -9223372036854775808}',
    ],
)
def test_loads_keeps_every_integer_exactly(text: str) -> None:
    value = loads(text)
    assert dumps(value).replace(" ", "") == text.replace(" ", "")


@pytest.mark.parametrize("text", ["1e400", "[NaN]", "-Infinity"])
def test_loads_refuses_what_is_not_a_finite_json_number(text: str) -> None:
    with pytest.raises(ValueError):
        loads(text)


@pytest.mark.parametrize("value", [(1, 2), {1: "a"}, {"a": {1, 2}}, [math.inf]])
def test_dumps_and_both_codecs_refuse_the_same_non_json(value: Any) -> None:
    with pytest.raises(EncodeError):
        dumps(value)
    with pytest.raises(EncodeError):
        dcp.encode([{"v": value}])
    with pytest.raises(EncodeError):
        gcx.encode([{"v": value}, {"v": value}], tool="t")


def test_difference_has_one_argument_order_want_then_got() -> None:
    assert difference({"a": 1}, {"a": 1.0}) == ("$.a", "int reads back as float")
    assert difference([1], [2]) == ("$[0]", "1 reads back as 2")


_DIGITS = st.text(st.sampled_from("0123456789x\u00e9\ud800"), max_size=45)


@given(st.lists(_DIGITS, min_size=1, max_size=5))
def test_long_digit_lines_are_the_lines_has_long_digits_finds(lines: list[str]) -> None:
    want = [i for i, line in enumerate(lines) if has_long_digits(line)]
    assert long_digit_lines(lines) == want
