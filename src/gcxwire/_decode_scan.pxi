# Decode-side scans over 1-byte (Latin-1) text: plain pointer loops the compiler
# keeps in registers, where the generic PyUnicode_READ switch costs a branch a
# character. Used by the row reader's limit checks and the JSON literal cells.


cdef extern from "_gcx_depth.h":
    Py_ssize_t gcx_count_brackets(const Py_UCS1 *p, Py_ssize_t n) nogil
    int gcx_json_deeper(const Py_UCS1 *p, Py_ssize_t n, Py_ssize_t limit) nogil


cdef inline Py_ssize_t _count_brackets(const Py_UCS1 *b, Py_ssize_t n):
    # How many [ and { b[:n] holds, in one pass (a memchr per bracket is slow
    # on JSON, where they are dense): 16 bytes a step in byte lanes (C).
    return gcx_count_brackets(b, n)


cdef bint _digit_run(str text, Py_ssize_t at_least):
    # Whether text holds a run of at_least digits or more. Only every at_least-th
    # character is looked at until one is a digit: a run that long covers one.
    cdef int kind = PyUnicode_KIND(text)
    cdef void *data = PyUnicode_DATA(text)
    cdef Py_ssize_t i, s, e, n = len(text)
    cdef const Py_UCS1 *b = <const Py_UCS1 *>data
    if at_least <= 0:
        return True
    i = at_least - 1
    if kind == PyUnicode_1BYTE_KIND:
        while i < n:
            if <unsigned int>(b[i] - _ZERO) > 9:
                i += at_least
                continue
            s = i
            while s > 0 and <unsigned int>(b[s - 1] - _ZERO) <= 9:
                s -= 1
            e = i + 1
            while e < n and <unsigned int>(b[e] - _ZERO) <= 9:
                e += 1
            if e - s >= at_least:
                return True
            i = e + at_least  # text[e] is no digit: a longer run starts after it
        return False
    while i < n:
        if not _digit(PyUnicode_READ(kind, data, i)):
            i += at_least
            continue
        s = i
        while s > 0 and _digit(PyUnicode_READ(kind, data, s - 1)):
            s -= 1
        e = i + 1
        while e < n and _digit(PyUnicode_READ(kind, data, e)):
            e += 1
        if e - s >= at_least:
            return True
        i = e + at_least
    return False


cdef bint _deeper(PyObject *v, Py_ssize_t room) noexcept:
    # Whether the parsed JSON value v (a list or dict) nests more than room
    # containers deep, v counted. Over borrowed pointers: no Python code runs.
    # The recursion is as deep as the value, which a JSON parser built.
    cdef Py_ssize_t pos = 0, i
    cdef PyObject *key
    cdef PyObject *item
    cdef PyTypeObject *t
    if room <= 0:
        return True
    if _type_of(v) == &_LIST:
        for i in range(_list_size(v)):
            item = _list_item(v, i)
            t = _type_of(item)
            if (t == &_LIST or t == &_DICT) and _deeper(item, room - 1):
                return True
        return False
    while _dict_next(v, &pos, &key, &item):
        t = _type_of(item)
        if (t == &_LIST or t == &_DICT) and _deeper(item, room - 1):
            return True
    return False


cdef bint _cells_deeper(str s, Py_ssize_t a, Py_ssize_t b, Py_ssize_t limit) except -1:
    # _row_deeper for the 1-byte row s[a:b] once _read_row has read it: each JSON
    # literal cell's text (unescaped, as the parser read it: valid JSON) measured
    # by gcx_json_deeper, a linear pass over the text, where walking the parsed
    # values visits every object of the tree (and misses the cache past a few MB).
    cdef const Py_UCS1 *d = <const Py_UCS1 *>PyUnicode_DATA(s)
    cdef Py_ssize_t ca = a, cb
    cdef str text
    while ca <= b:
        cb = _find_tab(PyUnicode_1BYTE_KIND, <void *>d, ca, b)
        if cb > ca and (d[ca] == _LBRACKET or d[ca] == _LBRACE):
            if memchr(d + ca, _BACKSLASH, cb - ca) == NULL:
                if gcx_json_deeper(d + ca, cb - ca, limit):
                    return True
            else:  # the unescaped text of a 1-byte cell is 1-byte too
                text = _unescape_range(s, ca, cb)
                if gcx_json_deeper(<const Py_UCS1 *>PyUnicode_DATA(text), len(text), limit):
                    return True
        ca = cb + 1
    return False


cdef bint _row_deeper(dict row, Py_ssize_t limit):
    # Whether a typed row's JSON literal cells nest deeper than limit, read from
    # their values: only such a cell makes a row member a list or a dict.
    cdef Py_ssize_t pos = 0
    cdef PyObject *key
    cdef PyObject *item
    cdef PyTypeObject *t
    while _dict_next(<PyObject *>row, &pos, &key, &item):
        t = _type_of(item)
        if (t == &_LIST or t == &_DICT) and _deeper(item, limit):
            return True
    return False
