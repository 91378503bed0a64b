# DCP's leaves: the positional rows of a batch of records (encode), the rows'
# lines from orjson's one text or from the values (wide text), and back
# (decode). Same results as the pure twin's dcp_* functions; None wherever the
# pure Python path must decide.

cdef extern from "_gcx_dcp_text.h":
    Py_ssize_t dcp_json_copy(void *dst, int dkind, const void *src, int skind, Py_ssize_t n)
    Py_ssize_t dcp_plain_1(const Py_UCS1 *s, Py_ssize_t i, Py_ssize_t n, unsigned int *seen)

cdef object _NOT_PLAIN = object()  # a cell the general DCP path must judge
cdef int _DCP_OPEN = 3  # dcp.encode's inference opens objects at paths of up to 3 keys


cdef inline object _dcp_cell(object value, object absent, bint objects):
    # The cell as dcp.encode writes it (null as ``absent``), or _NOT_PLAIN.
    cdef int overflow = 0
    cdef PyTypeObject *t = _type_of(<PyObject *>value)
    if t == &_STR or value is True or value is False:
        return value
    if value is None:
        return absent
    if t == &_INT:
        _as_long_long(<PyObject *>value, &overflow)
        return _NOT_PLAIN if overflow else value
    if t == &_FLOAT:
        return value if isfinite(_float_value(<PyObject *>value)) else _NOT_PLAIN
    if t == &_LIST or (objects and t == &_DICT):
        return value if _plain_json(value, 0) else _NOT_PLAIN
    return _NOT_PLAIN


def dcp_rows(list items, object absent, /):
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
    cdef _IdMap ids
    if not items or type(items[0]) is not dict:
        return None
    for value in (<dict>items[0]).values():
        if isinstance(value, dict):
            return _dcp_shaped_rows(items, absent)
    _id_init(&ids, 64, 1 << 16)
    try:
        return _dcp_flat_rows(items, absent, &ids, [])
    finally:
        _id_free(&ids)


cdef object _dcp_flat_rows(list items, object absent, _IdMap *ids, list held):
    # dcp_rows of records holding no object. A key's column is found by a probe of
    # the few after the last one's (rows skip a few fields), else by the key
    # object's address (records built alike share their key objects: no string
    # hash or compare), else by its value.
    cdef Py_ssize_t n = len(items), i, width = 0, col, last, probe, pos
    cdef PyObject *k
    cdef PyObject *v
    cdef PyObject *found
    cdef dict index = {}
    cdef list names = []
    cdef list rows = []
    cdef list row
    for i in range(n):
        record = items[i]
        if type(record) is not dict:
            return None
        row = [absent] * width
        pos = 0
        last = -1
        while _dict_next(<PyObject *>record, &pos, &k, &v):
            if _type_of(k) != &_STR:
                return None
            col = -1
            probe = last + 1
            while probe < width and probe <= last + 8:  # sparse rows skip a few fields
                if _list_item(<PyObject *>names, probe) == k:
                    col = probe
                    break
                probe += 1
            if col < 0 and not _id_get(ids, k, &col):
                found = _dict_get(<PyObject *>index, k)
                if found == NULL:
                    col = width
                    width += 1
                    names.append(<object>k)
                    index[<object>k] = col
                    row.append(absent)
                else:
                    col = PyLong_AsSsize_t(<object>found)
                _id_put(ids, held, k, col)
            last = col
            cell = _dcp_cell(<object>v, absent, False)
            if cell is _NOT_PLAIN:
                return None
            row[col] = cell
        rows.append(row)
    for row in rows:
        if len(row) < width:
            row.extend([absent] * (width - len(row)))
    return tuple(names), rows


cdef object _dcp_plan(dict obj, int depth, str prefix, list names):
    # The first record's shape: a list of (key, sub-plan or None), its dot names in ``names``.
    cdef list plan = []
    for key, value in obj.items():
        if type(key) is not str:
            return None
        if depth and (not key or u"." in <str>key):
            return None
        name = key if prefix is None else prefix + u"." + key
        if isinstance(value, dict) and depth < _DCP_OPEN:
            if type(value) is not dict or not value:
                return None
            sub = _dcp_plan(<dict>value, depth + 1, name, names)
            if sub is None:
                return None
            plan.append((key, sub))
        else:
            plan.append((key, None))
            names.append(name)
    return plan


