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
from cpython.object cimport PyObject_Repr, PyObject_Str, PyTypeObject
from cpython.ref cimport PyObject
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
from libc.string cimport memchr, memcmp, memcpy, memmove

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
    "decode_rows",
    "scan_style",
    "shared_keys",
    "nest_rows",
    "encode_table",
    "dict_column",
    "constant_columns",
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


cdef object _HELD = object()  # the cell of a column held in the header: always empty


cdef str _line(
    list values, tuple fields, bint empty_null, frozenset floats, list cells, Py_ssize_t index
):
    # The row line of one value per field (_ABSENT: no value, _HELD: always empty);
    # errors name the row as `$[index]`, or `$` for index -1.
    cdef str first, cell
    cdef Py_ssize_t last = len(fields) - 1, i
    cdef str absent = u"\\" if empty_null else u""
    cdef str null = u"" if empty_null else u"null"
    cdef bint any_floats = bool(floats)
    del cells[:]
    for i in range(last + 1):
        field = fields[i]
        value = values[i]
        if value is _ABSENT:
            cells.append(absent)
        elif value is None:
            cells.append(null)
        elif value is _HELD:
            cells.append(u"")
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
        cells[last] = _escape(dumps_cell(values[last]))
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
    return _line([row.get(f, _ABSENT) for f in fs], fs, empty_null, floats, [], -1)



# ---------------------------------------------------------------- byte buffers


cdef struct _Buf:
    Py_UCS1 *data
    Py_ssize_t len
    Py_ssize_t cap
    bint wide  # a byte above 127 was written: the text is Latin-1, not ASCII


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


cdef extern from *:
    """
    /* src[0:n] copied to dst with the GCX1 escapes: backslash, TAB and LF become
       two bytes each. dst must hold 2n bytes; returns the bytes written. With
       SSE2 (every x86-64) 16 bytes are tested at a time and stored whole; the
       last bytes are tested in the 16-byte window that ends with them, which
       starts before src when n < 16: the caller says whether 16 bytes before
       src + n are readable (a str's data follows its object header). */
    #if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
    #include <emmintrin.h>
    #define GCX_SSE2 1
    static inline unsigned int gcx_special16(const unsigned char *p) {
        const __m128i c = _mm_loadu_si128((const __m128i *)p);
        const __m128i m = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(c, _mm_set1_epi8(92)), _mm_cmpeq_epi8(c, _mm_set1_epi8(9))),
            _mm_cmpeq_epi8(c, _mm_set1_epi8(10)));
        return (unsigned int)_mm_movemask_epi8(m);
    }
    #endif
    static inline void gcx_copy_short(unsigned char *o, const unsigned char *s, Py_ssize_t r) {
        /* 0 < r < 16 bytes, as two overlapping fixed-size copies */
        if (r >= 8) {
            memcpy(o, s, 8);
            memcpy(o + r - 8, s + r - 8, 8);
        } else if (r >= 4) {
            memcpy(o, s, 4);
            memcpy(o + r - 4, s + r - 4, 4);
        } else {
            o[0] = s[0];
            o[r / 2] = s[r / 2];
            o[r - 1] = s[r - 1];
        }
    }
    static Py_ssize_t gcx_escape_into(
        unsigned char *dst, const unsigned char *src, Py_ssize_t n, int room_before
    ) {
        unsigned char *o = dst;
        Py_ssize_t i = 0;
        unsigned char u;
    #ifdef GCX_SSE2
        while (i + 16 <= n) {
            unsigned int mask = gcx_special16(src + i);
            /* o - dst <= 2i and i + 16 <= n, so these 16 bytes fit in the 2n. */
            _mm_storeu_si128((__m128i *)o, _mm_loadu_si128((const __m128i *)(src + i)));
            if (mask == 0) {
                o += 16;
                i += 16;
                continue;
            }
            {
                int k = __builtin_ctz(mask);
                o += k;
                i += k;
                u = src[i];
                o[0] = 92;
                o[1] = u == 9 ? 116 : (u == 10 ? 110 : 92);
                o += 2;
                i += 1;
            }
        }
        if (i < n && (n >= 16 || room_before)) {
            Py_ssize_t r = n - i;
            if ((gcx_special16(src + n - 16) >> (16 - r)) == 0) {
                gcx_copy_short(o, src + i, r);
                return o + r - dst;
            }
        }
    #endif
        for (; i < n; i++) {
            u = src[i];
            if (u == 92 || u == 9 || u == 10) {
                o[0] = 92;
                o[1] = u == 9 ? 116 : (u == 10 ? 110 : 92);
                o += 2;
            } else {
                *o++ = u;
            }
        }
        return o - dst;
    }
    """
    Py_ssize_t gcx_escape_into(Py_UCS1 *dst, const Py_UCS1 *src, Py_ssize_t n, int room_before)


