# ------------------------------------------ child sections and cell styles: per-row leaves

from cpython.unicode cimport PyUnicode_Tailmatch


def split_column(rows, key, mark, link, tuple keys=None, /):
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
    cdef list out = [], items = []
    cdef tuple want = keys
    cdef Py_ssize_t i = 0, j, size = 0
    cdef PyObject *value
    cdef object held  # value, owned: an item's key compare may run Python code
    cdef dict copy, item
    cdef _Buf b
    b.data = <Py_UCS1 *>PyMem_Malloc(256)
    if b.data == NULL:
        raise MemoryError()
    b.cap = 256
    b.kind = PyUnicode_1BYTE_KIND
    try:
        for row in rows:
            if want is not None and _row_askew(row, want):
                return False
            if type(row) is not dict or key not in <dict>row:
                if type(row) is dict and mark in <dict>row:
                    return None
                out.append(row)
                i += 1
                continue
            if mark in <dict>row:
                return None
            value = _dict_get(<PyObject *>row, <PyObject *>key)
            if value == NULL:
                _raise_if_set()
                return None  # key was there a moment ago: a key whose __eq__ lies
            held = <object>value
            if value == _NONE:
                count = None
            elif _type_of(value) == &_LIST:
                j = 0
                while j < _list_size(value):
                    entry = <object>_list_item(value, j)
                    if type(entry) is not dict or not entry or link in <dict>entry:
                        return None
                    item = {link: i}
                    item.update(<dict>entry)
                    items.append(item)
                    j += 1
                b.len = 0
                b.wide = False
                if _put_json(&b, value, 0):
                    size += b.len
                else:  # not plain: orjson writes it (and refuses NaN and the like)
                    try:
                        size += len(format_cell(<object>value))
                    except EncodeError:
                        return None
                count = _list_size(value)
            else:
                return None
            copy = (<dict>row).copy()
            del copy[key]
            copy[mark] = count
            out.append(copy)
            i += 1
    finally:
        PyMem_Free(b.data)
    return out, items, size


cdef Py_ssize_t _rows_start(str s, bint header) except -2:
    # Where the row lines begin: after the header line, if the text has one (-1: no rows).
    cdef Py_ssize_t nl
    if not header:
        return 0
    nl = PyUnicode_FindChar(s, _LF, 0, len(s), 1)
    return -1 if nl < 0 else nl + 1


cdef Py_ssize_t _find(int kind, const void *data, Py_UCS4 c, Py_ssize_t a, Py_ssize_t b) noexcept:
    # The first index of c in [a, b), or -1: memchr for 1-byte text.
    cdef const Py_UCS1 *hit
    if a >= b:
        return -1
    if kind == PyUnicode_1BYTE_KIND:
        hit = <const Py_UCS1 *>memchr(<const Py_UCS1 *>data + a, c, b - a)
        return -1 if hit == NULL else hit - <const Py_UCS1 *>data
    if 0 < c < 256:
        return _find_wide(kind, data, c, a, b)
    while a < b:
        if PyUnicode_READ(kind, data, a) == c:
            return a
        a += 1
    return -1


cdef struct _CrCell:
    # A cell of the row lines that holds a raw CR: [start, end), its index in its
    # line, and its first CR. `pos`/`k`: the next cell to look from and its index.
    Py_ssize_t start, end, k, cr, pos, next_k


cdef bint _next_cr_cell(int kind, const void *data, Py_ssize_t n, _CrCell *c) noexcept:
    # Moves c to the next cell holding a raw CR (False: none left). A cell
    # never holds a raw TAB or LF, so it ends at the next one; C searches only.
    cdef Py_ssize_t pos = c.pos, k = c.next_k, cr, at, tab, nl
    cr = _find(kind, data, _CR, pos, n)
    if cr < 0:
        return False
    while True:  # to the line holding the CR
        nl = _find(kind, data, _LF, pos, cr)
        if nl < 0:
            break
        pos, k = nl + 1, 0
    while True:  # to its cell
        tab = _find(kind, data, _TAB, pos, cr)
        if tab < 0:
            break
        pos, k = tab + 1, k + 1
    tab = _find(kind, data, _TAB, cr, n)
    nl = _find(kind, data, _LF, cr, n if tab < 0 else tab)
    at = nl if nl >= 0 else tab if tab >= 0 else n
    c.start, c.end, c.k, c.cr = pos, at, k, cr
    c.pos = at + 1
    c.next_k = 0 if at == nl else k + 1
    return True


def crlf_cells(text, bint header, /):
    """The indexes of the cells (in the row lines) that hold a raw CR."""
    cdef str s = _text_arg(text)
    cdef set found = set()
    cdef _CrCell c
    c.pos = _rows_start(s, header)
    c.next_k = 0
    if c.pos < 0:
        return found
    while _next_cr_cell(PyUnicode_KIND(s), PyUnicode_DATA(s), len(s), &c):
        found.add(c.k)
    return found


