# cython: language_level=3, embedsignature=True, boundscheck=False, wraparound=False
"""The Cython twin of ``_speedups_py.py``: GCX1's hot leaves.

Same names, signatures, results and errors as the pure twin (the parity tests
hold them to it); the typing rule is documented there and in docs/wire-format.md.

Cells are read straight from the string's internal buffer (any of the three
PEP 393 kinds): escaping, unescaping, row splitting and typed parsing make no
intermediate Python strings, and whole tables are encoded and decoded in one
call. Anything unusual (huge ints, NaN, exotic types, bad literals) goes through
the same Python helpers the pure twin uses, so results and errors stay identical.
"""

import math

import orjson

from cpython.long cimport PyLong_AsLongLongAndOverflow, PyLong_FromLongLong
from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from cpython.object cimport PyObject_Repr, PyObject_Str
from cpython.unicode cimport (
    PyUnicode_1BYTE_KIND,
    PyUnicode_DATA,
    PyUnicode_FindChar,
    PyUnicode_FromKindAndData,
    PyUnicode_KIND,
    PyUnicode_New,
    PyUnicode_READ,
    PyUnicode_Substring,
    PyUnicode_WRITE,
    Py_UCS1,
)
from libc.math cimport isfinite
from libc.string cimport memchr, memcpy, memmove

from ._common import ABSENT, int_to_str, path_join, str_to_int
from ._json import dumps_cell, loads_cell
from .errors import DecodeError, EncodeError, EncodeTypeError, EncodeValueError

cdef extern from "Python.h":
    Py_UCS4 PyUnicode_MAX_CHAR_VALUE(object o)
    bint PyUnicode_IS_ASCII(object o)

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

cdef object _ABSENT = ABSENT
cdef frozenset _NO_FLOATS = frozenset()
cdef object _dumps = orjson.dumps
cdef object _loads = orjson.loads
cdef object _JSONEncodeError = orjson.JSONEncodeError
cdef object _JSONDecodeError = orjson.JSONDecodeError
# Nested containers at least this deep go to dumps_cell (orjson's own limit is 255).
cdef int _ORJSON_DEPTH = 250


# ------------------------------------------------------------------ escaping


cdef inline Py_ssize_t _count_byte(const Py_UCS1 *b, Py_ssize_t n, int c):
    cdef Py_ssize_t count = 0
    cdef const Py_UCS1 *p = b
    cdef const Py_UCS1 *end = b + n
    while p < end:
        p = <const Py_UCS1 *>memchr(p, c, end - p)
        if p == NULL:
            break
        count += 1
        p += 1
    return count


cdef inline Py_ssize_t _find_byte(const Py_UCS1 *b, Py_ssize_t i, Py_ssize_t n, int c):
    # Index of byte c in b[i:n], or n.
    cdef const void *p = memchr(b + i, c, n - i)
    return n if p == NULL else <const Py_UCS1 *>p - b


cdef str _escape(str s):
    cdef Py_ssize_t n = len(s), i, j = 0, k, nb, nl, nt, extra = 0
    cdef int kind = PyUnicode_KIND(s)
    cdef void *data = PyUnicode_DATA(s)
    cdef const Py_UCS1 *b
    cdef Py_UCS1 *o
    cdef Py_UCS1 u
    cdef Py_UCS4 c
    cdef str out1
    if kind == PyUnicode_1BYTE_KIND:  # the common case: memchr and memcpy, no per-char work
        b = <const Py_UCS1 *>data
        extra = _count_byte(b, n, 92) + _count_byte(b, n, 9) + _count_byte(b, n, 10)
        if extra == 0:
            return s
        out1 = PyUnicode_New(n + extra, PyUnicode_MAX_CHAR_VALUE(s))
        o = <Py_UCS1 *>PyUnicode_DATA(out1)
        i = 0
        # The next backslash, LF and TAB, each searched again only once passed.
        nb = _find_byte(b, 0, n, 92)
        nl = _find_byte(b, 0, n, 10)
        nt = _find_byte(b, 0, n, 9)
        while True:
            k = nb if nb < nl else nl
            k = k if k < nt else nt
            memcpy(o + j, b + i, k - i)
            j += k - i
            if k == n:
                return out1
            u = b[k]
            o[j] = 92
            o[j + 1] = 116 if u == 9 else (110 if u == 10 else 92)
            j += 2
            i = k + 1
            if u == 92:
                nb = _find_byte(b, i, n, 92)
            elif u == 10:
                nl = _find_byte(b, i, n, 10)
            else:
                nt = _find_byte(b, i, n, 9)
    for i in range(n):
        c = PyUnicode_READ(kind, data, i)
        if c == 92 or c == 9 or c == 10:
            extra += 1
    if extra == 0:
        return s
    cdef str out = PyUnicode_New(n + extra, PyUnicode_MAX_CHAR_VALUE(s))
    cdef void *od = PyUnicode_DATA(out)
    for i in range(n):
        c = PyUnicode_READ(kind, data, i)
        if c == 92 or c == 9 or c == 10:
            PyUnicode_WRITE(kind, od, j, 92)
            j += 1
            c = 116 if c == 9 else (110 if c == 10 else 92)
        PyUnicode_WRITE(kind, od, j, c)
        j += 1
    return out


