"""Prefixed columns (`prefix=name=text`): the shared start of a column's strings, written once."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._gcx_columns import Path, _parent_copy
from ._gcx_header import _name_text
from ._gcx_model import (
    _SPACE,
)
from ._impl import (
    column_prefixes,
    escape,
    flat_prefixes,
)
from ._values import ABSENT

# A prefix is written once per column only when it is this long and its column
# holds this many strings: shorter or rarer ones cost more header than they save.
_PREFIX_MIN = 12


_PREFIX_ROWS = 3

# A flat table this long is read whole only where its first rows leave a prefix
# possible (see _prefixes' ``unsure``).
_PREFIX_SAMPLE = 16


def _prefixes(
    rows: Sequence[Any],
    fields: Sequence[str],
    paths: Sequence[Path],
    constants: dict[str, str],
    unsure: list[int] | None = None,
) -> dict[int, str]:
    """Columns whose strings share a long ``…/`` prefix: column index -> that prefix.

    The prefix is common to every string of the column (so none lacks it), ends
    at a ``/`` and leaves each string a suffix of two path segments at least
    (``issues/12``, not ``12``), so the cell still says what it is. Only
    columns of strings and non-strings (null, numbers, absent) qualify; a JSON
    array or object in the column rules it out.

    With ``unsure`` (an empty list), a table longer than two samples is read
    whole only in the columns whose first rows' strings share a long prefix:
    those whose first rows hold no str are not read past them, and their
    indexes go into ``unsure``. The answer is the whole table's when
    :func:`_prefixes_stand` says so (the writer counts the strs).
    """
    if len(rows) < _PREFIX_ROWS:
        return {}
    found: dict[int, str] = {}
    wanted = [None if name in constants else path for name, path in zip(fields, paths, strict=True)]
    flat = all(len(path) == 1 for path in paths)  # top-level members: one walk over each row
    if unsure is not None and len(rows) > 2 * _PREFIX_SAMPLE:
        # Most columns are ruled out by their first rows (a shared prefix only
        # shortens): the whole table is read in the others alone.
        for k, shared in enumerate(_shared(rows[:_PREFIX_SAMPLE], wanted, 0, flat)):
            if wanted[k] is None:
                continue
            if shared is None:  # no str there (or a JSON value): the writer counts them
                unsure.append(k)
            if shared is None or shared[1] < _PREFIX_MIN:
                wanted[k] = None
    if any(path is not None for path in wanted):
        shared_by = _shared(rows, wanted, _PREFIX_MIN, flat)
    else:
        shared_by = [None] * len(wanted)
    for k, shared in enumerate(shared_by):
        if shared is not None and shared[2] >= _PREFIX_ROWS:
            text = _common_prefix(shared[0], shared[1])
            if text is not None:
                found[k] = text
    # The leaf reads a row that is no dict as absent cells: such a row rules every
    # prefix out, looked for only where one was found (most tables have none).
    if found and set(map(type, rows)) != {dict}:
        return {}
    return found


def _prefixes_stand(
    rows: Sequence[Any], paths: Sequence[Path], unsure: list[int], counted: list[int]
) -> bool:
    """Whether the ``unsure`` columns of _prefixes hold no prefix (its answer is exact).

    ``counted`` holds the writer's count of exact strs per column: a column of
    fewer than a prefix's strings holds none; the others are read whole.
    """
    open_ = {k for k in unsure if k >= len(counted) or counted[k] >= _PREFIX_ROWS}
    if not open_:
        return True
    wanted = [paths[k] if k in open_ else None for k in range(len(paths))]
    flat = all(len(path) == 1 for path in paths)
    return all(
        shared is None or shared[2] < _PREFIX_ROWS or _common_prefix(shared[0], shared[1]) is None
        for shared in _shared(rows, wanted, _PREFIX_MIN, flat)
    )


def _shared(
    rows: Sequence[Any], wanted: Sequence[Path | None], least: int, flat: bool
) -> list[tuple[str, int, int] | None]:
    # What each wanted column's strs share (column_prefixes); top-level members by the
    # leaf that walks each row's items once.
    if flat:
        return flat_prefixes(rows, [None if p is None else p[0] for p in wanted], least)
    return column_prefixes(rows, wanted, least)


def _common_prefix(first: str, n: int) -> str | None:
    # The prefix to write for a column whose strings share first[:n] (first the least).
    cut = first.rfind("/", 0, n)
    if cut < 0:
        return None
    back = first.rfind("/", 0, cut)  # keep one more segment in the cell: `issues/12`
    scheme = first.find("://")
    if back >= 0 and (scheme < 0 or back > scheme + 2):
        cut = back
    text = first[: cut + 1]
    if len(text) < _PREFIX_MIN or _SPACE.search(text):
        return None
    return text


def _prefix_text(name: str, prefix: str) -> str:
    # `prefix=name=text`: the name as a field list writes it (its `=` escaped), then the text.
    return escape(_name_text(name)) + "=" + escape(prefix)


def _cut_prefixes(
    rows: Sequence[dict[str, Any]], paths: Sequence[Path], prefixes: dict[int, str]
) -> list[dict[str, Any]]:
    """Copies of the rows, each prefixed string cut to its suffix (objects on the way copied)."""
    out: list[dict[str, Any]] = []
    for row in rows:
        row = dict(row)
        for k, text in prefixes.items():
            path = paths[k]
            target = _parent_copy(row, path)
            if target is not None:
                value = target.get(path[-1], ABSENT)
                if type(value) is str:
                    target[path[-1]] = value[len(text) :]
        out.append(row)
    return out
