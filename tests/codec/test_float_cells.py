"""Float cells read as repr writes them, on both twins.

The extension writes short floats itself (no shortest-digits search) and the
rest with CPython's repr routine into its buffer: every cell must still be
exactly ``repr(value)``, and in a ``float=`` column the compact form.
"""

from __future__ import annotations

import math
import random
import struct
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from gcxwire import gcx

from .gcx_checks import leaves

# Doubles of every kind: short decimals (the fast path), full 17-digit ones,
# tiny and huge ones (exponent notation), and the edges of the fast path.
_EDGES = [0.1, 0.3, 0.1 + 0.2, 1e-4, 9.999e-5, -1e-4, 1e15, 1e15 - 1, 999999999999999.9,
          1e14 + 0.5, 123456789.123456, 5e-324, 1.7976931348623157e308, 2.5, -0.0, 0.0,
          1e16, 1e22, 0.00123, 100.0]  # fmt: skip
_DOUBLES = st.one_of(
    st.sampled_from(_EDGES),
    st.builds(round, st.floats(-1e6, 1e6), st.integers(0, 9)),
    st.integers(0, (1 << 64) - 1).map(lambda b: struct.unpack("<d", struct.pack("<Q", b))[0]),
    st.floats(allow_nan=False, allow_infinity=False),
).filter(math.isfinite)


def _cells(rows: list[dict[str, object]]) -> list[str]:
    text = gcx.encode(rows, tool="t")
    return [line.split("\t")[1] for line in text.split("\n")[1:]]


@settings(max_examples=100, deadline=None)
@given(st.lists(_DOUBLES, min_size=1, max_size=40))
def test_float_cells_are_repr(values: list[float]) -> None:
    # An int in the column keeps it from being a float= column.
    rows: list[dict[str, object]] = [{"s": "a", "x": v} for v in values] + [{"s": "b", "x": 1}]
    assert _cells(rows)[:-1] == [repr(v) for v in values]


def test_float_cells_exhaustive_short_decimals() -> None:
    # Every price-like value with up to 4 decimals in a range, against repr.
    values = [round(i * 0.0001 + 0.01 * j, 4) for i in range(0, 10000, 7) for j in (0, 1, 333)]
    values += [-v for v in values] + [v * 1e9 for v in values[:500]]
    rows: list[dict[str, object]] = [{"s": "a", "x": v} for v in values] + [{"s": "b", "x": 1}]
    assert _cells(rows)[:-1] == [repr(v) for v in values]


def _compact(v: float) -> str:
    if -1e15 < v < 1e15 and v == int(v):
        return "-0" if v == 0 and math.copysign(1, v) < 0 else str(int(v))
    return repr(v)


@settings(max_examples=100, deadline=None)
@given(st.lists(_DOUBLES, min_size=1, max_size=40))
def test_float_column_cells_are_compact(values: list[float]) -> None:
    # Three integral floats and no int: a float= column, written without `.0`.
    values = [3.0, -0.0, 7.0, *values]
    text = gcx.encode([{"s": "a", "x": v} for v in values], tool="t")
    assert " float=x" in text.split("\n")[0]
    assert [line.split("\t")[1] for line in text.split("\n")[1:]] == [_compact(v) for v in values]


def test_float_cells_full_precision() -> None:
    # 16- and 17-digit doubles (random(), ratios) and the neighbours of powers of
    # ten: the extension writes them from exact 128-bit arithmetic, not repr.
    rnd = random.Random(5)
    values = [rnd.random() * 10.0 ** rnd.randrange(-4, 15) for _ in range(3000)]
    for e in range(-4, 15):
        p = 10.0**e
        values += [math.nextafter(p, 0.0), math.nextafter(p, math.inf), p * (1 + 2**-52)]
    values += [-v for v in values[:500]]
    rows: list[dict[str, object]] = [{"s": "a", "x": v} for v in values] + [{"s": "b", "x": 1}]
    assert _cells(rows)[:-1] == [repr(v) for v in values]