cdef inline Py_ssize_t _next_backslash(const Py_UCS1 *src, Py_ssize_t i, Py_ssize_t b):
    cdef const void *p = memchr(src + i, 92, b - i) if i < b else NULL
    return -1 if p == NULL else <const Py_UCS1 *>p - src


cdef str _unescape_ucs1(str s, Py_ssize_t a, Py_ssize_t b, Py_ssize_t k):
    # s[a:b] unescaped for 1-byte text whose first backslash is at k: memchr and memcpy.
    cdef const Py_UCS1 *src = <const Py_UCS1 *>PyUnicode_DATA(s)
    cdef Py_ssize_t pairs = 0, i = k, o = 0, m
    cdef Py_UCS1 *dst
    cdef Py_UCS1 c
    cdef str out = None
    while 0 <= i < b - 1:  # a backslash at b - 1 is a lone final one: it stays
        pairs += 1
        i = _next_backslash(src, i + 2, b)
    m = b - a - pairs
    if PyUnicode_IS_ASCII(s):  # then so is the result: write it in place
        out = PyUnicode_New(m, 127)
        dst = <Py_UCS1 *>PyUnicode_DATA(out)
    else:  # Latin-1 text may unescape to ASCII: let CPython pick the kind
        dst = <Py_UCS1 *>PyMem_Malloc(m if m > 0 else 1)
        if dst == NULL:
            raise MemoryError()
    i = a
    while True:
        if k < 0 or k >= b - 1:
            memcpy(dst + o, src + i, b - i)
            break
        memcpy(dst + o, src + i, k - i)
        o += k - i
        c = src[k + 1]
        dst[o] = 9 if c == 116 else (10 if c == 110 else c)
        o += 1
        i = k + 2
        k = _next_backslash(src, i, b)
    if out is not None:
        return out
    try:
        return PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, dst, m)
    finally:
        PyMem_Free(dst)


cdef str _unescape_range(str s, Py_ssize_t a, Py_ssize_t b):
    # s[a:b] unescaped: "\x" is x (t and n are TAB and LF), a lone final "\" stays.
    cdef Py_ssize_t first = PyUnicode_FindChar(s, 92, a, b, 1)
    if first < 0:
        if a == 0 and b == len(s):
            return s
        return PyUnicode_Substring(s, a, b)
    if PyUnicode_KIND(s) == PyUnicode_1BYTE_KIND:
        return _unescape_ucs1(s, a, b, first)
    cdef int kind = PyUnicode_KIND(s)
    cdef void *data = PyUnicode_DATA(s)
    cdef void *buf = PyMem_Malloc((b - a) * kind)
    cdef Py_ssize_t i = a, m = 0
    cdef Py_UCS4 c
    cdef const Py_UCS1 *src
    cdef Py_UCS1 *dst
    cdef Py_UCS1 u
    if buf == NULL:
        raise MemoryError()
    try:
        if kind == PyUnicode_1BYTE_KIND:
            src = <const Py_UCS1 *>data
            dst = <Py_UCS1 *>buf
            while i < b:
                u = src[i]
                i += 1
                if u == 92 and i < b:
                    u = src[i]
                    i += 1
                    if u == 116:
                        u = 9
                    elif u == 110:
                        u = 10
                dst[m] = u
                m += 1
            return PyUnicode_FromKindAndData(kind, buf, m)
        while i < b:
            c = PyUnicode_READ(kind, data, i)
            i += 1
            if c == 92 and i < b:
                c = PyUnicode_READ(kind, data, i)
                i += 1
                if c == 116:
                    c = 9
                elif c == 110:
                    c = 10
            PyUnicode_WRITE(kind, buf, m, c)
            m += 1
        return PyUnicode_FromKindAndData(kind, buf, m)
    finally:
        PyMem_Free(buf)


def escape(str s, /):
    """Apply the GCX1 escapes: backslash, TAB and LF become ``\\\\``, ``\\t``, ``\\n``."""
    return _escape(s)


def unescape(str s, /):
    """Undo the escapes as the reference does: ``\\x`` is ``x``, a lone final ``\\`` stays."""
    return _unescape_range(s, 0, len(s))


# ------------------------------------------------------------------- numbers


cdef inline bint _digit(Py_UCS4 c):
    return 48 <= c <= 57


cdef bint _is_number(int kind, void *data, Py_ssize_t i, Py_ssize_t n):
    # The JSON number grammar over data[i:n]: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    cdef Py_ssize_t start
    cdef Py_UCS4 c
    if i >= n:
        return False
    if PyUnicode_READ(kind, data, i) == 45:  # -
        i += 1
        if i == n:
            return False
    c = PyUnicode_READ(kind, data, i)
    if c == 48:
        i += 1
    elif 49 <= c <= 57:
        while i < n and _digit(PyUnicode_READ(kind, data, i)):
            i += 1
    else:
        return False
    if i < n and PyUnicode_READ(kind, data, i) == 46:  # .
        i += 1
        start = i
        while i < n and _digit(PyUnicode_READ(kind, data, i)):
            i += 1
        if i == start:
            return False
    if i < n and (<Py_UCS4>(<unsigned int>PyUnicode_READ(kind, data, i) | 32)) == 101:  # e or E
        i += 1
        if i < n and (PyUnicode_READ(kind, data, i) == 43 or PyUnicode_READ(kind, data, i) == 45):
            i += 1
        start = i
        while i < n and _digit(PyUnicode_READ(kind, data, i)):
            i += 1
        if i == start:
            return False
    return i == n


