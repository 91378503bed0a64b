"""Infixed columns (`infix=name=text`): a long run of path segments a column's strings share
inside, written once; each cell holds `…` in its place.

Image proxies and signed links put a fixed middle between varying parts
(`<signature>/rs:fit:32:32:1:0/g:ce/<encoded source>`): no prefix covers it,
and no other column spells it out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._gcx_columns import _PROBES, Path, _parent_copy
from ._gcx_header import _name_text
from ._gcx_model import _INFIX, _INFIX_MARK
from ._impl import column_strings, escape, infix_runs
from ._values import ABSENT

MARK = _INFIX_MARK

# An infix is this long at least, and this many cells of its column (and half
# of its strings) hold it: it is the column's, not a few rows'.
_INFIX_MIN = 16
_INFIX_ROWS = 3

# An infix is part of a URL or path: the characters RFC 3986 allows there (and
# `%` escapes); markup (`</b>`), braces and quotes stay in the cells. It is cut
# where a path or query string may be (`/?&#`): whole segments, so each cell
# keeps the separators around its `…` (`a/…/b`, `x?…&y=1`). The infix_runs leaf
# finds such runs.

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
    cuts = [len(prefixes.get(k, "")) for k in range(len(fields))]
    # A sample of the rows first (all columns in one leaf): most hold no such run at all.
    samples = column_strings(
        probes, [None if k in skip else p for k, p in enumerate(paths)], cuts, MARK
    )
    found: dict[int, str] = {}
    dicts = False
    for k, name in enumerate(fields):
        sample = samples[k]
        if not sample or len(sample) < _INFIX_ROWS:
            continue
        text = _best_run(sample)
        if text is None:
            continue
        if not dicts:
            # A row that is no dict rules every infix out: looked for only once a
            # sample holds one (the sample reads such a row as absent cells).
            if any(type(row) is not dict for row in rows):
                return {}
            dicts = True
        strings = column_strings(rows, [paths[k]], [cuts[k]], MARK)[0]
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


def _best_run(strings: list[str]) -> str | None:
    """The run of segments that takes out the most text from these (sample) strings.

    Runs are cut from a few sample strings at their separators: the maximal
    runs of a string's segments that the next sample string holds too. The run
    may not begin or end with a separator, so the cell keeps them around its ``…``.
    """
    best: tuple[int, str] | None = None
    for run in infix_runs(strings, _SEEDS, _SEED_SIZE, _SEED_LENGTH, _INFIX_MIN, _SEED_CUTS):
        score = sum(1 for s in strings if _place(s, run) > 0) * (len(run) - len(MARK))
        if best is None or score > best[0]:
            best = (score, run)
    return None if best is None else best[1]


# A string that can hold an infix with text of its own and a separator on both sides.
_SEED_SIZE = _INFIX_MIN + 4


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
