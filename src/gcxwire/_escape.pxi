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
        extra = _count_byte(b, n, _BACKSLASH) + _count_byte(b, n, _TAB) + _count_byte(b, n, _LF)
        if extra == 0:
            return s
        out1 = PyUnicode_New(n + extra, PyUnicode_MAX_CHAR_VALUE(s))
        o = <Py_UCS1 *>PyUnicode_DATA(out1)
        i = 0
        # The next backslash, LF and TAB, each searched again only once passed.
        nb = _find_byte(b, 0, n, _BACKSLASH)
        nl = _find_byte(b, 0, n, _LF)
        nt = _find_byte(b, 0, n, _TAB)
        while True:
            k = nb if nb < nl else nl
            k = k if k < nt else nt
            memcpy(o + j, b + i, k - i)
            j += k - i
            if k == n:
                return out1
            u = b[k]
            o[j] = _BACKSLASH
            o[j + 1] = _LOWER_T if u == _TAB else (_LOWER_N if u == _LF else _BACKSLASH)
            j += 2
            i = k + 1
            if u == _BACKSLASH:
                nb = _find_byte(b, i, n, _BACKSLASH)
            elif u == _LF:
                nl = _find_byte(b, i, n, _LF)
            else:
                nt = _find_byte(b, i, n, _TAB)
    for i in range(n):
        c = PyUnicode_READ(kind, data, i)
        if c == _BACKSLASH or c == _TAB or c == _LF:
            extra += 1
    if extra == 0:
        return s
    cdef str out = PyUnicode_New(n + extra, PyUnicode_MAX_CHAR_VALUE(s))
    cdef void *od = PyUnicode_DATA(out)
    for i in range(n):
        c = PyUnicode_READ(kind, data, i)
        if c == _BACKSLASH or c == _TAB or c == _LF:
            PyUnicode_WRITE(kind, od, j, _BACKSLASH)
            j += 1
            c = _LOWER_T if c == _TAB else (_LOWER_N if c == _LF else _BACKSLASH)
        PyUnicode_WRITE(kind, od, j, c)
        j += 1
    return out


cdef inline Py_ssize_t _next_backslash(const Py_UCS1 *src, Py_ssize_t i, Py_ssize_t b):
    cdef const void *p = memchr(src + i, _BACKSLASH, b - i) if i < b else NULL
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
        dst[o] = _TAB if c == _LOWER_T else (_LF if c == _LOWER_N else c)
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
    cdef Py_ssize_t first = PyUnicode_FindChar(s, _BACKSLASH, a, b, 1)
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
                if u == _BACKSLASH and i < b:
                    u = src[i]
                    i += 1
                    if u == _LOWER_T:
                        u = _TAB
                    elif u == _LOWER_N:
                        u = _LF
                dst[m] = u
                m += 1
            return PyUnicode_FromKindAndData(kind, buf, m)
        while i < b:
            c = PyUnicode_READ(kind, data, i)
            i += 1
            if c == _BACKSLASH and i < b:
                c = PyUnicode_READ(kind, data, i)
                i += 1
                if c == _LOWER_T:
                    c = _TAB
                elif c == _LOWER_N:
                    c = _LF
            PyUnicode_WRITE(kind, buf, m, c)
            m += 1
        return PyUnicode_FromKindAndData(kind, buf, m)
    finally:
        PyMem_Free(buf)


cdef inline str _text_of(object s):
    # A str subclass (a StrEnum member, say) reads as its text, as in the pure twin.
    if type(s) is str:
        return <str>s
    if isinstance(s, str):
        return str.__str__(s)
    raise TypeError(f"Argument 's' has incorrect type (expected str, got {type(s).__name__})")


def escape(s, /):
    """Apply the GCX1 escapes: backslash, TAB and LF become ``\\\\``, ``\\t``, ``\\n``."""
    return _escape(_text_of(s))


def unescape(s, /):
    """Undo the escapes as the reference does: ``\\x`` is ``x``, a lone final ``\\`` stays."""
    cdef str t = _text_of(s)
    return _unescape_range(t, 0, len(t))


# ------------------------------------------------------------------- numbers


cdef inline bint _digit(Py_UCS4 c):
    return _ZERO <= c <= _NINE


