"""Infixed columns (`infix=name=text`): a long run of path segments a column's strings share
inside, written once; each cell holds `…` in its place.

Image proxies and signed links put a fixed middle between varying parts
(`<signature>/rs:fit:32:32:1:0/g:ce/<encoded source>`): no prefix covers it,
and no other column spells it out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ._gcx_columns import _PROBES, Path, _column, _Columns, _parent_copy
from ._gcx_header import _name_text
from ._gcx_model import _INFIX, _INFIX_MARK
from ._impl import escape
from ._values import ABSENT

MARK = _INFIX_MARK

# An infix is this long at least, and this many cells of its column (and half
# of its strings) hold it: it is the column's, not a few rows'.
_INFIX_MIN = 16
_INFIX_ROWS = 3

# An infix is part of a URL or path: the characters RFC 3986 allows there (and
# `%` escapes). Markup (`</b>`), braces and quotes stay in the cells.
_URL_TEXT = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+")

# Where a path or query string may be cut: an infix is whole segments, so each
# cell keeps the separators around its `…` (`a/…/b`, `x?…&y=1`).
_SEPARATOR = re.compile(r"[/?&#]")

# Candidates come from this many pairs of sample strings; longer strings and
# segments past this many separators are not looked into (the search stays linear).
_SEEDS = 3
_SEED_LENGTH = 4096
_SEED_CUTS = 48


def _infixes(
    rows: Sequence[Any],
    fields: Sequence[str],
    paths: Sequence[Path],
    skip: frozenset[int],
    prefixes: dict[int, str],
) -> dict[int, str]:
    """Columns whose strings share a long run of whole segments inside: index -> that run.

    ``rows`` are the rows as written (derived cells already dropped); each
    string is looked at after its column's prefix. A string whose run would
    stand at its very start keeps its text (the cell must begin with its own);
    a column where any string holds ``…`` already is left alone, so that every
    ``…`` a reader meets is the infix's.
    """
    if len(rows) < _INFIX_ROWS:
        return {}
    size = len(rows)
    step = max(1, size // _PROBES)
    probes = [*rows[:_PROBES], *rows[_PROBES::step][:_PROBES]]
    cols: _Columns | None = None
    found: dict[int, str] = {}
    for k, name in enumerate(fields):
        if k in skip:
            continue
        cut = len(prefixes.get(k, ""))
        # A sample of the rows first: most columns hold no such run at all.
        sample = _column_strings(_column(probes, paths[k]), cut)
        if not sample or len(sample) < _INFIX_ROWS:
            continue
        text = _best_run(sample)
        if text is None:
            continue
        if cols is None:
            # A row that is no dict rules every infix out: looked for only once a
            # sample holds one (the sample reads such a row as absent cells).
            if any(type(row) is not dict for row in rows):
                return {}
            cols = _Columns(rows)
        strings = _column_strings(cols.values(paths[k]), cut)
        if strings is None:
            continue
        held = sum(1 for s in strings if _place(s, text) > 0)
        # It pays when the text it takes out of the cells is twice the header token's length.
        cost = 2 * (len(_INFIX) + len(name) + len(text) + 3)
        if (
            held >= max(_INFIX_ROWS, (len(strings) + 1) // 2)
            and held * (len(text) - len(MARK)) >= cost
        ):
            found[k] = text
    return found


def _column_strings(values: Sequence[Any], cut: int) -> list[str] | None:
    # The column's exact strings after its prefix; None when any string there holds `…`.
    out: list[str] = []
    for value in values:
        if value is ABSENT or not isinstance(value, str):
            continue
        if MARK in value:
            return None
        if type(value) is str:
            out.append(value[cut:])
    return out


def _best_run(strings: list[str]) -> str | None:
    """The run of segments that takes out the most text from these (sample) strings.

    Runs are cut from a few sample strings at their separators: the maximal
    runs of a string's segments that the next sample string holds too. The run
    may not begin or end with a separator, so the cell keeps them around its ``…``.
    """
    best: tuple[int, str] | None = None
    seeds = [s for s in strings if _SEED_SIZE <= len(s) <= _SEED_LENGTH][: _SEEDS + 1]
    for seed, other in zip(seeds, seeds[1:]):
        for run in _runs(seed, other):
            score = sum(1 for s in strings if _place(s, run) > 0) * (len(run) - len(MARK))
            if best is None or score > best[0]:
                best = (score, run)
    return None if best is None else best[1]


# A string that can hold an infix with text of its own and a separator on both sides.
_SEED_SIZE = _INFIX_MIN + 4


def _runs(seed: str, other: str) -> list[str]:
    # Maximal runs of the seed's segments that the other string holds too.
    cuts = [m.start() for m in _SEPARATOR.finditer(seed, 0, _SEED_LENGTH)][:_SEED_CUTS]
    if len(cuts) < 2:
        return []
    # Segment i lies between cuts[i] and cuts[i + 1]; the text before the first
    # separator and after the last is the cell's own start and end, and stays.
    runs: list[str] = []
    start: int | None = None
    for i in range(len(cuts)):
        if i + 1 < len(cuts) and seed[cuts[i] + 1 : cuts[i + 1]] in other:
            if start is None:
                start = i
            continue
        if start is not None:
            run = seed[cuts[start] + 1 : cuts[i]]
            if _may_be_run(run):
                runs.append(run)
            start = None
    return runs


def _place(string: str, text: str) -> int:
    """Where the infix is written ``…`` in a string: its first place with text on both sides.

    The cell keeps its own start and end (`sig/…/hash`, never `internal/…`:
    a string that only repeats the others' text would not say what it is).
    -1 where there is none.
    """
    at = string.find(text, 1)
    while at > 0 and at + len(text) >= len(string):
        at = string.find(text, at + 1)
    return at


def _may_be_run(text: str) -> bool:
    # Long enough, URL text (so one header token), whole segments at both ends.
    return (
        len(text) >= _INFIX_MIN
        and _SEPARATOR.match(text) is None
        and _SEPARATOR.match(text[-1]) is None
        and _URL_TEXT.fullmatch(text) is not None
    )


def _infix_text(name: str, text: str) -> str:
    # `infix=name=text`: the name as a field list writes it (its `=` escaped), then the text.
    return escape(_name_text(name)) + "=" + escape(text)


def _mark_infixes(
    rows: Sequence[dict[str, Any]],
    paths: Sequence[Path],
    prefixes: dict[int, str],
    infixes: dict[int, str],
) -> list[dict[str, Any]]:
    """Copies of the rows with each prefix cut and each infix's first place written ``…``."""
    out: list[dict[str, Any]] = []
    columns = sorted(set(prefixes) | set(infixes))
    for row in rows:
        row = dict(row)
        for k in columns:
            path = paths[k]
            target = _parent_copy(row, path)
            if target is None:
                continue
            value = target.get(path[-1], ABSENT)
            if type(value) is not str:
                continue
            value = value[len(prefixes.get(k, "")) :]
            text = infixes.get(k)
            if text is not None:
                at = _place(value, text)
                if at > 0:
                    value = value[:at] + MARK + value[at + len(text) :]
            target[path[-1]] = value
        out.append(row)
    return out