cdef object _number(str s, int kind, void *data, Py_ssize_t a, Py_ssize_t b):
    # data[a:b] matches the number grammar.
    cdef Py_ssize_t i
    cdef long long v = 0
    cdef bint neg
    cdef Py_UCS4 c
    for i in range(a, b):
        c = PyUnicode_READ(kind, data, i)
        if c == 46 or c == 101 or c == 69:
            text = PyUnicode_Substring(s, a, b)
            f = float(text)
            # A literal beyond float range (1e400) stays text rather than become inf.
            return f if isfinite(f) else text
    if b - a <= 18:  # fits a long long: no Python int parsing
        neg = PyUnicode_READ(kind, data, a) == 45
        for i in range(a + neg, b):
            v = v * 10 + (<long long>PyUnicode_READ(kind, data, i) - 48)
        return PyLong_FromLongLong(-v if neg else v)
    return str_to_int(PyUnicode_Substring(s, a, b))


# ------------------------------------------------------------------ formatting


cdef str _format_str(str s):
    if not s:
        return u'""'
    cdef str t = _escape(s)
    cdef int kind = PyUnicode_KIND(t)
    cdef void *data = PyUnicode_DATA(t)
    cdef Py_ssize_t n = len(t)
    cdef Py_UCS4 c = PyUnicode_READ(kind, data, 0)
    if c == 34 or c == 91 or c == 123:  # " [ {
        return u"\\" + t
    if (c == 45 or _digit(c)) and _is_number(kind, data, 0, n):
        return u"\\" + t
    if (c == 116 or c == 102 or c == 110) and (n == 4 or n == 5):
        # Never escape a t or an n: \t and \n are the TAB and LF escapes.
        if t == u"true":
            return u"t\\rue"
        if t == u"false":
            return u"\\false"
        if t == u"null":
            return u"n\\ull"
    return t


cdef bint _plain_json(object v, int depth):
    # True when orjson writes v exactly as dumps_cell would (exact JSON types, 64-bit ints).
    cdef int overflow = 0
    t = type(v)
    if t is str or v is None or t is bool:
        return True
    if t is int:
        PyLong_AsLongLongAndOverflow(v, &overflow)
        return overflow == 0
    if t is float:
        return isfinite(<double>v)
    if depth >= _ORJSON_DEPTH:
        return False
    if t is dict:
        for key, item in (<dict>v).items():
            if type(key) is not str or not _plain_json(item, depth + 1):
                return False
        return True
    if t is list:
        for item in <list>v:
            if not _plain_json(item, depth + 1):
                return False
        return True
    return False


cdef str _plain_json_cell(object value):
    # Only for values _plain_json accepts: dumps_cell cannot raise on them.
    try:
        return _escape((<bytes>_dumps(value)).decode("utf-8"))
    except _JSONEncodeError:  # e.g. lone surrogates: dumps_cell writes them
        return _escape(dumps_cell(value))


cdef str _fast_cell(object value):
    # The cell text of the common exact types, or None when format_cell must decide.
    cdef int overflow = 0
    t = type(value)
    if t is str:
        return _format_str(<str>value)
    if t is int:
        PyLong_AsLongLongAndOverflow(value, &overflow)
        return PyObject_Str(value) if overflow == 0 else int_to_str(value)
    if value is True:
        return u"true"
    if value is False:
        return u"false"
    if value is None:
        return u"null"
    if t is float:
        if isfinite(<double>value):
            return PyObject_Repr(value)
        return None
    if (t is dict or t is list) and _plain_json(value, 0):
        return _plain_json_cell(value)
    return None


def format_cell(value, /):
    """The typed, escaped cell text of one JSON value.

    Raises EncodeError (path relative to the value, ``$``) for what JSON cannot carry.
    """
    cdef str fast = _fast_cell(value)
    if fast is not None:
        return fast
    if isinstance(value, str):
        return _format_str(value)
    if isinstance(value, int):
        return int_to_str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise EncodeValueError(f"Float {value!r} is not valid JSON")
        return repr(value)
    if isinstance(value, (dict, list, tuple)):
        return _escape(dumps_cell(value))
    raise EncodeTypeError(f"Encoding objects of type `{type(value).__name__}` is unsupported")


cdef str _compact_float(double f):
    # In a float column an integral float drops its ".0": "1.0" is 3 tokens, "1" is one.
    if -1e15 < f < 1e15 and f == <double>(<long long>f):
        if f == 0 and math.copysign(1.0, f) < 0:
            return u"-0"
        return str(<long long>f)
    return repr(f)


