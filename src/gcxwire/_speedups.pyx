# cython: language_level=3, embedsignature=True, boundscheck=False, wraparound=False
"""The Cython twin of ``_speedups_py.py``: GCX1's hot leaves.

Same names, signatures, results and errors as the pure twin (the parity tests
hold them to it); the typing rule is documented there and in docs/wire-format.md.
"""

import math

from ._common import ABSENT, int_to_str, path_join, str_to_int
from ._json import dumps_cell, loads_cell
from .errors import DecodeError, EncodeError, EncodeTypeError, EncodeValueError

__all__ = ["escape", "unescape", "format_cell", "parse_cell", "encode_row", "decode_row"]

cdef dict _ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n"})
cdef object _ABSENT = ABSENT


cdef inline bint _needs_escape(str s):
    cdef Py_UCS4 c
    for c in s:
        if c == u"\\" or c == u"\t" or c == u"\n":
            return True
    return False


def escape(str s, /):
    """Apply the GCX1 escapes: backslash, TAB and LF become ``\\\\``, ``\\t``, ``\\n``."""
    if _needs_escape(s):
        return s.translate(_ESCAPES)
    return s


def unescape(str s, /):
    """Undo the escapes as the reference does: ``\\x`` is ``x``, a lone final ``\\`` stays."""
    cdef Py_ssize_t i = 0, j, n = len(s)
    cdef Py_UCS4 c
    j = s.find(u"\\")
    if j < 0:
        return s
    cdef list out = []
    while True:
        if j < 0 or j == n - 1:
            out.append(s[i:])
            return u"".join(out)
        out.append(s[i:j])
        c = s[j + 1]
        if c == u"t":
            out.append(u"\t")
        elif c == u"n":
            out.append(u"\n")
        else:
            out.append(s[j + 1])
        i = j + 2
        j = s.find(u"\\", i)


cdef bint _is_number(str t):
    # The JSON number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    cdef Py_ssize_t i = 0, n = len(t), start
    cdef Py_UCS4 c
    if n == 0:
        return False
    if t[0] == u"-":
        i = 1
        if i == n:
            return False
    c = t[i]
    if c == u"0":
        i += 1
    elif u"1" <= c <= u"9":
        while i < n and u"0" <= t[i] <= u"9":
            i += 1
    else:
        return False
    if i < n and t[i] == u".":
        i += 1
        start = i
        while i < n and u"0" <= t[i] <= u"9":
            i += 1
        if i == start:
            return False
    if i < n and (t[i] == u"e" or t[i] == u"E"):
        i += 1
        if i < n and (t[i] == u"+" or t[i] == u"-"):
            i += 1
        start = i
        while i < n and u"0" <= t[i] <= u"9":
            i += 1
        if i == start:
            return False
    return i == n


cdef str _format_str(str s):
    if not s:
        return u'""'
    cdef str t = escape(s)
    cdef Py_UCS4 c = t[0]
    if c == u'"' or c == u"[" or c == u"{":
        return u"\\" + t
    if (c == u"-" or u"0" <= c <= u"9") and _is_number(t):
        return u"\\" + t
    if (c == u"t" or c == u"f" or c == u"n") and (len(t) == 4 or len(t) == 5):
        # Never escape a t or an n: \t and \n are the TAB and LF escapes.
        if t == u"true":
            return u"t\\rue"
        if t == u"false":
            return u"\\false"
        if t == u"null":
            return u"n\\ull"
    return t


def format_cell(value, /):
    """The typed, escaped cell text of one JSON value.

    Raises EncodeError (path relative to the value, ``$``) for what JSON cannot carry.
    """
    if isinstance(value, str):
        return _format_str(value)
    if value is None:
        return u"null"
    if value is True:
        return u"true"
    if value is False:
        return u"false"
    if isinstance(value, int):
        return int_to_str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise EncodeValueError(f"Float {value!r} is not valid JSON")
        return repr(value)
    if isinstance(value, (dict, list, tuple)):
        return escape(dumps_cell(value))
    raise EncodeTypeError(f"Encoding objects of type `{type(value).__name__}` is unsupported")