cdef inline int _put_escaped(_Buf *b, const Py_UCS1 *src, Py_ssize_t n, int room) except -1:
    # room: 16 bytes before src + n are readable even when n < 16.
    _reserve(b, 2 * n)
    b.len += gcx_escape_into(b.data + b.len, src, n, room)
    return 0


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
    if not PyUnicode_IS_ASCII(s):
        b.wide = True
    _put(b, PyUnicode_DATA(s), len(s))
    return True


# A compact str's header (at least PyASCIIObject) comes right before its data.
cdef int _ROOM = sizeof(PyASCIIObject) >= 16


cdef bint _put_str_cell(_Buf *b, PyObject *s) except -1:
    # What _format_str writes, straight into the buffer; False if s is not 1-byte text.
    # The guards look at the raw text: one holding a backslash, TAB or LF is
    # never a number or a literal, escaped or not.
    cdef Py_ssize_t n = _ulen(s)
    cdef const Py_UCS1 *d
    cdef Py_UCS1 c
    if n == 0:
        _put(b, b'""', 2)
        return True
    if _ukind(s) != PyUnicode_1BYTE_KIND:
        return False
    if not _uascii(s):
        b.wide = True
    d = <const Py_UCS1 *>_udata(s)
    c = d[0]
    if c == 34 or c == 91 or c == 123:  # " [ {
        _put_byte(b, 92)
    elif (c == 45 or _digit(c)) and _is_number(PyUnicode_1BYTE_KIND, <void *>d, 0, n):
        _put_byte(b, 92)
    elif n == 4 and memcmp(d, b"true", 4) == 0:
        _put(b, b"t\\rue", 5)  # never escape a t or an n: \t and \n are escapes
        return True
    elif n == 5 and memcmp(d, b"false", 5) == 0:
        _put(b, b"\\false", 6)
        return True
    elif n == 4 and memcmp(d, b"null", 4) == 0:
        _put(b, b"n\\ull", 5)
        return True
    _put_escaped(b, d, n, _ROOM and _ucompact(s))  # a compact str's data follows its header
    return True


# --------------------------------------------------------- reading rows by path


cdef extern from "Python.h":
    int _dict_next "PyDict_Next"(PyObject *d, Py_ssize_t *pos, PyObject **key, PyObject **value)
    PyObject *_dict_get "PyDict_GetItemWithError"(PyObject *d, PyObject *key)
    bint _is_dict "PyDict_Check"(PyObject *o)
    Py_ssize_t _dict_size "PyDict_GET_SIZE"(PyObject *o)
    PyObject *_err_occurred "PyErr_Occurred"()
    PyObject **_tuple_items "PySequence_Fast_ITEMS"(PyObject *o)
    # The hot loops look at values through borrowed pointers: no reference
    # counting on each value or on its type.
    PyTypeObject *_type_of "Py_TYPE"(PyObject *o)
    PyTypeObject _STR "PyUnicode_Type"
    PyTypeObject _INT "PyLong_Type"
    PyTypeObject _FLOAT "PyFloat_Type"
    PyTypeObject _DICT "PyDict_Type"
    PyTypeObject _LIST "PyList_Type"
    Py_ssize_t _list_size "PyList_GET_SIZE"(PyObject *o)
    PyObject *_list_item "PyList_GET_ITEM"(PyObject *o, Py_ssize_t i)
    PyObject *_NONE "Py_None"
    PyObject *_TRUE "Py_True"
    PyObject *_FALSE "Py_False"
    double _float_value "PyFloat_AS_DOUBLE"(PyObject *o)
    long long _as_long_long "PyLong_AsLongLongAndOverflow"(PyObject *o, int *overflow)
    int _ukind "PyUnicode_KIND"(PyObject *o)
    void *_udata "PyUnicode_DATA"(PyObject *o)
    Py_ssize_t _ulen "PyUnicode_GET_LENGTH"(PyObject *o)
    bint _uascii "PyUnicode_IS_ASCII"(PyObject *o)
    bint _ucompact "PyUnicode_IS_COMPACT"(PyObject *o)
    ctypedef struct PyASCIIObject:
        pass
    void _incref "Py_INCREF"(PyObject *o)
    void _xdecref "Py_XDECREF"(PyObject *o)


cdef inline int _raise_if_set() except -1:
    # After a NULL from a C-API lookup: propagate its error, if it set one.
    return -1 if _err_occurred() != NULL else 0


cdef int _same_key(PyObject *a, PyObject *b) except -1:
    return 1 if <object>a == <object>b else 0