cdef str _row_line(
    dict row, tuple fields, bint empty_null, frozenset floats, list cells, Py_ssize_t index
):
    # One row line; errors name the row as `$[index]`, or `$` for index -1.
    cdef str first, cell
    cdef Py_ssize_t last = len(fields) - 1
    cdef str absent = u"\\" if empty_null else u""
    cdef str null = u"" if empty_null else u"null"
    cdef bint any_floats = bool(floats)
    del cells[:]
    for field in fields:
        value = row.get(field, _ABSENT)
        if value is _ABSENT:
            cells.append(absent)
        elif value is None:
            cells.append(null)
        elif any_floats and type(value) is float and field in floats and isfinite(<double>value):
            cells.append(_compact_float(value))
        else:
            cell = _fast_cell(value)
            if cell is None:
                try:
                    cell = format_cell(value)
                except EncodeError as exc:
                    at = u"$" if index < 0 else f"$[{index}]"
                    raise exc.relocated(path_join("$", field)).relocated(at) from None
            cells.append(cell)
    while last > 0 and not cells[last]:
        del cells[last]  # decoders pad a short row with empty cells
        last -= 1
    first = cells[0]
    if first.startswith(u"#") or first.startswith(u"GCX1"):
        cells[0] = u"\\" + first
    elif not first and last == 0:
        cells[0] = u"null" if empty_null else u"\\"
    if (<str>cells[last]).endswith(u"\r"):  # only a string's text can end in a raw CR
        cells[last] = _escape(dumps_cell(row[fields[last]]))
    return u"\t".join(cells)


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
    cdef tuple fs = tuple(fields)
    if not fs:
        raise ValueError("A row needs at least one field")
    return _row_line(row, fs, empty_null, floats, [], -1)


# ------------------------------------------------ whole tables into one byte buffer
#
# Most tables are Latin-1 text (the 1-byte string kind): their rows are written
# straight into one growing byte buffer, cell by cell, with no string object per
# cell or per row. The first cell that is not 1-byte text sends the whole table
# to the list-of-cells path (_row_line) instead; both write the same text.


cdef struct _Buf:
    Py_UCS1 *data
    Py_ssize_t len
    Py_ssize_t cap


cdef int _reserve(_Buf *b, Py_ssize_t extra) except -1:
    cdef Py_ssize_t cap = b.cap * 2
    cdef Py_UCS1 *p
    if b.len + extra <= b.cap:
        return 0
    if cap < b.len + extra:
        cap = b.len + extra
    p = <Py_UCS1 *>PyMem_Realloc(b.data, cap)
    if p == NULL:
        raise MemoryError()
    b.data = p
    b.cap = cap
    return 0


cdef inline int _put(_Buf *b, const void *src, Py_ssize_t n) except -1:
    _reserve(b, n)
    memcpy(b.data + b.len, src, n)
    b.len += n
    return 0


cdef inline int _put_byte(_Buf *b, Py_UCS1 c) except -1:
    _reserve(b, 1)
    b.data[b.len] = c
    b.len += 1
    return 0


cdef int _put_escaped(_Buf *b, const Py_UCS1 *src, Py_ssize_t n) except -1:
    cdef Py_ssize_t i = 0, k, nb, nl, nt
    cdef Py_UCS1 u
    cdef Py_UCS1 *o
    _reserve(b, 2 * n)
    o = b.data + b.len
    nb = _find_byte(src, 0, n, 92)
    nl = _find_byte(src, 0, n, 10)
    nt = _find_byte(src, 0, n, 9)
    while True:
        k = nb if nb < nl else nl
        k = k if k < nt else nt
        memcpy(o, src + i, k - i)
        o += k - i
        if k == n:
            b.len = o - b.data
            return 0
        u = src[k]
        o[0] = 92
        o[1] = 116 if u == 9 else (110 if u == 10 else 92)
        o += 2
        i = k + 1
        if u == 92:
            nb = _find_byte(src, i, n, 92)
        elif u == 10:
            nl = _find_byte(src, i, n, 10)
        else:
            nt = _find_byte(src, i, n, 9)


cdef int _put_int(_Buf *b, long long v) except -1:
    cdef char tmp[24]
    cdef int i = 24
    # Negate in unsigned arithmetic: -v overflows for the most negative long long.
    cdef unsigned long long u = <unsigned long long>v
    if v < 0:
        u = (<unsigned long long>0) - u
    while True:
        i -= 1
        tmp[i] = <char>(48 + u % 10)
        u //= 10
        if u == 0:
            break
    if v < 0:
        i -= 1
        tmp[i] = 45
    return _put(b, tmp + i, 24 - i)


cdef bint _put_text(_Buf *b, str s) except -1:
    # A str already in cell form (an escaped literal); False if it is not 1-byte text.
    if PyUnicode_KIND(s) != PyUnicode_1BYTE_KIND:
        return False
    _put(b, PyUnicode_DATA(s), len(s))
    return True


cdef bint _put_str_cell(_Buf *b, str s) except -1:
    # What _format_str writes, straight into the buffer; False if s is not 1-byte text.
    cdef Py_ssize_t n = len(s)
    cdef const Py_UCS1 *d
    cdef Py_UCS1 c
    if n == 0:
        _put(b, b'""', 2)
        return True
    if PyUnicode_KIND(s) != PyUnicode_1BYTE_KIND:
        return False
    d = <const Py_UCS1 *>PyUnicode_DATA(s)
    c = d[0]
    if c == 34 or c == 91 or c == 123:  # " [ {
        _put_byte(b, 92)
    elif memchr(d, 92, n) != NULL or memchr(d, 9, n) != NULL or memchr(d, 10, n) != NULL:
        pass  # the escaped text holds a backslash: no number or literal can match it
    elif (c == 45 or _digit(c)) and _is_number(PyUnicode_1BYTE_KIND, <void *>d, 0, n):
        _put_byte(b, 92)
    elif (c == 116 or c == 102 or c == 110) and (n == 4 or n == 5):
        if s == u"true":
            _put(b, b"t\\rue", 5)
            return True
        if s == u"false":
            _put(b, b"\\false", 6)
            return True
        if s == u"null":
            _put(b, b"n\\ull", 5)
            return True
    _put_escaped(b, d, n)
    return True


