# ---------------------------------------------------------------- byte buffers


cdef struct _Buf:
    # Text at `kind` bytes a character (1, 2 or 4): that of the widest string
    # written, so the result string is one copy of it. Sizes are in characters,
    # except cap.
    Py_UCS1 *data
    Py_ssize_t len
    Py_ssize_t cap  # in bytes
    int kind
    bint wide  # a 1-byte buffer holds a character above 127: the text is Latin-1, not ASCII


cdef extern from "_gcx_wide.h":
    Py_ssize_t gcx_wide_copy(
        void *dst, int dkind, const void *src, int skind, Py_ssize_t n, int esc
    )
    void gcx_widen(void *data, int was, int kind, Py_ssize_t n)


cdef int _reserve(_Buf *b, Py_ssize_t extra) except -1:
    # Room for extra more characters.
    cdef Py_ssize_t need = (b.len + extra) * b.kind, cap = b.cap * 2
    cdef Py_UCS1 *p
    if need <= b.cap:
        return 0
    if cap < need:
        cap = need
    p = <Py_UCS1 *>PyMem_Realloc(b.data, cap)
    if p == NULL:
        raise MemoryError()
    b.data = p
    b.cap = cap
    return 0


cdef inline void *_end(_Buf *b):
    # Where the next character goes.
    return b.data + b.len * b.kind


cdef int _widen(_Buf *b, int kind) except -1:
    # The text so far rewritten at a wider kind (in place), before a string of that kind.
    cdef int was = b.kind
    b.kind = kind
    _reserve(b, 0)  # room for the text so far at the new kind
    gcx_widen(b.data, was, kind, b.len)
    return 0


cdef inline int _put(_Buf *b, const void *src, Py_ssize_t n) except -1:
    # n ASCII bytes.
    _reserve(b, n)
    if b.kind == PyUnicode_1BYTE_KIND:
        memcpy(b.data + b.len, src, n)
    else:
        gcx_wide_copy(_end(b), b.kind, src, PyUnicode_1BYTE_KIND, n, 0)
    b.len += n
    return 0


cdef inline int _put_byte(_Buf *b, Py_UCS1 c) except -1:
    _reserve(b, 1)
    if b.kind == PyUnicode_1BYTE_KIND:
        b.data[b.len] = c
    else:
        PyUnicode_WRITE(b.kind, b.data, b.len, c)
    b.len += 1
    return 0


cdef extern from "_gcx_escape.h":
    Py_ssize_t gcx_escape_into(Py_UCS1 *dst, const Py_UCS1 *src, Py_ssize_t n, int room_before)


cdef inline int _put_escaped(_Buf *b, const Py_UCS1 *src, Py_ssize_t n, int room) except -1:
    # room: 16 bytes before src + n are readable even when n < 16.
    _reserve(b, 2 * n)
    if b.kind == PyUnicode_1BYTE_KIND:
        b.len += gcx_escape_into(b.data + b.len, src, n, room)
    else:
        b.len += gcx_wide_copy(_end(b), b.kind, src, PyUnicode_1BYTE_KIND, n, 1)
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
        tmp[i] = <char>(_ZERO + u % 10)
        u //= 10
        if u == 0:
            break
    if v < 0:
        i -= 1
        tmp[i] = _MINUS
    return _put(b, tmp + i, 24 - i)


cdef extern from "_gcx_float.h":
    int gcx_float_repr(double f, char *out)

cdef extern from "Python.h":
    char *PyOS_double_to_string(
        double val, char format_code, int precision, int flags, int *ptype
    ) except NULL
    int Py_DTSF_ADD_DOT_0


cdef int _put_float(_Buf *b, double f, bint compact) except -1:
    # repr(f) (a finite f), or in a float column _compact_float(f), with no
    # string object: a short float is written directly, any other by CPython's
    # own repr routine into a C buffer.
    cdef char *s
    if compact and -1e15 < f < 1e15 and f == <double>(<long long>f):
        if f == 0 and signbit(f):
            return _put(b, b"-0", 2)
        return _put_int(b, <long long>f)
    cdef char tmp[32]
    cdef int n
    if b.kind != PyUnicode_1BYTE_KIND:
        n = gcx_float_repr(f, tmp)
        if n:
            return _put(b, tmp, n)
    else:
        _reserve(b, 32)
        n = gcx_float_repr(f, <char *>b.data + b.len)
        if n:
            b.len += n
            return 0
    s = PyOS_double_to_string(f, b"r", 0, Py_DTSF_ADD_DOT_0, NULL)
    try:
        _put(b, s, strlen(s))
    finally:
        PyMem_Free(s)
    return 0