cdef class _Columns:
    # A table's column paths compiled for reading rows. Each distinct path
    # prefix is a group (the row itself is group 0; groups come after their
    # parent) whose member keys take consecutive slots; a row is read by
    # walking each group's dict once (see gather). Slots own their values.
    cdef Py_ssize_t ncols, ngroups, nslots
    cdef list members  # per group: its member keys (keeps the key objects alive)
    cdef Py_ssize_t *col_slot  # per column: the slot it reads, -1 for a held column
    cdef Py_ssize_t *g_parent  # per group: the slot holding its dict (-1: the row)
    cdef Py_ssize_t *g_first  # per group: its first slot
    cdef Py_ssize_t *g_count  # per group: its number of members
    cdef PyObject **keys  # per slot: its member key (borrowed from members)
    cdef PyObject **slots  # per slot: the current row's value (owned), or NULL if absent
    cdef tuple row_keys  # when not None: the keys every row must hold, in this order

    def __cinit__(self):
        self.ncols = self.ngroups = self.nslots = 0
        self.col_slot = self.g_parent = self.g_first = self.g_count = NULL
        self.keys = self.slots = NULL
        self.row_keys = None

    def __dealloc__(self):
        self.release()
        PyMem_Free(self.col_slot)
        PyMem_Free(self.g_parent)
        PyMem_Free(self.g_first)
        PyMem_Free(self.g_count)
        PyMem_Free(self.keys)
        PyMem_Free(self.slots)

    cdef int build(self, paths) except -1:
        cdef dict prefixes = None
        cdef list members = [[]], parents = [None], ms
        cdef list columns = list(paths)  # a list of our own: nothing can resize it meanwhile
        cdef Py_ssize_t g, d, s, c, at, last, total, ncols = len(columns)
        cdef tuple p
        # Per column its group and member index, then its slot (in col_slot).
        cdef Py_ssize_t *col_group = <Py_ssize_t *>PyMem_Malloc((ncols + 1) * sizeof(Py_ssize_t))
        self.col_slot = <Py_ssize_t *>PyMem_Malloc((ncols + 1) * sizeof(Py_ssize_t))
        if col_group == NULL or self.col_slot == NULL:
            PyMem_Free(col_group)
            raise MemoryError()
        try:
            for c in range(ncols):
                path = columns[c]
                if path is None:
                    col_group[c] = -1
                    continue
                p = path if type(path) is tuple else tuple(path)
                if not p:
                    raise ValueError("A column path needs at least one key")
                g = 0
                last = len(p) - 1
                for d in range(last + 1):
                    key = p[d]
                    hash(key)  # an unhashable key fails here, before any row is read
                    ms = <list>members[g]
                    if key in ms:
                        at = ms.index(key)
                    else:
                        at = len(ms)
                        ms.append(key)
                    if d == last:
                        col_group[c] = g
                        self.col_slot[c] = at
                        break
                    if prefixes is None:
                        prefixes = {}
                    sub = prefixes.get(p[: d + 1])
                    if sub is None:
                        sub = prefixes[p[: d + 1]] = len(members)
                        members.append([])
                        parents.append((g, at))
                    g = sub
            self.members = members
            self.ncols = ncols
            self.ngroups = len(members)
            total = 0
            for ms in members:
                total += len(ms)
            self.g_parent = <Py_ssize_t *>PyMem_Malloc(self.ngroups * sizeof(Py_ssize_t))
            self.g_first = <Py_ssize_t *>PyMem_Malloc(self.ngroups * sizeof(Py_ssize_t))
            self.g_count = <Py_ssize_t *>PyMem_Malloc(self.ngroups * sizeof(Py_ssize_t))
            self.keys = <PyObject **>PyMem_Malloc((total + 1) * sizeof(PyObject *))
            self.slots = <PyObject **>PyMem_Malloc((total + 1) * sizeof(PyObject *))
            if (
                self.g_parent == NULL or self.g_first == NULL or self.g_count == NULL
                or self.keys == NULL or self.slots == NULL
            ):
                raise MemoryError()
            s = 0
            for g in range(self.ngroups):
                ms = <list>members[g]
                self.g_first[g] = s
                self.g_count[g] = len(ms)
                for key in ms:
                    self.keys[s] = <PyObject *>key
                    self.slots[s] = NULL
                    s += 1
                if g == 0:
                    self.g_parent[g] = -1
                else:
                    pg, at = parents[g]
                    self.g_parent[g] = self.g_first[<Py_ssize_t>pg] + at
            for c in range(ncols):
                g = col_group[c]
                self.col_slot[c] = -1 if g < 0 else self.g_first[g] + self.col_slot[c]
            self.nslots = total  # only now may release() walk the slots
        finally:
            PyMem_Free(col_group)
        return 0

    cdef int gather(self, object row, Py_ssize_t index) except -1:
        # Every slot's value in this row (the slots must be released); 1 when
        # the row's keys are not row_keys. A group's dict whose keys come in
        # the expected order is read by one walk with pointer compares (keys of
        # rows built alike are the same objects); members not met that way are
        # looked up.
        cdef Py_ssize_t g, j, n, first, pos, e, m
        cdef PyObject *d
        cdef PyObject *k
        cdef PyObject *v
        cdef PyObject **want
        for g in range(self.ngroups):
            if g == 0:
                d = <PyObject *>row
            else:
                d = self.slots[self.g_parent[g]]
                if d == NULL:
                    continue  # an absent object: its members are absent too
                if not _is_dict(d):
                    raise TypeError(f"Row {index} holds a non-object where a column path goes on")
            first = self.g_first[g]
            n = self.g_count[g]
            pos = 0
            j = 0
            if g == 0 and self.row_keys is not None:  # the same walk checks the row's keys
                want = _tuple_items(<PyObject *>self.row_keys)
                m = len(self.row_keys)
                if _dict_size(d) != m:
                    return 1
                e = 0
                while _dict_next(d, &pos, &k, &v):
                    if e >= m or (k != want[e] and not _same_key(k, want[e])):
                        return 1
                    e += 1
                    if j < n and k == self.keys[first + j]:
                        _incref(v)
                        self.slots[first + j] = v
                        j += 1
                if e != m:
                    return 1
            else:
                # Keys beside the expected ones are passed over: a dict holds a
                # key once, so one met by identity cannot be missed among them.
                while j < n and _dict_next(d, &pos, &k, &v):
                    if k == self.keys[first + j]:
                        _incref(v)
                        self.slots[first + j] = v
                        j += 1
            while j < n:
                v = _dict_get(d, self.keys[first + j])
                if v == NULL:
                    if _err_occurred() != NULL:
                        return -1
                else:
                    _incref(v)
                self.slots[first + j] = v
                j += 1
        return 0

    cdef int keys_differ(self, object row) except -1:
        # 1 when the row's keys are not row_keys (in order), else 0.
        cdef Py_ssize_t pos = 0, e = 0, m = len(self.row_keys)
        cdef PyObject *k
        cdef PyObject *v
        cdef PyObject **want = _tuple_items(<PyObject *>self.row_keys)
        if _dict_size(<PyObject *>row) != m:
            return 1
        while _dict_next(<PyObject *>row, &pos, &k, &v):
            if e >= m or (k != want[e] and not _same_key(k, want[e])):
                return 1
            e += 1
        return 0 if e == m else 1

    cdef void release(self):
        cdef Py_ssize_t s
        cdef PyObject *v
        if self.slots == NULL:
            return
        for s in range(self.nslots):
            v = self.slots[s]
            self.slots[s] = NULL
            _xdecref(v)

    cdef list values(self):
        # The current row as encode_row's value list (_ABSENT, _HELD).
        cdef list out = []
        cdef Py_ssize_t c, s
        for c in range(self.ncols):
            s = self.col_slot[c]
            if s < 0:
                out.append(_HELD)
            elif self.slots[s] == NULL:
                out.append(_ABSENT)
            else:
                out.append(<object>self.slots[s])
        return out