def parse_cell(str raw, /):
    """Read one raw (still escaped) cell as a typed value; ABSENT for a lone backslash.

    An empty cell reads as null (rows decide for themselves what empty means).
    Raises DecodeError whose ``pos`` is relative to the cell.
    """
    cdef Py_ssize_t n = len(raw)
    if n == 0:
        return None
    cdef Py_UCS4 c = raw[0]
    if c == u"\\":
        if n == 1:
            return _ABSENT
        return unescape(raw)
    if c == u'"' or c == u"[" or c == u"{":
        try:
            return loads_cell(unescape(raw))
        except ValueError as exc:
            raise DecodeError(f"Cell is not a valid JSON literal: {exc}") from None
    if c == u"-" or u"0" <= c <= u"9":
        if _is_number(raw):
            if u"." in raw or u"e" in raw or u"E" in raw:
                f = float(raw)
                # A literal beyond float range (1e400) stays text rather than become inf.
                return f if math.isfinite(f) else raw
            return str_to_int(raw) if n > 4000 else int(raw)
    elif n == 4 or n == 5:
        if raw == u"true":
            return True
        if raw == u"false":
            return False
        if raw == u"null":
            return None
    if u"\\" in raw:
        return unescape(raw)
    return raw


cdef str _compact_float(double f):
    # In a float column an integral float drops its ".0": "1.0" is 3 tokens, "1" is one.
    if -1e15 < f < 1e15 and f == <double>(<long long>f):
        if f == 0 and math.copysign(1.0, f) < 0:
            return u"-0"
        return str(<long long>f)
    return repr(f)


def encode_row(dict row, fields, bint empty_null, frozenset floats, /):
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
    cdef list cells = []
    cdef str first
    cdef Py_ssize_t last = len(fields) - 1
    cdef str absent = u"\\" if empty_null else u""
    cdef str null = u"" if empty_null else u"null"
    cdef bint any_floats = bool(floats)
    if last < 0:
        raise ValueError("A row needs at least one field")
    for field in fields:
        value = row.get(field, _ABSENT)
        if value is _ABSENT:
            cells.append(absent)
        elif value is None:
            cells.append(null)
        elif any_floats and type(value) is float and field in floats and math.isfinite(value):
            cells.append(_compact_float(value))
        else:
            try:
                cells.append(format_cell(value))
            except EncodeError as exc:
                raise exc.relocated(path_join("$", field)) from None
    while last > 0 and not cells[last]:
        del cells[last]  # decoders pad a short row with empty cells
        last -= 1
    first = cells[0]
    if first.startswith(u"#") or first.startswith(u"GCX1"):
        cells[0] = u"\\" + first
    elif not first and last == 0:
        cells[0] = u"null" if empty_null else u"\\"
    if (<str>cells[last]).endswith(u"\r"):  # only a string's text can end in a raw CR
        cells[last] = escape(dumps_cell(row[fields[last]]))
    return u"\t".join(cells)


def decode_row(str line, fields, bint typed, bint empty_null, frozenset floats, /):
    """Read one row line into a dict keyed by ``fields``.

    Short rows are padded with empty cells. Untyped, every cell is a string (as
    reference decoders read it). Typed, an empty cell is an absent key (null
    when ``empty_null``) and numbers in ``floats`` columns are floats. Extra
    cells, or a bad literal, raise DecodeError whose ``pos`` is relative to the line.
    """
    cdef list cells = line.split(u"\t")
    cdef Py_ssize_t ncells = len(cells), nfields = len(fields), i, start = 0
    cdef dict row = {}
    cdef str raw
    cdef bint any_floats = bool(floats)
    if ncells > nfields:
        for i in range(nfields):
            start += len(<str>cells[i]) + 1
        raise DecodeError(
            f"Row has {ncells} cells but the header declares {nfields} fields", pos=start - 1
        )
    if not typed:
        for i in range(ncells):
            row[fields[i]] = unescape(<str>cells[i])
        for i in range(ncells, nfields):
            row[fields[i]] = u""
        return row
    for i in range(ncells):
        raw = <str>cells[i]
        if not raw:
            if empty_null:
                row[fields[i]] = None
        else:
            try:
                value = parse_cell(raw)
            except DecodeError as exc:
                raise DecodeError(exc.msg, pos=start) from None
            if value is not _ABSENT:
                if any_floats and type(value) is int and fields[i] in floats:
                    # From the text, so "-0" stays negative zero; an int beyond float
                    # range (only a foreign payload can hold one here) stays an int.
                    f = float(raw)
                    if math.isfinite(f):
                        value = f
                row[fields[i]] = value
        start += len(raw) + 1
    if empty_null:
        for i in range(ncells, nfields):
            row[fields[i]] = None
    return row
