"""The quick form of ``bench/scaling.py``: CPU per row and per cell must not climb
as a table grows tenfold (a superlinear path would). The full sweep, 5 to 200,000
rows and up to 10,000 columns, is the script; this runs on every push."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from workloads import TWINS, cpu, symbols, twin, wide

from gcxwire import gcx

# How much a unit's CPU may grow from a table to one ten times its size. Linear
# code stays near 1 (fixed costs even make it fall); a quadratic path gives ~10.
GROWTH = 3.0


def _encode(value: Any) -> str:
    return gcx.encode(value, tool="t")


def _per_unit(build: Callable[[int], Any], size: int, units: int, direction: str) -> float:
    value = build(size)
    if direction == "encode":
        return cpu(_encode, value, budget=0.03) / units
    return cpu(gcx.decode, _encode(value), budget=0.03) / units


@pytest.mark.parametrize("direction", ["encode", "decode"])
@pytest.mark.parametrize("twin_name", TWINS)
def test_rows_scale_linearly(
    request: pytest.FixtureRequest, twin_name: str, direction: str
) -> None:
    small = 50 if request.config.getoption("quick") else 500
    with twin(twin_name):
        before = _per_unit(symbols, small, small, direction)
        after = _per_unit(symbols, small * 10, small * 10, direction)
    assert after < GROWTH * before, (before, after)


@pytest.mark.parametrize("direction", ["encode", "decode"])
@pytest.mark.parametrize("present", [1.0, 0.3])
@pytest.mark.parametrize("twin_name", TWINS)
def test_columns_scale_linearly(
    request: pytest.FixtureRequest, twin_name: str, present: float, direction: str
) -> None:
    small = 100 if request.config.getoption("quick") else 1000
    with twin(twin_name):
        before = _per_unit(lambda c: wide(20, c, present), small, 20 * small, direction)
        after = _per_unit(lambda c: wide(20, c, present), small * 10, 200 * small, direction)
    assert after < GROWTH * before, (before, after)