cdef int _put_text(_Buf *b, str s) except -1:
    # A str already in cell form (an escaped literal), of any kind.
    cdef int kind = PyUnicode_KIND(s)
    cdef Py_ssize_t n = len(s)
    if kind > b.kind:
        _widen(b, kind)
    if kind == PyUnicode_1BYTE_KIND and not PyUnicode_IS_ASCII(s):
        b.wide = True
    _reserve(b, n)
    if b.kind == PyUnicode_1BYTE_KIND:
        memcpy(b.data + b.len, PyUnicode_DATA(s), n)
    else:
        gcx_wide_copy(_end(b), b.kind, PyUnicode_DATA(s), kind, n, 0)
    b.len += n
    return 0


cdef int _put_wide_cell(_Buf *b, PyObject *s, Py_ssize_t skip) except -1:
    # _put_str_cell of a 2- or 4-byte str. Such a str holds a character above
    # U+00FF (CPython keeps every str at its narrowest kind), so it is never a
    # number or a literal; only its first character may call for a backslash.
    cdef int kind = _ukind(s)
    cdef Py_ssize_t n = _ulen(s) - skip
    cdef Py_UCS4 c
    if skip:  # the rest may be narrower: it is written as the str it is
        rest = PyUnicode_Substring(<object>s, skip, _ulen(s))
        return _put_str_cell(b, <PyObject *>rest, 0)
    c = PyUnicode_READ(kind, _udata(s), 0)
    if c == _QUOTE or c == _LBRACKET or c == _LBRACE:  # " [ {
        _put_byte(b, _BACKSLASH)
    if kind > b.kind:
        _widen(b, kind)
    _reserve(b, 2 * n)
    b.len += gcx_wide_copy(_end(b), b.kind, _udata(s), kind, n, 1)
    return 0


# A compact str's header (at least PyASCIIObject) comes right before its data.
cdef int _ROOM = sizeof(PyASCIIObject) >= 16


cdef int _put_str_cell(_Buf *b, PyObject *s, Py_ssize_t skip) except -1:
    # What _format_str writes for s[skip:] (skip: a column's prefix), straight into the
    # buffer.
    # The guards look at the raw text: one holding a backslash, TAB or LF is
    # never a number or a literal, escaped or not.
    cdef Py_ssize_t n
    cdef const Py_UCS1 *d
    cdef Py_UCS1 c
    if skip > _ulen(s):  # as s[skip:] is
        skip = _ulen(s)
    n = _ulen(s) - skip
    if n == 0:
        return _put(b, b'""', 2)
    if _ukind(s) != PyUnicode_1BYTE_KIND:
        return _put_wide_cell(b, s, skip)
    if not _uascii(s):
        b.wide = True
    d = <const Py_UCS1 *>_udata(s) + skip
    c = d[0]
    if c == _QUOTE or c == _LBRACKET or c == _LBRACE:  # " [ {
        _put_byte(b, _BACKSLASH)
    elif (c == _MINUS or _digit(c)) and _is_number(PyUnicode_1BYTE_KIND, <void *>d, 0, n):
        _put_byte(b, _BACKSLASH)
    elif n == 4 and memcmp(d, b"true", 4) == 0:
        # The backslash goes before a letter no JSON escape uses: t\rue, \false and n\ull
        # would read to a model as a CR, a form feed and a unicode escape.
        _put(b, b"tru\\e", 5)
        return 0
    elif n == 5 and memcmp(d, b"false", 5) == 0:
        _put(b, b"fals\\e", 6)
        return 0
    elif n == 4 and memcmp(d, b"null", 4) == 0:
        _put(b, b"nul\\l", 5)
        return 0
    # the bytes before d: a compact str's header, or its own text before skip
    return _put_escaped(b, d, n, _ROOM and _ucompact(s))


# JSON cells of plain values (exact dicts with str keys, lists, 1-byte strings,
# 64-bit ints, booleans, null) are written straight into the buffer as orjson
# would write them, already escaped for the cell (each JSON backslash doubled).
# Anything else (floats, big ints, wider text, deep nesting) goes to orjson.
cdef int _JSON_DEPTH = 32
cdef const char *_HEX = b"0123456789abcdef"
cdef const char *_SHORT = b"btn?fr"  # JSON's short escapes of bytes 8 (\b) to 13 (\r)