cdef bint _dcp_walk(dict obj, list plan, int depth, list row, object absent):
    # Append the leaves of ``obj`` to ``row``; False when it is not of ``plan``'s shape.
    cdef Py_ssize_t pos = 0, j = 0
    cdef PyObject *k
    cdef PyObject *v
    if len(obj) != len(plan):
        return False
    while _dict_next(<PyObject *>obj, &pos, &k, &v):
        want, sub = <tuple>plan[j]
        j += 1
        if k != <PyObject *>want and not (_type_of(k) == &_STR and <str>want == <object>k):
            return False
        if sub is not None:
            if type(<object>v) is not dict or not _dcp_walk(
                <dict>v, <list>sub, depth + 1, row, absent
            ):
                return False
        else:
            if depth < _DCP_OPEN and isinstance(<object>v, dict):
                return False
            cell = _dcp_cell(<object>v, absent, True)
            if cell is _NOT_PLAIN:
                return False
            row.append(cell)
    return True


cdef object _dcp_shaped_rows(list items, object absent):
    cdef list names = []
    cdef list rows = []
    cdef list row
    plan = _dcp_plan(<dict>items[0], 0, None, names)
    if plan is None or len(set(names)) != len(names):
        return None
    for record in items:
        if type(record) is not dict:
            return None
        row = []
        if not _dcp_walk(<dict>record, <list>plan, 0, row, absent):
            return None
        rows.append(row)
    return tuple(names), rows


cdef extern from "Python.h":
    Py_ssize_t _copy_chars "PyUnicode_CopyCharacters"(
        object to, Py_ssize_t at, object source, Py_ssize_t start, Py_ssize_t count
    ) except -1


cdef inline bint _cont(unsigned char b):
    return (b & 0xC0) == 0x80