cdef struct _Stats:
    # What decides a table's style, counted over its cells.
    Py_ssize_t nulls
    Py_ssize_t absent
    Py_ssize_t *integral  # per column: integral floats within 1e15
    char *has_int  # per column: an int was seen


cdef void _count(_Columns cols, _Stats *st):
    cdef Py_ssize_t c, s
    cdef PyObject *v
    cdef double f
    cdef PyTypeObject *t
    for c in range(cols.ncols):
        s = cols.col_slot[c]
        v = NULL if s < 0 else cols.slots[s]
        if v == NULL:
            st.absent += 1
        elif v == _NONE:
            st.nulls += 1
        else:
            t = _type_of(v)
            if t == &_FLOAT:
                f = _float_value(v)
                if -1e15 < f < 1e15 and f == <double>(<long long>f):
                    st.integral[c] += 1
            elif t == &_INT:
                st.has_int[c] = 1


cdef tuple _pick(_Stats *st, tuple fields):
    # (empty_null, floats) from the counts.
    cdef Py_ssize_t c
    cdef list names = None
    for c in range(len(fields)):
        if st.integral[c] >= 3 and not st.has_int[c]:
            if names is None:
                names = []
            names.append(fields[c])
    return st.nulls > st.absent + 3, _NO_FLOATS if names is None else frozenset(names)


cdef void _zero(_Stats *st, Py_ssize_t n):
    cdef Py_ssize_t c
    st.nulls = st.absent = 0
    for c in range(n):
        st.integral[c] = 0
        st.has_int[c] = 0


# ------------------------------------------------ whole tables into one byte buffer
#
# Most tables are Latin-1 text (the 1-byte string kind): their rows are written
# straight into one growing byte buffer, cell by cell, with no string object per
# cell or per row. The first cell that is not 1-byte text sends the whole table
# to the list-of-cells path (_line) instead; both write the same text.


