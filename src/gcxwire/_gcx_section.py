"""Table sections: one list of rows as a header and TAB-separated rows, child sections below it."""

from __future__ import annotations

import operator
import re
from collections.abc import Sequence
from typing import Any, Literal

from . import _gcx_lines as lines
from . import _gcx_nested as nested
from ._gcx_cell_styles import _styles_and_lines
from ._gcx_columns import _PROBES, Path, _Columns
from ._gcx_groups import _grouped_names
from ._gcx_header import _field_text, _header_start, _meta_text, _name_list
from ._gcx_infix import _infix_text, _infixes, _mark_infixes
from ._gcx_model import (
    _FLAT,
    _FORM,
    _INFIX,
    _NULLABLE,
    _OF,
    _OPTIONAL,
    _PREFIX,
)
from ._gcx_plan import (
    _constants,
    _first_keys,
    _flat_plan,
    _style_pairs,
    _table_fields,
    _without_missing,
)
from ._gcx_prefix import _cut_prefixes, _prefix_text, _prefixes, _prefixes_stand
from ._gcx_template import _drop_derived, _templates, _written_templates
from ._impl import (
    encode_table,
    keys_differ,
)
from ._values import path_join
from .errors import EncodeError

# A table section: fields, control pairs, rows text, constant columns, and the
# field list as written when it is in groups (`owner{login,id}`), else None.
Table = tuple[list[str], list[tuple[str, str]], str, dict[str, str], str | None]


def _table(
    rows: Sequence[dict[str, Any]], fields: list[str], path: str, below: Below | None = None
) -> Table:
    """One table section: its fields, control pairs, rows text and constant columns."""
    table = _section(rows, fields, path, None, None, (), below)
    assert table is not None  # only a keys check gives None
    return table


def _uniform_table(rows: Sequence[Any], tool_text: str) -> str | None:
    """The payload of a list whose rows all hold the first row's keys, in its order.

    The common shape, written without a key-order pass of its own: the writer
    checks each row's keys as it reads them, and None (a row differs, or the
    first row is no clean table row) sends the list to the general path.
    """
    keys = _first_keys(rows)
    if keys is None:
        return None
    table = _section(rows, list(keys), "$", tool_text, keys, (), (tool_text, "", 0))
    return None if table is None else table[2]


def _uniform_section(rows: Sequence[Any], path: str, below: Below | None = None) -> Table | None:
    """A member's table section when its rows all hold the first row's keys, in order.

    None sends the member to the general path (_table_fields, then _table),
    also when writing fails: that path then raises the error in member order.
    """
    keys = _first_keys(rows)
    if keys is None:
        return None
    try:
        return _section(rows, list(keys), path, None, keys, (), below)
    except EncodeError:
        return None


def _columnar(value: Any) -> list[dict[str, Any]] | None:
    """An object of two or more equal-length arrays (two or more items) as rows, else None."""
    if type(value) is not dict or len(value) < 2:
        return None
    size = -1
    for key, column in value.items():
        if type(key) is not str or type(column) is not list or _field_text(key) is None:
            return None
        if size < 0:
            size = len(column)
        elif len(column) != size:
            return None
    if size < 2:
        return None
    keys = list(value)
    return [{key: value[key][i] for key in keys} for i in range(size)]


def _columnar_section(rows: list[dict[str, Any]], path: str, tool_text: str | None) -> Table:
    """The rows of a columnar object as a ``form=columns`` table (errors name the array item)."""
    try:
        table = _section(rows, list(rows[0]), "$", tool_text, None, ((_FORM, "columns"),))
    except EncodeError as exc:
        # `$[3].temp…` is item 3 of array `temp`: name it as the input holds it.
        index, _, rest = exc.path[2:].partition("]")
        for key in rows[0]:
            seg = path_join("", key)
            if rest.startswith(seg) and rest[len(seg) : len(seg) + 1] in ("", ".", "["):
                where = path_join(path, key) + f"[{index}]" + rest[len(seg) :]
                raise type(exc)(exc.reason, where) from None
        raise exc.relocated(path) from None
    assert table is not None
    return table