cdef inline Py_ssize_t _next_char(const unsigned char *s, Py_ssize_t i, Py_ssize_t n,
                                  Py_UCS4 *c):
    # The character at ``i`` into ``c``; the next offset, or -1 when the bytes there
    # are not strict UTF-8.
    cdef unsigned char b = s[i]
    if b < 0x80:
        c[0] = b
        return i + 1
    if b < 0xE0:
        if b < 0xC2 or i + 1 >= n or not _cont(s[i + 1]):
            return -1
        c[0] = ((b & 0x1F) << 6) | (s[i + 1] & 0x3F)
        return i + 2
    if b < 0xF0:
        if i + 2 >= n or not (_cont(s[i + 1]) and _cont(s[i + 2])):
            return -1
        c[0] = ((b & 0x0F) << 12) | ((s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F)
        if c[0] < 0x800 or 0xD800 <= c[0] < 0xE000:  # overlong, or a surrogate
            return -1
        return i + 3
    if b >= 0xF5 or i + 3 >= n or not (_cont(s[i + 1]) and _cont(s[i + 2]) and _cont(s[i + 3])):
        return -1
    c[0] = ((b & 0x07) << 18) | ((s[i + 1] & 0x3F) << 12) | (
        (s[i + 2] & 0x3F) << 6) | (s[i + 3] & 0x3F)
    if c[0] < 0x10000 or c[0] > 0x10FFFF:
        return -1
    return i + 4


cdef inline bint _ascii8(const unsigned char *s, Py_ssize_t i, Py_ssize_t n):
    # The 8 bytes at ``i`` are all ASCII.
    cdef uint64_t word
    if i + 8 > n:
        return False
    memcpy(&word, s + i, 8)
    return (word & 0x8080808080808080ULL) == 0


# One loop per width, so each writes its unit type without a switch per character;
# runs of ASCII are widened 8 bytes at a time. Each returns where its output ends
# (NULL when the bytes are not strict UTF-8 or do not fit the width).
cdef Py_UCS4 *_decode_ucs4(Py_UCS4 *out, const unsigned char *s, Py_ssize_t n):
    cdef Py_ssize_t i = 0, k
    cdef Py_UCS4 c
    while i < n:
        if _ascii8(s, i, n):
            for k in range(8):
                out[k] = s[i + k]
            out += 8
            i += 8
            continue
        i = _next_char(s, i, n, &c)
        if i < 0:
            return NULL
        out[0] = c
        out += 1
    return out


cdef Py_UCS2 *_decode_ucs2(Py_UCS2 *out, const unsigned char *s, Py_ssize_t n):
    cdef Py_ssize_t i = 0, k
    cdef Py_UCS4 c
    while i < n:
        if _ascii8(s, i, n):
            for k in range(8):
                out[k] = s[i + k]
            out += 8
            i += 8
            continue
        i = _next_char(s, i, n, &c)
        if i < 0 or c > 0xFFFF:
            return NULL
        out[0] = <Py_UCS2>c
        out += 1
    return out


cdef Py_UCS1 *_decode_ucs1(Py_UCS1 *out, const unsigned char *s, Py_ssize_t n):
    cdef Py_ssize_t i = 0
    cdef Py_UCS4 c
    while i < n:
        i = _next_char(s, i, n, &c)
        if i < 0 or c > 0xFF:
            return NULL
        out[0] = <Py_UCS1>c
        out += 1
    return out


cdef bint _decode_rows(int kind, void *data, const unsigned char *s, Py_ssize_t n,
                       const Py_ssize_t *seps, Py_ssize_t found):
    # UTF-8 ``s`` into ``data`` a row at a time, a line feed for each row-ending comma
    # at ``seps``: the output position gives each line feed's place, so no second walk
    # turns byte offsets into character offsets.
    cdef Py_ssize_t k, start = 0, stop
    for k in range(found + 1):
        stop = seps[k] if k < found else n
        if kind == PyUnicode_4BYTE_KIND:
            data = _decode_ucs4(<Py_UCS4 *>data, s + start, stop - start)
        elif kind == PyUnicode_2BYTE_KIND:
            data = _decode_ucs2(<Py_UCS2 *>data, s + start, stop - start)
        else:
            data = _decode_ucs1(<Py_UCS1 *>data, s + start, stop - start)
        if data == NULL:
            return False
        if k < found:
            PyUnicode_WRITE(kind, data, 0, _LF)
            data = <char *>data + kind
        start = stop + 1
    return True


def dcp_lines(bytes text, Py_ssize_t rows, str head, /):
    """``head``, a line feed, then orjson's text of a list of ``rows`` (>= 1)
    lists as one line per row; None when ``],[`` occurs more than ``rows - 1``
    times (a cell holds it)."""
    cdef Py_ssize_t size = len(text), n = size - 2, h = len(head), i, count = 0, found = 0
    cdef const unsigned char *s = <const unsigned char *>(<const char *>text) + 1
    cdef unsigned char b, top = 0
    cdef Py_UCS4 widest = PyUnicode_MAX_CHAR_VALUE(head)
    cdef Py_ssize_t *seps
    cdef int kind
    cdef void *data
    cdef const char *at
    cdef const char *end
    if size < 2 or rows < 1:
        return None
    # Where each row ends (the commas of "],[", by memchr), then the widest lead byte
    # and, past ASCII, the characters (loops the compiler vectorizes).
    seps = <Py_ssize_t *>PyMem_Malloc(rows * sizeof(Py_ssize_t))
    if seps == NULL:
        raise MemoryError()
    try:
        at = <const char *>s
        end = at + n
        while at < end:
            at = <const char *>memchr(at, _RBRACKET, end - at)
            if at == NULL:
                break
            if end - at >= 3 and at[1] == _COMMA and at[2] == _LBRACKET:
                if found == rows - 1:
                    return None
                seps[found] = at + 1 - <const char *>s
                found += 1
                at += 2
            else:
                at += 1
        if found != rows - 1:
            return None
        for i in range(n):
            top = s[i] if s[i] > top else top
        if top < 0x80:  # ASCII: a character a byte
            count = n
        else:
            for i in range(n):
                count += (s[i] & 0xC0) != 0x80
        if top >= 0xF0:
            widest = 0x10FFFF
        elif top >= 0xC4 and widest < 0xFFFF:
            widest = 0xFFFF
        elif top >= 0x80 and widest < 0xFF:
            widest = 0xFF
        out = PyUnicode_New(h + 1 + count, widest)
        kind = PyUnicode_KIND(out)
        data = PyUnicode_DATA(out)
        _copy_chars(out, 0, head, 0, h)
        PyUnicode_WRITE(kind, data, h, _LF)
        if top < 0x80 and kind == PyUnicode_1BYTE_KIND:  # a character a byte
            memcpy(<char *>data + h + 1, s, n)
            for i in range(found):
                PyUnicode_WRITE(kind, data, h + 1 + seps[i], _LF)
        elif not _decode_rows(kind, <char *>data + (h + 1) * kind, s, n, seps, found):
            # not UTF-8: Python's decoder says where
            return head + u"\n" + text[1:-1].replace(b"],[", b"]\n[").decode("utf-8")
        return out
    finally:
        PyMem_Free(seps)


cdef Py_ssize_t _dcp_line_end(const void *data, int kind, Py_ssize_t at, Py_ssize_t size,
                              Py_ssize_t max_depth, unsigned int *chars):
    # The end of the one-array line starting at ``at``, or -1 when it is not one:
    # no "[" first, brackets (outside strings) closing to depth 0 before its last
    # character or deeper than ``max_depth``, an unclosed string, 19 digits in a row.
    # ``chars`` gathers the bits of every character read (for the joined text's width).
    cdef Py_ssize_t i = at, depth = 0, run = 0
    cdef Py_UCS4 c
    cdef unsigned int seen = 0
    if at >= size or PyUnicode_READ(kind, data, at) != _LBRACKET:
        return -1
    while i < size:
        c = PyUnicode_READ(kind, data, i)
        if c == _QUOTE:
            run = 0
            i += 1
            while True:
                if kind == PyUnicode_1BYTE_KIND:  # the string's plain run, 16 at a time
                    i = dcp_plain_1(<const Py_UCS1 *>data, i, size, &seen)
                if i >= size:
                    return -1
                c = PyUnicode_READ(kind, data, i)
                seen |= <unsigned int>c
                if c == _QUOTE:
                    break
                if c == _LF:
                    return -1
                if c == _BACKSLASH:
                    i += 1
                    if i >= size or PyUnicode_READ(kind, data, i) == _LF:
                        return -1
                    seen |= <unsigned int>PyUnicode_READ(kind, data, i)
                i += 1
        elif c == _LBRACKET or c == _LBRACE:
            run = 0
            depth += 1
            if depth > max_depth:
                return -1
        elif c == _RBRACKET or c == _RBRACE:
            run = 0
            depth -= 1
            if depth == 0:
                i += 1
                chars[0] |= seen
                return i if i == size or PyUnicode_READ(kind, data, i) == _LF else -1
        elif c == _LF:
            return -1
        elif _ZERO <= c <= _NINE:
            run += 1
            if run >= 19:  # orjson reads such an int as a float: the exact path decides
                return -1
        else:
            run = 0
            seen |= <unsigned int>c
        i += 1
    return -1


cdef inline Py_ssize_t _find_lf(const char *data, Py_ssize_t a, Py_ssize_t b) noexcept:
    # The first LF in data[a:b], or -1.
    cdef const char *hit = <const char *>memchr(data + a, _LF, b - a) if a < b else NULL
    return -1 if hit == NULL else hit - data


def dcp_join(str text, Py_ssize_t start, Py_ssize_t max_line, Py_ssize_t max_depth, /):
    """The lines of ``text`` from offset ``start`` on (one final LF ends the last)
    as one JSON array text, and their count, when every line is one JSON array
    orjson reads as the exact reader does; else None.

    Each line starts with "[" and its brackets (outside strings) first close at
    its last character, so the array holds exactly one item per line; None for a
    line longer than ``max_line``, nesting deeper than ``max_depth``, with an
    unclosed string or a run of 19 digits (an int orjson would read as a float).
    """
    cdef Py_ssize_t size = len(text), at = start, end, count = 0
    cdef int kind = PyUnicode_KIND(text)
    cdef const void *data = PyUnicode_DATA(text)
    cdef unsigned int chars = _RBRACKET
    if start >= size:
        return u"[]", 0
    while at < size:
        end = _dcp_line_end(data, kind, at, size, max_depth, &chars)
        if end < 0 or end - at > max_line:
            return None
        count += 1
        at = end + 1
    # one copy: "[" + the lines, each LF a comma + "]"
    cdef Py_ssize_t length = size - start + (1 if text[size - 1] == u"\n" else 2)
    out = PyUnicode_New(length, <Py_UCS4>(0x10FFFF if chars > 0xFFFF else chars))
    cdef int okind = PyUnicode_KIND(out)
    cdef void *odata = PyUnicode_DATA(out)
    cdef Py_ssize_t i, j = 1
    PyUnicode_WRITE(okind, odata, 0, _LBRACKET)
    if okind == kind:
        memcpy(<char *>odata + kind, <const char *>data + start * kind, (length - 2) * kind)
        i = 1
        while True:  # each LF a comma, found by memchr (a character at a time: ~3x slower)
            i = _find_wide(okind, odata, _LF, i, length - 1) if okind != 1 else _find_lf(
                <const char *>odata, i, length - 1
            )
            if i < 0:
                break
            PyUnicode_WRITE(okind, odata, i, _COMMA)
            i += 1
    else:
        for i in range(start, start + length - 2):
            c = PyUnicode_READ(kind, data, i)
            PyUnicode_WRITE(okind, odata, j, _COMMA if c == _LF else c)
            j += 1
    PyUnicode_WRITE(okind, odata, length - 1, _RBRACKET)
    return out, count


cdef extern from "Python.h":
    object _new_dict "_PyDict_NewPresized"(Py_ssize_t size)
    int _dict_set "PyDict_SetItem"(object d, object key, object value) except -1


def dcp_records(list rows, names, bint dash, /):
    """Each row (a list of one value per name) as a record keyed by ``names``;
    with ``dash``, a ``"-"`` cell is absent. None when a row is no list of
    ``len(names)`` values."""
    cdef tuple keys = tuple(names)
    cdef Py_ssize_t width = len(keys), j
    cdef list out = []
    cdef PyObject *v
    for row in rows:
        if type(row) is not list or len(<list>row) != width:
            return None
    for row in rows:
        record = _new_dict(width)
        for j in range(width):
            v = _list_item(<PyObject *>row, j)
            if dash and _type_of(v) == &_STR and _ulen(v) == 1 and (  # exactly the str "-"
                PyUnicode_READ(_ukind(v), _udata(v), 0) == _MINUS
            ):
                continue
            _dict_set(record, keys[j], <object>v)
        out.append(record)
    return out


# --- rows of wide text, written from the values ---------------------------------
# orjson writes UTF-8, and past Latin-1 turning its bytes back into a str costs
# several times the dumps (unicode-5,000: 1.1 ms against 0.23 ms). The str values
# are already text of their kind, so the rows are written from them into a text
# buffer at the widest kind met (_buffer.pxi), each string escaped and widened by
# dcp_json_copy (_gcx_dcp_text.h). Anything but str, 64-bit int, bool and None is
# written by orjson (as a one-cell row, so that it nests as deep as in the table).


cdef inline int _dcp_row_kind(list row):
    # The widest kind of the row's strs.
    cdef Py_ssize_t i
    cdef PyObject *v
    cdef int kind = PyUnicode_1BYTE_KIND
    for i in range(_list_size(<PyObject *>row)):
        v = _list_item(<PyObject *>row, i)
        if _is_str(v) and _ukind(v) > kind:
            kind = _ukind(v)
    return kind


cdef int _dcp_put_cell(_Buf *b, PyObject *v) except -1:
    # v as orjson writes it; 1 when orjson refuses it (a lone surrogate...).
    cdef PyTypeObject *t = _type_of(v)
    cdef Py_ssize_t n, wrote
    cdef int kind, overflow = 0
    cdef long long x
    if t == &_STR:
        kind = _ukind(v)
        n = _ulen(v)
        if kind > b.kind:
            _widen(b, kind)
        elif kind == PyUnicode_1BYTE_KIND and not _uascii(v):
            b.wide = True
        _reserve(b, 6 * n + 2)
        PyUnicode_WRITE(b.kind, b.data, b.len, _QUOTE)
        wrote = dcp_json_copy(b.data + (b.len + 1) * b.kind, b.kind, _udata(v), kind, n)
        if wrote < 0:
            return 1
        b.len += wrote + 2
        PyUnicode_WRITE(b.kind, b.data, b.len - 1, _QUOTE)
        return 0
    if v == _NONE:
        return _put(b, b"null", 4)
    if v == _TRUE:
        return _put(b, b"true", 4)
    if v == _FALSE:
        return _put(b, b"false", 5)
    if t == &_INT:
        x = _as_long_long(v, &overflow)
        if not overflow:
            return _put_int(b, x)
    try:
        if t == &_FLOAT:
            text = (<bytes>_dumps(<object>v)).decode("utf-8")
        else:
            text = (<bytes>_dumps([[<object>v]])).decode("utf-8")
            text = text[2:len(text) - 2]  # without the one-cell row's brackets
    except _JSONEncodeError:
        return 1
    return _put_text(b, text)


def dcp_text(list rows, str head, /):
    """``head``, a line feed, then each of ``rows`` (lists) as orjson writes it,
    a line each; None when the first row holds no str past U+00FF (orjson's text
    is the faster start there), a row is no list, or orjson refuses a value."""
    cdef Py_ssize_t n = len(rows), i, r
    cdef _Buf b
    cdef Py_UCS4 top
    if n == 0 or type(rows[0]) is not list or _dcp_row_kind(<list>rows[0]) == 1:
        return None
    b.data = NULL
    b.len = b.cap = 0
    b.kind = _dcp_row_kind(<list>rows[0])
    b.wide = False
    try:
        _put_text(&b, head)
        for r in range(n):
            row = rows[r]
            if type(row) is not list:
                return None
            _put_byte(&b, _LF)
            _put_byte(&b, _LBRACKET)
            i = 0
            while i < _list_size(<PyObject *>row):  # orjson may run code that changes it
                if i:
                    _put_byte(&b, _COMMA)
                if _dcp_put_cell(&b, _list_item(<PyObject *>row, i)):
                    return None
                i += 1
            _put_byte(&b, _RBRACKET)
            if r == 0:  # room for rows like the first
                _reserve(&b, (b.len - len(head)) * (n - 1) * 9 // 8)
        top = (
            (255 if b.wide else 127) if b.kind == PyUnicode_1BYTE_KIND
            else (0xFFFF if b.kind == PyUnicode_2BYTE_KIND else 0x10FFFF)
        )
        out = PyUnicode_New(b.len, top)
        memcpy(PyUnicode_DATA(out), b.data, b.len * b.kind)
        return out
    finally:
        PyMem_Free(b.data)


cdef tuple _dcp_tree_plan(dict tree, Py_ssize_t width):
    # (keys, nodes): a node is a row index or a plan of its own; None for an empty
    # tree or an index that is no int in range(width).
    cdef list nodes = []
    if not tree:
        return None
    for node in tree.values():
        if type(node) is dict:
            sub = _dcp_tree_plan(<dict>node, width)
            if sub is None:
                return None
            nodes.append(sub)
        elif type(node) is int and 0 <= <object>node < width:
            nodes.append(node)
        else:
            return None
    return tuple(tree), tuple(nodes)


cdef object _dcp_tree_record(PyObject *row, tuple keys, tuple nodes):
    cdef Py_ssize_t j, m = len(keys)
    record = _new_dict(m)
    for j in range(m):
        node = nodes[j]
        if type(node) is tuple:
            _dict_set(record, keys[j], _dcp_tree_record(row, <tuple>node[0], <tuple>node[1]))
        else:
            _dict_set(record, keys[j], <object>_list_item(row, PyLong_AsSsize_t(node)))
    return record


def dcp_tree_records(list rows, dict tree, Py_ssize_t width, /):
    """Each row (a list of ``width`` values) as a record of ``tree``'s shape: its
    keys in order, each holding the row's value at its index or an object of the
    subtree's shape. None when a row is no list of ``width`` values, or a tree
    is empty or holds anything but subtrees (dicts) and ints below ``width``."""
    cdef list out = []
    plan = _dcp_tree_plan(tree, width)
    if plan is None:
        return None
    for row in rows:
        if type(row) is not list or len(<list>row) != width:
            return None
    keys, nodes = plan
    for row in rows:
        out.append(_dcp_tree_record(<PyObject *>row, <tuple>keys, <tuple>nodes))
    return out