# JSON cells of plain values (exact dicts with str keys, lists, 1-byte strings,
# 64-bit ints, booleans, null) are written straight into the buffer as orjson
# would write them, already escaped for the cell (each JSON backslash doubled).
# Anything else (floats, big ints, wider text, deep nesting) goes to orjson.
cdef int _JSON_DEPTH = 32
cdef const char *_HEX = b"0123456789abcdef"
cdef const char *_SHORT = b"btn?fr"  # JSON's short escapes of bytes 8 to 13


cdef bint _put_json_str(_Buf *b, PyObject *s) except -1:
    cdef Py_ssize_t n = _ulen(s), i
    cdef const Py_UCS1 *d
    cdef Py_UCS1 *o
    cdef Py_UCS1 u
    if _ukind(s) != PyUnicode_1BYTE_KIND:
        return False
    if not _uascii(s):
        b.wide = True
    d = <const Py_UCS1 *>_udata(s)
    _reserve(b, 7 * n + 2)  # a control character takes 7 bytes: \\u001f
    o = b.data + b.len
    o[0] = 34
    o += 1
    for i in range(n):
        u = d[i]
        if u >= 32 and u != 34 and u != 92:
            o[0] = u
            o += 1
            continue
        o[0] = 92  # JSON's backslash, doubled for the cell
        o[1] = 92
        o += 2
        if u == 34:  # \" in JSON
            o[0] = 34
            o += 1
        elif u == 92:  # \\ in JSON: two backslashes, each doubled
            o[0] = 92
            o[1] = 92
            o += 2
        elif u == 8 or u == 9 or u == 10 or u == 12 or u == 13:
            o[0] = _SHORT[u - 8]
            o += 1
        else:
            o[0] = 117  # u00XX
            o[1] = 48
            o[2] = 48
            o[3] = _HEX[u >> 4]
            o[4] = _HEX[u & 15]
            o += 5
    o[0] = 34
    b.len = o + 1 - b.data
    return True


cdef bint _put_json(_Buf *b, PyObject *v, int depth) except -1:
    # False (the buffer left dirty) when v is not plain: the caller rolls back.
    cdef PyTypeObject *t = _type_of(v)
    cdef Py_ssize_t pos = 0, i
    cdef PyObject *k
    cdef PyObject *item
    cdef int overflow = 0
    cdef long long x
    cdef bint first = True
    if t == &_STR:
        return _put_json_str(b, v)
    if v == _NONE:
        _put(b, b"null", 4)
    elif v == _TRUE:
        _put(b, b"true", 4)
    elif v == _FALSE:
        _put(b, b"false", 5)
    elif t == &_INT:
        x = _as_long_long(v, &overflow)
        if overflow:
            return False
        _put_int(b, x)
    elif depth >= _JSON_DEPTH:
        return False
    elif t == &_DICT:  # no Python code runs here, so borrowed members stay valid
        _put_byte(b, 123)
        while _dict_next(v, &pos, &k, &item):
            if _type_of(k) != &_STR:
                return False
            if not first:
                _put_byte(b, 44)
            first = False
            if not _put_json_str(b, k):
                return False
            _put_byte(b, 58)
            if not _put_json(b, item, depth + 1):
                return False
        _put_byte(b, 125)
    elif t == &_LIST:
        _put_byte(b, 91)
        i = 0
        while i < _list_size(v):
            if i:
                _put_byte(b, 44)
            if not _put_json(b, _list_item(v, i), depth + 1):
                return False
            i += 1
        _put_byte(b, 93)
    else:
        return False
    return True


cdef bint _put_cells(
    _Buf *b, _Columns cols, tuple fields, bint empty_null, const char *floatcol,
    Py_ssize_t *starts, Py_ssize_t *ends, Py_ssize_t index,
) except -1:
    # The gathered row's line with its LF, as _line writes it; False (buffer
    # left dirty) when a cell is not 1-byte text.
    cdef Py_ssize_t nf = cols.ncols, i, s, last, row_start = b.len, shift = 0
    cdef long long v
    cdef int overflow = 0
    cdef str cell
    cdef PyObject *p
    cdef PyTypeObject *t
    cdef bint wide
    for i in range(nf):
        if i:
            _put_byte(b, 9)
        starts[i] = b.len
        s = cols.col_slot[i]
        if s < 0:  # a held column: always empty
            ends[i] = b.len
            continue
        p = cols.slots[s]
        if p == NULL:
            if empty_null:
                _put_byte(b, 92)
            ends[i] = b.len
            continue
        t = _type_of(p)
        if t == &_STR:
            if not _put_str_cell(b, p):
                return False
        elif p == _NONE:
            if not empty_null:
                _put(b, b"null", 4)
        elif t == &_INT:
            v = _as_long_long(p, &overflow)
            if overflow == 0:
                _put_int(b, v)
            else:
                _put_text(b, int_to_str(<object>p))
        elif p == _TRUE:
            _put(b, b"true", 4)
        elif p == _FALSE:
            _put(b, b"false", 5)
        elif t == &_FLOAT and isfinite(_float_value(p)):
            if floatcol[i]:
                _put_text(b, _compact_float(_float_value(p)))
            else:
                _put_text(b, PyObject_Repr(<object>p))
        else:
            if t == &_DICT or t == &_LIST:
                wide = b.wide
                if _put_json(b, p, 0):
                    ends[i] = b.len
                    continue
                b.len = starts[i]  # not plain: orjson writes it
                b.wide = wide
            value = <object>p
            cell = _fast_cell(value)
            if cell is None:
                try:
                    cell = format_cell(value)
                except EncodeError as exc:
                    raise exc.relocated(path_join("$", fields[i])).relocated(
                        f"$[{index}]"
                    ) from None
            if not _put_text(b, cell):
                return False
        ends[i] = b.len
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
    s = cols.col_slot[last]
    if b.data[b.len - 1] == 13 and s >= 0 and cols.slots[s] != NULL:
        # only a string's text can end in a raw CR
        b.len = row_start if last == 0 else starts[last] + shift
        if not _put_text(b, _escape(dumps_cell(<object>cols.slots[s]))):
            return False
    _put_byte(b, 10)
    return True


