"""Lists of objects inside table rows, as child sections linked to their rows.

A table column (or a member of an object spread over columns) that holds a
list of objects in its rows is written as a section of its own below the
table: one row per list item, the first cell the number of the row it belongs
to. The table keeps the column, renamed ``name[]``, each cell the number of
items its row holds::

    GCX1 tool=pods fields=name,containers[] of=items
    web	2
    db	1
    GCX1 tool=pods fields=items[],name,image of=items[].containers
    0	app	nginx
    0	sidecar	envoy
    1	pg	postgres

Writing rules live here (which columns qualify, the rows as written, the
items with their links); reading puts the items back (``attach``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, Literal

from ._gcx_model import _FLAT_DEPTH
from ._impl import attach_items, escape, format_cell, split_column
from ._values import ABSENT
from .errors import DecodeError, EncodeError

#: What a list column is renamed to in its table, and the link column's name.
MARK: Final = "[]"
#: A column moves to a child section only when its lists hold this many items in all.
_MIN_ITEMS: Final = 2
#: Child sections of child sections, this many levels at most.
MAX_LEVELS: Final = 4
# Characters no key on a child section's path may hold: they would read as
# path steps (`.`, `[]`) or groups (`{}`) in the header.
_PATH_CHARS: Final = frozenset(".[]{}")

Path = tuple[str, ...]


def _plain(key: Any) -> bool:
    return type(key) is str and key != "" and not _PATH_CHARS.intersection(key)


def list_paths(rows: Sequence[Any]) -> list[Path]:
    """Paths (below a row, through objects) where some of the first rows hold a list of objects."""
    found: list[Path] = []

    def walk(obj: dict[str, Any], path: Path) -> None:
        for key, value in obj.items():
            kind = type(value)  # most members are scalars: no key check for them
            if kind is list:
                if value and type(value[0]) is dict and _plain(key):
                    here = (*path, key)
                    if here not in found:
                        found.append(here)
            elif kind is dict and len(path) < _FLAT_DEPTH and _plain(key):
                walk(value, (*path, key))

    for row in sample(rows):  # a guess from some rows; split() checks every row
        if type(row) is dict:
            walk(row, ())
    return found


# Rows the guesses look at: the first ones, and as many spread over the rest
# (Slack's Block Kit blocks hold `fields` lists in a few later rows only).
_SAMPLE: Final = 8


def sample(rows: Sequence[Any]) -> list[Any]:
    """The first rows and a spread sample of the others."""
    size = len(rows)
    if size <= 2 * _SAMPLE:
        return list(rows)
    return [
        *rows[:_SAMPLE],
        *(rows[_SAMPLE + i * (size - _SAMPLE) // _SAMPLE] for i in range(_SAMPLE)),
    ]


_NESTING: Final = frozenset((list, dict))


def may_hold_lists(rows: Sequence[Any]) -> bool:
    """Cheap gate: can these rows hold a list column at all (judged on a sample)?"""
    for row in sample(rows):  # the value types of a row are looked at in C, no generator
        if type(row) is dict and not _NESTING.isdisjoint(map(type, row.values())):
            return True
    return False


def split(
    rows: Sequence[dict[str, Any]], path: Path, link: str, keys: tuple[str, ...] | None = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int] | Literal[False] | None:
    """The rows with the lists at ``path`` replaced by their sizes, the items, their JSON size.

    Each item is a copy with ``link`` (its row's number) first. None when some
    row holds something else there (a scalar, a list of non-objects, an empty
    object, an item holding ``link``), when a row already has a ``name[]``
    member beside it, or when the lists hold fewer than two items in all.
    With ``keys``, a column of the table (one key) also checks that each row
    holds exactly those keys, in order: False when one does not (see
    split_column); a deeper path leaves that to the caller.
    """
    key, mark = path[-1], path[-1] + MARK
    if len(path) == 1:  # a column of the table: a leaf does the rows
        found = split_column(rows, key, mark, link, keys)
        if found is False:
            return False
        return None if found is None or len(found[1]) < _MIN_ITEMS else found
    out: list[dict[str, Any]] = []
    items: list[dict[str, Any]] = []
    size = 0
    for i, row in enumerate(rows):
        holder: Any = row
        for step in path[:-1]:
            holder = holder.get(step, ABSENT) if type(holder) is dict else ABSENT
        if type(holder) is not dict or key not in holder:
            if type(holder) is dict and mark in holder:
                return None
            out.append(row)
            continue
        if mark in holder:
            return None
        value = holder[key]
        count: int | None
        if value is None:
            count = None
        elif type(value) is list:
            for item in value:
                if type(item) is not dict or not item or link in item:
                    return None
                items.append({link: i, **item})
            try:
                size += len(format_cell(value))
            except EncodeError:  # NaN and the like: the JSON cell reports it with its path
                return None
            count = len(value)
        else:
            return None
        if len(path) == 1:  # the table's fields list orders its columns: no place to keep
            row = row.copy()
            del row[key]
            row[mark] = count
            out.append(row)
        else:  # inside an object, its member order orders its group's columns
            out.append(_renamed(row, path, mark, count))
    if len(items) < _MIN_ITEMS:
        return None
    return out, items, size


def _renamed(obj: dict[str, Any], path: Path, mark: str, count: int | None) -> dict[str, Any]:
    # A copy with member path[-1] (inside the objects on the way) renamed `mark`
    # at its place, holding `count`.
    head = path[0]
    if len(path) == 1:
        return {(mark if k == head else k): (count if k == head else v) for k, v in obj.items()}
    return {k: (_renamed(v, path[1:], mark, count) if k == head else v) for k, v in obj.items()}


def of_text(parent: str, path: Path) -> str:
    """A child section's ``of=`` value: its table's, ``[]``, then the path to the list."""
    return parent + MARK + "." + ".".join(escape(k) for k in path)


def link_name(of: str) -> str:
    """The link column of sections below the table at ``of``: its last key and ``[]``."""
    if not of:
        return MARK
    last = of.rsplit(".", 1)[-1]
    return (last[: -len(MARK)] if last.endswith(MARK) else last) + MARK


# --------------------------------------------------------------------- reading


def segments(parts: list[str | None]) -> list[tuple[str, ...]]:
    """An ``of=`` path cut at its list steps (None): ``items[].spec.c`` -> items | spec, c."""
    out: list[tuple[str, ...]] = []
    run: list[str] = []
    for part in parts:
        if part is None:
            out.append(tuple(run))
            run = []
        else:
            run.append(part)
    out.append(tuple(run))
    return out


def attach(
    parents: list[Any],
    items: list[dict[str, Any]],
    path: tuple[str, ...],
    link: str,
    doc: str,
    in_place: bool = False,
) -> None:
    """Put a child section's items back into its table's rows, at ``path`` in each row
    (``in_place``: the rows hold the count under ``path[-1]`` already, see attach_items)."""
    if not link.endswith(MARK) or not path:
        raise DecodeError(f"Child section link column {link!r} does not end in []", doc)
    try:
        attach_items(parents, items, path, link, in_place)
    except DecodeError as exc:
        raise DecodeError(exc.msg, doc) from None
