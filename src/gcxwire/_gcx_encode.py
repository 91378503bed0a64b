"""Typed GCX1 writing: how a JSON value becomes sections, headers and rows."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from typing import Any

from . import _gcx_nested as nested
from ._gcx_model import (
    _CONTROL,
    _CRLF,
    _EMPTY,
    _FLAT,
    _FLAT_DEPTH,
    _FLOAT,
    _FORM,
    _HEADER_KEYS,
    _IS,
    _JSON,
    _LOST_NAMES,
    _NO_FLOATS,
    _NULLABLE,
    _OF,
    _OPTIONAL,
    _PREFIX,
    _SPACE,
    _STR,
    _TEMPLATE,
    _VALUE,
)
from ._impl import (
    column_prefixes,
    constant_columns,
    crlf_only,
    dict_column,
    encode_row,
    encode_table,
    escape,
    format_cell,
    key_order,
    scan_style,
    shared_keys,
    text_marks,
    unescape,
)
from ._key_order import merge_key_orders
from ._values import ABSENT, NUMBER, int_to_str, path_join, too_many_digits
from .errors import EncodeError, EncodeTypeError, EncodeValueError

# A column that holds one scalar in this many rows or more is written once, in
# the header (`fields=a,kind=type`); see docs/wire-format.md §5.
_CONSTANT_ROWS = 2


# gortex's Go decoder reads a line of at most this many UTF-8 bytes (bufio.Scanner's buffer,
# a CR before the LF counted): gcx.encode refuses to write a longer one,
# and auto leaves GCX1 out.
GO_LINE_BYTES = 4 * 1024 * 1024 - 1


def lines_fit_go(text: str) -> bool:
    """Whether every line of ``text`` is short enough for the Go reference decoder."""
    if len(text) * 4 <= GO_LINE_BYTES:  # 4 bytes per character at most
        return True
    return all(
        len(line) * 4 <= GO_LINE_BYTES
        or len(line.encode("utf-8", "surrogatepass")) <= GO_LINE_BYTES
        for line in text.split("\n")
    )


def go_readable(text: str) -> str:
    """``text``, when the Go reference decoder reads every line of it; else EncodeValueError."""
    if lines_fit_go(text):
        return text
    number = next(i for i, line in enumerate(text.split("\n"), 1) if not lines_fit_go(line))
    raise EncodeValueError(
        f"Line {number} of the GCX1 text is longer than the {GO_LINE_BYTES:,} UTF-8 bytes"
        " gortex's Go decoder reads (JSON carries it)"
    )


def _tool_text(tool: str) -> str:
    if not isinstance(tool, str) or not tool:
        raise EncodeValueError("The tool name must be a non-empty string", "tool")
    text = escape(tool)
    if _SPACE.search(text):
        raise EncodeValueError(
            f"Tool name {tool!r} holds whitespace, which GCX1 headers cannot carry", "tool"
        )
    return text


def _name_text(name: str) -> str:
    # A field name as it stands in the list once the header value is unescaped:
    # escaped, with `=` escaped too, since `name=text` there is a constant column.
    return escape(name).replace("=", "\\=")


# Tools send the same field names call after call: their header texts are
# remembered (a bounded cache; at 5 rows these were a fifth of an encode).
_LISTED: dict[str, str] = {}
_FIELD_TEXT: dict[str, str | None] = {}
_CACHE_SIZE = 4096


def _listed(name: str) -> str:
    # A field name as the header's field list writes it (escaped twice).
    text = _LISTED.get(name) if type(name) is str else None
    if text is None:
        text = escape(_name_text(name))
        if type(name) is str:
            if len(_LISTED) >= _CACHE_SIZE:
                _LISTED.clear()
            _LISTED[name] = text
    return text


def _name_list(names: Iterable[str]) -> str:
    # A meta value listing columns or groups (`float=`, `flat=`, `str=`, `crlf=`):
    # read like the fields list, so each name is escaped twice.
    return ",".join(escape(escape(name)) for name in names)


def _field_text(name: str) -> str | None:
    # Reference decoders unescape the fields value, split on ",", then unescape
    # each name again; so names are escaped twice and may not hold a comma.
    if type(name) is str and name in _FIELD_TEXT:
        return _FIELD_TEXT[name]
    text: str | None = _listed(name)
    if text is not None and ("," in text or _SPACE.search(text) or name in _LOST_NAMES):
        text = None
    if type(name) is str:
        if len(_FIELD_TEXT) >= _CACHE_SIZE:
            _FIELD_TEXT.clear()
        _FIELD_TEXT[name] = text
    return text


def _header_line(
    tool_text: str,
    fields: Sequence[str],
    pairs: Iterable[tuple[str, str]],
    constants: dict[str, str] | None = None,
    names: str | None = None,
) -> str:
    return _header_start(tool_text, fields, constants, names) + _meta_text(pairs) + "\n"


def _header_start(
    tool_text: str,
    fields: Sequence[str],
    constants: dict[str, str] | None = None,
    names: str | None = None,
) -> str:
    # A header line up to its meta pairs: `GCX1 tool=... fields=...`; `names`, when
    # given, is the field list already written (in groups: `owner{login,id}`).
    if names is not None:
        pass
    elif constants:
        names = ",".join(
            escape(_name_text(f) + "=" + constants[f]) if f in constants else _listed(f)
            for f in fields
        )
    else:
        names = ",".join(map(_listed, fields))
    return f"GCX1 tool={tool_text} fields={names}"


def _meta_text(pairs: Iterable[tuple[str, str]]) -> str:
    return "".join(f" {k}={v}" for k, v in pairs)


def _meta_pair(key: str, value: Any, path: str) -> tuple[str, str] | None:
    """The raw ``key=value`` of an object member, or None if a header cannot hold it."""
    if not key or "=" in key or key in _HEADER_KEYS or key in _LOST_NAMES:
        return None
    key_text = escape(key)
    if _SPACE.search(key_text):
        return None
    if key_text in _CONTROL:
        key_text = "\\" + key_text
    try:
        value_text = "" if value is None else _one_cell(value)
    except EncodeError as exc:
        raise exc.relocated(path) from None
    if _SPACE.search(value_text):
        return None
    return key_text, value_text


def _one_cell(value: Any) -> str:
    # A single value as a one-cell row (the row guards apply); paths start at `$`.
    try:
        return encode_row({"value": value}, _VALUE, False, _NO_FLOATS)
    except EncodeError as exc:
        raise type(exc)(exc.reason, "$" + exc.path[len("$.value") :]) from None


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


Path = tuple[str, ...]


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
    fewer than ``_SPARSE_ROWS`` rows hold an object.
    """
    values: list[dict[str, Any]] = []
    kinds: set[bool] = set()
    for row in rows:
        if type(row) is not dict:
            return None, None
        value = row.get(name, ABSENT)
        if type(value) is dict and value:
            values.append(value)
        elif value is None or value is ABSENT:
            kinds.add(value is None)
            if len(kinds) > 1:
                return None, None
        else:
            return None, None
    if len(values) < _SPARSE_ROWS or not kinds:
        return None, None
    return kinds.pop(), values


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