def _section(
    rows: Sequence[dict[str, Any]],
    fields: list[str],
    path: str,
    tool_text: str | None,
    keys: tuple[str, ...] | None,
    marks: Sequence[tuple[str, str]] = (),
    below: Below | None = None,
    whole: bool = False,
) -> Table | None:
    """A table section (see _table); with ``tool_text`` its text holds the header too.

    The header is written with the rows, so a large payload is built once.
    With ``keys``, None when a row does not hold exactly those keys. With
    ``below``, list columns that pay move to child sections, whose text
    (headers included) follows the rows. With ``whole``, the prefix search
    reads every row of every column (else it may leave some to the writer's count).
    """
    given = rows, fields, keys
    if keys is not None and _sample_keys_differ(rows, keys):
        return None  # as the writer would, without the passes before it
    children = ""
    owned = False  # whether every row is a copy made here (child sections copy them)
    # False when the sampled rows (the first _PROBES among them) hold no list or object:
    # then no column is spread either, without looking at those rows again.
    nesting = below is None or not rows or nested.may_hold_lists(rows)
    if below is not None and rows and nesting:
        found = _child_sections(rows, fields, below, keys)
        if found is False:  # a row does not hold exactly ``keys``
            return None
        if found is not None:
            rows, fields, children, owned = found
            keys = None
    pairs: list[tuple[str, str]] = []
    paths: list[Path] = [(f,) for f in fields]
    # Only a column whose first cell is an object can be spread (or, for
    # objects some rows lack, one of the first rows' cells).
    missing: dict[str, bool] = {}
    if (
        nesting
        and rows
        and any(type(r) is dict and dict in map(type, r.values()) for r in rows[:_PROBES])
    ):
        flat, groups, flat_paths = _flat_plan(rows, fields, "", (), missing)
        skip: frozenset[str] = frozenset()
        while missing and _grouped_names(flat, flat_paths, {}) is None:
            # In dotted names (`a.b.c`) spreading sparse objects costs more than it
            # saves: leave them out, the last first, until the groups read as written.
            skip |= {next(reversed(missing))}
            missing = {}
            flat, groups, flat_paths = _flat_plan(rows, fields, "", (), missing, skip)
        if groups:  # nested members are read by path: no flattened copy of the rows
            fields, paths = flat, flat_paths
            pairs.append((_FLAT, _name_list(groups)))
        if any(missing.values()):  # rows are written by path, and no path goes through null
            if keys is not None and keys_differ(rows, keys):
                return None
            rows, keys = _without_missing(rows, missing), None
    constants = _constants(rows, fields, paths)
    names = _grouped_names(fields, paths, constants) if pairs else None
    if names is not None:  # the groups are in the field list: `flat={}` says so
        pairs[0] = (_FLAT, "{}")
    for key, null in ((_OPTIONAL, False), (_NULLABLE, True)):
        chosen = [g for g, kind in missing.items() if kind is null]
        if chosen:
            pairs.append((key, _name_list(chosen)))
    unsure: list[int] | None = None if whole else []
    prefixes = _prefixes(rows, fields, paths, constants, unsure)
    prefix_rows = rows
    cols = _Columns(rows)  # the templates' columns, read once for the search and the drop
    templates = _templates(rows, fields, paths, constants, prefixes, cols)
    if templates and keys is not None:  # the derived cells leave the rows: check keys first
        if keys_differ(rows, keys):
            return None
        keys = None
    listed: dict[str, str] | None = None  # templates written in the field list
    if templates:  # the rows as written: each cell its template gives left blank
        # In place unless _prefixes_stand may read a derived column in prefix_rows.
        in_place = owned and not (unsure and set(unsure).intersection(templates))
        rows = _drop_derived(rows, paths, templates, cols, in_place)
        template_pairs, names, listed = _written_templates(
            fields, paths, templates, constants, names
        )
        pairs.extend(template_pairs)
    cuts: list[int] | None = None
    held = frozenset(k for k, f in enumerate(fields) if f in constants)
    infixes = _infixes(rows, fields, paths, held, prefixes)
    if infixes and keys is not None:  # the cells change in copies: check keys first
        if keys_differ(rows, keys):
            return None
        keys = None
    if infixes:  # each string's shared middle written `…` (and its prefix cut), in copies
        rows = _mark_infixes(rows, paths, prefixes, infixes)
    elif prefixes:  # each prefixed string keeps only its suffix
        if all(len(paths[k]) == 1 for k in prefixes):  # top-level members: the writer cuts them
            cuts = [len(prefixes.get(k, "")) for k in range(len(fields))]
        else:  # members of spread objects: cut in copies of the rows
            rows = _cut_prefixes(rows, paths, prefixes)
    pairs.extend((_PREFIX, _prefix_text(fields[k], text)) for k, text in prefixes.items())
    pairs.extend((_INFIX, _infix_text(fields[k], text)) for k, text in infixes.items())
    pairs.extend(marks)
    cells: list[str] = fields
    cell_paths: list[Path | None] = list(paths)
    if constants:  # their cells stay empty: None paths
        cell_paths = [None if f in constants else p for f, p in zip(fields, paths, strict=True)]
        n = len(fields)
        while fields[n - 1] in constants:  # the trailing run leaves the rows entirely
            n -= 1
        cells, cell_paths = fields[:n], cell_paths[:n]
        cuts = None if cuts is None else cuts[:n]
    listed_names = constants if listed is None else {**constants, **listed}
    head = None if tool_text is None else _header_start(tool_text, fields, listed_names, names)
    counted: list[int] | None = [] if unsure else None  # the strs of the unsure columns
    try:  # the style _style would pick, and the rows written in it (lines joined by LF)
        written = encode_table(
            rows, cells, cell_paths, head, _meta_text(pairs) + "\n", keys, cuts, counted
        )
    except EncodeError as exc:
        raise _by_keys(exc, cells, cell_paths).relocated(path) from None
    if written is None:
        return None
    if unsure and counted is not None and not _prefixes_stand(prefix_rows, paths, unsure, counted):
        del written  # a column the first rows held no str of has a prefix: search it whole
        return _section(*given[:2], path, tool_text, given[2], marks, below, whole=True)
    text, empty_null, floats = written
    del written  # text's one reference: `text += children` then grows it in place, no copy
    # The form=lines search below reads only the row lines the cell styles' look at the
    # text found with as many `\\n` escapes as the cheapest lines section needs.
    at_top = below is not None and below[2] == 0
    floor = lines.least_breaks(*below[:2]) if below is not None and at_top else 0
    text, marks_after, breaks = _styles_and_lines(
        text, head is not None, rows, cells, cell_paths, floor
    )
    if marks_after:
        if head is None:
            pairs.extend(marks_after)
        else:  # the header is the text's first line
            cut = text.index("\n") if "\n" in text else len(text)
            text = text[:cut] + _meta_text(marks_after) + text[cut:]
    if below is not None and at_top:  # long texts in lines sections of their own
        derived = {k for t in templates.items() for k in (t[0], t[1][0])}  # and their sources
        moved = lines.move_texts(
            text, head is not None, rows, cells, cell_paths, below[:2], derived, empty_null,
            groups=not missing, breaks=breaks,
        )  # fmt: skip
        if moved is not None:
            text = moved[0] + moved[1]
    text += children
    return fields, [*_style_pairs(fields, empty_null, floats), *pairs], text, listed_names, names