cdef struct _Stats:
    # What scan_style counts, gathered while writing in the plain style.
    Py_ssize_t nulls
    Py_ssize_t absent
    Py_ssize_t *integral  # per field: integral floats within 1e15
    char *has_int  # per field: an int was seen
    bint valid  # False when a row has keys outside the fields


cdef bint _put_row(
    _Buf *b, dict row, tuple fields, bint empty_null, frozenset floats,
    Py_ssize_t *starts, Py_ssize_t *ends, Py_ssize_t index, _Stats *stats,
) except -1:
    # One row line with its LF, as _row_line writes it; False (buffer left dirty)
    # when a cell is not 1-byte text. With stats, also counts what scan_style does.
    cdef Py_ssize_t nf = len(fields), i, last, row_start = b.len, shift = 0, missing = 0
    cdef double f
    cdef bint any_floats = bool(floats)
    cdef long long v
    cdef int overflow = 0
    cdef str cell
    for i in range(nf):
        if i:
            _put_byte(b, 9)
        starts[i] = b.len
        field = fields[i]
        value = row.get(field, _ABSENT)
        t = type(value)
        if value is _ABSENT:
            missing += 1
            if empty_null:
                _put_byte(b, 92)
        elif value is None:
            if stats != NULL:
                stats.nulls += 1
            if not empty_null:
                _put(b, b"null", 4)
        elif t is str:
            if not _put_str_cell(b, <str>value):
                return False
        elif t is int:
            if stats != NULL:
                stats.has_int[i] = 1
            v = PyLong_AsLongLongAndOverflow(value, &overflow)
            if overflow == 0:
                _put_int(b, v)
            else:
                _put_text(b, int_to_str(value))
        elif value is True:
            _put(b, b"true", 4)
        elif value is False:
            _put(b, b"false", 5)
        elif t is float and isfinite(<double>value):
            if stats != NULL:
                f = value
                if -1e15 < f < 1e15 and f == <double>(<long long>f):
                    stats.integral[i] += 1
            if any_floats and field in floats:
                _put_text(b, _compact_float(value))
            else:
                _put_text(b, PyObject_Repr(value))
        else:
            cell = _fast_cell(value)
            if cell is None:
                try:
                    cell = format_cell(value)
                except EncodeError as exc:
                    at = u"$" if index < 0 else f"$[{index}]"
                    raise exc.relocated(path_join("$", field)).relocated(at) from None
            if not _put_text(b, cell):
                return False
        ends[i] = b.len
    if stats != NULL:
        stats.absent += missing
        if nf - missing != len(row):
            stats.valid = False
    last = nf - 1
    while last > 0 and ends[last] == starts[last]:
        last -= 1  # decoders pad a short row with empty cells
    b.len = ends[last]
    if ends[0] > row_start and (
        b.data[row_start] == 35  # #
        or (
            ends[0] - row_start >= 4 and b.data[row_start] == 71 and b.data[row_start + 1] == 67
            and b.data[row_start + 2] == 88 and b.data[row_start + 3] == 49  # GCX1
        )
    ):
        _reserve(b, 1)
        memmove(b.data + row_start + 1, b.data + row_start, b.len - row_start)
        b.data[row_start] = 92
        b.len += 1
        shift = 1
    elif ends[0] == row_start and last == 0:
        if empty_null:
            _put(b, b"null", 4)
        else:
            _put_byte(b, 92)
    if b.data[b.len - 1] == 13:  # only a string's text can end in a raw CR
        b.len = row_start if last == 0 else starts[last] + shift
        if not _put_text(b, _escape(dumps_cell(row[fields[last]]))):
            return False
    _put_byte(b, 10)
    return True


# One byte buffer kept between calls: a fresh multi-megabyte buffer per table
# costs more in page faults than writing the rows (measured: issues-5000 encode
# 22 ms -> 13 ms with the allocator told to keep its memory). A nested or
# concurrent call (another thread, while a cell calls into Python) takes its own.
cdef _Buf _scratch
cdef bint _scratch_busy = False
_scratch.data = NULL
_scratch.len = 0
_scratch.cap = 0
# Above this size the buffer is handed back after the call.
cdef Py_ssize_t _SCRATCH_KEEP = 16 << 20