# A prefix is written once per column only when it is this long and its column
# holds this many strings: shorter or rarer ones cost more header than they save.
_PREFIX_MIN = 12
_PREFIX_ROWS = 3


def _prefixes(
    rows: Sequence[Any], fields: Sequence[str], paths: Sequence[Path], constants: dict[str, str]
) -> dict[int, str]:
    """Columns whose strings share a long ``…/`` prefix: column index -> that prefix.

    The prefix is common to every string of the column (so none lacks it), ends
    at a ``/`` and leaves each string a suffix of two path segments at least
    (``issues/12``, not ``12``), so the cell still says what it is. Only
    columns of strings and non-strings (null, numbers, absent) qualify; a JSON
    array or object in the column rules it out.
    """
    if len(rows) < _PREFIX_ROWS or set(map(type, rows)) != {dict}:
        return {}
    found: dict[int, str] = {}
    wanted = [None if name in constants else path for name, path in zip(fields, paths, strict=True)]
    for k, shared in enumerate(column_prefixes(rows, wanted, _PREFIX_MIN)):  # one pass, a leaf
        if shared is not None and shared[2] >= _PREFIX_ROWS:
            text = _common_prefix(shared[0], shared[1])
            if text is not None:
                found[k] = text
    return found


def _at(row: Any, path: Path) -> Any:
    for key in path:
        if type(row) is not dict:
            return ABSENT
        row = row.get(key, ABSENT)
    return row


def _column(rows: Sequence[Any], path: Path) -> list[Any]:
    """``[_at(row, path) for row in rows]`` in one walk (a call per row cost most passes)."""
    if len(path) == 1:
        key = path[0]
        return [row.get(key, ABSENT) if type(row) is dict else ABSENT for row in rows]
    if len(path) == 2:
        outer, inner = path
        heads = [row.get(outer, ABSENT) if type(row) is dict else ABSENT for row in rows]
        return [v.get(inner, ABSENT) if type(v) is dict else ABSENT for v in heads]
    return [_at(row, path) for row in rows]


def _source_texts(values: Iterable[Any]) -> list[str | None]:
    # _source_text of each value.
    return [v if type(v) is str else int_to_str(v) if type(v) is int else None for v in values]


class _Columns:
    """A section's columns, each read from its rows once and kept while the passes ask."""

    def __init__(self, rows: Sequence[Any]) -> None:
        self.rows = rows
        self._values: dict[Path, list[Any]] = {}
        self._texts: dict[Path, list[str | None]] = {}

    def values(self, path: Path) -> list[Any]:
        got = self._values.get(path)
        if got is None:
            got = self._values[path] = _column(self.rows, path)
        return got

    def texts(self, path: Path) -> list[str | None]:
        # Each row's _source_text at the path.
        got = self._texts.get(path)
        if got is None:
            got = self._texts[path] = _source_texts(self.values(path))
        return got


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
            target: dict[str, Any] | None = row
            path = paths[k]
            for key in path[:-1]:
                assert target is not None
                inner = target.get(key)
                if type(inner) is not dict:
                    target = None
                    break
                target[key] = inner = dict(inner)
                target = inner
            if target is not None:
                value = target.get(path[-1], ABSENT)
                if type(value) is str:
                    target[path[-1]] = value[len(text) :]
        out.append(row)
    return out


# A column is derived from another (`template=`) only when this many rows and
# at least half of its rows follow the template, and its cells there are long.
_TEMPLATE_ROWS = 3
_TEMPLATE_MIN = 12
_PROBES = 8  # rows of a long table a candidate template is tried on first
# Cell text a template may repeat: a source column's name holds none of these.
_PLACEHOLDER_BAD = frozenset("{}\\=,")
# A derived column: (source column index, text before, text after the source's).
Derived = tuple[int, str, str]


def _source_text(value: Any) -> str | None:
    # What a source cell puts into a template: a string, or an int's digits.
    if type(value) is str:
        return value
    if type(value) is int and not too_many_digits(value):  # else its cell reports it
        return int_to_str(value)
    return None


_SOURCE_NAME: dict[str, bool] = {}


def _may_be_source(name: str) -> bool:
    # Whether a template may name this column: no placeholder-breaking character (cached).
    ok = _SOURCE_NAME.get(name)
    if ok is None:
        ok = bool(name) and not _PLACEHOLDER_BAD.intersection(name)
        if len(_SOURCE_NAME) < _CACHE_SIZE:
            _SOURCE_NAME[name] = ok
    return ok