def test_float_cells_fifteen_digits_at_the_decade_ends() -> None:
    # The extension finds a decimal of 15 digits or fewer from one product scaled
    # into [1e14, 1e15): decimals of 14 to 16 digits at either end of each decade
    # (where that product rounds across the range's ends), and their neighbours.
    ends = ["1.00000000000001", "9.99999999999999", "1.0000000000001", "9.9999999999999"]
    ends += ["1.000000000000001", "9.999999999999999", "5.55555555555555", "1.5"]
    values = []
    for e in range(-4, 15):
        for digits in ends:
            v = float(f"{digits}e{e}")
            values += [v, math.nextafter(v, 0.0), math.nextafter(v, math.inf)]
    values = [v for v in values if 1e-4 <= v < 1e15]
    rows: list[dict[str, object]] = [{"s": "a", "x": v} for v in values] + [{"s": "b", "x": 1}]
    assert _cells(rows)[:-1] == [repr(v) for v in values]


# Rows around a float column: integral floats (the cells float= changes), the
# guards and raw CRs a row's edges rewrite, ints and nulls that rule a column out.
# The first 16 rows hold few integral floats and the later ones many, or an int
# that rules their column out again: the guessed float= columns differ either way.
_CELLS = ["#x", "GCX1", "a\r", "", None, True, 2.5, 0.1]
_LATER = [3.0, -0.0, 1e15 - 1, 1e15, -7.0, 4]


def _rows(cells: Sequence[object], floats: Sequence[object]) -> list[dict[str, object]]:
    rows = []
    for i, x in enumerate(cells):
        for j, y in enumerate(floats):
            z = floats[(i + j) % len(floats)]
            rows.append({k: v for k, v in zip("abc", (x, y, z), strict=True) if v != ""})
    return rows


_FIRST_ROWS = _rows(_CELLS, [2.5, 0.1, 3.0, None])
_LATER_ROWS = _rows(_CELLS, _LATER)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(_FIRST_ROWS), min_size=16, max_size=16),
    st.lists(st.sampled_from(_LATER_ROWS + _FIRST_ROWS), min_size=1, max_size=30),
    st.booleans(),
)
def test_a_table_reads_in_its_style_when_its_first_rows_mislead(
    twin: str, first: list[dict[str, object]], rest: list[dict[str, object]], head: bool
) -> None:
    # The writer guesses the style from 16 rows; rows after them can flip a
    # float= column either way, and each row must read as encode_row writes it.
    rows, leaf = first + rest, leaves(twin)
    fields, paths = ["a", "b", "c"], [("a",), ("b",), ("c",)]
    got = leaf.encode_table(rows, fields, paths, "H" if head else None, "\n", None)
    assert got is not None
    text, empty_null, floats = got
    assert (empty_null, floats) == leaf.scan_style(rows, fields)
    lines = [leaf.encode_row(row, fields, empty_null, floats) for row in rows]
    assert (text.split("\n", 1)[1] if head else text) == "\n".join(lines)


def test_float_cells_digits_with_zero_runs() -> None:
    # The digits are written eight at a time from their low end: decimals of 9 to
    # 17 digits whose eight-digit parts start, end or are made of zeros.
    values: list[float] = []
    for digits in range(9, 18):
        for zeros in range(1, digits - 1):
            for lead in ("1", "7", "12"):
                text = (lead + "0" * zeros + "3")[:digits].ljust(digits, "5")
                for point in range(1, len(text)):
                    v = float(text[:point] + "." + text[point:])
                    values += [v, math.nextafter(v, math.inf)]
    values = [v for v in values if 1e-4 <= v < 1e15]
    values += [-v for v in values[:300]]
    rows: list[dict[str, object]] = [{"s": "a", "x": v} for v in values] + [{"s": "b", "x": 1}]
    assert _cells(rows)[:-1] == [repr(v) for v in values]