cdef str _encode_rows_bytes(
    rows, tuple fs, bint empty_null, frozenset floats, _Stats *stats = NULL
):
    # The whole table through one byte buffer, or None when a cell is not 1-byte text.
    global _scratch_busy, _scratch
    cdef _Buf own
    cdef _Buf *b = &own
    cdef bint shared = not _scratch_busy
    cdef Py_ssize_t nf = len(fs), i = 0
    cdef Py_ssize_t *starts = <Py_ssize_t *>PyMem_Malloc(2 * nf * sizeof(Py_ssize_t))
    if starts == NULL:
        raise MemoryError()
    own.data = NULL
    own.len = 0
    own.cap = 0
    if shared:
        _scratch_busy = True
        b = &_scratch
        b.len = 0
    try:
        _reserve(b, 4096)
        for row in rows:
            if not isinstance(row, dict):
                raise TypeError(f"Row {i} is a {type(row).__name__}, not a dict")
            if not _put_row(b, <dict>row, fs, empty_null, floats, starts, starts + nf, i, stats):
                return None
            i += 1
        if b.len:
            b.len -= 1  # the last row's LF: lines are joined, not terminated
        return PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, b.data, b.len)
    finally:
        PyMem_Free(starts)
        if not shared:
            PyMem_Free(own.data)
        else:
            _scratch_busy = False
            if _scratch.cap > _SCRATCH_KEEP:
                PyMem_Free(_scratch.data)
                _scratch.data = NULL
                _scratch.cap = 0


def encode_rows(rows, fields, bint empty_null, frozenset floats, /):
    """Every row line of a table joined by LF (no final LF): :func:`encode_row` per row.

    Error paths start at the row: ``$[3].name``.
    """
    cdef tuple fs = tuple(fields)
    cdef list lines = []
    cdef list cells = []
    cdef Py_ssize_t i = 0
    if not fs:
        raise ValueError("A row needs at least one field")
    if not isinstance(rows, (list, tuple)):
        rows = list(rows)  # a table may be written twice (see below)
    cdef str text = _encode_rows_bytes(rows, fs, empty_null, floats)
    if text is not None:
        return text
    for row in rows:
        if not isinstance(row, dict):
            raise TypeError(f"Row {i} is a {type(row).__name__}, not a dict")
        lines.append(_row_line(<dict>row, fs, empty_null, floats, cells, i))
        i += 1
    return u"\n".join(lines)


def encode_table(rows, fields, /):
    """A table's rows in the style :func:`scan_style` picks: ``(text, empty_null, floats)``.

    The same as ``encode_rows(rows, fields, *scan_style(rows, fields))``, but
    written in one pass that also does the scan: in the style of the first 16
    rows, written again only when the whole table picks another.
    """
    cdef tuple fs = tuple(fields)
    cdef Py_ssize_t nf = len(fs), i = 0, k
    cdef _Stats stats
    cdef str text = None
    if not isinstance(rows, (list, tuple)):
        rows = list(rows)
    for row in rows:
        if not isinstance(row, dict):
            raise TypeError(f"Row {i} is a {type(row).__name__}, not a dict")
        i += 1
    if not fs:
        raise ValueError("A row needs at least one field")
    if len(set(fs)) == nf:
        stats.nulls = stats.absent = 0
        stats.valid = True
        stats.integral = <Py_ssize_t *>PyMem_Malloc(nf * sizeof(Py_ssize_t))
        stats.has_int = <char *>PyMem_Malloc(nf)
        if stats.integral == NULL or stats.has_int == NULL:
            PyMem_Free(stats.integral)
            PyMem_Free(stats.has_int)
            raise MemoryError()
        try:
            for k in range(nf):
                stats.integral[k] = 0
                stats.has_int[k] = 0
            guess = scan_style(rows[:16], fs)
            text = _encode_rows_bytes(rows, fs, guess[0], guess[1], &stats)
            if text is not None and stats.valid:
                empty_null = stats.nulls > stats.absent + 3
                floats = frozenset(
                    [fs[k] for k in range(nf) if stats.integral[k] >= 3 and not stats.has_int[k]]
                )
                if empty_null == guess[0] and floats == guess[1]:
                    return text, empty_null, floats
                return encode_rows(rows, fs, empty_null, floats), empty_null, floats
        finally:
            PyMem_Free(stats.integral)
            PyMem_Free(stats.has_int)
    empty_null, floats = scan_style(rows, fs)
    return encode_rows(rows, fs, empty_null, floats), empty_null, floats


def scan_style(rows, fields, /):
    """A section's style: (``empty=null`` pays, the ``float=`` columns).

    ``empty=null`` when the rows hold more than 3 more nulls than absent keys;
    a column is a float column when it holds no int and at least three integral
    floats (within 1e15).
    """
    cdef Py_ssize_t nulls = 0, absent = 0, width = len(fields)
    cdef dict integral = {}
    cdef set has_int = set()
    cdef double f
    for row in rows:
        absent += width - len(<dict?>row)
        for key, value in (<dict>row).items():
            if value is None:
                nulls += 1
            elif type(value) is float:
                f = value
                if -1e15 < f < 1e15 and f == <double>(<long long>f):
                    integral[key] = integral.get(key, 0) + 1
            elif type(value) is int:
                has_int.add(key)
    floats = frozenset([k for k, n in integral.items() if n >= 3 and k not in has_int])
    return nulls > absent + 3, floats