def _templates(
    rows: Sequence[Any],
    fields: Sequence[str],
    paths: Sequence[Path],
    held: Iterable[str],
    prefixes: dict[int, str],
    cols: _Columns | None = None,
) -> dict[int, Derived]:
    """Columns that repeat another column's text inside a fixed one: index -> derivation.

    ``…/users/octocat/followers`` beside ``login`` = ``octocat`` is
    ``template=followers_url=…/users/{login}/followers``; the rows then leave
    that cell blank. The template is the first row's; rows that do not follow
    it keep their cell. Every row must hold the column (a blank cell there is
    the derived value, so an absent key could not be told from it), and a
    derived column is no source, nor a source a derived column.
    """
    # Every row must be a dict, but a look at each is not needed: a row that is
    # not reads as absent, and _follow counts nothing where a row lacks the column.
    if not rows or type(rows[0]) is not dict:
        return {}
    skip = set(held)
    first = rows[0]
    starts = [first.get(p[0], ABSENT) if len(p) == 1 else _at(first, p) for p in paths]
    # Only a long first string can be derived: most tables have no target at all.
    targets = [
        k
        for k, start in enumerate(starts)
        if type(start) is str and len(start) >= _TEMPLATE_MIN and fields[k] not in skip
    ]
    if not targets:
        return {}
    texts: list[str | None] = [
        (_source_text(start) or None) if name not in skip and _may_be_source(name) else None
        for name, start in zip(fields, starts, strict=True)
    ]
    found: dict[int, Derived] = {}
    sources: set[int] = set()
    if cols is None:  # each column read once, whichever candidates ask for it
        cols = _Columns(rows)
    for k in targets:
        if k in sources:
            continue
        start = starts[k]
        path = paths[k]
        # A header token holds no whitespace: the text around the placeholder must
        # lie after the first space and before the last (found once, not per slice).
        space = _SPACE.search(start)
        first_space = space.start() if space is not None else len(start)
        space = _SPACE.search(start[::-1]) if space is not None else None
        last_space = len(start) - 1 - space.start() if space is not None else -1
        best: tuple[int, int, int, str, str] | None = None  # (matches, source length, …)
        for s, text in enumerate(texts):
            # Only a source whose first cell the target's holds can be its placeholder.
            if text is None or s == k or s in found or text not in start:
                continue
            left, right = start.find(text), start.rfind(text)
            for at in (left,) if left == right else {left, right} - {-1}:  # its order, as before
                if first_space < at or last_space >= at + len(text):
                    continue
                before, after = start[:at], start[at + len(text) :]
                # Row 0 follows its own template: one row is one match.
                matches = (
                    1
                    if len(rows) == 1
                    else _follow(rows, path, paths[s], before, after, best[0] if best else 0, cols)
                )
                if matches and (best is None or (matches, len(text)) > best[:2]):
                    best = (matches, len(text), s, before, after)
        if best is None:
            continue
        name = fields[k]
        _, _, s, before, after = best
        # It pays when the cells it blanks (as they would be written: after a
        # prefix) are twice the template's length; rows not following it keep theirs.
        cut = len(prefixes.get(k, ""))
        if len(rows) == 1:  # the one row follows its own template
            blanked = len(start) - cut
        else:
            blanked = sum(
                len(value) - cut
                for value, text in zip(cols.values(path), cols.texts(paths[s]), strict=True)
                if type(value) is str and text is not None and value == before + text + after
            )
        cost = 2 * (len(before) + len(after) + len(fields[s]) + 2)
        if len(rows) < _TEMPLATE_ROWS:  # the header's repeated name, shared by few cells
            cost = (cost + 2 * (len(name) + len(_TEMPLATE) + 2) // len(rows)) * 3 // 4
        if blanked >= cost:
            found[k] = (s, before, after)
            sources.add(s)
    # A derived column keeps its prefix only for the three strings a prefix needs.
    for k, (s, before, after) in found.items():
        if k in prefixes:
            kept = 0
            for value, text in zip(cols.values(paths[k]), cols.texts(paths[s]), strict=True):
                if type(value) is str and (text is None or value != before + text + after):
                    kept += 1
            if kept < _PREFIX_ROWS:
                del prefixes[k]
    return found


def _follow(
    rows: Sequence[dict[str, Any]],
    path: Path,
    source: Path,
    before: str,
    after: str,
    beat: int,
    cols: _Columns | None = None,
) -> int:
    """How many rows hold ``before + source text + after`` at ``path``.

    0 when a row lacks the column, or as soon as the rest of the rows cannot
    give more than ``beat`` matches, ``_TEMPLATE_ROWS`` and half of the rows.
    """
    size = len(rows)
    need = max(beat + 1, min(size, _TEMPLATE_ROWS), (size + 1) // 2)
    # A template half the rows follow holds in half of a spread sample.
    if size > 2 * _PROBES and not _probes_follow(rows, path, source, before, after):
        return 0
    if cols is None:
        cols = _Columns(rows)
    values = cols.values(path)
    length = len(before) + len(after)
    misses = 0
    allowed = size - need  # one more miss and `need` cannot be reached
    for value, text in zip(values, cols.texts(source), strict=True):
        if value is ABSENT:
            return 0
        if (
            type(value) is not str
            or text is None
            or len(value) != length + len(text)
            or value != before + text + after
        ):
            misses += 1
            if misses > allowed:
                return 0
    # Short of `need`, with some row not following: what a row-by-row stop would say.
    return size - misses


def _probes_follow(
    rows: Sequence[dict[str, Any]], path: Path, source: Path, before: str, after: str
) -> bool:
    # Whether half of _PROBES spread rows hold the template and none lacks the column.
    size = len(rows)
    misses = 0
    for i in range(_PROBES):
        row = rows[i * size // _PROBES]
        value = _at(row, path)
        if value is ABSENT:
            return False
        got = _at(row, source)
        text = got if type(got) is str else int_to_str(got) if type(got) is int else None
        if type(value) is not str or text is None or value != before + text + after:
            misses += 1
            if misses > _PROBES // 2:
                return False
    return True


def _template_text(name: str, source: str, before: str, after: str) -> str:
    # `template=name=before{source}after`: literal braces in the text are `\{` `\}`.
    def literal(text: str) -> str:
        return escape(text).replace("{", "\\{").replace("}", "\\}")

    return f"{escape(_name_text(name))}={literal(before)}{{{escape(source)}}}{literal(after)}"


def _drop_derived(
    rows: Sequence[dict[str, Any]],
    paths: Sequence[Path],
    templates: dict[int, Derived],
    cols: _Columns | None = None,
) -> list[dict[str, Any]]:
    """The rows without each cell its template gives (those rows, and objects on the way, copied).

    A source is never derived, so which cells go is read off the rows as given.
    """
    if cols is None:
        cols = _Columns(rows)
    drops = [
        (
            paths[k],
            [
                text is not None and value == before + text + after
                for value, text in zip(cols.values(paths[k]), cols.texts(paths[s]), strict=True)
            ],
        )
        for k, (s, before, after) in templates.items()
    ]
    out: list[dict[str, Any]] = []
    if len(drops) == 1 and len(drops[0][0]) == 1:  # the common case: one top-level member
        key, dropped = drops[0][0][0], drops[0][1]
        for row, drop in zip(rows, dropped, strict=True):
            if drop:
                row = row.copy()
                del row[key]
            out.append(row)
        return out
    for i, row in enumerate(rows):
        hit = [path for path, dropped in drops if dropped[i]]
        if hit:
            row = dict(row)
            for path in hit:
                target = row
                for key in path[:-1]:
                    target[key] = inner = dict(target[key])
                    target = inner
                del target[path[-1]]
        out.append(row)
    return out


def _derive_record(
    obj: dict[str, Any], keys: list[str]
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """A one-row record without the members a template gives, and those templates."""
    paths: list[Path] = [(k,) for k in keys]
    templates = _templates([obj], keys, paths, (), {})
    if not templates:
        return obj, []
    pairs = [
        (_TEMPLATE, _template_text(keys[k], keys[s], before, after))
        for k, (s, before, after) in templates.items()
    ]
    record = obj.copy()  # its one row follows each template: every derived member goes
    for k in templates:
        del record[keys[k]]
    return record, pairs


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
) -> Table | None:
    """A table section (see _table); with ``tool_text`` its text holds the header too.

    The header is written with the rows, so a large payload is built once.
    With ``keys``, None when a row does not hold exactly those keys. With
    ``below``, list columns that pay move to child sections, whose text
    (headers included) follows the rows.
    """
    if keys is not None and _sample_keys_differ(rows, keys):
        return None  # as the writer would, without the passes before it
    children = ""
    if below is not None and rows and nested.may_hold_lists(rows):
        if keys is not None and any(type(r) is not dict or tuple(r) != keys for r in rows):
            return None
        found = _child_sections(rows, fields, below)
        if found is not None:
            rows, fields, children = found
            keys = None
    pairs: list[tuple[str, str]] = []
    paths: list[Path] = [(f,) for f in fields]
    # Only a column whose first cell is an object can be spread (or, for
    # objects some rows lack, one of the first rows' cells).
    missing: dict[str, bool] = {}
    if rows and any(type(r) is dict and dict in map(type, r.values()) for r in rows[:_PROBES]):
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
            if keys is not None and any(type(r) is not dict or tuple(r) != keys for r in rows):
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
    prefixes = _prefixes(rows, fields, paths, constants)
    cols = _Columns(rows)  # the templates' columns, read once for the search and the drop
    templates = _templates(rows, fields, paths, constants, prefixes, cols)
    if templates and keys is not None:  # the derived cells leave the rows: check keys first
        if any(type(row) is not dict or tuple(row) != keys for row in rows):
            return None
        keys = None
    if templates:  # the rows as written: each cell its template gives left blank
        rows = _drop_derived(rows, paths, templates, cols)
        pairs.extend(
            (_TEMPLATE, _template_text(fields[k], fields[s], before, after))
            for k, (s, before, after) in templates.items()
        )
    cuts: list[int] | None = None
    if prefixes:  # and each prefixed string keeps only its suffix
        if all(len(paths[k]) == 1 for k in prefixes):  # top-level members: the writer cuts them
            cuts = [len(prefixes.get(k, "")) for k in range(len(fields))]
        else:  # members of spread objects: cut in copies of the rows
            rows = _cut_prefixes(rows, paths, prefixes)
        pairs.extend((_PREFIX, _prefix_text(fields[k], text)) for k, text in prefixes.items())
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
    head = None if tool_text is None else _header_start(tool_text, fields, constants, names)
    try:  # the style _style would pick, and the rows written in it (lines joined by LF)
        written = encode_table(rows, cells, cell_paths, head, _meta_text(pairs) + "\n", keys, cuts)
    except EncodeError as exc:
        raise _by_keys(exc, cells, cell_paths).relocated(path) from None
    if written is None:
        return None
    text, empty_null, floats = written
    text, marks_after = _cell_styles(text, head is not None, rows, cells, cell_paths)
    if marks_after:
        if head is None:
            pairs.extend(marks_after)
        else:  # the header is the text's first line
            cut = text.index("\n") if "\n" in text else len(text)
            text = text[:cut] + _meta_text(marks_after) + text[cut:]
    text += children
    return fields, [*_style_pairs(fields, empty_null, floats), *pairs], text, constants, names


def _sample_keys_differ(rows: Sequence[Any], keys: tuple[str, ...]) -> bool:
    # Whether one of _PROBES spread rows is not a dict of exactly ``keys``, in order.
    size = len(rows)
    probed = (rows[i * size // _PROBES] for i in range(min(size, _PROBES)))
    return any(type(row) is not dict or tuple(row) != keys for row in probed)


def _cell_styles(
    text: str,
    header: bool,
    rows: Sequence[dict[str, Any]],
    cells: Sequence[str],
    paths: Sequence[Path | None],
) -> tuple[str, list[tuple[str, str]]]:
    """The written rows in the cell styles that pay, and their marks (`json=raw`, `str=`...)."""
    marks: list[tuple[str, str]] = []
    # Each style drops a backslash (`\\` in JSON, a guard's, `\r\n`'s): text with
    # none has nothing to drop. A one-character search is a memchr; two-character
    # searches scan at ~1 ns a character (65 µs on symbols-500, 600 on issues-500).
    if "\\" not in text:
        return text, marks
    # One leaf pass says which passes can find anything. Neither pass changes what
    # the next one looks for: json=raw rewrites only JSON cells, which start with
    # `[` or `{` and hold no raw CR; str= only cells that read as numbers or words.
    doubled, guarded, crlf_seen = text_marks(text)
    raw = _raw_json(text, header) if doubled else None
    if raw is not None:  # JSON cells as JSON: `json=raw` says their backslashes are single
        text = raw
        marks.append((_JSON, "raw"))
    unguarded = _unguarded(text, header, rows, cells, paths) if guarded else None
    if unguarded is not None:  # `str=a,b`: these columns' number-like strings unguarded
        text, names_text = unguarded
        marks.append((_STR, names_text))
    crlf = _crlf(text, header, rows, cells, paths) if crlf_seen else None
    if crlf is not None:  # `crlf=body`: this column's line breaks are all CR LF, written \n
        text, names_text = crlf
        marks.append((_CRLF, names_text))
    return text, marks


# `str=` names a column when it drops this many guards from its cells.
_STR_MIN = 4
_GUARDED = re.compile(r"(?:^|\t)(?:\\[-0-9]|tru\\e|fals\\e|nul\\l)", re.MULTILINE)
_UNGUARD = {"tru\\e": "true", "fals\\e": "false", "nul\\l": "null"}


def _has_guard(text: str) -> bool:
    """Whether a cell of the text starts with a guard: ``_GUARDED.search(text)``, found faster.

    That regex starts with an alternation (line start or TAB), so the engine
    tries it at every position (122 ms on a 5.7 MB issues payload); the
    ``text_marks`` leaf looks only at backslashes.
    """
    return text_marks(text)[1]


def _unguarded(
    text: str,
    header: bool,
    rows: Sequence[dict[str, Any]],
    cells: Sequence[str],
    paths: Sequence[Path | None],
) -> tuple[str, str] | None:
    """The rows with guards dropped in columns that hold only strings, and their `str=` list.

    A string that reads as a number or a word is written ``\\62``, ``tru\\e``
    (§3); in a column where every value is a string, ``str=`` says so once and
    its cells drop the guard. None when no column drops ``_STR_MIN`` guards.
    """
    if not _has_guard(text):
        return None
    lines = text.split("\n")
    body = lines[1:] if header else lines
    split = [line.split("\t") for line in body]
    counts = [0] * len(cells)
    for row_cells in split:
        for k, cell in enumerate(row_cells):
            if cell in _UNGUARD or (cell[:1] == "\\" and cell[1:2] in _DIGITS_MINUS):
                counts[k] += 1
    chosen = [
        k
        for k, n in enumerate(counts)
        if n >= _STR_MIN
        and (path := paths[k]) is not None
        and all(type(v) is str or v is ABSENT for v in (_at(row, path) for row in rows))
    ]
    if not chosen:
        return None
    for row_cells in split:
        for k in chosen:
            if k < len(row_cells):
                cell = row_cells[k]
                if cell in _UNGUARD:
                    row_cells[k] = _UNGUARD[cell]
                elif cell[:1] == "\\" and NUMBER.fullmatch(cell, 1):
                    row_cells[k] = cell[1:]
    body = ["\t".join(c) for c in split]
    out = "\n".join([lines[0], *body] if header else body)
    return out, _name_list(cells[k] for k in chosen)


_DIGITS_MINUS = frozenset("-0123456789")
# `crlf=` names a column when it drops this many raw CRs from its cells.
_CRLF_MIN = 4


def _crlf(
    text: str,
    header: bool,
    rows: Sequence[dict[str, Any]],
    cells: Sequence[str],
    paths: Sequence[Path | None],
) -> tuple[str, str] | None:
    """The rows without the CR of each CR LF in columns where every line break is CR LF.

    Text written with Windows line ends keeps a raw CR before each ``\\n``; in
    a column of strings whose every CR starts a CR LF and every LF ends one,
    ``crlf=`` says so once and the cells write ``\\n`` alone. None when no
    column drops ``_CRLF_MIN`` CRs.
    """
    if "\r\\n" not in text:
        return None
    chosen: list[int] = []
    size = len(rows)
    lines = text.split("\n")
    held = _cr_cells(lines, 1 if header else 0)
    for k, path in enumerate(paths):
        if path is None or k >= len(cells) or k not in held:
            continue
        # A spread sample first: one non-string or lone CR/LF there rules the column out.
        sample = [_at(rows[i * size // _PROBES], path) for i in range(min(size, _PROBES))]
        if not all(v is ABSENT or (type(v) is str and _crlf_only(v)) for v in sample):
            continue
        values = [v for v in _column(rows, path) if v is not ABSENT]
        if any(type(v) is not str for v in values):
            continue
        joined = " ".join(values)  # the space keeps a CR and the next cell's LF apart
        if crlf_only(joined) and joined.count("\r") >= _CRLF_MIN:  # each CR is a CR LF
            chosen.append(k)
    if not chosen:
        return None
    for i in range(1 if header else 0, len(lines)):
        if "\r" in lines[i]:
            row_cells = lines[i].split("\t")
            for k in chosen:
                if k < len(row_cells) and row_cells[k][:1] not in ('"', "[", "{"):
                    row_cells[k] = row_cells[k].replace("\r\\n", "\\n")
            lines[i] = "\t".join(row_cells)
    return "\n".join(lines), _name_list(cells[k] for k in chosen)


def _cr_cells(lines: list[str], start: int) -> set[int]:
    """The cell indexes that hold a raw CR in some of the lines from ``start``.

    Only a string's cell keeps its CRs raw (a JSON cell writes ``\\r``), so a
    column whose strings hold CR LFs is among them; the others need no look at
    their rows. A few C searches a line, not a split.
    """
    found: set[int] = set()
    for i in range(start, len(lines)):
        line = lines[i]
        at = line.find("\r")
        while at >= 0:
            found.add(line.count("\t", 0, at))
            end = line.find("\t", at)
            at = -1 if end < 0 else line.find("\r", end)
    return found


def _crlf_only(text: str) -> bool:
    # Whether every CR in the text starts a CR LF and every LF ends one (a leaf:
    # str.count("\r\n") scans at ~1 ns a character).
    return crlf_only(text)


# `json=raw` costs its header token; it is written when it drops this many backslashes.
_RAW_JSON_MIN = 4


def _raw_json(text: str, header: bool) -> str | None:
    """The row lines with each JSON cell's backslashes single again, or None if few are doubled.

    A JSON text holds no TAB or LF, so escaping a JSON cell only doubled its
    backslashes; a cell that starts with ``[`` or ``{`` is always a JSON
    literal (a string starting so is written ``\\[``).
    """
    if "\\\\" not in text:
        return None
    lines = text.split("\n")
    dropped = 0
    for i in range(1 if header else 0, len(lines)):
        line = lines[i]
        if "\\\\" in line:
            cells = line.split("\t")
            for k, cell in enumerate(cells):
                if cell[:1] in ("[", "{") and "\\\\" in cell:
                    dropped += cell.count("\\\\")
                    cells[k] = cell.replace("\\\\", "\\")
            lines[i] = "\t".join(cells)
    return "\n".join(lines) if dropped >= _RAW_JSON_MIN else None


# Where a table stands, for the child sections below it: the tool text, the
# table's `of=` value ("" at the top) and how deep child sections already are.
Below = tuple[str, str, int]


def _child_sections(
    rows: Sequence[dict[str, Any]], fields: list[str], below: Below
) -> tuple[list[dict[str, Any]], list[str], str] | None:
    """Rows, fields and child section text once the list columns that pay are moved out.

    A column moves when the child section (header, rows and link cells) is
    shorter than the JSON cells it replaces; None when no column moves.
    """
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
        found = nested.split(rows, path, link)
        if found is None:
            continue
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
        rows = moved
        texts.append(child[2])
        if len(path) == 1:
            fields = [f + nested.MARK if f == path[0] else f for f in fields]
    if not texts:
        return None
    return list(rows), fields, "".join("\n" + t for t in texts)


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


def _grouped_names(
    fields: Sequence[str], paths: Sequence[Path], constants: dict[str, str]
) -> str | None:
    """The field list with spread objects as groups, ``owner{login,id}``, or None."""
    found = _group_list(fields, paths, constants)
    return None if found is None else found[0]


def _group_list(
    fields: Sequence[str], paths: Sequence[Path], constants: dict[str, str]
) -> tuple[str, int] | None:
    """The grouped field list and how many of its pieces are qualified, or None.

    Reference decoders read the list split on `,` and keep the last cell of a
    repeated field, so each piece must read as a name of its own. Where a piece
    would repeat another (``user{id,name}`` and ``assignee{id,name}`` both give
    ``name}``), it is *qualified*: its name is written after the names of its
    innermost groups (``assignee.name}``), as few as make it new.
    None when a name or constant holds a brace, when a name inside a group
    starts with one of its groups' names and a dot (it would read qualified),
    or when qualifying cannot make a piece new.
    """
    pieces: list[tuple[tuple[str, ...], str]] = []  # (groups around the piece, its text)
    chain: tuple[str, ...] = ()
    for name, path in zip(fields, paths, strict=True):
        text = constants.get(name, "")
        if any("{" in k or "}" in k for k in path) or "{" in text or "}" in text:
            return None
        if len(path) > 1 and _reads_qualified(path):
            return None
        keep = 0
        while keep < len(chain) and keep < len(path) - 1 and chain[keep] == path[keep]:
            keep += 1
        if pieces and keep < len(chain):
            outer, last = pieces[-1]
            pieces[-1] = (outer, last + "}" * (len(chain) - keep))
        opens = "".join(_listed(k) + "{" for k in path[keep:-1])
        member = path[-1]
        cell = escape(_name_text(member) + "=" + text) if name in constants else _listed(member)
        pieces.append((path[:keep], opens + cell))
        chain = path[:-1]
    if pieces:
        outer, last = pieces[-1]
        pieces[-1] = (outer, last + "}" * len(chain))
    return _unrepeated(pieces)


def _reads_qualified(path: Path) -> bool:
    # Whether a name inside groups would read as qualified (`owner.x` in `owner{…}`).
    return any("." in k and k.split(".", 1)[0] in path[:i] for i, k in enumerate(path) if i)


def _unrepeated(pieces: Sequence[tuple[tuple[str, ...], str]]) -> tuple[str, int] | None:
    """The pieces joined, each that reads like an earlier one qualified, and how many were.

    Top-level pieces cannot be qualified: their readings are taken first.
    """
    seen = {unescape(unescape(text)) for outer, text in pieces if not outer}
    parts: list[str] = []
    qualified = 0
    for outer, text in pieces:
        if not outer:
            parts.append(text)
            continue
        plain = reading = unescape(unescape(text))
        k = 0
        while reading in seen:
            k += 1
            if k > len(outer):
                return None
            reading = ".".join(outer[-k:]) + "." + plain
        if k:
            text = ".".join(_listed(g) for g in outer[-k:]) + "." + text
            qualified += 1
        seen.add(reading)
        parts.append(text)
    return ",".join(parts), qualified


def _write_value(out: list[str], tool_text: str, value: Any) -> None:
    """The catch-all shape: one ``value`` cell per list element, or one for the whole value."""
    if isinstance(value, (list, tuple)):
        out.append(_header_line(tool_text, _VALUE, [(_IS, "list")]))
        for i, item in enumerate(value):
            try:
                out.append(_one_cell(item))
            except EncodeError as exc:
                raise exc.relocated(path_join("$", i)) from None
            out.append("\n")
    else:
        out.append(_header_line(tool_text, _VALUE, [(_IS, "value")]))
        out.append(_one_cell(value))
        out.append("\n")


# Tables are looked for this many objects deep below a top-level member.
_DEEP = 3


def _member_table(value: Any, where: str, below: Below | None = None) -> list[str] | Table | None:
    """A member as a table section: its fields, its whole section, or None."""
    if isinstance(value, (list, tuple)):
        found: list[str] | Table | None = _uniform_section(value, where, below)
        return found if found is not None else _table_fields(value, where)
    columns = _columnar(value)
    return None if columns is None else _columnar_section(columns, where, None)


def _holds_table(value: Any, depth: int) -> bool:
    """Does this object hold a table member (within _DEEP objects), so that it is opened?

    Only objects whose keys can all be group members are opened (no dot, no
    comma, no whitespace), so that a dotted path names one place only.
    """
    if type(value) is not dict or not value or depth > _DEEP:
        return False
    if not all(type(k) is str and k and "." not in k and _field_text(k) for k in value):
        return False
    for member in value.values():
        if type(member) is dict:
            if _columnar(member) is not None or _holds_table(member, depth + 1):
                return True
        elif isinstance(member, (list, tuple)) and len(member) > 1:  # one row: JSON is as short
            try:
                if _table_fields(member, "$") is not None:
                    return True
            except EncodeError:
                continue
    return False


Member = tuple[tuple[str, ...], Any]


def _members(obj: dict[str, Any]) -> list[Member]:
    """The object's members by path, depth first, opening objects that hold tables."""
    out: list[Member] = []
    dotted = sorted(k for k in obj if isinstance(k, str) and "." in k)

    def walk(value: dict[str, Any], path: tuple[str, ...]) -> None:
        for key, member in value.items():
            if not isinstance(key, str):
                raise EncodeTypeError(f"Object key {key!r} is not a string", "$")
            here = (*path, key)
            closed = not path and (  # a top-level name no group can carry
                "." in key or _field_text(key) is None or _prefixes_one(dotted, key + ".")
            )
            if not closed and _columnar(member) is None and _holds_table(member, len(here)):
                walk(member, here)
            else:
                out.append((here, member))

    walk(obj, ())
    return out


def _prefixes_one(names: list[str], start: str) -> bool:
    # Whether a name of the sorted list starts with `start`: the names that do
    # follow one another from where `start` would go (a scan of every name per
    # top-level key was quadratic in an object's members).
    at = bisect_left(names, start)
    return at < len(names) and names[at].startswith(start)


def _where(path: tuple[str, ...]) -> str:
    where = "$"
    for key in path:
        where = path_join(where, key)
    return where


def _of_text(path: tuple[str, ...]) -> str:
    # `of=query.search`: a table inside member objects; a dot inside a key is `\.`,
    # a `[` is `\[` (`[]` is a list step: child sections, _gcx_nested).
    return ".".join(escape(key).replace(".", "\\.").replace("[", "\\[") for key in path)


def _below(tool_text: str, path: tuple[str, ...]) -> Below | None:
    # A member table's place for child sections; a member named "" has the
    # top-level table's `of=` text (""), so it gets none.
    of = _of_text(path)
    return (tool_text, of, 0) if of else None


def _write_object(
    out: list[str],
    tool_text: str,
    obj: dict[str, Any],
    fixed: tuple[tuple[str, ...], Table] | None = None,
) -> None:
    # `fixed`: a member's table section written beforehand (a declared layout's), by path.
    columns = _columnar(obj)
    if columns is not None:  # the whole object is parallel arrays: one table
        out.extend((_columnar_section(columns, "$", tool_text)[2], "\n"))
        return
    # Split the members into tables (lists of objects) and runs of other members;
    # members of objects that hold tables are taken one by one, by path.
    # A table is its fields, or already its section when the fast path wrote it.
    segments: list[tuple[tuple[str, ...], Any, list[str] | Table] | list[Member]] = []
    run: list[Member] = []
    for path, value in _members(obj):
        found: list[str] | Table | None = None
        key = path[-1]
        if fixed is not None and path == fixed[0]:
            found = fixed[1]
        elif escape(key) and not _SPACE.search(escape(key)):
            found = _member_table(value, _where(path), _below(tool_text, path))
        if found is None:
            run.append((path, value))
            continue
        if run:
            segments.append(run)
            run = []
        segments.append((path, value, found))
    if run:
        segments.append(run)

    if not any(isinstance(s, tuple) for s in segments):
        keys = list(obj)
        if keys and all(_field_text(k) is not None for k in keys):
            record, fields, names, spread_pair = obj, keys, None, []
            leaves: list[Path] = [(k,) for k in keys]
            spread = _spread_plan(obj, leaves) if dict in map(type, obj.values()) else None
            # Member objects in groups, one column per member path; a brace in any name
            # keeps the plain list (_grouped_names says None).
            if spread is not None and (names := _grouped_names(*spread, {})) is not None:
                fields, leaves = spread
                record = _by_path(obj, fields, leaves)
                spread_pair = [(_FLAT, "{}")]
            record, derived = _derive_record(record, fields)  # `_links.self={url}` too
            style = _style([record], fields)
            try:
                row = encode_row(record, fields, *style)
            except EncodeError as exc:  # a grouped member named by its path: `$.owner.id`
                raise _by_member(exc, fields, leaves) from None
            paths: list[Path | None] = [(k,) for k in fields]
            row, marks = _cell_styles(row, False, [record], fields, paths)  # json=raw, crlf=
            pairs = [*_style_pairs(fields, *style), *spread_pair, *derived, *marks, (_IS, "object")]
            out.append(_header_line(tool_text, fields, pairs, None, names))
            out.append(row + "\n")
        else:
            _write_value(out, tool_text, obj)
        return

    # Each section: header pairs and rows. Runs of top-level members that fit in
    # a header ride on the neighbouring table's header, in member order around
    # its `of=` marker; members inside opened objects form records (`flat=`).
    sections: list[
        tuple[list[str], list[tuple[str, str]], list[str], dict[str, str], str | None]
    ] = []
    last_table: list[tuple[str, str]] | None = None
    waiting: list[tuple[str, str]] = []
    for seg in segments:
        if isinstance(seg, tuple):
            path, value, found = seg
            if isinstance(found, tuple):
                fields, pairs, text, constants, names = found
            else:
                below = _below(tool_text, path)
                fields, pairs, text, constants, names = _table(value, found, _where(path), below)
            pairs.extend([*waiting, (_OF, _of_text(path))])
            waiting = []
            # The LF is its own element, so the payload's final LF drops without a copy.
            sections.append((fields, pairs, [text, "\n"], constants, names))
            last_table = pairs
            continue
        nested = any(len(path) > 1 for path, _ in seg)
        if not nested:
            meta = [_meta_pair(p[0], v, _where(p)) for p, v in seg]
            if all(m is not None for m in meta):
                target = last_table if last_table is not None else waiting
                target.extend(m for m in meta if m is not None)
                continue
        keys = [".".join(p) for p, _ in seg]
        if not all(_field_text(k) is not None for k in keys):
            out.clear()
            _write_value(out, tool_text, obj)
            return
        seg_paths = [p for p, _ in seg]
        spread = _spread_plan(obj, seg_paths)
        names = None
        if spread is not None and (names := _grouped_names(*spread, {})) is not None:
            keys, seg_paths = spread  # member objects in groups
            record = _by_path(obj, keys, seg_paths)
        else:
            record = dict(zip(keys, (v for _, v in seg), strict=True))
        record, derived = _derive_record(record, keys)
        style = _style([record], keys)
        try:
            line = encode_row(record, keys, *style) + "\n"
        except EncodeError as exc:  # name the member by its path: `$.query.total`
            raise _by_member(exc, keys, seg_paths) from None
        pairs = _style_pairs(keys, *style)
        groups = sorted({".".join(p[:i]) for p in seg_paths for i in range(1, len(p))})
        if names is not None:
            pairs.append((_FLAT, "{}"))
        elif groups:
            pairs.append((_FLAT, _name_list(groups)))
        sections.append((keys, [*pairs, *derived, (_IS, "object")], [line], {}, names))
        last_table = None
    for fields, pairs, body, constants, names in sections:
        out.append(_header_line(tool_text, fields, pairs, constants, names))
        out.extend(body)


def _by_member(exc: EncodeError, names: Sequence[str], paths: Sequence[Path]) -> EncodeError:
    """A record row's error at a dotted column (`$['query.total']`) named by its path."""
    for name, path in zip(names, paths, strict=True):
        cell = path_join("$", name)
        if exc.path == cell or exc.path.startswith((cell + ".", cell + "[")):
            return type(exc)(exc.reason, _where(path) + exc.path[len(cell) :])
    return exc


def _by_path(record: dict[str, Any], fields: list[str], paths: list[Path]) -> dict[str, Any]:
    # The record's members by column name (`owner.login`), absent ones left out.
    found = ((f, _at(record, p)) for f, p in zip(fields, paths, strict=True))
    return {f: v for f, v in found if v is not ABSENT}


# A record without groups spreads its objects only when that adds this many
# columns: the `flat={}` mark costs about three tokens (Jira's four `avatarUrls`
# sizes cost one more than their JSON cell).
_SPREAD_MIN = 4
# Spreading a record's objects checks the whole field list each time: this
# many field-list entries read in all, then the rest stays in JSON cells.
_SPREAD_BUDGET = 20_000


def _spread_plan(record: dict[str, Any], paths: list[Path]) -> tuple[list[str], list[Path]] | None:
    """A one-row record's columns (``paths`` into ``record``) with its member
    objects in groups, or None.

    In one row a group list (``billing_details{address{city,…},email}``) is
    shorter than the JSON cell's quoted keys. Objects are opened in member
    order, outer ones first, each only if the names reference decoders then
    read (``billing_details{address{city``, ``email``, ``tax_id}``) are still
    all different: they keep one cell per name, so an object whose member
    would read like another field stays one JSON cell, and its siblings may
    still open. None when no object opens.
    """
    size = len(paths)
    opened = any(len(p) > 1 for p in paths)  # the section has groups already
    budget = _SPREAD_BUDGET
    qualified = 0
    i = 0
    while i < len(paths) and budget > 0:
        path = paths[i]
        value = _at(record, path)
        if _can_open(record, path, value):
            trial = [*paths[:i], *((*path, k) for k in value), *paths[i + 1 :]]
            budget -= len(trial)
            found = _group_list([".".join(p) for p in trial], trial, {})
            if found is not None and _qualifying_pays(found[1] - qualified, len(value)):
                paths, qualified = trial, found[1]
                continue  # its first member is next: inner objects open in member order
        i += 1
    if len(paths) - size < (1 if opened else _SPREAD_MIN):  # `flat={}` must pay for itself
        return None
    return [".".join(p) for p in paths], paths


def _qualifying_pays(added: int, members: int) -> bool:
    # In one row a qualified name (`organization.url`) costs about what its
    # member's quoted JSON key does: an object most of whose members would be
    # qualified stays one JSON cell. (Added can be negative: a later piece
    # may take the bare reading an earlier qualified one had to avoid.)
    return 2 * added <= members


def _can_open(record: dict[str, Any], path: Path, value: Any) -> bool:
    # An object a group can hold: within the group depth, members that can be
    # field names, and no sibling named `key.…` (two dotted names would collide).
    if type(value) is not dict or not value or len(path) > _FLAT_DEPTH:
        return False
    key = path[-1]
    if (
        not key
        or "." in key
        or any(type(k) is not str or not k or _field_text(k) is None for k in value)
    ):
        return False
    parent = _at(record, path[:-1]) if len(path) > 1 else record
    if any(type(k) is str and k.startswith(key + ".") for k in parent):
        return False
    # Each member saves about a token of JSON quoting (an object member, whose
    # own members open next, more), the braces cost one, and a string that
    # needs a guard (`\0.29`, `tru\e`) costs one more than its quotes.
    score = 0
    for v in value.values():
        if type(v) is dict:
            score += 2
        elif type(v) is str and _needs_guard(v):
            score -= 1
        else:
            score += 1
    return score > 1


def _needs_guard(text: str) -> bool:
    # Whether a string cell would read as something else unguarded (§3).
    return text in ("true", "false", "null") or NUMBER.fullmatch(text) is not None


def _encode_typed(value: Any, tool: str) -> str:
    tool_text = _tool_text(tool)
    out: list[str] = []
    if isinstance(value, dict):
        _write_object(out, tool_text, value)
    elif isinstance(value, (list, tuple)):
        text = _uniform_table(value, tool_text)
        if text is not None:
            return text
        fields = _table_fields(value, "$")
        if fields is None:
            _write_value(out, tool_text, value)
        else:
            table = _section(value, fields, "$", tool_text, None, (), (tool_text, "", 0))
            assert table is not None  # only a keys check gives None
            return table[2]  # the whole payload
    else:
        _write_value(out, tool_text, value)
    # Like a JSON text, a payload ends without a newline; every decoder accepts that.
    if out and out[-1] == "\n":
        out.pop()
        return "".join(out)
    return "".join(out)[:-1]