cdef bint _is_number(int kind, void *data, Py_ssize_t i, Py_ssize_t n):
    # The JSON number grammar over data[i:n]: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    cdef Py_ssize_t start
    cdef Py_UCS4 c
    if i >= n:
        return False
    if PyUnicode_READ(kind, data, i) == _MINUS:  # -
        i += 1
        if i == n:
            return False
    c = PyUnicode_READ(kind, data, i)
    if c == _ZERO:
        i += 1
    elif _ONE <= c <= _NINE:
        while i < n and _digit(PyUnicode_READ(kind, data, i)):
            i += 1
    else:
        return False
    if i < n and PyUnicode_READ(kind, data, i) == _DOT:  # .
        i += 1
        start = i
        while i < n and _digit(PyUnicode_READ(kind, data, i)):
            i += 1
        if i == start:
            return False
    if i < n and (<Py_UCS4>(<unsigned int>PyUnicode_READ(kind, data, i) | _CASE_BIT)) == _LOWER_E:
        i += 1
        if i < n:
            c = PyUnicode_READ(kind, data, i)
            if c == _PLUS or c == _MINUS:
                i += 1
        start = i
        while i < n and _digit(PyUnicode_READ(kind, data, i)):
            i += 1
        if i == start:
            return False
    return i == n


cdef extern from "_gcx_number.h":
    bint gcx_exact_double(unsigned long long m, long exp10, double *out)


cdef object _float_cell(str s, int kind, void *data, Py_ssize_t a, Py_ssize_t b):
    # data[a:b] is a number with a fraction or an exponent: float(text), the short
    # ones without strtod; a literal beyond float range (1e400) stays text, not inf.
    cdef Py_ssize_t i = a, digits = 0, exp_digits = 0
    cdef unsigned long long m = 0
    cdef long exp10 = 0, e = 0
    cdef bint neg = PyUnicode_READ(kind, data, a) == _MINUS, exp_neg = False
    cdef Py_UCS4 c
    cdef double f
    if neg:
        i += 1
    while i < b:  # the significand's digits, the point skipped
        c = PyUnicode_READ(kind, data, i)
        if c == _DOT:
            i += 1
            while i < b and _digit(PyUnicode_READ(kind, data, i)):
                if m or PyUnicode_READ(kind, data, i) != _ZERO:
                    digits += 1
                m = m * 10 + (<unsigned int>PyUnicode_READ(kind, data, i) - _ZERO)
                exp10 -= 1
                i += 1
            break
        if not _digit(c):
            break
        if m or c != _ZERO:
            digits += 1
        m = m * 10 + (<unsigned int>c - _ZERO)
        i += 1
    if i < b:  # e or E, then the grammar's optional sign and digits
        i += 1
        c = PyUnicode_READ(kind, data, i)
        if c == _PLUS or c == _MINUS:
            exp_neg = c == _MINUS
            i += 1
        while i < b:
            if exp_digits < 9:  # a longer exponent goes to strtod below
                e = e * 10 + (<long>PyUnicode_READ(kind, data, i) - _ZERO)
            exp_digits += 1
            i += 1
        exp10 += -e if exp_neg else e
    if digits <= 19 and exp_digits <= 9 and gcx_exact_double(m, exp10, &f):
        return -f if neg else f
    text = PyUnicode_Substring(s, a, b)
    f = float(text)
    return f if isfinite(f) else text


cdef object _number(str s, int kind, void *data, Py_ssize_t a, Py_ssize_t b):
    # data[a:b] matches the number grammar.
    cdef Py_ssize_t i
    cdef long long v = 0
    cdef bint neg
    cdef Py_UCS4 c
    for i in range(a, b):
        c = PyUnicode_READ(kind, data, i)
        if c == _DOT or c == _LOWER_E or c == _UPPER_E:
            return _float_cell(s, kind, data, a, b)
    if b - a <= 18:  # fits a long long: no Python int parsing
        neg = PyUnicode_READ(kind, data, a) == _MINUS
        for i in range(a + neg, b):
            v = v * 10 + (<long long>PyUnicode_READ(kind, data, i) - _ZERO)
        return PyLong_FromLongLong(-v if neg else v)
    return str_to_int(PyUnicode_Substring(s, a, b))
