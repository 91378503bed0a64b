"""The pure-Python twin of ``_speedups.pyx``: GCX1's hot leaves.

Same names, signatures, results and errors as the Cython twin; the parity
tests keep the two in step. Everything above the row level lives in gcx.py.

Typed cells (docs/wire-format.md, "Typed cells"): the type of a cell is read
from its raw text before unescaping. A lone backslash is an absent key, JSON
number grammar is a number, ``true``/``false``/``null`` are literals, text
starting with ``"``, ``[`` or ``{`` is a JSON literal, anything else is a
string. An empty cell is an absent key, or null in a section whose header says
``empty=null``. A string whose text would read as something else gets one
character backslash-escaped (reference decoders drop such a backslash).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator, Sequence, Sized
from itertools import accumulate, repeat
from operator import itemgetter
from typing import Any, Literal

import orjson

from ._key_order import merge_key_orders
from ._values import ABSENT, NUMBER, int_to_str, path_join, str_to_int
from ._values import dumps as dumps_cell
from ._values import loads as loads_cell
from .errors import DecodeError, EncodeError, EncodeTypeError, EncodeValueError
from .limits import depth_exceeds, long_number

__all__ = [
    "escape",
    "unescape",
    "format_cell",
    "parse_cell",
    "encode_row",
    "decode_row",
    "decode_rows",
    "scan_style",
    "shared_keys",
    "nest_rows",
    "attach_items",
    "add_templates",
    "encode_table",
    "dict_column",
    "constant_columns",
    "column_prefixes",
    "key_order",
    "plain_json",
    "dcp_rows",
    "dcp_lines",
    "dcp_text",
    "dcp_join",
    "dcp_records",
    "dcp_tree_records",
    "text_marks",
    "crlf_only",
    "split_column",
    "crlf_cells",
    "drop_crlf",
    "template_matches",
    "column_at",
    "sparse_column",
    "source_texts",
    "column_strings",
    "infix_runs",
    "template_probes",
    "find_text",
    "break_cells",
    "style_marks",
    "flat_prefixes",
    "keys_differ",
    "cl100k_count",
    "wide_runs",
    "literal_scan",
    "row_line_starts",
]

_UNESCAPED = {"t": "\t", "n": "\n"}


def escape(s: str, /) -> str:
    """Apply the GCX1 escapes: backslash, TAB and LF become ``\\\\``, ``\\t``, ``\\n``."""
    if "\\" in s or "\t" in s or "\n" in s:
        # Backslashes first, so the ones the other escapes add are not doubled.
        # (Three str.replace calls are ~10x faster than str.translate on long text.)
        return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
    return s


def unescape(s: str, /) -> str:
    """Undo the escapes as the reference does: ``\\x`` is ``x``, a lone final ``\\`` stays."""
    if "\\" not in s:
        return s
    out: list[str] = []
    i = 0
    n = len(s)
    while True:
        j = s.find("\\", i)
        if j < 0 or j == n - 1:
            out.append(s[i:])
            return "".join(out)
        out.append(s[i:j])
        c = s[j + 1]
        out.append(_UNESCAPED.get(c, c))
        i = j + 2


def _format_str(s: str) -> str:
    if not s:
        return '""'
    t = escape(s)
    c = t[0]
    if c in '"[{':
        return "\\" + t
    if (c == "-" or "0" <= c <= "9") and NUMBER.fullmatch(t):
        return "\\" + t
    if c in "tfn" and len(t) in (4, 5):
        # The backslash before a letter no JSON escape uses (t\rue would read as t, CR, ue).
        if t == "true":
            return "tru\\e"
        if t == "false":
            return "fals\\e"
        if t == "null":
            return "nul\\l"
    return t


def format_cell(value: object, /) -> str:
    """The typed, escaped cell text of one JSON value.

    Raises EncodeError (path relative to the value, ``$``) for what JSON cannot carry.
    """
    if isinstance(value, str):
        return _format_str(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int_to_str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise EncodeValueError(f"Float {value!r} is not valid JSON")
        return repr(value)
    if isinstance(value, (dict, list, tuple)):
        return escape(dumps_cell(value))
    raise EncodeTypeError(f"Encoding objects of type `{type(value).__name__}` is unsupported")


def parse_cell(raw: str, /) -> Any:
    """Read one raw (still escaped) cell as a typed value; ABSENT for a lone backslash.

    An empty cell reads as null (rows decide for themselves what empty means).
    Raises DecodeError whose ``pos`` is relative to the cell.
    """
    if not raw:
        return None
    c = raw[0]
    if c == "\\":
        if len(raw) == 1:
            return ABSENT
        return unescape(raw)
    if c in '"[{':
        try:
            return loads_cell(unescape(raw))
        except ValueError as exc:
            raise DecodeError(f"Cell is not a valid JSON literal: {exc}") from None
    if c == "-" or "0" <= c <= "9":
        if NUMBER.fullmatch(raw):
            if "." in raw or "e" in raw or "E" in raw:
                f = float(raw)
                # A literal beyond float range (1e400) stays text rather than become inf.
                return f if math.isfinite(f) else raw
            return str_to_int(raw)
    elif len(raw) in (4, 5):
        if raw == "true":
            return True
        if raw == "false":
            return False
        if raw == "null":
            return None
    if "\\" in raw:
        return unescape(raw)
    return raw


def _compact_float(f: float) -> str:
    # In a float column an integral float drops its ".0": "1.0" is 3 tokens, "1" is one.
    if f.is_integer() and -1e15 < f < 1e15:
        return "-0" if f == 0 and math.copysign(1.0, f) < 0 else str(int(f))
    return format_cell(f)


def encode_row(
    row: dict[str, Any], fields: Sequence[str], empty_null: bool, floats: frozenset[str], /
) -> str:
    """One typed row line (no LF), a cell per field.

    An absent key is the empty cell, or ``\\`` when ``empty_null`` (then null is
    the empty cell instead of ``null``). Trailing empty cells are left out:
    decoders pad short rows. In ``floats`` columns integral floats are written
    without ``.0``. Guards what a reference decoder would misread:
    a first cell starting with ``#`` or ``GCX1`` is escaped, an empty one-field
    row is written ``\\`` or ``null`` (a blank line would be skipped), and a
    last cell ending in CR is written as a JSON string (Go's line reader strips
    a CR before LF).
    """
    if not fields:
        raise ValueError("A row needs at least one field")
    absent = "\\" if empty_null else ""
    null = "" if empty_null else "null"
    cells: list[str] = []
    for field in fields:
        value = row.get(field, ABSENT)
        if value is ABSENT:
            cells.append(absent)
        elif value is None:
            cells.append(null)
        elif floats and type(value) is float and field in floats and math.isfinite(value):
            cells.append(_compact_float(value))
        else:
            try:
                cells.append(format_cell(value))
            except EncodeError as exc:
                raise exc.relocated(path_join("$", field)) from None
    _guard(cells, empty_null)
    if cells[-1].endswith("\r"):  # only a string's text can end in a raw CR
        cells[-1] = escape(dumps_cell(row[fields[len(cells) - 1]]))
    return "\t".join(cells)


def _guard(cells: list[str], empty_null: bool) -> None:
    # What every row line needs before its CR check: trailing empty cells left
    # out, and the guards of its first cell.
    while len(cells) > 1 and not cells[-1]:
        cells.pop()  # decoders pad a short row with empty cells
    first = cells[0]
    if first.startswith("#") or first.startswith("GCX1"):
        cells[0] = "\\" + first
    elif not first and len(cells) == 1:
        cells[0] = "null" if empty_null else "\\"


# A cell of a column held in the header: empty in every row (see encode_table).
_HELD = object()


def _line(
    values: list[Any], fields: Sequence[str], empty_null: bool, floats: frozenset[str]
) -> str:
    # encode_row over one value per field (ABSENT: no value; _HELD: always empty).
    absent = "\\" if empty_null else ""
    null = "" if empty_null else "null"
    cells: list[str] = []
    for field, value in zip(fields, values):
        if value is ABSENT:
            cells.append(absent)
        elif value is None:
            cells.append(null)
        elif value is _HELD:
            cells.append("")
        elif floats and type(value) is float and field in floats and math.isfinite(value):
            cells.append(_compact_float(value))
        else:
            try:
                cells.append(format_cell(value))
            except EncodeError as exc:
                raise exc.relocated(path_join("$", field)) from None
    _guard(cells, empty_null)
    if cells[-1].endswith("\r"):  # only a string's text can end in a raw CR
        cells[-1] = escape(dumps_cell(values[len(cells) - 1]))
    return "\t".join(cells)


def decode_row(
    line: str, fields: Sequence[str], typed: bool, empty_null: bool, floats: frozenset[str], /
) -> dict[str, Any]:
    """Read one row line into a dict keyed by ``fields``.

    Short rows are padded with empty cells. Untyped, every cell is a string (as
    reference decoders read it). Typed, an empty cell is an absent key (null
    when ``empty_null``) and numbers in ``floats`` columns are floats. Extra
    cells, or a bad literal, raise DecodeError whose ``pos`` is relative to the line.
    """
    cells = line.split("\t")
    if len(cells) > len(fields):
        pos = sum(len(c) + 1 for c in cells[: len(fields)]) - 1
        raise DecodeError(
            f"Row has {len(cells)} cells but the header declares {len(fields)} fields", pos=pos
        )
    row: dict[str, Any] = {}
    if not typed:
        for field, raw in zip(fields, cells):
            row[field] = unescape(raw)
        for field in fields[len(cells) :]:
            row[field] = ""
        return row
    start = 0
    for field, raw in zip(fields, cells):
        if not raw:
            if empty_null:
                row[field] = None
        else:
            try:
                value = parse_cell(raw)
            except DecodeError as exc:
                raise DecodeError(exc.msg, pos=start) from None
            if value is not ABSENT:
                if floats and type(value) is int and field in floats:
                    value = _as_float(raw, value)
                row[field] = value
        start += len(raw) + 1
    if empty_null:
        for field in fields[len(cells) :]:
            row[field] = None
    return row


def _as_float(text: str, n: int) -> float | int:
    # From the text, so "-0" stays negative zero; an int beyond float range
    # (only a foreign payload can hold one here) stays an int.
    f = float(text)
    return f if math.isfinite(f) else n


def scan_style(
    rows: Iterable[dict[str, Any]], fields: Sequence[str], /
) -> tuple[bool, frozenset[str]]:
    """A section's style: (``empty=null`` pays, the ``float=`` columns).

    ``empty=null`` when the rows hold more than 3 more nulls than absent keys;
    a column is a float column when it holds no int and at least three integral
    floats (within 1e15). Keys outside ``fields`` are left out, as the row
    writers leave them out.
    """
    names = frozenset(fields)
    width = len(fields)
    nulls = absent = 0
    integral: dict[str, int] = {}
    has_int: set[str] = set()
    for row in rows:
        if not isinstance(row, dict):
            raise TypeError(f"Expected dict, got {type(row).__name__}")
        items: Iterable[tuple[str, Any]] = row.items()
        if row.keys() <= names:
            absent += width - len(row)
        else:
            items = [(k, v) for k, v in row.items() if k in names]
            absent += width - len(items)
        for key, value in items:
            if value is None:
                nulls += 1
            elif type(value) is float:
                if value.is_integer() and -1e15 < value < 1e15:
                    integral[key] = integral.get(key, 0) + 1
            elif type(value) is int:
                has_int.add(key)
    # A column named "" is never a float column: `float=` cannot name it.
    floats = frozenset(k for k, n in integral.items() if n >= 3 and k and k not in has_int)
    return nulls > absent + 3, floats


def decode_rows(
    text: str,
    start: int,
    fields: Sequence[str],
    typed: bool,
    empty_null: bool,
    floats: frozenset[str],
    max_line: int,
    max_depth: int,
    max_digits: int,
    max_padding: int,
    layout: Any = None,
    /,
) -> tuple[list[dict[str, Any]], list[str], int, int]:
    """Read the row and comment lines of a section from ``text[start:]``.

    Returns ``(rows, comments, stop, padded)``: ``stop`` is where reading stopped,
    at the start of a line it leaves to the caller (a ``GCX1`` header, a line
    longer than ``max_line``, typed, one holding a number of more than
    ``max_digits`` digits (0: no limit) or a JSON literal cell nesting deeper
    than ``max_depth``, or a short row whose padding would take the cells filled in
    past ``max_padding``) or at ``len(text)``; ``padded`` counts the cells filled
    in for short rows (untyped, or under ``empty_null``). A CR before LF is
    dropped, blank lines are skipped, comment text is kept without its ``#``.
    Row errors are DecodeErrors whose ``pos`` is an offset into ``text``.

    A ``layout`` (typed only) gives each row its final shape as it is read:
    ``(steps, groups, constants, infixes, prefixes, templates)``, columns by
    their index in ``fields``. Each row's values by column are taken in turn by
    ``constants`` (column, name, value: the cell must be blank, empty or
    ``\\``, and takes the value), ``infixes`` (column, mark, text: the first
    mark in a string becomes the text), ``prefixes`` (column, text: put before
    a string) and ``templates`` (column, source, before, after, name, source
    name: a column with no value takes before + the source's string or int's
    digits + after); then ``steps`` build the row: each (object, key, source)
    sets key in object 0 (the row) or k (1 to ``groups``) to column source's
    value when it has one, or for source -k to a new empty object k. A
    constant's or template's error is placed at its line's start.
    """
    shape = None if layout is None else _row_layout(layout, fields)
    if shape is not None and not typed:
        raise ValueError("A layout needs typed rows")
    rows: list[dict[str, Any]] = []
    comments: list[str] = []
    n = len(text)
    pos = start
    width = len(fields)
    pads = not typed or empty_null  # otherwise a missing cell is an absent key: no entry
    padded = 0
    while pos < n:
        end = text.find("\n", pos)
        if end < 0:
            end = n
        line = text[pos:end]
        if line.endswith("\r"):  # CRLF input, as Go's line reader takes it
            line = line[:-1]
        if line:
            if (
                len(line) > max_line
                or (typed and long_number(line, max_digits) >= 0)
                or line.startswith("GCX1")
            ):
                return rows, comments, pos, padded
            if line[0] == "#":
                comments.append(line[1:])
            else:
                if typed and _deep_cell(line, max_depth):
                    return rows, comments, pos, padded
                if pads:
                    short = width - line.count("\t") - 1
                    if short > 0:
                        if padded + short > max_padding:
                            return rows, comments, pos, padded
                        padded += short
                try:
                    row = decode_row(line, fields, typed, empty_null, floats)
                except DecodeError as exc:
                    raise DecodeError(exc.msg, pos=pos + exc.pos) from None
                rows.append(row if shape is None else _shaped(row, shape, pos))
        pos = end + 1
    return rows, comments, n, padded


def _row_layout(layout: Any, fields: Sequence[str]) -> Any:
    # decode_rows' layout, checked as the extension checks it, its columns by name.
    steps, groups, constants, infixes, prefixes, templates = layout
    steps = tuple(tuple(step) for step in steps)
    if groups < 0:
        raise ValueError("A layout's group count is negative")
    made = [True] + [False] * groups
    for i, (h, k, src) in enumerate(steps):
        if type(k) is not str or not 0 <= h <= groups or not made[h]:
            raise ValueError(f"Layout step {i} writes into no object made before it")
        if src < 0:
            if -src > groups or made[-src]:
                raise ValueError(f"Layout step {i} makes no new group")
            made[-src] = True
        elif src >= len(fields):
            raise ValueError(f"Layout step {i} reads no column")

    def name(c: int) -> str:
        if not 0 <= c < len(fields):
            raise ValueError(f"Layout column {c} is out of range")
        return fields[c]

    return (
        [(h, k, None if src < 0 else fields[src], -src) for h, k, src in steps],
        groups,
        [(name(c), n, v) for c, n, v in constants],
        [(name(c), m, t) for c, m, t in infixes],
        [(name(c), t) for c, t in prefixes],
        [(name(c), name(s), b, a, n, sn) for c, s, b, a, n, sn in templates],
    )


def _shaped(row: dict[str, Any], shape: Any, pos: int) -> dict[str, Any]:
    # A flat typed row (by field name) in its layout's shape (decode_rows).
    steps, groups, constants, infixes, prefixes, templates = shape
    for field, name, constant in constants:
        if row.get(field) is not None:
            raise DecodeError(f"Constant column {name!r} has a cell in this row", pos=pos)
        row[field] = constant
    for field, mark, infix in infixes:
        value = row.get(field)
        if type(value) is str and mark in value:
            row[field] = value.replace(mark, infix, 1)
    for field, prefix in prefixes:
        value = row.get(field)
        if type(value) is str:
            row[field] = prefix + value
    for field, src, before, after, name, source in templates:
        if field not in row:
            value = row.get(src)
            if type(value) is str:
                row[field] = before + value + after
            elif type(value) is int:
                row[field] = before + int_to_str(value) + after
            else:
                msg = f"Column {name!r} is derived from {source!r}, which holds no text here"
                raise DecodeError(msg, pos=pos)
    out: dict[str, Any] = {}
    objects = [out] * (groups + 1)
    for h, key, field, made in steps:
        if field is None:
            objects[made] = objects[h][key] = {}
        elif field in row:
            objects[h][key] = row[field]
    return out


def _deep_cell(line: str, limit: int) -> bool:
    # A JSON literal cell nesting deeper than limit; only a line with more brackets can hold one.
    if line.count("[") + line.count("{") <= limit:
        return False
    return any(c[:1] in ("[", "{") and depth_exceeds(unescape(c), limit) for c in line.split("\t"))


def shared_keys(rows: Iterable[Any], /) -> tuple[str, ...] | None:
    """The keys every row has, in the same order, when all rows are dicts with str keys.

    None otherwise (also for no rows): the caller then merges key orders itself.
    """
    first: tuple[str, ...] | None = None
    for row in rows:
        if type(row) is not dict:
            return None
        keys = tuple(row)
        if first is None:
            if not all(type(k) is str for k in keys):
                return None
            first = keys
        elif keys != first:
            return None
    return first


def nest_rows(
    rows: Iterable[dict[str, Any]], plan: Iterable[tuple[str, tuple[str, ...], str]], /
) -> list[dict[str, Any]]:
    """Rebuild nested objects from flat rows; ``plan`` holds (field, group chain, member key).

    Raises DecodeError (no position) when a field's value stands where a group goes.
    """
    steps = list(plan)
    out: list[dict[str, Any]] = []
    for row in rows:
        if not isinstance(row, dict):
            raise TypeError(f"Expected dict, got {type(row).__name__}")
        nested: dict[str, Any] = {}
        for name, chain, key in steps:
            target = nested
            for part in chain:
                inner = target.get(part)
                if inner is None:
                    inner = target[part] = {}
                elif type(inner) is not dict:
                    raise DecodeError(f"Field {name!r} collides with member {part!r}")
                target = inner
            if name in row:
                target[key] = row[name]
        out.append(nested)
    return out


def attach_items(
    parents: Iterable[Any],
    items: Iterable[dict[str, Any]],
    path: Sequence[str],
    link: str,
    in_place: bool = False,
    /,
) -> None:
    """Put a child section's items back into its table's rows.

    Each item's ``link`` member (popped) is the number of its row in ``parents``,
    in order. The object at ``path[:-1]`` of each row (the row itself for a
    one-key path) whose member ``path[-1] + "[]"`` holds the item count is
    replaced (in ``parents``, a list, or in the object holding it) by a copy
    with that member renamed ``path[-1]`` at its place, holding the items: so a
    section's children are attached before the section is attached to its own
    table. With ``in_place`` the rows already hold the count under ``path[-1]``
    (renamed while they were nested): the items replace it there, no copy.
    Raises DecodeError (no position) when links, counts or members do not agree.
    """
    if not path:
        raise DecodeError("A child section needs a path to its list")
    rows = parents if type(parents) is list else list(parents)
    groups: dict[int, list[dict[str, Any]]] = {}
    last = 0
    for item in items:
        if not isinstance(item, dict):
            raise TypeError(f"Expected dict, got {type(item).__name__}")
        at = item.pop(link, ABSENT)
        if type(at) is not int or not last <= at < len(rows):
            raise DecodeError(f"Child row link {at!r} names no row of its table, in order")
        last = at
        groups.setdefault(at, []).append(item)
    key = path[-1]
    mark = key + "[]"
    probe = key if in_place else mark
    route = path[:-1]
    for i, row in enumerate(rows):
        outer: Any = None
        holder: Any = row
        for step in route:
            outer = holder
            holder = holder.get(step, ABSENT) if type(holder) is dict else ABSENT
        found = groups.pop(i, [])
        if type(holder) is not dict or probe not in holder:
            if found:
                raise DecodeError(f"Row {i} has child rows but no {mark!r} member")
            continue
        count = holder[probe]
        if count is None and not found:
            value: list[dict[str, Any]] | None = None
        elif type(count) is int and count == len(found):
            value = found
        else:
            raise DecodeError(f"Row {i} says {count!r} items in {mark!r}, {len(found)} follow")
        if in_place:
            holder[key] = value
            continue
        if key in holder:
            raise DecodeError(f"Row {i} holds both {key!r} and {mark!r}")
        renamed = {
            (key if k == mark else k): (value if k == mark else v) for k, v in holder.items()
        }
        if route:
            outer[route[-1]] = renamed
        else:
            rows[i] = renamed


def add_templates(
    rows: Iterable[dict[str, Any]], templates: Iterable[tuple[str, str, str, str]], /
) -> None:
    """Fill in each row's derived cells: a member ``name`` the row lacks becomes
    ``before + text + after``, ``text`` the string (or int) of member ``source``.

    ``templates`` holds (name, source, before, after). Raises DecodeError (no
    position) when the source holds neither.
    """
    plan = list(templates)
    for row in rows:
        if not isinstance(row, dict):
            raise TypeError(f"Expected dict, got {type(row).__name__}")
        for name, source, before, after in plan:
            if name not in row:
                value = row.get(source)
                if type(value) is str:
                    row[name] = before + value + after
                elif type(value) is int:
                    row[name] = before + int_to_str(value) + after
                else:
                    msg = f"Column {name!r} is derived from {source!r}, which holds no text here"
                    raise DecodeError(msg)


def _gather(row: dict[str, Any], paths: Sequence[tuple[Any, ...] | None], i: int) -> list[Any]:
    # One value per column: a path walks nested objects, an absent member is ABSENT.
    values: list[Any] = []
    for path in paths:
        if path is None:
            values.append(_HELD)
            continue
        value: Any = row
        for key in path:
            if not isinstance(value, dict):
                raise TypeError(f"Row {i} holds a non-object where a column path goes on")
            value = value.get(key, ABSENT)
            if value is ABSENT:
                break
        values.append(value)
    return values


def _check_paths(fields: Sequence[str], paths: Sequence[tuple[Any, ...] | None]) -> bool:
    # Raises for bad paths; True when each path is the one key named by its
    # field, no field twice (rows can then be read as they are).
    if not fields:
        raise ValueError("A row needs at least one field")
    if len(paths) != len(fields):
        raise ValueError("Every field needs a path (or None)")
    direct = len(set(fields)) == len(fields)
    for field, path in zip(fields, paths):
        if path is None:
            direct = False
            continue
        if not path:
            raise ValueError("A column path needs at least one key")
        for key in path:
            hash(key)  # an unhashable key fails here, before any row is read
        direct = direct and len(path) == 1 and path[0] == field
    return direct


def encode_table(
    rows: Iterable[dict[str, Any]],
    fields: Sequence[str],
    paths: Sequence[tuple[Any, ...] | None],
    head: str | None,
    tail: str,
    keys: Sequence[str] | None,
    cuts: Sequence[int] | None = None,
    counted: list[int] | None = None,
    /,
) -> tuple[str, bool, frozenset[str]] | None:
    """A table's row lines in the style its cells call for: ``(text, empty_null, floats)``.

    The cell of column ``i`` is the value at ``paths[i]``: ``("user", "id")``
    reads ``row["user"]["id"]`` (a member missing on the way is absent; a
    non-object on the way is a TypeError). A ``None`` path is a column held in
    the header: its cell is empty in every row and counts as absent. Every
    row's cells are read before any row is written.

    The style: ``empty=null`` when the cells hold more than 3 more nulls than
    absent cells; a float column holds no int and at least three integral
    floats (within 1e15). Rows are written as :func:`encode_row` writes them,
    joined by LF (no final LF); error paths start at the row: ``$[3].name``.

    With ``head`` not None the text is the whole section: ``head``, then the
    style pairs (`` empty=null``, `` float=a,b``), ``tail`` (which ends the
    header line), then the rows.

    With ``keys`` not None, every row must be a dict holding exactly these
    keys in this order; if one is not, the result is None (checked before
    anything is read, so no error is raised for such a table).

    With ``cuts`` not None, ``cuts[i]`` leading characters are cut from each
    exact str of column ``i`` (its prefix, held in the header): the cell is
    that of ``value[cuts[i]:]``.

    With ``counted`` (a list) not None and a text returned, ``counted`` then
    holds, per column, how many of its cells are exact strs (cut or not).
    """
    if head is not None and not isinstance(head, str):
        raise TypeError(f"head must be a str or None, not {type(head).__name__}")
    if counted is not None and type(counted) is not list:
        raise TypeError(f"counted must be a list or None, not {type(counted).__name__}")
    rows = list(rows)
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            if keys is not None:
                return None
            raise TypeError(f"Row {i} is a {type(row).__name__}, not a dict")
    direct = _check_paths(fields, paths)
    if cuts is not None:
        if len(cuts) != len(fields):
            raise ValueError("Every field needs a cut (or none at all)")
        if any(c < 0 for c in cuts):
            raise ValueError("A cut cannot be negative")
        direct = direct and not any(cuts)
    if keys is not None:
        want = tuple(keys)
        if any(tuple(row) != want for row in rows):
            return None
    if direct:  # each column is the row's own key of that name: read the rows as they are
        empty_null, floats = scan_style(rows, fields)
        lines = []
        for i, row in enumerate(rows):
            try:
                lines.append(encode_row(row, fields, empty_null, floats))
            except EncodeError as exc:
                raise exc.relocated(f"$[{i}]") from None
        if counted is not None:
            counted[:] = [sum(type(row.get(f)) is str for row in rows) for f in fields]
    else:
        table = [_gather(row, paths, i) for i, row in enumerate(rows)]
        for k, cut in enumerate(cuts or ()):
            if cut:
                for values in table:
                    if type(values[k]) is str:
                        values[k] = values[k][cut:]
        empty_null, floats = _cell_style(table, fields)
        lines = []
        for i, values in enumerate(table):
            try:
                lines.append(_line(values, fields, empty_null, floats))
            except EncodeError as exc:
                raise exc.relocated(f"$[{i}]") from None
        if counted is not None:
            counted[:] = [sum(type(v[k]) is str for v in table) for k in range(len(fields))]
    text = "\n".join(lines)
    if head is not None:
        style = " empty=null" if empty_null else ""
        if floats:
            style += " float=" + ",".join(escape(escape(f)) for f in fields if f in floats)
        text = head + style + tail + text
    return text, empty_null, floats


def _cell_style(table: list[list[Any]], fields: Sequence[str]) -> tuple[bool, frozenset[str]]:
    # encode_table's style rule over one value list per row.
    nulls = absent = 0
    integral = [0] * len(fields)
    has_int = [False] * len(fields)
    for values in table:
        for k, value in enumerate(values):
            if value is None:
                nulls += 1
            elif type(value) is float:
                if value.is_integer() and -1e15 < value < 1e15:
                    integral[k] += 1
            elif type(value) is int:
                has_int[k] = True
            elif value is ABSENT or value is _HELD:
                absent += 1
    # A column named "" is never a float column: `float=` cannot name it.
    floats = frozenset(f for f, n, i in zip(fields, integral, has_int) if n >= 3 and f and not i)
    return nulls > absent + 3, floats


def dict_column(rows: Iterable[Any], name: str, /) -> list[dict[str, Any]] | None:
    """``[row[name] for row in rows]`` when every row is a dict holding an exact dict there.

    None otherwise (also when a row is not a dict).
    """
    out: list[dict[str, Any]] = []
    for row in rows:
        value = row.get(name) if isinstance(row, dict) else None
        if type(value) is not dict:
            return None
        out.append(value)
    return out


_SCALARS = frozenset({str, int, float, bool, type(None)})


def constant_columns(
    rows: Sequence[dict[str, Any]], paths: Sequence[tuple[Any, ...]], /
) -> dict[int, Any]:
    """The columns that hold one scalar in every row: column index -> that value.

    A scalar is an exact str, int, float, bool or None; the same means the same
    type and an equal value (a float also of the same sign: 0.0 and -0.0 differ).
    A path that meets a non-object or a missing member is not constant.
    """
    found: dict[int, Any] = {}
    if not rows:
        return found
    for k, path in enumerate(paths):
        value = _walk(rows[0], path)
        kind = type(value)
        if kind not in _SCALARS:
            continue
        for row in rows[1:]:  # a varying column stops at its first difference
            if len(path) == 1 and type(row) is dict:
                other = row.get(path[0], ABSENT)
            else:
                other = _walk(row, path)
            if type(other) is not kind or other != value:
                break
            if kind is float and math.copysign(1.0, other) != math.copysign(1.0, value):
                break
        else:
            found[k] = value
    return found


def _walk(row: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        if not isinstance(row, dict):
            return ABSENT
        row = row.get(key, ABSENT)
    return row


def column_prefixes(
    rows: Iterable[Any], paths: Sequence[Sequence[Any] | None], least: int, /
) -> list[tuple[str, int, int] | None]:
    """Per column, what its exact strs share: ``(least string, prefix length, count)``.

    The prefix length is that of their common prefix, cut so that every string
    keeps one character after it. A path is read through exact dicts only (a
    missing member or anything else on the way is no string). None for a
    ``None`` path, and when the column holds a dict, list, tuple or a str
    subclass (written whole, so read with the prefix it lacks), holds no exact
    str, or that prefix is shorter than ``least``.
    All columns are read in one pass over the rows.
    """
    table = list(rows)
    found: list[tuple[str, int, int] | None] = []
    for path in paths:
        p = None if path is None else tuple(path)
        if p is not None:
            if not p:
                raise ValueError("A column path needs at least one key")
            for key in p:
                hash(key)  # an unhashable key fails here, before any row is read
        found.append(None if p is None else _column_prefix(table, p, least))
    return found


def _column_prefix(rows: list[Any], p: tuple[Any, ...], least: int) -> tuple[str, int, int] | None:
    # Builtin loops only (map, set, filter, min, max): no Python code per row.
    if len(p) == 1 and set(map(type, rows)) == {dict}:
        column: list[Any] = list(map(dict.get, rows, repeat(p[0])))
    else:
        column = [_exact_at(row, p) for row in rows]
    kinds = set(map(type, column))
    if str not in kinds or any(
        issubclass(k, (dict, list, tuple)) or (k is not str and issubclass(k, str)) for k in kinds
    ):
        return None
    strings: list[str] = column if kinds == {str} else [*filter(str.__instancecheck__, column)]
    low, high = min(strings), max(strings)  # the common prefix of all is theirs
    limit = min(len(low), len(high), min(map(len, strings)) - 1)
    n = 0
    while n < limit and low[n] == high[n]:
        n += 1
    return None if n < least else (low, n, len(strings))


def _exact_at(row: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        if type(row) is not dict:
            return ABSENT
        row = row.get(key, ABSENT)
    return row


def key_order(rows: Iterable[Any], /) -> list[str] | None:
    """The column order of rows that are all exact dicts with exact str keys.

    Keys follow their first appearance; when rows disagree on order, a
    topological merge finds one order every row agrees with (so each row
    keeps its key order), the key seen first going first when several could.
    None when a row or a key is of another type, or no order agrees with
    every row (the caller's general path then decides).
    """
    index: dict[str, int] = {}
    fields: list[str] = []
    shapes: set[tuple[str, ...]] = set()
    ordered = True
    previous: tuple[str, ...] | None = None
    for row in rows:
        if type(row) is not dict:
            return None
        keys = tuple(row)
        if set(map(type, keys)) - {str}:
            return None
        if keys == previous:
            continue
        previous = keys
        shapes.add(keys)
        last = -1
        for key in keys:
            at = index.get(key)
            if at is None:
                at = index[key] = len(fields)
                fields.append(key)
            elif at < last:
                ordered = False
            last = at
    return fields if ordered else merge_key_orders(shapes, index)


_ORJSON_DEPTH = 250


def plain_json(value: object, /) -> bool:
    """Whether orjson writes ``value`` exactly as JSON: exact dict, list, str,
    bool and None, ints of 64 bits (signed), finite floats, str keys, nested
    less than 250 deep. False asks for the slow check, which names the path."""
    return _plain_json(value, 0)


def _plain_json(value: object, depth: int) -> bool:
    cls = type(value)
    if cls is str or value is None or cls is bool:
        return True
    if cls is int:
        return bool(-(2**63) <= value < 2**63)  # type: ignore[operator]
    if cls is float:
        return math.isfinite(value)  # type: ignore[arg-type]
    if depth >= _ORJSON_DEPTH:
        return False
    if cls is dict:
        return all(
            type(key) is str and _plain_json(item, depth + 1)
            for key, item in value.items()  # type: ignore[attr-defined]
        )
    if cls is list:
        return all(_plain_json(item, depth + 1) for item in value)  # type: ignore[attr-defined]
    return False


# --- DCP: a batch's positional rows and their lines ---------------------------------------

_NOT_PLAIN: Any = object()  # a cell the general DCP path must judge
_DCP_OPEN = 3  # dcp.encode's inference opens objects at paths of up to 3 keys


def _dcp_cell(value: Any, absent: object, objects: bool) -> Any:
    # The cell as dcp.encode writes it (null as ``absent``), or _NOT_PLAIN.
    cls = type(value)
    if cls is str or cls is bool:
        return value
    if value is None:
        return absent
    if cls is int:
        return value if -(2**63) <= value < 2**63 else _NOT_PLAIN
    if cls is float:
        return value if math.isfinite(value) else _NOT_PLAIN
    if cls is list or (objects and cls is dict):
        return value if _plain_json(value, 0) else _NOT_PLAIN
    return _NOT_PLAIN


def dcp_rows(items: list[Any], absent: object, /) -> tuple[tuple[str, ...], list[list[Any]]] | None:
    """The field names and positional rows ``dcp.encode`` writes for ``items``, or None.

    Records holding no object: every key is a field, in first-seen order, and a
    record lacking one has ``absent`` there. Records whose objects all have the
    first record's shape (its keys in its order at every level of up to three
    keys): a field per leaf, named by its dot path. Null cells are ``absent``.
    None (the general path decides) for anything else: a record that is no exact
    dict, other shapes, an empty or subclassed object, a key that is no str (or,
    inside an object, is empty or holds "."), a cell that is not plain JSON
    (NaN, ints past 64 bits, subclasses, tuples...), dot names that repeat.
    """
    if not items or type(items[0]) is not dict:
        return None
    if any(isinstance(value, dict) for value in items[0].values()):
        return _dcp_shaped_rows(items, absent)
    index: dict[str, int] = {}
    rows: list[list[Any]] = []
    for record in items:
        if type(record) is not dict:
            return None
        row = [absent] * len(index)
        for key, value in record.items():
            if type(key) is not str:
                return None
            col = index.get(key)
            if col is None:
                col = index[key] = len(index)
                row.append(absent)
            cell = _dcp_cell(value, absent, False)
            if cell is _NOT_PLAIN:
                return None
            row[col] = cell
        rows.append(row)
    for row in rows:
        row.extend([absent] * (len(index) - len(row)))
    return tuple(index), rows


_Plan = list[tuple[str, Any]]  # (key, sub-plan or None) per member, in order


def _dcp_plan(
    obj: dict[Any, Any], depth: int, prefix: str | None, names: list[str]
) -> _Plan | None:
    # The first record's shape, its dot names appended to ``names``.
    plan: _Plan = []
    for key, value in obj.items():
        if type(key) is not str:
            return None
        if depth and (not key or "." in key):
            return None
        name = key if prefix is None else f"{prefix}.{key}"
        if isinstance(value, dict) and depth < _DCP_OPEN:
            if type(value) is not dict or not value:
                return None
            sub = _dcp_plan(value, depth + 1, name, names)
            if sub is None:
                return None
            plan.append((key, sub))
        else:
            plan.append((key, None))
            names.append(name)
    return plan


def _dcp_walk(obj: dict[Any, Any], plan: _Plan, depth: int, row: list[Any], absent: object) -> bool:
    # Append the leaves of ``obj`` to ``row``; False when it is not of ``plan``'s shape.
    if len(obj) != len(plan):
        return False
    for (key, value), (want, sub) in zip(obj.items(), plan):
        if key is not want and not (type(key) is str and key == want):
            return False
        if sub is not None:
            if type(value) is not dict or not _dcp_walk(value, sub, depth + 1, row, absent):
                return False
        else:
            if depth < _DCP_OPEN and isinstance(value, dict):
                return False
            cell = _dcp_cell(value, absent, True)
            if cell is _NOT_PLAIN:
                return False
            row.append(cell)
    return True


def _dcp_shaped_rows(
    items: list[Any], absent: object
) -> tuple[tuple[str, ...], list[list[Any]]] | None:
    names: list[str] = []
    plan = _dcp_plan(items[0], 0, None, names)
    if plan is None or len(set(names)) != len(names):
        return None
    rows: list[list[Any]] = []
    for record in items:
        row: list[Any] = []
        if type(record) is not dict or not _dcp_walk(record, plan, 0, row, absent):
            return None
        rows.append(row)
    return tuple(names), rows


def dcp_lines(text: bytes, rows: int, head: str, /) -> str | None:
    """``head``, a line feed, then orjson's text of a list of ``rows`` (>= 1)
    lists as one line per row; None when ``],[`` occurs more than ``rows - 1``
    times (a cell holds it)."""
    if len(text) < 2 or rows < 1 or text.count(b"],[") != rows - 1:
        return None
    return head + "\n" + text[1:-1].replace(b"],[", b"]\n[").decode()


def dcp_text(rows: list[Any], head: str, /) -> str | None:
    """``head``, a line feed, then each of ``rows`` (lists) as orjson writes it,
    a line each; None when the first row holds no str past U+00FF (orjson's text
    is the faster start there), a row is no list, or orjson refuses a value."""
    if not rows or type(rows[0]) is not list or set(map(type, rows)) != {list}:
        return None
    if not any(isinstance(cell, str) and cell and max(cell) > "\xff" for cell in rows[0]):
        return None
    try:
        text = orjson.dumps(rows)
    except orjson.JSONEncodeError:
        return None
    lines = dcp_lines(text, len(rows), head)
    if lines is None:  # a cell holds "],["
        lines = "\n".join([head, *(orjson.dumps(row).decode() for row in rows)])
    return lines


# A closed JSON string within a line, and what is left of a line without them: its
# brackets, or a run of 19 digits.
_LINE_STRING = re.compile(r'"[^"\\\n]*(?:\\[^\n][^"\\\n]*)*"')
_NOT_LINE_BRACKETS = re.compile(r"[^\[\]{}\n]+")
_DIGIT_RUN = re.compile(r"[0-9]{19}")


def dcp_join(text: str, start: int, max_line: int, max_depth: int, /) -> tuple[str, int] | None:
    """The lines of ``text`` from offset ``start`` on (one final LF ends the last)
    as one JSON array text, and their count, when every line is one JSON array
    orjson reads as the exact reader does; else None.

    Each line starts with "[" and its brackets (outside strings) first close at
    its last character, so the array holds exactly one item per line; None for a
    line longer than ``max_line``, nesting deeper than ``max_depth``, with an
    unclosed string or a run of 19 digits (an int orjson would read as a float).
    """
    if start >= len(text):
        return "[]", 0
    body = text[start:-1] if text.endswith("\n") else text[start:]
    lines = body.split("\n")
    if max(map(len, lines)) > max_line:
        return None
    bare = _LINE_STRING.sub("s", body)  # a letter: no digit run or bracket joins across it
    if '"' in bare or _DIGIT_RUN.search(bare):
        return None
    for line, brackets in zip(bare.split("\n"), _NOT_LINE_BRACKETS.sub("", bare).split("\n")):
        if brackets == "[]" and line[0] == "[" and line[-1] == "]":
            continue  # the common row: no nesting
        if not line or line[0] != "[" or line[-1] not in "]}":
            return None
        depths = list(accumulate(1 if c in "[{" else -1 for c in brackets))
        if max(depths) > max_depth or 0 in depths[:-1] or depths[-1] != 0:
            return None
    return f"[{body.replace(chr(10), ',')}]", len(lines)


def _dash(value: Any) -> bool:
    return type(value) is str and value == "-"


def dcp_records(
    rows: list[Any], names: Sequence[str], dash: bool, /
) -> list[dict[str, Any]] | None:
    """Each row (a list of one value per name) as a record keyed by ``names``;
    with ``dash``, a ``"-"`` cell is absent. None when a row is no list of
    ``len(names)`` values."""
    if set(map(type, rows)) - {list} or set(map(len, rows)) - {len(names)}:
        return None
    if dash and any("-" in row for row in rows):
        return [{n: v for n, v in zip(names, row) if not _dash(v)} for row in rows]
    return list(map(dict, map(zip, repeat(names), rows)))


def _tree_fits(tree: dict[str, Any], width: int) -> bool:
    return bool(tree) and all(
        _tree_fits(node, width) if type(node) is dict else type(node) is int and 0 <= node < width
        for node in tree.values()
    )


def _tree_objects(tree: dict[str, Any], rows: list[list[Any]]) -> Iterator[dict[str, Any]]:
    # One object per row: tree's keys, a leaf's row value (its index) or a sub-object.
    columns = [
        map(itemgetter(node), rows) if type(node) is int else _tree_objects(node, rows)
        for node in tree.values()
    ]
    return map(dict, map(zip, repeat(tuple(tree)), zip(*columns)))


def dcp_tree_records(
    rows: list[Any], tree: dict[str, Any], width: int, /
) -> list[dict[str, Any]] | None:
    """Each row (a list of ``width`` values) as a record of ``tree``'s shape: its
    keys in order, each holding the row's value at its index or an object of the
    subtree's shape. None when a row is no list of ``width`` values, or a tree
    is empty or holds anything but subtrees (dicts) and ints below ``width``."""
    if not _tree_fits(tree, width):
        return None
    if set(map(type, rows)) - {list} or set(map(len, rows)) - {width}:
        return None
    return list(_tree_objects(tree, rows))


_NOT_TEXT = "Argument 'text' has incorrect type (expected str, got {})"
_GUARD_TAIL = re.compile(r"\\[-0-9el]")


def _guarded(text: str) -> bool:
    # Whether a cell (at the start or after a TAB or LF) starts with a guard.
    # Every guard holds a backslash followed by a digit, `-`, `e` or `l`: one
    # search led by that backslash finds the candidates, each checked to stand
    # at a cell's start.
    for match in _GUARD_TAIL.finditer(text):
        at = match.start()
        if text[at + 1] in "el":  # tru\e, fals\e, nul\l
            for word in ("tru", "fals") if text[at + 1] == "e" else ("nul",):
                start = at - len(word)
                if start >= 0 and text.startswith(word, start):
                    if start == 0 or text[start - 1] in "\t\n":
                        return True
        elif at == 0 or text[at - 1] in "\t\n":
            return True
    return False


def text_marks(text: str, /) -> tuple[bool, bool, bool]:
    """What written rows hold for the cell-style passes: ``(doubled, guarded, crlf)``.

    ``doubled``: two backslashes in a row; ``guarded``: a cell (at the text's
    start or after a TAB or LF) starts with a guard, ``\\`` then a digit or
    ``-``, or ``tru\\e``, ``fals\\e``, ``nul\\l``; ``crlf``: a CR followed by
    ``\\n``. Each marker holds a backslash: one search for those finds all three.
    """
    if not isinstance(text, str):
        raise TypeError(_NOT_TEXT.format(type(text).__name__))
    return "\\\\" in text, _guarded(text), "\r\\n" in text


def crlf_only(text: str, /) -> bool:
    """Whether every CR in ``text`` starts a CR LF and every LF ends one."""
    if not isinstance(text, str):
        raise TypeError(_NOT_TEXT.format(type(text).__name__))
    pairs = text.count("\r\n")
    return text.count("\r") == pairs == text.count("\n")


def split_column(
    rows: Iterable[Any], key: str, mark: str, link: str, keys: tuple[Any, ...] | None = None, /
) -> tuple[list[Any], list[dict[Any, Any]], int] | Literal[False] | None:
    """The rows with list column ``key`` moved out: (rows, items, JSON size), or None.

    Each row that holds ``key`` is copied with ``key`` dropped and ``mark``
    (last) holding its list's length (None for null); each list item is
    copied as ``{link: row number, **item}``; the size is the length of the
    JSON cells the lists would have been. None when a row holds something
    else there (a scalar, a non-object or empty item, an item holding
    ``link``, a value JSON cannot carry) or holds ``mark`` beside it. With
    ``keys`` (a tuple), False when a row read before any of those is not an exact
    dict of exactly these keys in this order (keys_differ, in the same walk).
    """
    if keys is not None and not isinstance(keys, tuple):
        raise TypeError(
            f"Argument 'keys' has incorrect type (expected tuple, got {type(keys).__name__})"
        )
    out: list[Any] = []
    items: list[dict[Any, Any]] = []
    size = 0
    for i, row in enumerate(rows):
        if keys is not None and (type(row) is not dict or tuple(row) != keys):
            return False
        if type(row) is not dict or key not in row:
            if type(row) is dict and mark in row:
                return None
            out.append(row)
            continue
        if mark in row:
            return None
        value = row[key]
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
            except EncodeError:
                return None
            count = len(value)
        else:
            return None
        row = row.copy()
        del row[key]
        row[mark] = count
        out.append(row)
    return out, items, size


def _rows_start(text: str, header: bool) -> int:
    # Where the row lines begin: after the header line, if the text has one (-1: no rows).
    if not header:
        return 0
    nl = text.find("\n")
    return -1 if nl < 0 else nl + 1


def crlf_cells(text: str, header: bool, /) -> set[int]:
    """The indexes of the cells (in the row lines) that hold a raw CR."""
    if not isinstance(text, str):
        raise TypeError(_NOT_TEXT.format(type(text).__name__))
    found: set[int] = set()
    start = _rows_start(text, header)
    if start < 0:
        return found
    for line in text[start:].split("\n"):
        at = line.find("\r")
        while at >= 0:
            found.add(line.count("\t", 0, at))
            end = line.find("\t", at)
            at = -1 if end < 0 else line.find("\r", end)
    return found


def drop_crlf(text: str, header: bool, chosen: Iterable[int], /) -> str:
    """The text with the CR of each ``CR \\n`` dropped in the row cells at ``chosen`` indexes.

    JSON cells (those starting with ``"``, ``[`` or ``{``) keep theirs.
    """
    if not isinstance(text, str):
        raise TypeError(_NOT_TEXT.format(type(text).__name__))
    start = _rows_start(text, header)
    wanted = set(chosen)
    if start < 0 or not wanted:
        return text
    lines = text[start:].split("\n")
    for i, line in enumerate(lines):
        if "\r" in line:
            cells = line.split("\t")
            for k in wanted:
                if k < len(cells) and cells[k][:1] not in ('"', "[", "{"):
                    cells[k] = cells[k].replace("\r\\n", "\\n")
            lines[i] = "\t".join(cells)
    return text[:start] + "\n".join(lines)


def sparse_column(
    rows: Iterable[Any], name: str, least: int, /
) -> tuple[bool | None, list[dict[str, Any]] | None]:
    """``(null, objects)`` when every row (an exact dict) holds a non-empty object at ``name``
    or misses it in one way only (null: ``null`` True; no key: False), and ``least`` rows
    or more hold one; ``(None, None)`` otherwise (a row holding anything else there, both
    kinds of miss, too few objects)."""
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
    if len(values) < least or not kinds:
        return None, None
    return kinds.pop(), values


def column_at(rows: Iterable[Any], path: Sequence[Any], /) -> list[Any]:
    """Each row's value at ``path`` (keys read through exact dicts), ``ABSENT`` where a
    key is missing or a value on the way is no exact dict: a column of the searches."""
    keys = tuple(path)
    if len(keys) == 1:  # one walk a step: a call per row cost most passes
        key = keys[0]
        return [row.get(key, ABSENT) if type(row) is dict else ABSENT for row in rows]
    out = list(rows)
    for key in keys:
        out = [v.get(key, ABSENT) if type(v) is dict else ABSENT for v in out]
    return out


def source_texts(values: Iterable[Any], /) -> list[str | None]:
    """What each value puts into a template: an exact str itself, an exact int its
    digits (int_to_str's error past the digit limit), anything else None."""
    return [v if type(v) is str else int_to_str(v) if type(v) is int else None for v in values]


def template_matches(
    values: Iterable[Any], texts: Iterable[Any], before: str, after: str, absent: object, /
) -> list[int] | None:
    """Per row, whether its value is ``before + text + after``, or None if one is ``absent``.

    1: an exact str that is; 2: another value equal to it (a str subclass, an
    object's own ``==``); 0: neither, or no text (None) for the row.
    """
    vs, ts = list(values), list(texts)
    if type(before) is not str or type(after) is not str:
        raise TypeError("before and after must be str")
    if len(ts) != len(vs):
        raise ValueError("values and texts differ in length")
    out: list[int] = []
    for value, text in zip(vs, ts, strict=True):
        if value is absent:
            return None
        if text is not None and value == before + text + after:
            out.append(1 if type(value) is str else 2)
        else:
            out.append(0)
    return out


# --- The flat-table searches (prefix=, infix=, template=): their column reads. ---


def column_strings(
    rows: Iterable[Any], paths: Sequence[Sequence[Any] | None], cuts: Sequence[int], mark: str, /
) -> list[list[str] | None]:
    """Per column, its rows' exact strs, each after its first ``cuts[k]`` characters.

    A path is read through exact dicts only (anything else on the way holds no
    value). None for a None path, and for a column where any str (a subclass
    too) holds ``mark``; a str subclass is no string of the column.
    """
    table, ps, cs = list(rows), list(paths), list(cuts)
    if type(mark) is not str:
        raise TypeError("mark must be str")
    if len(ps) != len(cs):
        raise ValueError("paths and cuts differ in length")
    for path, cut in zip(ps, cs, strict=True):
        if cut < 0:
            raise ValueError("A cut is never negative")
        if path is not None:
            if not tuple(path):
                raise ValueError("A column path needs at least one key")
            for key in path:
                hash(key)  # an unhashable key fails here, before any row is read
    return [
        None if path is None else _strings_at(table, tuple(path), cut, mark)
        for path, cut in zip(ps, cs, strict=True)
    ]


def _strings_at(rows: list[Any], p: tuple[Any, ...], cut: int, mark: str) -> list[str] | None:
    # column_strings of one column.
    if len(p) == 1:
        key = p[0]
        values = [row.get(key, ABSENT) if type(row) is dict else ABSENT for row in rows]
    else:
        values = [_exact_at(row, p) for row in rows]
    out: list[str] = []
    for value in values:
        if value is ABSENT or not isinstance(value, str):
            continue
        if mark in value:
            return None
        if type(value) is str:
            out.append(value[cut:])
    return out


# Where a path or query string may be cut, and the URL text (RFC 3986, `%` escapes) a run is.
_SEPARATOR = re.compile(r"[/?&#]")
_URL_TEXT = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+")


def infix_runs(
    strings: Iterable[str], seeds: int, shortest: int, longest: int, least: int, most: int, /
) -> list[str]:
    """The runs an infix search scores, in order, from a column's sample strings.

    The seeds are the first ``seeds + 1`` strings ``shortest`` to ``longest``
    long; for each one and the next, the maximal runs of the seed's segments
    (between its first ``most`` separators `/?&#`) that the next holds too:
    at least ``least`` long, URL text, neither beginning nor ending with a
    separator (the cell keeps those around its mark).
    """
    values = list(strings)
    if any(type(s) is not str for s in values):
        raise TypeError("strings must be str")
    picked = [s for s in values if shortest <= len(s) <= longest][: seeds + 1]
    out: list[str] = []
    for seed, other in zip(picked, picked[1:]):
        out.extend(_segment_runs(seed, other, least, longest, most))
    return out


def _segment_runs(seed: str, other: str, least: int, longest: int, most: int) -> list[str]:
    # Maximal runs of the seed's segments that the other string holds too.
    cuts = [m.start() for m in _SEPARATOR.finditer(seed, 0, longest)][:most]
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
            if (
                len(run) >= least
                and _SEPARATOR.match(run) is None
                and _SEPARATOR.match(run[-1]) is None
                and _URL_TEXT.fullmatch(run) is not None
            ):
                runs.append(run)
            start = None
    return runs


def template_probes(
    rows: Sequence[Any],
    path: Sequence[Any],
    source: Sequence[Any],
    before: str,
    after: str,
    probes: int,
    /,
) -> bool:
    """Whether half of ``probes`` spread rows hold ``before + source text + after`` at ``path``.

    Row ``i * len(rows) // probes`` for each i; False as soon as one of them
    lacks the column, or more than half do not hold the template. A source's
    text is an exact str, or an exact int's digits; paths are read through
    exact dicts only.
    """
    table = rows if type(rows) is list else list(rows)
    p, q = tuple(path), tuple(source)
    if type(before) is not str or type(after) is not str:
        raise TypeError("before and after must be str")
    size = len(table)
    misses = 0
    for i in range(probes):
        row = table[i * size // probes]
        value = _exact_at(row, p)
        if value is ABSENT:
            return False
        got = _exact_at(row, q)
        text = got if type(got) is str else int_to_str(got) if type(got) is int else None
        if type(value) is not str or text is None or value != before + text + after:
            misses += 1
            if misses > probes // 2:
                return False
    return True


def flat_prefixes(
    rows: Iterable[Any], keys: Sequence[Any], least: int, /
) -> list[tuple[str, int, int] | None]:
    """``column_prefixes`` of top-level members: ``keys[c]`` is column c's key (None: not read).

    While more than a third of the columns are open, a row whose keys are
    the columns' own key objects in column order (rows built alike) is read
    by one walk over its items that looks only at the open columns' values;
    other rows, and the open columns of the rest, are looked up.
    """
    return column_prefixes(rows, [None if key is None else (key,) for key in keys], least)


# --- nested records: substring search ---------------------------------------------------


def find_text(text: str, needle: str, start: int, end: int, /) -> int:
    """``text.find(needle, start, end)``: the same index, found faster."""
    if not isinstance(text, str):
        raise TypeError(_NOT_TEXT.format(type(text).__name__))
    return str.find(text, needle, start, end)


# ------------------------------------------ issues-enc: form=lines search, the cells that may move


def break_cells(
    text: str, header: bool, floor: int, lines: Iterable[tuple[int, int, int]] | None = None, /
) -> list[tuple[int, int, int, int, int]]:
    """The row cells with ``floor`` (at least 1) or more ``\\n`` that follow no letter or digit.

    One pass over the written rows (after the header line with ``header``):
    ``[(row, index, start, end, count)]`` in text order, ``text[start:end]``
    the cell. An escape counts when the text before it in the cell, since the
    last escape, is not empty and does not end in a letter or digit, or ends
    in a ``\\t`` escape: at least as many as the line breaks a lines section
    of the cell's text saves (_gcx_lines._saved). With ``lines`` (style_marks'
    lines for this ``floor``: ``(row, start, end)`` of each row line holding that
    many escapes) only those lines are read, without a look at the others.
    """
    if floor < 1:
        raise ValueError("floor must be at least 1")
    out: list[tuple[int, int, int, int, int]] = []
    if lines is None:
        lines = _break_lines(text, header, floor)
    for row, at, end in lines or ():
        if not 0 <= at <= end <= len(text):
            raise ValueError("A line lies outside the text")
        start = at
        for k, cell in enumerate(text[at:end].split("\t")):
            if cell.count("\\n") >= floor:
                pieces = cell.split("\\n")[:-1]
                count = sum(1 for p in pieces if p and (not p[-1].isalnum() or p.endswith("\\t")))
                if count >= floor:
                    out.append((row, k, start, start + len(cell), count))
            start += len(cell) + 1
    return out


def style_marks(
    text: str, header: bool, floor: int, /
) -> tuple[bool, bool, bool, set[int], list[tuple[int, int, int]] | None]:
    """``text_marks(text) + (crlf_cells(text, header), lines)``:
    ``(doubled, guarded, crlf, cells, lines)``.

    On long texts holding raw CRs (CR LF bodies) one pass finds them all, where
    each walked every body: it reads 64 bytes at a time and stops only at a
    backslash, TAB, LF or CR. ``lines`` (``floor`` 1 or more; else None) are the
    row lines holding ``floor`` ``\\n`` escapes or more, as ``(row, start, end)``:
    break_cells' first look at each line, for the form=lines search after it.
    """
    return (*text_marks(text), crlf_cells(text, header), _break_lines(text, header, floor))


def _break_lines(text: str, header: bool, floor: int) -> list[tuple[int, int, int]] | None:
    # The row lines with ``floor`` `\\n` escapes or more: (row, start, end) each.
    if floor < 1:
        return None
    out: list[tuple[int, int, int]] = []
    lines = text.split("\n")
    at = 0
    if header:
        at = len(lines[0]) + 1
        lines = lines[1:]
    for row, line in enumerate(lines):
        if line.count("\\n") >= floor:
            out.append((row, at, at + len(line)))
        at += len(line) + 1
    return out


def keys_differ(rows: Iterable[Any], keys: tuple[Any, ...], /) -> bool:
    """Whether a row is not an exact dict holding exactly ``keys``, in this order.

    ``any(type(r) is not dict or tuple(r) != keys for r in rows)`` without a
    tuple per row: the writer asks it before each pass that changes the rows.
    """
    if not isinstance(keys, tuple):
        raise TypeError(
            f"Argument 'keys' has incorrect type (expected tuple, got {type(keys).__name__})"
        )
    return any(type(r) is not dict or tuple(r) != keys for r in rows)


# ---------------------------------------------------------------- counter: cl100k counts


# cl100k's pre-split pattern (tiktoken's pat_str) written for ASCII text, where
# \p{L} is [A-Za-z], \p{N} is [0-9] and \s is its six ASCII characters (Python's
# \s would add \x1c-\x1f). Its possessive quantifiers are greedy here: each one
# ends its alternative or is followed by what it cannot match, so backtracking
# never finds another match. tokens.least_count counts its pieces.
_S = "\t\n\x0b\x0c\r "
_CL100K_ASCII = re.compile(
    f"'(?i:[sdmt]|ll|ve|re)|[^\\r\\nA-Za-z0-9]?[A-Za-z]+|[0-9]{{1,3}}| ?[^{_S}A-Za-z0-9]+[\\r\\n]*"
    f"|[{_S}]+\\Z|[{_S}]*[\\r\\n]|[{_S}]+(?![^{_S}])|[{_S}]"
)
_MEMO_MOST = 1 << 14  # remembered pieces: emptied when full
_MEMO_LONGEST = 64  # longer pieces are counted each time
_memo: dict[str, int] = {}
_memo_bpe: list[object] = [None]  # the counter the memo's counts came from


def cl100k_count(
    text: str, bpe: Callable[[bytes], Sized], encode: Callable[[str], Sized] | None = None, /
) -> int | None:
    """``text``'s cl100k token count: ``bpe(piece)`` is cl100k's tokens of one
    pre-split piece of ASCII text (bytes), and each piece's count is remembered
    (a bounded table, emptied for another ``bpe``). Text that is not all ASCII
    is counted only given ``encode``, cl100k's tokens of a str (tiktoken's
    encode_ordinary), else None: each run of other characters by ``encode``
    with the text around it out to the nearest cuts (_CUT: counts add up
    there), the ASCII between by its pieces."""
    if not isinstance(text, str):
        raise TypeError(_NOT_TEXT.format(type(text).__name__))
    if not text.isascii():
        if encode is None:
            return None
        # A short text costs one tiktoken call; dense runs, a search of a few of them.
        if len(text) > 2 * _SPARSE and wide_runs(text, len(text) // _SPARSE) * _SPARSE <= len(text):
            return _count_mixed(text, encode, bpe)
        return _count_encoded(text, encode)
    memo = _memo
    if bpe is not _memo_bpe[0]:
        memo.clear()
        _memo_bpe[0] = bpe
    total = 0
    for piece in _CL100K_ASCII.findall(text):
        found = memo.get(piece)
        if found is None:
            found = len(bpe(piece.encode("ascii")))
            if len(piece) <= _MEMO_LONGEST and bpe is _memo_bpe[0]:
                if len(memo) >= _MEMO_MOST:
                    memo.clear()
                memo[piece] = found
        total += found
    return total


# Places where cl100k_base and o200k_base both start a pre-split piece whatever
# comes before or after, so the token counts of the two sides add up exactly:
# - right after a line feed that is followed by printable ASCII other than "/"
#   (no piece runs on past a newline, except o200k's punctuation piece, which
#   takes "/" after its newlines);
# - between an ASCII letter or digit and ASCII punctuation other than "'"
#   (letter and digit pieces stop at punctuation; "'" could start a contraction).
# tests/test_tokens.py checks the sum against the whole count on random text;
# the extension's _cut_at is the same test.
_CUT = re.compile(r"\n(?=[!-.0-~])|(?<=[0-9A-Za-z])(?=[!-&(-/:-@\[-`{-~])")
_CHUNK = 1 << 14  # characters per tiktoken call: bounds the token list held at once


def next_cut(text: str, pos: int, /) -> int:
    """The first place at or after ``pos`` where ``text`` can be cut without
    changing its token count (``len(text)`` if there is none)."""
    if pos >= len(text):
        return len(text)
    found = _CUT.search(text, max(pos, 1))
    return len(text) if found is None else found.end()


def _count_encoded(text: str, encode: Callable[[str], Sized]) -> int:
    """``text``'s count from tiktoken, a chunk (cut at ``next_cut``) at a time."""
    if len(text) <= _CHUNK:
        return len(encode(text))
    total = start = 0
    while start < len(text):
        end = next_cut(text, start + _CHUNK)
        total += len(encode(text[start:end]))
        start = end
    return total


# Runs of characters that are not ASCII: only the text around them, out to the
# nearest cuts, goes to tiktoken whole; the ASCII between is counted by pieces.
_NOT_ASCII = re.compile(r"[^\x00-\x7f]+")
_LOOK_BACK = 64  # how far back a cut before a run is looked for, at a time
# Finding a run's cuts costs a few microseconds of Python; tiktoken about 100 ns
# a character: runs of other characters sparser than one in _SPARSE characters
# pay, denser ones do not (the unicode table), nor a text of a few runs' length.
_SPARSE = 128
_BLOCK = 512


def not_ascii_runs(text: str) -> Iterator[tuple[int, int]]:
    """Where ``text``'s runs of characters that are not ASCII start and end (a run
    across two of _BLOCK's blocks comes in two parts). Only blocks that are not
    ASCII are searched: str.isascii of a slice costs a copy, the regex ~15 ns a character."""
    for block in range(0, len(text), _BLOCK):
        if not text[block : block + _BLOCK].isascii():
            for run in _NOT_ASCII.finditer(text, block, block + _BLOCK):
                yield run.span()


def row_line_starts(
    text: str, end: int, rows: int, wanted: Iterable[int], /
) -> tuple[int, list[int]]:
    """``(lines, starts)``: how many lines ``text[:end]`` has (one per line feed,
    and the text after the last one when ``end`` is the text's end), and where
    each of the lines ``wanted`` of its last ``rows`` lines (0 the first of
    them, ascending) starts, ``end`` for one past the last; no starts when
    there are fewer lines than ``rows``. Short lines are split and their
    lengths summed in C from one wanted line to the next; long ones found by
    ``str.find``, which copies no text."""
    if not isinstance(text, str):
        raise TypeError(_NOT_TEXT.format(type(text).__name__))
    end = max(0, min(end, len(text)))
    if end < _LONG_LINE * rows:
        pieces = text[:end].split("\n")
        lines = len(pieces) - (end < len(text))
        found: list[int] = []
        if lines < rows:
            return lines, found
        line = at = 0
        for item in wanted:
            want = lines - rows + item
            if want >= len(pieces):
                found.append(end)
                continue
            at += sum(map(len, pieces[line:want])) + want - line
            line = want
            found.append(at)
        return lines, found
    starts = [0]
    at = text.find("\n", 0, end)
    while at >= 0:
        starts.append(at + 1)
        at = text.find("\n", at + 1, end)
    lines = len(starts) - 1 + (end == len(text))
    if lines < rows:
        return lines, []
    return lines, [
        starts[want] if want < len(starts) else end for want in (lines - rows + i for i in wanted)
    ]


_LONG_LINE = 256  # characters: lines longer on average are found by str.find, not split


def wide_runs(text: str, most: int, /) -> int:
    """How many runs of characters past ASCII ``text`` holds (as not_ascii_runs
    finds them: a run across two of _BLOCK's blocks counts twice), counted up
    to ``most + 1``: dense text costs a search of a few runs, not the whole text's."""
    if not isinstance(text, str):
        raise TypeError(_NOT_TEXT.format(type(text).__name__))
    runs = 0
    for block in range(0, len(text), _BLOCK):
        if not text[block : block + _BLOCK].isascii():
            for _ in _NOT_ASCII.finditer(text, block, block + _BLOCK):
                runs += 1
                if runs > most:
                    return runs
    return runs


def cut_before(text: str, pos: int, floor: int) -> int:
    """The last cut in ``text`` at or before ``pos`` (``floor`` if none is after it);
    ``floor`` itself is a cut."""
    end = pos
    while end > floor:
        start = max(floor, end - _LOOK_BACK)
        cuts = [found.end() for found in _CUT.finditer(text, start, end)]
        if cuts:
            return cuts[-1]
        end = start
    return floor


def _count_mixed(text: str, encode: Callable[[str], Sized], bpe: Callable[[bytes], Sized]) -> int:
    """cl100k_count of text that is not all ASCII: each run of other characters
    is counted by tiktoken from the cut before it to the cut after it, the
    ASCII text between those spans by its pieces. Counts add up at cuts, so
    the sum is exact. Where runs are dense (more than one in _SPARSE
    characters), the rest goes to tiktoken whole: finding each run's cuts
    would cost more than it saves."""
    total = at = spans = 0  # ``at``: where the text not counted yet starts (a cut)
    span_start = span_end = 0
    for start, end in not_ascii_runs(text):
        if start < span_end:  # within the current span: it reaches past this run
            span_end = max(span_end, next_cut(text, end))
            continue
        total += _count_encoded(text[span_start:span_end], encode) if span_end else 0
        at, spans = span_end, spans + 1
        if spans * _SPARSE > start + _SPARSE:
            return total + _count_encoded(text[at:], encode)
        span_start = cut_before(text, start, at)
        span_end = next_cut(text, end)
        total += _ascii_count(text[at:span_start], bpe) if span_start > at else 0
    total += _count_encoded(text[span_start:span_end], encode) if span_end else 0
    return total + (_ascii_count(text[span_end:], bpe) if span_end < len(text) else 0)


def _ascii_count(text: str, bpe: Callable[[bytes], Sized]) -> int:
    found = cl100k_count(text, bpe)
    assert found is not None, "ASCII text"
    return found


# --- number literals a re-write may change (the proxy's answer lines) -----------------------

# Suspect: [0-9][eE]|-0(?![.0-9])|\.[0-9]*[0-9]0(?![0-9])|[0-9]{16}|[0-9.]{17}. As one
# regex the parts that start at a digit are tried at every digit (34 ms on a 700 KB table):
# they are substring searches here, in the text with every digit written 0 and E written e
# (and, for the last, every dot a 0 too). The parts that start with "-" or "." stay regexes.
_DIGITS = bytes.maketrans(b"123456789E", b"000000000e")
_DIGITS_DOTS = bytes.maketrans(b"123456789.", b"0000000000")
_MINUS_ZERO = re.compile(rb"-0(?![.0-9])")
_TRAILING_ZERO = re.compile(rb"\.[0-9]*[0-9]0(?![0-9])")
# A \u escape that writes a digit, "-", ".", "e" or "E" (and any other of U+0020-003F).
_NUMBER_ESCAPE = re.compile(rb"\\u00(?:[23][0-9a-fA-F]|[46]5)")


def literal_scan(data: bytes, /) -> int:
    """What a JSON line's number literals allow: 1 if it is suspect (a literal a
    parse and re-write may change could be in it), else 2 if it holds a ``\\u``
    escape writing a digit, ``-``, ``.``, ``e`` or ``E``, else 0. Digits inside
    strings count too (the caller then checks exactly)."""
    if type(data) is not bytes:
        raise TypeError(f"literal_scan takes bytes, not {type(data).__name__}")
    if _MINUS_ZERO.search(data) or _TRAILING_ZERO.search(data):
        return 1
    zeros = data.translate(_DIGITS)
    if b"0e" in zeros or b"0" * 16 in zeros or b"0" * 17 in data.translate(_DIGITS_DOTS):
        return 1
    # The plain search first: a regex stops at every backslash of the escaped
    # quotes and line breaks of a pretty text (0.5 ms on 600 KB).
    return 2 if b"\\u00" in data and _NUMBER_ESCAPE.search(data) is not None else 0