# What _write_rows did.
cdef enum:
    _WIDE = 0  # stopped at a cell that is not 1-byte text
    _WRITTEN = 1
    _ASKEW = 2  # a row's keys are not the row_keys asked for


cdef int _write_rows(
    _Buf *b, rows, _Columns cols, tuple fields, bint empty_null, frozenset floats,
    char *floatcol, Py_ssize_t *starts, _Stats *st,
) except -1:
    # Every row line into b, each with its LF. With st, every row's cells are
    # counted, also after a cell that is not 1-byte text.
    cdef Py_ssize_t i, c, nf = cols.ncols
    cdef int outcome = _WRITTEN
    b.len = 0
    b.wide = False
    for c in range(nf):
        floatcol[c] = fields[c] in floats
    for i in range(len(rows)):
        try:
            if cols.gather(rows[i], i):
                return _ASKEW
            if st != NULL:
                _count(cols, st)
            if outcome == _WRITTEN:
                if not _put_cells(b, cols, fields, empty_null, floatcol, starts, starts + nf, i):
                    outcome = _WIDE
                    if st == NULL:
                        return _WIDE
        finally:
            cols.release()
    return outcome


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


cdef str _style_text(bint empty_null, frozenset floats, tuple fields):
    cdef str text = u" empty=null" if empty_null else u""
    if floats:
        text += u" float=" + u",".join([_escape(_escape(f)) for f in fields if f in floats])
    return text


cdef str _assemble(_Buf *b, object head, str style, str tail):
    # The rows in b (their last LF dropped) after head, style and tail, in one
    # new string: the payload is copied once, not built and then joined.
    cdef Py_ssize_t n = b.len - 1 if b.len else 0, at = 0
    cdef Py_UCS4 top = 255 if b.wide else 127
    cdef str out
    cdef Py_UCS1 *o
    if head is None:
        return PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, b.data, n)
    for part in (head, style, tail):
        if PyUnicode_KIND(<str>part) != PyUnicode_1BYTE_KIND:
            return u"".join(
                [head, style, tail, PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, b.data, n)]
            )
        if PyUnicode_MAX_CHAR_VALUE(<str>part) > top:
            top = 255
    out = PyUnicode_New(len(<str>head) + len(style) + len(tail) + n, top)
    o = <Py_UCS1 *>PyUnicode_DATA(out)
    for part in (head, style, tail):
        memcpy(o + at, PyUnicode_DATA(<str>part), len(<str>part))
        at += len(<str>part)
    memcpy(o + at, b.data, n)
    return out


