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
from collections.abc import Iterable, Sequence
from typing import Any

from ._common import ABSENT, NUMBER, int_to_str, path_join, str_to_int
from ._json import dumps_cell, loads_cell
from .errors import DecodeError, EncodeError, EncodeTypeError, EncodeValueError

__all__ = [
    "escape",
    "unescape",
    "format_cell",
    "parse_cell",
    "encode_row",
    "decode_row",
    "encode_rows",
    "decode_rows",
    "scan_style",
    "shared_keys",
    "nest_rows",
    "flatten_rows",
    "encode_table",
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
        # Never escape a t or an n: \t and \n are the TAB and LF escapes.
        if t == "true":
            return "t\\rue"
        if t == "false":
            return "\\false"
        if t == "null":
            return "n\\ull"
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
    while len(cells) > 1 and not cells[-1]:
        cells.pop()  # decoders pad a short row with empty cells
    first = cells[0]
    if first.startswith("#") or first.startswith("GCX1"):
        cells[0] = "\\" + first
    elif not first and len(cells) == 1:
        cells[0] = "null" if empty_null else "\\"
    if cells[-1].endswith("\r"):  # only a string's text can end in a raw CR
        cells[-1] = escape(dumps_cell(row[fields[len(cells) - 1]]))
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


def encode_rows(
    rows: Iterable[dict[str, Any]],
    fields: Sequence[str],
    empty_null: bool,
    floats: frozenset[str],
    /,
) -> str:
    """Every row line of a table joined by LF (no final LF): :func:`encode_row` per row.

    Error paths start at the row: ``$[3].name``.
    """
    if not fields:
        raise ValueError("A row needs at least one field")
    lines: list[str] = []
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise TypeError(f"Row {i} is a {type(row).__name__}, not a dict")
        try:
            lines.append(encode_row(row, fields, empty_null, floats))
        except EncodeError as exc:
            raise exc.relocated(f"$[{i}]") from None
    return "\n".join(lines)


def scan_style(
    rows: Iterable[dict[str, Any]], fields: Sequence[str], /
) -> tuple[bool, frozenset[str]]:
    """A section's style: (``empty=null`` pays, the ``float=`` columns).

    ``empty=null`` when the rows hold more than 3 more nulls than absent keys;
    a column is a float column when it holds no int and at least three integral
    floats (within 1e15).
    """
    nulls = absent = 0
    integral: dict[str, int] = {}
    has_int: set[str] = set()
    width = len(fields)
    for row in rows:
        absent += width - len(row)
        for key, value in row.items():
            if value is None:
                nulls += 1
            elif type(value) is float:
                if value.is_integer() and -1e15 < value < 1e15:
                    integral[key] = integral.get(key, 0) + 1
            elif type(value) is int:
                has_int.add(key)
    floats = frozenset(k for k, n in integral.items() if n >= 3 and k not in has_int)
    return nulls > absent + 3, floats


def decode_rows(
    text: str,
    start: int,
    fields: Sequence[str],
    typed: bool,
    empty_null: bool,
    floats: frozenset[str],
    max_line: int,
    max_brackets: int,
    /,
) -> tuple[list[dict[str, Any]], list[str], int]:
    """Read the row and comment lines of a section from ``text[start:]``.

    Returns ``(rows, comments, stop)``: ``stop`` is where reading stopped, at the
    start of a line it leaves to the caller (a ``GCX1`` header, a line longer than
    ``max_line``, or, typed, one holding more than ``max_brackets`` of ``[`` and
    ``{``) or at ``len(text)``. A CR before LF is dropped, blank lines are skipped,
    comment text is kept without its ``#``. Row errors are DecodeErrors whose
    ``pos`` is an offset into ``text``.
    """
    rows: list[dict[str, Any]] = []
    comments: list[str] = []
    n = len(text)
    pos = start
    while pos < n:
        end = text.find("\n", pos)
        if end < 0:
            end = n
        line = text[pos:end]
        if line.endswith("\r"):  # CRLF input, as Go's line reader takes it
            line = line[:-1]
        if line:
            if len(line) > max_line or line.startswith("GCX1"):
                return rows, comments, pos
            if line[0] == "#":
                comments.append(line[1:])
            else:
                if typed and line.count("[") + line.count("{") > max_brackets:
                    return rows, comments, pos
                try:
                    rows.append(decode_row(line, fields, typed, empty_null, floats))
                except DecodeError as exc:
                    raise DecodeError(exc.msg, pos=pos + exc.pos) from None
        pos = end + 1
    return rows, comments, n


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


def _flatten(row: dict[str, Any], groups: frozenset[str], prefix: str, out: dict[str, Any]) -> None:
    for key, value in row.items():
        name = prefix + key
        if name in groups:
            if not isinstance(value, dict):
                raise TypeError(f"Expected dict, got {type(value).__name__}")
            _flatten(value, groups, name + ".", out)
        else:
            out[name] = value


def flatten_rows(rows: Iterable[Any], groups: frozenset[str], /) -> list[dict[str, Any]]:
    """Spread nested objects over dotted keys: ``{"u": {"id": 1}}`` -> ``{"u.id": 1}``.

    Only the members named in ``groups`` (dotted paths) are spread, in place.
    """
    out: list[dict[str, Any]] = []
    for row in rows:
        if not isinstance(row, dict):
            raise TypeError(f"Expected dict, got {type(row).__name__}")
        flat: dict[str, Any] = {}
        _flatten(row, groups, "", flat)
        out.append(flat)
    return out


def encode_table(
    rows: Iterable[dict[str, Any]], fields: Sequence[str], /
) -> tuple[str, bool, frozenset[str]]:
    """A table's rows in the style :func:`scan_style` picks: ``(text, empty_null, floats)``.

    The same as ``encode_rows(rows, fields, *scan_style(rows, fields))``, but
    written in one pass that also does the scan: in the style of the first 16
    rows, written again only when the whole table picks another. (This twin
    simply scans, then writes.)
    """
    rows = list(rows)
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise TypeError(f"Row {i} is a {type(row).__name__}, not a dict")
    if not fields:
        raise ValueError("A row needs at least one field")
    empty_null, floats = scan_style(rows, fields)
    return encode_rows(rows, fields, empty_null, floats), empty_null, floats