def _sample_keys_differ(rows: Sequence[Any], keys: tuple[str, ...]) -> bool:
    # Whether one of _PROBES spread rows is not a dict of exactly ``keys``, in order.
    size = len(rows)
    return keys_differ([rows[i * size // _PROBES] for i in range(min(size, _PROBES))], keys)


# Where a table stands, for the child sections below it: the tool text, the
# table's `of=` value ("" at the top) and how deep child sections already are.
Below = tuple[str, str, int]


def _child_sections(
    rows: Sequence[dict[str, Any]],
    fields: list[str],
    below: Below,
    keys: tuple[str, ...] | None = None,
) -> tuple[list[dict[str, Any]], list[str], str, bool] | Literal[False] | None:
    """Rows, fields and child section text once the list columns that pay are moved out,
    and whether every row is a copy (none is a row of ``rows``).

    A column moves when the child section (header, rows and link cells) is
    shorter than the JSON cells it replaces; None when no column moves. With
    ``keys``, False when a column would move but a row does not hold exactly those
    keys (keys_differ: the rows moved are written without that check); split
    checks them as it reads the rows.
    """
    given = rows
    checked = keys is None  # whether every row is known to hold exactly ``keys``
    tool_text, of, level = below
    if level >= nested.MAX_LEVELS:
        return None
    link = nested.link_name(of)
    if _field_text(link) is None:
        return None
    texts: list[str] = []
    for path in nested.list_paths(rows):
        if _field_text(path[-1] + nested.MARK) is None:
            continue
        found = nested.split(rows, path, link, None if checked or rows is not given else keys)
        if found is False:
            return False
        if found is None:
            continue
        checked = checked or len(path) == 1  # the leaf read every row's keys
        moved, items, size = found
        try:
            child_fields = _table_fields(items, "$")
            if child_fields is None or child_fields[0] != link:
                continue
            child_of = nested.of_text(of, path)
            child = _section(
                items, child_fields, "$", tool_text, None, ((_OF, child_of),),
                (tool_text, child_of, level + 1),
            )  # fmt: skip
        except EncodeError:  # the JSON cell reports it, with its path
            continue
        assert child is not None  # only a keys check gives None
        if len(child[2]) + 2 * len(rows) >= size:  # +2: a count cell and its TAB per row
            continue
        if not checked:  # a deeper path's split reads no keys
            if keys is not None and keys_differ(given, keys):
                return False
            checked = True
        rows = moved
        texts.append(child[2])
        if len(path) == 1:
            fields = [f + nested.MARK if f == path[0] else f for f in fields]
    if not texts:
        return None
    owned = not any(map(operator.is_, rows, given))  # split copies the rows that hold a list
    return list(rows), fields, "".join("\n" + t for t in texts), owned


_ROW = re.compile(r"\$\[\d+\]")


def _by_keys(exc: EncodeError, cells: Sequence[str], paths: Sequence[Path | None]) -> EncodeError:
    """The error with a dotted column (`$[0]['a.b']`) named by its keys (`$[0].a.b`)."""
    row = _ROW.match(exc.path)
    if row is None:
        return exc
    rest = exc.path[row.end() :]
    for name, keys in zip(cells, paths, strict=True):
        if keys is None or len(keys) < 2:
            continue
        cell = path_join("", name)
        if rest.startswith(cell) and rest[len(cell) : len(cell) + 1] in ("", ".", "["):
            where = row.group() + "".join(path_join("", k) for k in keys) + rest[len(cell) :]
            return type(exc)(exc.reason, where)
    return exc
