"""A table's columns: their order, spread objects, sparse and constant columns, styles."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._gcx_columns import Path
from ._gcx_header import _field_text, _name_list
from ._gcx_model import (
    _EMPTY,
    _FLAT_DEPTH,
    _FLOAT,
    _SPACE,
)
from ._impl import (
    constant_columns,
    dict_column,
    escape,
    format_cell,
    key_order,
    scan_style,
    shared_keys,
    sparse_column,
)
from ._key_order import merge_key_orders
from ._values import path_join
from .errors import EncodeError, EncodeTypeError

# A column that holds one scalar in this many rows or more is written once, in
# the header (`fields=a,kind=type`); see docs/wire-format.md §5.
_CONSTANT_ROWS = 2


def _table_fields(rows: Sequence[Any], path: str) -> list[str] | None:
    """Column order for a list of objects, or None when it is not a clean table.

    Columns follow first appearance; when rows disagree on order a topological
    merge finds one order every row agrees with, so each row keeps its key order.
    """
    if not rows:
        return None
    shared = shared_keys(rows)
    if shared is not None:  # the common case, in one leaf call: every row has the same keys
        if not shared or any(_field_text(f) is None for f in shared):
            return None
        return list(shared)
    order = key_order(rows)  # exact dicts with str keys: the order in one leaf call
    if order is not None:
        if not order or any(_field_text(f) is None for f in order):
            return None
        return order
    # Other rows and keys (dict subclasses, non-str keys), or no agreeing order.
    index: dict[str, int] = {}
    fields: list[str] = []
    shapes: set[tuple[str, ...]] = set()
    ordered = True
    previous: tuple[str, ...] | None = None
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            return None
        keys = tuple(row)
        if keys == previous:
            continue
        previous = keys
        shapes.add(keys)
        last = -1
        for key in keys:
            at = index.get(key)
            if at is None:
                if not isinstance(key, str):
                    raise EncodeTypeError(f"Object key {key!r} is not a string", path_join(path, i))
                at = index[key] = len(fields)
                fields.append(key)
            elif at < last:
                ordered = False
            last = at
    if not fields or any(_field_text(f) is None for f in fields):
        return None
    if ordered:
        return fields
    return merge_key_orders(shapes, index)


def _style(rows: Sequence[dict[str, Any]], fields: Sequence[str]) -> tuple[bool, frozenset[str]]:
    """Pick the cheaper reading of a section's rows.

    Absent keys cost nothing as empty cells, nulls a ``null`` each; a section
    with clearly more nulls says ``empty=null`` and writes absent keys ``\\``.
    A column whose numbers are all floats, several of them integral, says
    ``float=`` and drops their ``.0`` (two tokens a cell).
    The scan over every cell is a speedups leaf.
    """
    return scan_style(rows, fields)


def _style_pairs(
    fields: Sequence[str], empty_null: bool, floats: frozenset[str]
) -> list[tuple[str, str]]:
    pairs = [(_EMPTY, "null")] if empty_null else []
    if floats:
        pairs.append((_FLOAT, _name_list(f for f in fields if f in floats)))
    return pairs


def _flat_plan(
    rows: Sequence[dict[str, Any]],
    fields: Sequence[str],
    prefix: str,
    path: Path,
    missing: dict[str, bool] | None = None,
    skip: frozenset[str] = frozenset(),
) -> tuple[list[str], list[str], list[Path]]:
    """Columns with nested objects spread out: (dotted fields, flattened groups, key paths).

    A column is spread when every row holds an object there, its members form a
    clean table, and no sibling name starts with ``column.`` (so no two dotted
    names can collide). Group names are dot-free keys joined by dots; a dotted
    field's path is the keys that lead to its value (``user.id``: user, id).
    With ``missing``, a column that holds objects in some rows and null (or
    nothing) in the others is spread too, and ``missing[group]`` says which
    (True: null), for the header's ``nullable=`` / ``optional=``; the groups
    in ``skip`` are not spread that way.
    """
    flat: list[str] = []
    groups: list[str] = []
    paths: list[Path] = []
    dotted = {f.split(".", 1)[0] for f in fields if "." in f}  # names some `name.x` field starts
    deep = prefix.count(".") >= _FLAT_DEPTH
    for name in fields:
        members: list[str] | None = None
        values: list[dict[str, Any]] | None = None
        null: bool | None = None  # a column of objects some rows miss: how they miss it
        if (
            name  # an empty group name cannot be listed in `flat=` (readers skip it)
            and "." not in name
            and not deep
            and name not in dotted
        ):
            values = dict_column(rows, name)  # None unless every row holds an object there
            if values is None and missing is not None and prefix + name not in skip:
                null, values = _sparse_column(rows, name)
            if values is not None:
                try:
                    members = _table_fields(values, "$")
                except EncodeError:  # a bad key: the JSON cell will report it with its path
                    members = None
        if members is None or values is None:
            flat.append(prefix + name)
            paths.append((*path, name))
            continue
        sub_flat, sub_groups, sub_paths = _flat_plan(
            values, members, f"{prefix}{name}.", (*path, name), missing, skip
        )
        if null is not None:
            assert missing is not None
            if not _holds_a_cell(values, sub_groups, f"{prefix}{name}."):
                for group in sub_groups:  # the column stays one JSON cell
                    missing.pop(group, None)
                flat.append(prefix + name)
                paths.append((*path, name))
                continue
            missing[prefix + name] = null
        groups.append(prefix + name)
        flat.extend(sub_flat)
        groups.extend(sub_groups)
        paths.extend(sub_paths)
    return flat, groups, paths


# A column of objects and nulls (or absent keys) is spread when this many rows hold an object.
_SPARSE_ROWS = 2


def _sparse_column(
    rows: Sequence[Any], name: str
) -> tuple[bool | None, list[dict[str, Any]] | None]:
    """(null, the objects) when every row holds a non-empty object at ``name`` or misses it.

    A row misses it in one way only: null (``null`` True) or no key (False),
    so that a row whose group cells are all blank reads one way. (None, None)
    when some row holds anything else there, both kinds of miss occur, or
    fewer than ``_SPARSE_ROWS`` rows hold an object. A leaf: a column of nulls
    is read to its last row.
    """
    return sparse_column(rows, name, _SPARSE_ROWS)


def _holds_a_cell(values: Sequence[dict[str, Any]], sub_groups: Sequence[str], prefix: str) -> bool:
    # Whether each object holds a member that is no group of its own: a cell
    # that is never blank, so a row whose group cells are all blank misses it.
    spread = {g[len(prefix) :] for g in sub_groups if "." not in g[len(prefix) :]}
    return all(any(key not in spread for key in value) for value in values)


def _without_missing(
    rows: Sequence[dict[str, Any]], missing: dict[str, bool]
) -> list[dict[str, Any]]:
    """Copies of the rows without the null where a ``nullable=`` group goes (objects copied).

    Rows are written by column path, and a path cannot go through a null; its
    cells are then blank, as for an absent key.
    """
    nulls = [tuple(g.split(".")) for g, null in missing.items() if null]
    out: list[dict[str, Any]] = []
    for row in rows:
        for path in nulls:
            holder: Any = row
            for key in path[:-1]:
                holder = holder.get(key) if type(holder) is dict else None
            if type(holder) is dict and path[-1] in holder and holder[path[-1]] is None:
                row = _dropped(row, path)
        out.append(row)
    return out


def _dropped(obj: dict[str, Any], path: Path) -> dict[str, Any]:
    # A copy of obj without the member at path (the objects on the way copied).
    out = dict(obj)
    if len(path) == 1:
        del out[path[0]]
    else:
        out[path[0]] = _dropped(obj[path[0]], path[1:])
    return out


def _constants(
    rows: Sequence[dict[str, Any]], fields: Sequence[str], paths: Sequence[Path]
) -> dict[str, str]:
    """Columns that hold one scalar in every row: name -> its cell text, written once.

    Only texts a header can carry (no whitespace, no comma) qualify, and one
    column always stays in the rows so that no row line is left without cells.
    """
    if len(rows) < _CONSTANT_ROWS:
        return {}
    found: dict[str, str] = {}
    for k, value in constant_columns(rows, paths).items():
        try:
            text = format_cell(value)
        except EncodeError:  # NaN or infinity: the row writer reports it with its path
            continue
        if "," not in text and not _SPACE.search(escape(text)):
            found[fields[k]] = text
    # Reference decoders give cells to fields by position, so a constant column
    # before the last cell keeps an empty cell in every row; only the trailing
    # run of constant columns leaves the rows entirely. An empty cell still
    # costs its TAB, which a one-word text shares with it anyway (cl100k reads
    # "\tword" as one token), so inside the row only texts that cost more move.
    tail = len(fields)
    while tail > 1 and fields[tail - 1] in found:  # one column always stays in the rows
        tail -= 1
    chosen = {
        name: found[name]
        for i, name in enumerate(fields)
        if name in found and (i >= tail or _hoisted(found[name], len(rows)))
    }
    if len(chosen) == len(fields):  # a row line needs one real cell
        del chosen[fields[0]]
    return chosen


def _hoisted(text: str, rows: int) -> bool:
    # A constant before the last cell leaves the rows when its cells cost more than
    # its place in the header: from three rows, any text longer than a short word;
    # in two rows (one copy saved) a short text only: a long one is often another
    # column's text too (Jira's four `avatarUrls` sizes, one URL), which a
    # template gives in both rows, naming its source only.
    # A brace would keep the section's groups out of the field list (`owner{…}`).
    short = len(text) < _SHORT_CONSTANT and "{" not in text and "}" not in text
    return _costly(text) and (rows >= 3 or (rows == 2 and short))


# In a two-row table, constants of fewer characters than this leave the rows.
_SHORT_CONSTANT = 24


def _costly(text: str) -> bool:
    # A cell text that takes more than its own token beside a TAB: anything but a short word.
    return not (text.isascii() and text.isalpha() and len(text) <= 8)


def _first_keys(rows: Sequence[Any]) -> tuple[str, ...] | None:
    """The first row's keys when they can head a table: the uniform paths' guess.

    None too when the last row's keys differ: the general path then writes the
    same table, without a section begun (prefixes searched) and given up.
    """
    first = rows[0] if rows else None
    if type(first) is not dict or not first:
        return None
    keys = tuple(first)
    last = rows[-1]
    if last is not first and (type(last) is not dict or tuple(last) != keys):
        return None
    if any(type(k) is not str or _field_text(k) is None for k in keys):
        return None
    return keys