def drop_crlf(text, bint header, chosen, /):
    """The text with the CR of each ``CR \\n`` dropped in the row cells at ``chosen`` indexes.

    JSON cells (those starting with ``"``, ``[`` or ``{``) keep theirs.
    """
    cdef str s = _text_arg(text)
    cdef Py_ssize_t n = len(s), cr, kept, a, w
    cdef set wanted = set(chosen)
    cdef list drops = []
    cdef int kind = PyUnicode_KIND(s)
    cdef const void *src = PyUnicode_DATA(s)
    cdef Py_UCS1 *dst
    cdef Py_UCS4 first
    cdef _CrCell c
    c.pos = _rows_start(s, header)
    c.next_k = 0
    if c.pos < 0 or not wanted:
        return s
    while _next_cr_cell(kind, src, n, &c):
        first = PyUnicode_READ(kind, src, c.start)
        if c.k not in wanted or first == _QUOTE or first == _LBRACKET or first == _LBRACE:
            continue
        cr = c.cr
        while cr >= 0:
            if cr + 2 < c.end and PyUnicode_READ(kind, src, cr + 1) == _BACKSLASH and (
                PyUnicode_READ(kind, src, cr + 2) == _LOWER_N
            ):
                drops.append(cr)
            cr = _find(kind, src, _CR, cr + 1, c.end)
    if not drops:
        return s
    out = PyUnicode_New(n - len(drops), PyUnicode_MAX_CHAR_VALUE(s))
    dst = <Py_UCS1 *>PyUnicode_DATA(out)
    a = w = 0
    for d in drops:
        cr = d
        kept = cr - a
        memcpy(dst + w * kind, <const Py_UCS1 *>src + a * kind, kept * kind)
        w += kept
        a = cr + 1
    memcpy(dst + w * kind, <const Py_UCS1 *>src + a * kind, (n - a) * kind)
    return out


def sparse_column(rows, name, Py_ssize_t least, /):
    """``(null, objects)`` when every row (an exact dict) holds a non-empty object at ``name``
    or misses it in one way only (null: ``null`` True; no key: False), and ``least`` rows
    or more hold one; ``(None, None)`` otherwise (a row holding anything else there, both
    kinds of miss, too few objects)."""
    cdef list values = []
    cdef int kinds = 0  # 1: a null seen, 2: a missing key
    cdef PyObject *v
    for row in rows:
        if type(row) is not dict:
            return None, None
        v = _dict_get(<PyObject *>row, <PyObject *>name)
        if v == NULL:
            _raise_if_set()
            kinds |= 2
        elif _type_of(v) == &_DICT and _dict_size(v):
            values.append(<object>v)
            continue
        elif v == _NONE:
            kinds |= 1
        elif v == <PyObject *>_ABSENT:
            kinds |= 2
        else:
            return None, None
        if kinds == 3:
            return None, None
    if len(values) < least or not kinds:
        return None, None
    return kinds == 1, values


def column_at(rows, path, /):
    """Each row's value at ``path`` (keys read through exact dicts), ``ABSENT`` where a
    key is missing or a value on the way is no exact dict: a column of the searches."""
    cdef tuple keys = tuple(path)
    cdef Py_ssize_t nk = len(keys), j
    cdef list out = []
    cdef PyObject *v
    for row in rows:
        value = row
        for j in range(nk):
            if type(value) is not dict:
                value = _ABSENT
                break
            v = _dict_get(<PyObject *>value, <PyObject *>keys[j])
            if v == NULL:
                _raise_if_set()
                value = _ABSENT
                break
            value = <object>v
        out.append(value)
    return out


def source_texts(values, /):
    """What each value puts into a template: an exact str itself, an exact int its
    digits (int_to_str's error past the digit limit), anything else None."""
    cdef list out = []
    cdef int overflow
    for value in values:
        t = type(value)
        if t is str:
            out.append(value)
        elif t is int:
            overflow = 0
            PyLong_AsLongLongAndOverflow(value, &overflow)
            out.append(PyObject_Str(value) if overflow == 0 else int_to_str(value))
        else:
            out.append(None)
    return out


def template_matches(values, texts, before, after, absent, /):
    """Per row, whether its value is ``before + text + after``, or None if one is ``absent``.

    1: an exact str that is; 2: another value equal to it (a str subclass, an
    object's own ``==``); 0: neither, or no text (None) for the row.
    """
    cdef list vs = list(values), ts = list(texts), out
    cdef Py_ssize_t i, n = len(vs), lb, la, lt, lv
    cdef object value, text
    if type(before) is not str or type(after) is not str:
        raise TypeError("before and after must be str")
    if len(ts) != n:
        raise ValueError("values and texts differ in length")
    lb, la = len(<str>before), len(<str>after)
    out = [0] * n
    for i in range(n):
        value = vs[i]
        if value is absent:
            return None
        text = ts[i]
        if text is None:
            continue
        if type(value) is str and type(text) is str:
            lt = len(<str>text)
            lv = len(<str>value)
            if (
                lv == lb + lt + la
                and PyUnicode_Tailmatch(value, before, 0, lb, -1) == 1
                and PyUnicode_Tailmatch(value, text, lb, lb + lt, -1) == 1
                and PyUnicode_Tailmatch(value, after, lb + lt, lv, 1) == 1
            ):
                out[i] = 1
        elif value == before + text + after:
            out[i] = 1 if type(value) is str else 2
    return out