def encode_table(rows, fields, paths, head, str tail, keys, /):
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

    Written in one pass in the style of the first 16 rows (the keys checked as
    the rows are read), and again only when the whole table picks another.
    """
    global _scratch_busy, _scratch
    cdef tuple fs = tuple(fields)
    cdef Py_ssize_t nf = len(fs), i = 0, n
    cdef _Columns cols
    cdef _Stats st
    cdef _Buf own
    cdef _Buf *b = &own
    cdef bint shared = False
    cdef int outcome
    cdef Py_ssize_t *starts = NULL
    cdef char *floatcol = NULL
    cdef list lines, cells
    if head is not None and not isinstance(head, str):
        raise TypeError(f"head must be a str or None, not {type(head).__name__}")
    # A list of our own: code a cell calls into cannot swap a checked row for another.
    rows = list(rows)
    for row in rows:
        if not isinstance(row, dict):
            if keys is not None:
                return None
            raise TypeError(f"Row {i} is a {type(row).__name__}, not a dict")
        i += 1
    if not fs:
        raise ValueError("A row needs at least one field")
    if len(paths) != nf:
        raise ValueError("Every field needs a path (or None)")
    cols = _Columns.__new__(_Columns)
    cols.build(paths)
    if keys is not None:
        cols.row_keys = tuple(keys)
    n = len(rows)
    own.data = NULL
    own.len = own.cap = 0
    own.wide = False
    st.integral = <Py_ssize_t *>PyMem_Malloc(nf * sizeof(Py_ssize_t))
    st.has_int = <char *>PyMem_Malloc(nf)
    floatcol = <char *>PyMem_Malloc(nf)
    starts = <Py_ssize_t *>PyMem_Malloc(2 * nf * sizeof(Py_ssize_t))
    failed = None
    try:
        if st.integral == NULL or st.has_int == NULL or floatcol == NULL or starts == NULL:
            raise MemoryError()
        if not _scratch_busy:
            _scratch_busy = shared = True
            b = &_scratch
        _reserve(b, 4096)
        try:
            _zero(&st, nf)
            for i in range(16 if n > 16 else n):  # the style to write in
                if cols.gather(rows[i], i):
                    return None
                _count(cols, &st)
                cols.release()
            empty_null, floats = _pick(&st, fs)
            _zero(&st, nf)
            outcome = _write_rows(b, rows, cols, fs, empty_null, floats, floatcol, starts, &st)
            if outcome == _ASKEW:
                return None
            cols.row_keys = None  # every row's keys are checked now
            style = _pick(&st, fs)
            if outcome == _WRITTEN and style == (empty_null, floats):
                return _assemble(b, head, _style_text(empty_null, floats, fs), tail), empty_null, floats
            empty_null, floats = style
            if outcome == _WRITTEN:  # the first rows misled: write again in the table's style
                _write_rows(b, rows, cols, fs, empty_null, floats, floatcol, starts, NULL)
                return _assemble(b, head, _style_text(empty_null, floats, fs), tail), empty_null, floats
            lines = []
            cells = []
            for i in range(n):
                cols.gather(rows[i], i)
                try:
                    lines.append(_line(cols.values(), fs, empty_null, floats, cells, i))
                finally:
                    cols.release()
            text = u"\n".join(lines)
            if head is not None:
                text = head + _style_text(empty_null, floats, fs) + tail + text
            return text, empty_null, floats
        except Exception as exc:
            failed = exc
    finally:
        cols.release()
        PyMem_Free(st.integral)
        PyMem_Free(st.has_int)
        PyMem_Free(floatcol)
        PyMem_Free(starts)
        if not shared:
            PyMem_Free(own.data)
        else:
            _scratch_busy = False
            if _scratch.cap > _SCRATCH_KEEP:
                PyMem_Free(_scratch.data)
                _scratch.data = NULL
                _scratch.cap = 0
    # Every row's keys are checked, then every row read, before any row is
    # written: those failures come first.
    if cols.row_keys is not None:
        for i in range(n):
            if cols.keys_differ(rows[i]):
                return None
        cols.row_keys = None
    for i in range(n):
        cols.gather(rows[i], i)
        cols.release()
    raise failed


def scan_style(rows, fields, /):
    """A section's style: (``empty=null`` pays, the ``float=`` columns).

    ``empty=null`` when the rows hold more than 3 more nulls than absent keys;
    a column is a float column when it holds no int and at least three integral
    floats (within 1e15). Keys outside ``fields`` are left out, as the row
    writers leave them out.
    """
    cdef Py_ssize_t nulls = 0, absent = 0, width = len(fields), kept
    cdef frozenset names = frozenset(fields)
    cdef dict integral = {}
    cdef set has_int = set()
    cdef double f
    for row in rows:
        if not isinstance(row, dict):
            raise TypeError(f"Expected dict, got {type(row).__name__}")
        kept = 0
        for key, value in (<dict>row).items():
            if key not in names:
                continue
            kept += 1
            if value is None:
                nulls += 1
            elif type(value) is float:
                f = value
                if -1e15 < f < 1e15 and f == <double>(<long long>f):
                    integral[key] = integral.get(key, 0) + 1
            elif type(value) is int:
                has_int.add(key)
        absent += width - kept
    floats = frozenset([k for k, n in integral.items() if n >= 3 and k not in has_int])
    return nulls > absent + 3, floats



def shared_keys(rows, /):
    """The keys every row has, in the same order, when all rows are dicts with str keys.

    None otherwise (also for no rows): the caller then merges key orders itself.
    """
    cdef tuple first = None
    cdef Py_ssize_t n = 0, i, pos
    cdef PyObject *k
    cdef PyObject *v
    cdef PyObject **ref
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
        # Keys of rows built alike are the same objects: compare pointers, and
        # only unequal pointers by value.
        ref = _tuple_items(<PyObject *>first)
        pos = 0
        i = 0
        while _dict_next(<PyObject *>row, &pos, &k, &v):
            # i < n: a key's __eq__ could grow the dict while it is walked
            if i >= n or (k != ref[i] and not (<object>k == <object>ref[i])):
                return None
            i += 1
    return first


def dict_column(rows, name, /):
    """``[row[name] for row in rows]`` when every row is a dict holding an exact dict there.

    None otherwise (also when a row is not a dict).
    """
    cdef list out = []
    for row in rows:
        value = _member(row, name)
        if type(value) is not dict:  # also _ABSENT: a missing member or a row not a dict
            return None
        out.append(value)
    return out


cdef object _member(object row, object key):
    # row[key], or _ABSENT when the key is missing or row is not a dict.
    cdef PyObject *v
    if type(row) is dict:  # no method call
        v = _dict_get(<PyObject *>row, <PyObject *>key)
        if v == NULL:
            _raise_if_set()
            return _ABSENT
        return <object>v
    if isinstance(row, dict):
        return row.get(key, _ABSENT)
    return _ABSENT


cdef object _walk(object row, tuple path):
    # The value at path, or _ABSENT when a member is missing or a non-object is met.
    for key in path:
        row = _member(row, key)
        if row is _ABSENT:
            return _ABSENT
    return row


def constant_columns(rows, paths, /):
    """The columns that hold one scalar in every row: column index -> that value.

    A scalar is an exact str, int, float, bool or None; the same means the same
    type and an equal value (a float also of the same sign: 0.0 and -0.0 differ).
    A path that meets a non-object or a missing member is not constant.
    """
    cdef dict found = {}
    cdef Py_ssize_t k = 0, i, n = len(rows)
    cdef double a = 0, f
    cdef bint same
    if not rows:
        return found
    first = rows[0]
    for path in paths:
        p = tuple(path)
        value = _walk(first, p)
        kind = type(value)
        if not (kind is str or kind is int or kind is float or kind is bool or value is None):
            k += 1
            continue
        same = True
        if kind is float:
            a = value
        for i in range(1, n):  # a varying column stops at its first difference
            other = _walk(rows[i], p)
            if type(other) is not kind:
                same = False
            elif kind is float:
                f = other
                same = f == a and math.copysign(1.0, f) == math.copysign(1.0, a)
            else:
                same = other is value or other == value
            if not same:
                break
        if same:
            found[k] = value
        k += 1
    return found


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
    bint typed, bint empty_null, frozenset floats, Py_ssize_t base, Py_ssize_t *ends,
):
    # The row s[a:b]; error positions are base + the offset within the row.
    # ends holds len(fields) cell ends: the tabs are found once.
    cdef Py_ssize_t nfields = len(fields), ncells = 0, i, ca, cb, pos = 0
    cdef dict row = {}
    cdef bint any_floats = bool(floats)
    cb = a
    while True:  # the cells first: too many is an error before any literal is read
        cb = _find_tab(kind, data, cb, b)
        if ncells < nfields:
            ends[ncells] = cb
        elif ncells == nfields and nfields:
            pos = ends[nfields - 1]
        ncells += 1
        if cb >= b:
            break
        cb += 1
    if ncells > nfields:
        raise DecodeError(
            f"Row has {ncells} cells but the header declares {nfields} fields", pos=base + pos - a
        )
    ca = a
    for i in range(ncells):
        cb = ends[i]
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


cdef Py_ssize_t *_cell_ends(Py_ssize_t nfields) except NULL:
    cdef Py_ssize_t *ends = <Py_ssize_t *>PyMem_Malloc((nfields + 1) * sizeof(Py_ssize_t))
    if ends == NULL:
        raise MemoryError()
    return ends


def decode_row(str line, fields, bint typed, bint empty_null, frozenset floats, /):
    """Read one row line into a dict keyed by ``fields``.

    Short rows are padded with empty cells. Untyped, every cell is a string (as
    reference decoders read it). Typed, an empty cell is an absent key (null
    when ``empty_null``) and numbers in ``floats`` columns are floats. Extra
    cells, or a bad literal, raise DecodeError whose ``pos`` is relative to the line.
    """
    cdef tuple fs = tuple(fields)
    cdef Py_ssize_t *ends = _cell_ends(len(fs))
    try:
        return _read_row(
            line, PyUnicode_KIND(line), PyUnicode_DATA(line), 0, len(line), fs,
            typed, empty_null, floats, 0, ends,
        )
    finally:
        PyMem_Free(ends)


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
    cdef Py_ssize_t *ends = _cell_ends(len(fs))
    try:
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
                    if typed and stop - pos > max_brackets:  # a shorter line cannot hold more
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
                        _read_row(text, kind, data, pos, stop, fs, typed, empty_null, floats, pos, ends)
                    )
            pos = end + 1
        return rows, comments, n
    finally:
        PyMem_Free(ends)