cdef bint _put_json_wide(_Buf *b, PyObject *s) except -1:
    # _put_json_str into a wider buffer: False for a str wider than the buffer
    # (no widening here, so a cell rolled back leaves the buffer as it was)
    # and for a lone surrogate (orjson refuses it; dumps_cell writes it).
    cdef int kind = _ukind(s), k = b.kind
    cdef Py_ssize_t n = _ulen(s), i, j
    cdef const void *d = _udata(s)
    cdef unsigned int u  # a number: Cython treats a Py_UCS4 as a character
    if kind > k:
        return False
    _reserve(b, 7 * n + 2)  # a control character takes 7: \\u001f
    j = b.len
    PyUnicode_WRITE(k, b.data, j, _QUOTE)
    j += 1
    for i in range(n):
        u = PyUnicode_READ(kind, d, i)
        if u >= _SPACE and u != _QUOTE and u != _BACKSLASH:
            if 0xD800 <= u <= 0xDFFF:
                return False
            PyUnicode_WRITE(k, b.data, j, u)
            j += 1
            continue
        PyUnicode_WRITE(k, b.data, j, _BACKSLASH)  # JSON's backslash, doubled for the cell
        PyUnicode_WRITE(k, b.data, j + 1, _BACKSLASH)
        j += 2
        if u == _QUOTE:
            PyUnicode_WRITE(k, b.data, j, _QUOTE)
            j += 1
        elif u == _BACKSLASH:
            PyUnicode_WRITE(k, b.data, j, _BACKSLASH)
            PyUnicode_WRITE(k, b.data, j + 1, _BACKSLASH)
            j += 2
        elif u == _BACKSPACE or u == _TAB or u == _LF or u == _FORMFEED or u == _CR:
            PyUnicode_WRITE(k, b.data, j, <Py_UCS1>_SHORT[u - _BACKSPACE])
            j += 1
        else:
            PyUnicode_WRITE(k, b.data, j, _LOWER_U)  # u00XX
            PyUnicode_WRITE(k, b.data, j + 1, _ZERO)
            PyUnicode_WRITE(k, b.data, j + 2, _ZERO)
            PyUnicode_WRITE(k, b.data, j + 3, <Py_UCS1>_HEX[u >> 4])
            PyUnicode_WRITE(k, b.data, j + 4, <Py_UCS1>_HEX[u & 15])
            j += 5
    PyUnicode_WRITE(k, b.data, j, _QUOTE)
    b.len = j + 1
    return True


cdef bint _put_json_str(_Buf *b, PyObject *s) except -1:
    cdef Py_ssize_t n = _ulen(s), i
    cdef const Py_UCS1 *d
    cdef Py_UCS1 *o
    cdef Py_UCS1 u
    if _ukind(s) != PyUnicode_1BYTE_KIND or b.kind != PyUnicode_1BYTE_KIND:
        return _put_json_wide(b, s)
    if not _uascii(s):
        b.wide = True
    d = <const Py_UCS1 *>_udata(s)
    _reserve(b, 7 * n + 2)  # a control character takes 7 bytes: \\u001f
    o = b.data + b.len
    o[0] = _QUOTE
    o += 1
    for i in range(n):
        u = d[i]
        if u >= _SPACE and u != _QUOTE and u != _BACKSLASH:
            o[0] = u
            o += 1
            continue
        o[0] = _BACKSLASH  # JSON's backslash, doubled for the cell
        o[1] = _BACKSLASH
        o += 2
        if u == _QUOTE:  # \" in JSON
            o[0] = _QUOTE
            o += 1
        elif u == _BACKSLASH:  # \\ in JSON: two backslashes, each doubled
            o[0] = _BACKSLASH
            o[1] = _BACKSLASH
            o += 2
        elif u == _BACKSPACE or u == _TAB or u == _LF or u == _FORMFEED or u == _CR:
            o[0] = _SHORT[u - _BACKSPACE]
            o += 1
        else:
            o[0] = _LOWER_U  # u00XX
            o[1] = _ZERO
            o[2] = _ZERO
            o[3] = _HEX[u >> 4]
            o[4] = _HEX[u & 15]
            o += 5
    o[0] = _QUOTE
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
        _put_byte(b, _LBRACE)
        while _dict_next(v, &pos, &k, &item):
            if _type_of(k) != &_STR:
                return False
            if not first:
                _put_byte(b, _COMMA)
            first = False
            if not _put_json_str(b, k):
                return False
            _put_byte(b, _COLON)
            if not _put_json(b, item, depth + 1):
                return False
        _put_byte(b, _RBRACE)
    elif t == &_LIST:
        _put_byte(b, _LBRACKET)
        i = 0
        while i < _list_size(v):
            if i:
                _put_byte(b, _COMMA)
            if not _put_json(b, _list_item(v, i), depth + 1):
                return False
            i += 1
        _put_byte(b, _RBRACKET)
    else:
        return False
    return True
