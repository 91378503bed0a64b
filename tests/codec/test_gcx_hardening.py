"""Hostile GCX1 input and values: bounded work, no silent loss, the contract kept.

Scaling checks compare CPU time (``time.process_time``, so other processes on
a busy machine do not count) between an input and one 10 times its size, in
this one process: linear work grows about 10x, a quadratic path about 100x;
the bound (30x) is generous both ways.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

import gcxwire
from gcxwire import _impl, _speedups_py, gcx

try:
    from gcxwire import _speedups
except ImportError:  # pragma: no cover - CI requires the extension
    _speedups = None  # type: ignore[assignment]

GROWTH_BOUND = 30.0


def _twin_module(twin: str) -> ModuleType:
    return _speedups if twin == "c" else _speedups_py


def _cpu(fn: Callable[[], Any]) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def growth(make: Callable[[int], Callable[[], Any]], n: int) -> float:
    """CPU time of the work on 10n over that on n (each the best of 3)."""
    small, large = make(n), make(10 * n)
    small()  # warm caches and imports
    return _cpu(large) / max(_cpu(small), 1e-6)


# ---------------------------------------------------------------- linear paths


def test_wide_table_column_plan_is_linear(twin: str) -> None:
    module = _twin_module(twin)

    def make(n: int) -> Callable[[], Any]:
        keys = [f"k{i}" for i in range(n)]
        rows = [dict.fromkeys(keys, 1)]
        paths = [(k,) for k in keys]
        return lambda: module.encode_table(rows, keys, paths, None, "", None)

    assert growth(make, 2000) < GROWTH_BOUND


def test_flat_group_names_are_linear() -> None:
    # Columns with many dots: under a deep group, and under none (every dot a
    # candidate group to look up).
    def make(n: int) -> Callable[[], Any]:
        group = ".".join(["g"] * n)
        text = f"GCX1 tool=t fields={group}.x,{group}.y,h.{group} flat={group},h.g\n1\n"
        return lambda: gcx.decode(text, limits=gcxwire.Limits(max_depth=10**7))

    assert growth(make, 3000) < GROWTH_BOUND


def test_escaped_separator_scan_is_linear() -> None:
    # A constant column whose name holds many `\=` before its own `=`.
    def make(n: int) -> Callable[[], Any]:
        name = "\\\\=" * n  # each `\=` escaped once more, as names are in `fields=`
        text = f"GCX1 tool=t fields=a,{name}=1\n2\n"
        return lambda: gcx.decode(text)

    assert growth(make, 5000) < GROWTH_BOUND


# ------------------------------------------------------------- contract holes

SHALLOW = gcxwire.Limits(max_depth=10)
DEEP = "[" * 20 + "]" * 20


def test_max_depth_holds_for_header_meta_values() -> None:
    with pytest.raises(gcxwire.DecodeError, match="nests deeper than 10 levels"):
        gcx.decode(f"GCX1 tool=t fields=a m={DEEP}\n1\n", limits=SHALLOW)


def test_max_depth_holds_for_dotted_names() -> None:
    group = ".".join("g" * 20)
    text = f"GCX1 tool=t fields={group}.x flat={group}\n1\n"
    with pytest.raises(gcxwire.DecodeError, match="nests deeper than 10 levels"):
        gcx.decode(text, limits=SHALLOW)
    short = ".".join("g" * 8)
    assert gcx.decode(f"GCX1 tool=t fields={short}.x flat={short}\n1\n", limits=SHALLOW)


def test_a_constant_column_is_refused_before_its_literal_is_read() -> None:
    with pytest.raises(gcxwire.DecodeError, match="is not a scalar"):
        gcx.decode(f"GCX1 tool=t fields=a={DEEP},b\n\t1\n", limits=SHALLOW)


@pytest.mark.parametrize(
    "text",
    [
        "GCX1 tool=t fields=a\n[1e400]\n",
        'GCX1 tool=t fields=a\n{"x":-2.5E+999}\n',
        "GCX1 tool=t fields=a m=[1e400]\n1\n",
        "GCX1 tool=t fields=a\n[" + "9" * 400 + ".5]\n",
    ],
)
def test_a_number_past_float_range_is_an_error_not_inf(text: str) -> None:
    with pytest.raises(gcxwire.DecodeError, match="out of range"):
        gcx.decode(text)


def test_numbers_near_float_range_still_read() -> None:
    assert gcx.decode('GCX1 tool=t fields=a\n[1e308,-1.5e-300,"e123",1e-400]\n') == [
        {"a": [1e308, -1.5e-300, "e123", 0.0]}
    ]


def test_a_field_listed_twice_is_refused_in_typed_decode() -> None:
    text = "GCX1 tool=t fields=a,b,a\n1\t2\t3\n"
    with pytest.raises(gcxwire.DecodeError, match="Field 'a' is listed twice"):
        gcx.decode(text)
    # Untyped, the rows are what reference decoders read: the last cell wins.
    assert gcx.parse(text)[0].rows == [{"a": "3", "b": "2"}]


def test_a_float_column_named_empty_reads_back_as_floats() -> None:
    rows = [{"": float(i), "b": i} for i in range(5)]
    back = gcx.decode(gcx.encode(rows, tool="t"))
    assert back == rows
    assert all(type(row[""]) is float for row in back)


def test_str_subclasses_encode_as_their_text_on_both_twins(twin: str) -> None:
    import enum

    class Colour(str, enum.Enum):  # what enum.StrEnum (3.11+) and pydantic's str enums are
        RED = "red"
        NUMBER = "12"

    class Tag(str):
        pass

    value = {Colour.RED: [{"c": Colour.NUMBER, "t": Tag("true")}], "k": Colour.RED}
    text = gcx.encode(value, tool="t")
    assert gcx.decode(text) == {"red": [{"c": "12", "t": "true"}], "k": "red"}
    with _impl.use_twin("py"):
        assert gcx.encode(value, tool="t") == text


def test_invalid_utf8_is_reported_where_it_is() -> None:
    data = "GCX1 tool=t fields=a\n1\né".encode() + b"\xff\n"
    with pytest.raises(gcxwire.DecodeError, match="not UTF-8") as info:
        gcx.decode(data)
    assert (info.value.lineno, info.value.colno) == (3, 2)