def shared_keys(rows, /):
    """The keys every row has, in the same order, when all rows are dicts with str keys.

    None otherwise (also for no rows): the caller then merges key orders itself.
    """
    cdef tuple first = None
    cdef Py_ssize_t n = 0, i
    for row in rows:
        if type(row) is not dict:
            return None
        if first is None:
            first = tuple(<dict>row)
            for key in first:
                if type(key) is not str:
                    return None
            n = len(first)
            continue
        if len(<dict>row) != n:
            return None
        i = 0
        for key in <dict>row:
            ref = first[i]
            if key is not ref and key != ref:
                return None
            i += 1
    return first


cdef void _flatten(dict row, frozenset groups, str prefix, dict out, dict names) except *:
    # names caches prefix -> {key: prefix + key}: one dotted string per column, not per row.
    cdef dict known = None
    for key, value in row.items():
        if not prefix and type(key) is str:
            name = key
        else:
            if known is None:
                known = names.get(prefix)
                if known is None:
                    known = names[prefix] = {}
            name = known.get(key) if type(key) is str else None
            if name is None:
                name = prefix + key
                known[key] = name
        if name in groups:
            _flatten(<dict?>value, groups, name + u".", out, names)
        else:
            out[name] = value


def flatten_rows(rows, frozenset groups, /):
    """Spread nested objects over dotted keys: ``{"u": {"id": 1}}`` -> ``{"u.id": 1}``.

    Only the members named in ``groups`` (dotted paths) are spread, in place.
    """
    cdef list out = []
    cdef dict flat, names = {}
    for row in rows:
        flat = {}
        _flatten(<dict?>row, groups, u"", flat, names)
        out.append(flat)
    return out


def nest_rows(rows, plan, /):
    """Rebuild nested objects from flat rows; ``plan`` holds (field, group chain, member key).

    Raises DecodeError (no position) when a field's value stands where a group goes.
    """
    cdef list out = []
    cdef list steps = [(name, tuple(chain), key) for name, chain, key in plan]
    cdef dict nested, target, flat
    cdef tuple step, chain
    for row in rows:
        flat = <dict?>row
        nested = {}
        for step in steps:
            name = step[0]
            chain = <tuple>step[1]
            target = nested
            for part in chain:
                inner = target.get(part)
                if inner is None:
                    inner = target[part] = {}
                elif type(inner) is not dict:
                    raise DecodeError(f"Field {name!r} collides with member {part!r}")
                target = <dict>inner
            value = flat.get(name, _ABSENT)
            if value is not _ABSENT:
                target[step[2]] = value
        out.append(nested)
    return out


# ------------------------------------------------------------------- parsing


cdef object _literal(str text, Py_ssize_t err_pos):
    # A JSON literal cell (already unescaped), as loads_cell reads it.
    cdef int kind = PyUnicode_KIND(text)
    cdef void *data = PyUnicode_DATA(text)
    cdef Py_ssize_t i, run = 0, n = len(text)
    for i in range(n):  # any run of 17+ digits may be a big int: loads_cell decides
        if _digit(PyUnicode_READ(kind, data, i)):
            run += 1
            if run >= 17:
                break
        else:
            run = 0
    if run < 17:
        try:
            return _loads(text)
        except _JSONDecodeError:
            pass
    try:
        return loads_cell(text)
    except ValueError as exc:
        raise DecodeError(f"Cell is not a valid JSON literal: {exc}", pos=err_pos) from None


cdef object _parse_range(str s, int kind, void *data, Py_ssize_t a, Py_ssize_t b, Py_ssize_t err_pos):
    # The typed value of the raw cell s[a:b]; ABSENT for a lone backslash.
    cdef Py_ssize_t n = b - a
    if n == 0:
        return None
    cdef Py_UCS4 c = PyUnicode_READ(kind, data, a)
    if c == 92:
        if n == 1:
            return _ABSENT
        return _unescape_range(s, a, b)
    if c == 34 or c == 91 or c == 123:
        return _literal(_unescape_range(s, a, b), err_pos)
    if c == 45 or _digit(c):
        if _is_number(kind, data, a, b):
            return _number(s, kind, data, a, b)
    elif n == 4:
        if (
            c == 116 and PyUnicode_READ(kind, data, a + 1) == 114
            and PyUnicode_READ(kind, data, a + 2) == 117 and PyUnicode_READ(kind, data, a + 3) == 101
        ):
            return True
        if (
            c == 110 and PyUnicode_READ(kind, data, a + 1) == 117
            and PyUnicode_READ(kind, data, a + 2) == 108 and PyUnicode_READ(kind, data, a + 3) == 108
        ):
            return None
    elif n == 5 and c == 102 and PyUnicode_Substring(s, a, b) == u"false":
        return False
    return _unescape_range(s, a, b)


def parse_cell(str raw, /):
    """Read one raw (still escaped) cell as a typed value; ABSENT for a lone backslash.

    An empty cell reads as null (rows decide for themselves what empty means).
    Raises DecodeError whose ``pos`` is relative to the cell.
    """
    return _parse_range(raw, PyUnicode_KIND(raw), PyUnicode_DATA(raw), 0, len(raw), 0)


cdef Py_ssize_t _find_tab(int kind, void *data, Py_ssize_t i, Py_ssize_t b):
    cdef const char *p
    if kind == PyUnicode_1BYTE_KIND:
        p = <const char *>memchr(<const char *>data + i, 9, b - i)
        return b if p == NULL else p - <const char *>data
    while i < b and PyUnicode_READ(kind, data, i) != 9:
        i += 1
    return i


