"""Estimates of a table's tokens in each format from the same few rows of each.

A text is cut into one unit per row at places where token counts add up
(``tokens.next_cut``), so the units' counts sum exactly to the text's, less a
head counted exactly: a sample of units has no bias at row boundaries. The
rows are drawn one from each of ``size`` equal strata, at a place fixed by the
table's length (the same value is always estimated the same way), so a table
that repeats with a period cannot hide its other rows behind an even stride.

Where the units' total length is known (JSON and GCX1 are written whole), the
estimate is a ratio one: tokens per character of the sampled units times the
total length; its error comes from how far each unit's tokens stray from that
rate, far less than how far rows differ in size. Two formats are compared on
the same rows, by the spread of their paired residuals.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from . import dcp, tokens
from ._impl import row_line_starts
from .errors import EncodeError

__all__ = [
    "RowSample",
    "dcp_rows",
    "difference_spread",
    "first_section_end",
    "gcx_rows",
    "json_rows",
    "paired_difference",
    "spread_of_total",
    "spreads",
    "strata",
]

# How a unit is counted: tokens.count, or a memo of it (a larger sample draws
# some of the rows a smaller one counted).
Counter = Callable[[str], int]

_FIT = 0.10  # how far the sampled units' length, scaled to the table, may miss the whole
_FLOOR = 0.5  # tokens: the least per-row spread a sample is taken to have


# How many standard errors a difference must clear, by the number of sampled
# rows (or windows) its spread was measured on: Student's t at the tail the
# normal has at 4 (3.2e-5, one-sided), for size - 1 degrees of freedom. A
# spread measured on 16 rows is itself uncertain: 4 of them would be cleared
# by chance 18 times as often.
_T_SPREADS = {8: 8.47, 16: 5.48, 32: 4.62, 64: 4.29, 128: 4.14, 256: 4.07, 512: 4.03}


def spreads(size: int) -> float:
    """The errors a difference measured on ``size`` rows must clear to decide."""
    below = [t for at, t in _T_SPREADS.items() if at <= size]
    return below[-1] if below else _T_SPREADS[8]


def strata(rows: int, size: int) -> list[int]:
    """One row index from each of ``size`` equal strata of ``rows``, placed by a
    generator seeded with ``rows`` and ``size``: deterministic, not periodic."""
    place = random.Random(rows * 65_537 + size)
    return [place.randrange(k * rows // size, (k + 1) * rows // size) for k in range(size)]


@dataclass(frozen=True)
class RowSample:
    """One format's sampled units: ``fixed`` tokens counted (or estimated apart,
    with variance ``fixed_var``), ``units`` tokens of each sampled row's unit,
    ``sizes`` their lengths when ``total_size`` (all units' length) is known."""

    rows: int
    fixed: float
    fixed_var: float
    units: Sequence[int]
    sizes: Sequence[int] | None = None
    total_size: int = 0
    # The head and units as counted, in text order: a close race counted whole
    # later counts only the text between them (tokens.windows_of).
    pieces: Sequence[tuple[str, int]] = ()

    def rate(self) -> float | None:
        if self.sizes is None or not sum(self.sizes):
            return None
        return sum(self.units) / sum(self.sizes)

    def total(self) -> float:
        rate = self.rate()
        if rate is None:
            return self.fixed + self.rows * sum(self.units) / len(self.units)
        return self.fixed + rate * self.total_size

    def residuals(self) -> list[float]:
        """Each sampled unit's departure from the estimate's model of it."""
        rate = self.rate()
        if rate is None or self.sizes is None:
            mean = sum(self.units) / len(self.units)
            return [unit - mean for unit in self.units]
        return [unit - rate * size for unit, size in zip(self.units, self.sizes)]

    def spread(self) -> float:
        return difference_spread(self, None)


def spread_of_total(
    per_row: Sequence[float], rows: int, fixed_var: float = 0.0, floor: float = 0.0
) -> float:
    """Standard error of ``rows`` times the mean of ``per_row`` drawn from them
    (plus an independent part of variance ``fixed_var``); the per-row
    variance is taken as at least ``floor`` squared."""
    size = len(per_row)
    if size < 2:  # one row tells nothing of how rows vary
        return 0.0 if size >= rows else float("inf")
    mean = sum(per_row) / size
    variance = max(floor**2, sum((value - mean) ** 2 for value in per_row) / (size - 1))
    return float((rows**2 * variance / size * (1 - size / rows) + fixed_var) ** 0.5)


def _total_spread(per_row: Sequence[float], rows: int, fixed_var: float) -> float:
    # A sample whose rows all agree says little of the rows it missed.
    return spread_of_total(per_row, rows, fixed_var, _FLOOR)


def difference_spread(a: RowSample, b: RowSample | None) -> float:
    """Standard error of ``a.total() - b.total()`` (of ``a.total()`` alone for
    None), the two drawn on the same rows."""
    left = a.residuals()
    paired = left if b is None else [x - y for x, y in zip(left, b.residuals())]
    return _total_spread(paired, a.rows, a.fixed_var + (0.0 if b is None else b.fixed_var))


def paired_difference(a: RowSample, b: RowSample) -> tuple[float, float]:
    """How many tokens ``a`` has more than ``b``, and its standard error, from
    the same sampled rows: the ratio estimates' difference, or the mean of the
    rows' own differences (the framing two formats put around the same cells
    varies little from row to row), whichever has the smaller error."""
    ratio = (a.total() - b.total(), difference_spread(a, b))
    rows = [x - y for x, y in zip(a.units, b.units)]
    spread = _total_spread(rows, a.rows, a.fixed_var + b.fixed_var)
    mean = (a.fixed - b.fixed + a.rows * sum(rows) / len(rows), spread)
    return min(ratio, mean, key=lambda estimate: estimate[1])


def _fits(sizes: Sequence[int], rows: int, total: int) -> bool:
    """Whether the sampled units, scaled to the table, come near its length
    (within _FIT, or four of that scaling's own errors where rows vary more):
    rows the sample missed that are far bigger than it are not estimated from it."""
    miss = abs(rows * sum(sizes) / len(sizes) - total)
    return miss <= max(_FIT * total, 4 * spread_of_total(sizes, rows))


def json_rows(
    value: list[Any], size: int, picked: Sequence[int], count: Counter = tokens.count
) -> RowSample | None:
    """Units of the compact JSON of the list ``value`` (``size`` characters): from
    the first cut inside each row to the first cut inside the next (the last to
    the end). Each sampled row is written by orjson, not cut from the text."""
    try:
        first = orjson.dumps(value[0]).decode()
        head = "[" + first[: tokens.next_cut(first, 1)]
        units: list[str] = []
        for index in picked:
            row = first if index == 0 else orjson.dumps(value[index]).decode()
            cut = tokens.next_cut(row, 1)
            if cut >= len(row):
                return None
            if index + 1 < len(value):
                following = orjson.dumps(value[index + 1]).decode()
                after = tokens.next_cut(following, 1)
                if after >= len(following):
                    return None
                units.append(row[cut:] + "," + following[:after])
            else:
                units.append(row[cut:] + "]")
    except orjson.JSONEncodeError:
        return None
    return _measured(len(value), (head, count(head)), 0.0, units, size - len(head), 0.0, count)


def first_section_end(text: str) -> int:
    """Where a GCX1 text's first section ends: the start of its first child
    section's header line, or the text's end."""
    child = text.find("\nGCX1")
    return len(text) if child < 0 else child + 1


def gcx_rows(
    text: str,
    rows: int,
    picked: Sequence[int],
    end: int | None = None,
    count: Counter = tokens.count,
) -> RowSample | None:
    """Units of a GCX1 ``text`` whose first section holds one line per row: from
    the first cut at or after a row's line start to the next row's. Child
    sections after it (lists of objects in the rows) are estimated apart.
    ``end`` is ``first_section_end(text)`` when the caller has it."""
    if end is None:
        end = first_section_end(text)
    lines, starts = _line_starts(text, end, rows, picked)
    head = lines - rows
    if head < 1:
        return None

    def cut(line: int) -> int:  # from the newline before it: a line start may be a cut itself
        return end if line >= lines else min(tokens.next_cut(text, starts[line] - 1), end)

    begin = cut(head)
    units = [text[cut(head + index) : cut(head + index + 1)] for index in picked]
    rest, rest_spread = tokens.estimate(text[end:]) if end < len(text) else (0.0, 0.0)
    start = text[:begin]
    counted = (start, count(start))
    return _measured(rows, counted, rest_spread**2, units, end - begin, rest, count)


def _line_starts(
    text: str, end: int, rows: int, picked: Sequence[int]
) -> tuple[int, dict[int, int]]:
    """How many lines ``text[:end]`` has, and where the ones a sample of its last
    ``rows`` lines at ``picked`` needs start (a line past the last starts at
    ``end``): row_line_starts, in C without copying the text (a Python step
    per line cost 2 ms on 5,000 rows; splitting into lines, a copy of the text)."""
    wanted = sorted({0, *picked, *(i + 1 for i in picked)})
    lines, found = row_line_starts(text, end, rows, wanted)
    return lines, dict(zip((lines - rows + i for i in wanted), found))


def dcp_rows(
    value: list[Any], picked: Sequence[int], like: RowSample | None, count: Counter = tokens.count
) -> RowSample | None:
    """DCP written for the sampled rows only (the rest may never be needed): each
    row line a unit; sized by ``like``'s units (JSON's, same rows) when given."""
    try:
        lines = dcp.encode([value[index] for index in picked]).split("\n")
    except EncodeError:
        return None
    head = len(lines) - len(picked)
    if head < 1:
        return None
    units = [count(line + "\n") for line in lines[head:]]
    fixed = tokens.count("\n".join(lines[:head]) + "\n")
    # The whole text's lines for these rows are these lines where it writes them
    # alike (tokens.windows_of finds them and checks their ends); not its header.
    pieces = [(line + "\n", unit) for line, unit in zip(lines[head:], units)]
    if like is None:
        return RowSample(len(value), fixed, 0.0, units, pieces=pieces)
    return RowSample(len(value), fixed, 0.0, units, like.sizes, like.total_size, pieces)


def _measured(
    rows: int,
    head: tuple[str, int],
    fixed_var: float,
    units: list[str],
    total: int,
    rest: float = 0.0,
    count: Counter = tokens.count,
) -> RowSample | None:
    """The sample of ``units`` after ``head`` (counted), ``rest`` (estimated) besides."""
    sizes = [len(unit) for unit in units]
    if not _fits(sizes, rows, total):
        return None
    counts = [count(unit) for unit in units]
    pieces = [head, *zip(units, counts)]
    return RowSample(rows, head[1] + rest, fixed_var, counts, sizes, total, pieces)