cdef dict _read_row(
    str s, int kind, void *data, Py_ssize_t a, Py_ssize_t b, tuple fields,
    bint typed, bint empty_null, frozenset floats, Py_ssize_t base,
):
    # The row s[a:b]; error positions are base + the offset within the row.
    cdef Py_ssize_t nfields = len(fields), ncells = 1, i, ca, cb, pos = 0
    cdef dict row = {}
    cdef bint any_floats = bool(floats)
    cb = a
    while True:  # count the cells first: too many is an error before any literal is read
        cb = _find_tab(kind, data, cb, b)
        if cb >= b:
            break
        if ncells == nfields:
            pos = cb
        ncells += 1
        cb += 1
    if ncells > nfields:
        raise DecodeError(
            f"Row has {ncells} cells but the header declares {nfields} fields", pos=base + pos - a
        )
    ca = a
    for i in range(ncells):
        cb = _find_tab(kind, data, ca, b)
        field = fields[i]
        if not typed:
            row[field] = _unescape_range(s, ca, cb)
        elif cb == ca:
            if empty_null:
                row[field] = None
        else:
            value = _parse_range(s, kind, data, ca, cb, base + ca - a)
            if value is not _ABSENT:
                if any_floats and type(value) is int and field in floats:
                    # From the text, so "-0" stays negative zero; an int beyond float
                    # range (only a foreign payload can hold one here) stays an int.
                    f = float(PyUnicode_Substring(s, ca, cb))
                    if isfinite(f):
                        value = f
                row[field] = value
        ca = cb + 1
    if not typed:
        for i in range(ncells, nfields):
            row[fields[i]] = u""
    elif empty_null:
        for i in range(ncells, nfields):
            row[fields[i]] = None
    return row


def decode_row(str line, fields, bint typed, bint empty_null, frozenset floats, /):
    """Read one row line into a dict keyed by ``fields``.

    Short rows are padded with empty cells. Untyped, every cell is a string (as
    reference decoders read it). Typed, an empty cell is an absent key (null
    when ``empty_null``) and numbers in ``floats`` columns are floats. Extra
    cells, or a bad literal, raise DecodeError whose ``pos`` is relative to the line.
    """
    return _read_row(
        line, PyUnicode_KIND(line), PyUnicode_DATA(line), 0, len(line), tuple(fields),
        typed, empty_null, floats, 0,
    )


def decode_rows(
    str text, Py_ssize_t start, fields, bint typed, bint empty_null, frozenset floats,
    Py_ssize_t max_line, Py_ssize_t max_brackets, /,
):
    """Read the row and comment lines of a section from ``text[start:]``.

    Returns ``(rows, comments, stop)``: ``stop`` is where reading stopped, at the
    start of a line it leaves to the caller (a ``GCX1`` header, a line longer than
    ``max_line``, or, typed, one holding more than ``max_brackets`` of ``[`` and
    ``{``) or at ``len(text)``. A CR before LF is dropped, blank lines are skipped,
    comment text is kept without its ``#``. Row errors are DecodeErrors whose
    ``pos`` is an offset into ``text``.
    """
    cdef list rows = [], comments = []
    cdef tuple fs = tuple(fields)
    cdef Py_ssize_t n = len(text), pos = start, end, stop, i, brackets
    cdef int kind = PyUnicode_KIND(text)
    cdef void *data = PyUnicode_DATA(text)
    cdef const char *p
    cdef Py_UCS4 c
    while pos < n:
        if kind == PyUnicode_1BYTE_KIND:
            p = <const char *>memchr(<const char *>data + pos, 10, n - pos)
            end = n if p == NULL else p - <const char *>data
        else:
            end = PyUnicode_FindChar(text, 10, pos, n, 1)
            if end < 0:
                end = n
        stop = end
        if stop > pos and PyUnicode_READ(kind, data, stop - 1) == 13:
            stop -= 1  # CRLF input, as Go's line reader takes it
        if stop > pos:
            if stop - pos > max_line:
                return rows, comments, pos
            c = PyUnicode_READ(kind, data, pos)
            if (
                c == 71 and stop - pos >= 4 and PyUnicode_READ(kind, data, pos + 1) == 67
                and PyUnicode_READ(kind, data, pos + 2) == 88
                and PyUnicode_READ(kind, data, pos + 3) == 49
            ):  # GCX1
                return rows, comments, pos
            if c == 35:  # #
                comments.append(PyUnicode_Substring(text, pos + 1, stop))
            else:
                if typed:
                    brackets = 0
                    if kind == PyUnicode_1BYTE_KIND:
                        brackets = _count_byte(<Py_UCS1 *>data + pos, stop - pos, 91)
                        brackets += _count_byte(<Py_UCS1 *>data + pos, stop - pos, 123)
                    else:
                        for i in range(pos, stop):
                            c = PyUnicode_READ(kind, data, i)
                            if c == 91 or c == 123:
                                brackets += 1
                    if brackets > max_brackets:
                        return rows, comments, pos
                rows.append(
                    _read_row(text, kind, data, pos, stop, fs, typed, empty_null, floats, pos)
                )
        pos = end + 1
    return rows, comments, n
