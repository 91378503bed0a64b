# ------------------------------------------------ whole tables into one byte buffer
#
# A table's rows are written straight into one growing buffer, cell by cell,
# with no string object per cell or per row, as encode_row (_line) writes them.
# The buffer starts at 1 byte a character (Latin-1, most tables) and is widened
# in place at the first 2- or 4-byte string, so the result is one copy of it.


cdef struct _Stats:
    # What decides a table's style, counted over its cells.
    Py_ssize_t nulls
    Py_ssize_t absent
    Py_ssize_t *integral  # per column: integral floats within 1e15
    char *has_int  # per column: an int was seen
    Py_ssize_t *strs  # per column: its exact strs (counted by _put_cells only)


cdef void _count(_Columns cols, _Stats *st) noexcept:
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
        # A column named "" is never a float column: `float=` cannot name it.
        if st.integral[c] >= 3 and not st.has_int[c] and fields[c]:
            if names is None:
                names = []
            names.append(fields[c])
    return st.nulls > st.absent + 3, _NO_FLOATS if names is None else frozenset(names)


cdef tuple _guess(_Stats *st, tuple fields, Py_ssize_t seen, Py_ssize_t n):
    # _pick's style as the whole table's guessed from its first `seen` of n rows:
    # the nulls and absent cells seen scaled to n rows before the `+ 3` margin.
    # The margin itself on 16 rows misled a table where nulls lead by a few a
    # hundred (issues: a null column, a derived one, 10 % null bodies), and the
    # whole table was written twice. Only the guess: _pick decides the style.
    empty_null, floats = _pick(st, fields)
    return st.nulls * n > st.absent * n + 3 * seen, floats


cdef void _zero(_Stats *st, Py_ssize_t n) noexcept:
    cdef Py_ssize_t c
    st.nulls = st.absent = 0
    for c in range(n):
        st.integral[c] = 0
        st.has_int[c] = 0
        st.strs[c] = 0


cdef struct _Integral:
    # Where the integral float cells (within 1e15) of the rows written end:
    # the only cells a float= column writes otherwise (`3` for `3.0`).
    Py_ssize_t *end  # per cell: its end in the buffer
    Py_ssize_t *col  # per cell: its column
    Py_ssize_t n, cap


cdef int _mark_integral(_Integral *m, Py_ssize_t end, Py_ssize_t col) except -1:
    cdef Py_ssize_t cap = m.cap * 2 if m.cap else 64
    cdef Py_ssize_t *e
    cdef Py_ssize_t *c
    if m.n == m.cap:
        e = <Py_ssize_t *>PyMem_Realloc(m.end, cap * sizeof(Py_ssize_t))
        if e == NULL:
            raise MemoryError()
        m.end = e
        c = <Py_ssize_t *>PyMem_Realloc(m.col, cap * sizeof(Py_ssize_t))
        if c == NULL:
            raise MemoryError()
        m.col = c
        m.cap = cap
    m.end[m.n] = end
    m.col[m.n] = col
    m.n += 1
    return 0


cdef int _refloat(_Buf *b, _Integral *m, const char *was, frozenset floats, tuple fields) except -1:
    # The rows in b as written in another float= choice (empty=null unchanged):
    # an integral cell of a column that becomes a float column drops its `.0`,
    # one of a column that stops being one gains it; no other byte differs.
    cdef Py_ssize_t i, c, at = 0, grow = 0, out = 0, end, k = b.kind
    cdef Py_UCS1 *data
    cdef list now = [fields[c] in floats for c in range(len(fields))]
    for i in range(m.n):
        c = m.col[i]
        if was[c] and not now[c]:
            grow += 2
    data = <Py_UCS1 *>PyMem_Malloc((b.len + grow + 1) * k)
    if data == NULL:
        raise MemoryError()
    for i in range(m.n):
        c = m.col[i]
        end = m.end[i]
        if was[c] == now[c]:
            continue
        if was[c]:  # `3` becomes `3.0`
            memcpy(data + out * k, b.data + at * k, (end - at) * k)
            out += end - at
            PyUnicode_WRITE(k, data, out, _DOT)
            PyUnicode_WRITE(k, data, out + 1, _ZERO)
            out += 2
            at = end
        else:  # `3.0` becomes `3`
            memcpy(data + out * k, b.data + at * k, (end - 2 - at) * k)
            out += end - 2 - at
            at = end
    memcpy(data + out * k, b.data + at * k, (b.len - at) * k)
    out += b.len - at
    PyMem_Free(b.data)
    b.data = data
    b.cap = (b.len + grow + 1) * k
    b.len = out
    return 0


cdef bint _starts_gcx1(_Buf *b, Py_ssize_t at):
    # Whether the 4 characters from at read GCX1.
    if b.kind == PyUnicode_1BYTE_KIND:
        return memcmp(b.data + at, b"GCX1", 4) == 0
    return (
        PyUnicode_READ(b.kind, b.data, at) == _UPPER_G
        and PyUnicode_READ(b.kind, b.data, at + 1) == _UPPER_C
        and PyUnicode_READ(b.kind, b.data, at + 2) == _UPPER_X
        and PyUnicode_READ(b.kind, b.data, at + 3) == _ONE
    )


cdef int _put_cells(
    _Buf *b, PyObject **slots, const Py_ssize_t *col_slot, Py_ssize_t nf, tuple fields,
    bint empty_null, const char *floatcol, const Py_ssize_t *cut, Py_ssize_t *starts,
    Py_ssize_t *ends, Py_ssize_t index, _Integral *marks, _Stats *st,
) except -1:
    # The row's line with its LF, as _line writes it: column i's value is
    # slots[col_slot[i]] (a gathered row's, or one _plain_row borrowed). With
    # marks, the integral float cells' ends are added to them; with st, the cells
    # are counted as _count counts them (in the same walk: one pass per row).
    cdef Py_ssize_t i, s, last, row_start = b.len, shift = 0, integral = 0
    cdef double f
    cdef long long v
    cdef int overflow = 0
    cdef str cell
    cdef PyObject *p
    cdef PyTypeObject *t
    cdef bint wide
    for i in range(nf):
        if i:
            _put_byte(b, _TAB)
        starts[i] = b.len
        s = col_slot[i]
        p = NULL if s < 0 else slots[s]  # a held column: always empty
        if p == NULL:
            if st != NULL:
                st.absent += 1
            if empty_null and s >= 0:
                _put_byte(b, _BACKSLASH)
            ends[i] = b.len
            continue
        t = _type_of(p)
        if t == &_STR:
            if st != NULL:
                st.strs[i] += 1
            _put_str_cell(b, p, cut[i])
        elif p == _NONE:
            if st != NULL:
                st.nulls += 1
            if not empty_null:
                _put(b, b"null", 4)
        elif t == &_INT:
            if st != NULL:
                st.has_int[i] = 1
            v = _as_long_long(p, &overflow)
            if overflow == 0:
                _put_int(b, v)
            else:
                try:
                    cell = int_to_str(<object>p)
                except EncodeError as exc:
                    raise exc.relocated(path_join("$", fields[i])).relocated(
                        f"$[{index}]"
                    ) from None
                _put_text(b, cell)
        elif p == _TRUE:
            _put(b, b"true", 4)
        elif p == _FALSE:
            _put(b, b"false", 5)
        elif t == &_FLOAT and isfinite(_float_value(p)):
            f = _float_value(p)
            _put_float(b, f, floatcol[i])
            if -1e15 < f < 1e15 and f == <double>(<long long>f):
                integral += marks != NULL
                if st != NULL:
                    st.integral[i] += 1
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
            _put_text(b, cell)
        ends[i] = b.len
    last = nf - 1
    while last > 0 and ends[last] == starts[last]:
        last -= 1  # decoders pad a short row with empty cells
    b.len = ends[last]
    if ends[0] > row_start and (
        PyUnicode_READ(b.kind, b.data, row_start) == _HASH
        or (ends[0] - row_start >= 4 and _starts_gcx1(b, row_start))
    ):
        _reserve(b, 1)
        memmove(
            b.data + (row_start + 1) * b.kind, b.data + row_start * b.kind,
            (b.len - row_start) * b.kind,
        )
        PyUnicode_WRITE(b.kind, b.data, row_start, _BACKSLASH)
        b.len += 1
        shift = 1
    elif ends[0] == row_start and last == 0:
        if empty_null:
            _put(b, b"null", 4)
        else:
            _put_byte(b, _BACKSLASH)
    if integral:  # (a float cell is never the raw-CR last cell rewritten below)
        for i in range(last + 1):
            s = col_slot[i]
            p = NULL if s < 0 else slots[s]
            if p != NULL and _type_of(p) == &_FLOAT and isfinite(_float_value(p)):
                f = _float_value(p)
                if -1e15 < f < 1e15 and f == <double>(<long long>f):
                    _mark_integral(marks, ends[i] + shift, i)
    s = col_slot[last]
    if PyUnicode_READ(b.kind, b.data, b.len - 1) == _CR and s >= 0 and slots[s] != NULL:
        # only a string's text can end in a raw CR
        b.len = row_start if last == 0 else starts[last] + shift
        value = <object>slots[s]  # a reference of our own: what runs below may free a borrowed one
        if cut[last]:  # a str: only a string's text ends in a CR
            value = value[cut[last]:]
        _put_text(b, _escape(dumps_cell(value)))
    _put_byte(b, _LF)
    return 1


# What _write_rows did.
cdef enum:
    _WRITTEN = 1
    _ASKEW = 2  # a row's keys are not the row_keys asked for


cdef bint _plain_columns(_Columns cols):
    # Whether each row is read as its own items in order: the rows must hold
    # row_keys, which are the columns' keys, one column each, in column order.
    cdef Py_ssize_t c
    if cols.row_keys is None or cols.ngroups != 1 or cols.nslots != cols.ncols:
        return False
    if len(cols.row_keys) != cols.ncols:
        return False
    for c in range(cols.ncols):
        if cols.col_slot[c] != c or cols.keys[c] != <PyObject *>cols.row_keys[c]:
            return False
    return True


cdef int _plain_row(_Columns cols, object row, PyObject **vals) except -1:
    # A row of _plain_columns read in one walk into vals, borrowed: 0 when every
    # key is the column's own key object and every value one _put_cells writes
    # with no Python code (so nothing can free it meanwhile); 1 when the row's
    # keys are not row_keys; 2 otherwise (cols.gather then reads it).
    cdef PyObject *d = <PyObject *>row
    cdef PyObject *k
    cdef PyObject *v
    cdef PyTypeObject *t
    cdef Py_ssize_t pos = 0, e = 0, m = cols.ncols
    cdef int overflow
    if _type_of(d) != &_DICT:
        return 2
    if _dict_size(d) != m:
        return 1
    while _dict_next(d, &pos, &k, &v):
        if e >= m or k != cols.keys[e]:
            return 2
        t = _type_of(v)
        if t == &_STR or v == _NONE or v == _TRUE or v == _FALSE:
            pass
        elif t == &_INT:
            overflow = 0
            _as_long_long(v, &overflow)
            if overflow:
                return 2
        elif t != &_FLOAT or not isfinite(_float_value(v)):
            return 2
        vals[e] = v
        e += 1
    return 0 if e == m else 2


cdef int _write_rows(
    _Buf *b, rows, _Columns cols, tuple fields, bint empty_null, frozenset floats,
    char *floatcol, const Py_ssize_t *cut, Py_ssize_t *starts, _Stats *st,
    _Integral *marks,
) except -1:
    # Every row line into b, each with its LF. With st, every row's cells are
    # counted; with marks, the integral float cells are marked.
    cdef Py_ssize_t i, c, nf = cols.ncols
    cdef bint plain = _plain_columns(cols)
    cdef int read
    # vals: a plain row's values, borrowed; ident: column c reads vals[c]
    cdef PyObject **vals = NULL
    cdef Py_ssize_t *ident = NULL
    b.len = 0
    b.kind = PyUnicode_1BYTE_KIND
    b.wide = False
    for c in range(nf):
        floatcol[c] = fields[c] in floats
    try:
        if plain:
            vals = <PyObject **>PyMem_Malloc(nf * sizeof(PyObject *))
            ident = <Py_ssize_t *>PyMem_Malloc(nf * sizeof(Py_ssize_t))
            if vals == NULL or ident == NULL:
                raise MemoryError()
            for c in range(nf):
                ident[c] = c
        for i in range(len(rows)):
            if plain:
                read = _plain_row(cols, rows[i], vals)
                if read == 1:
                    return _ASKEW
                if read == 0:
                    _put_cells(
                        b, vals, ident, nf, fields, empty_null, floatcol, cut, starts,
                        starts + nf, i, marks, st,
                    )
                    continue
            try:
                if cols.gather(rows[i], i):
                    return _ASKEW
                _put_cells(
                    b, cols.slots, cols.col_slot, nf, fields, empty_null, floatcol, cut, starts,
                    starts + nf, i, marks, st,
                )
            finally:
                cols.release()
    finally:
        PyMem_Free(vals)
        PyMem_Free(ident)
    return _WRITTEN


# The byte buffer is kept between calls in one spare slot (measured: issues-5000
# encode 22 ms -> 13 ms when the pages are not faulted in afresh each time); the
# slot is taken and given back atomically (see _gcx_spare.h).
cdef extern from "_gcx_spare.h":
    ctypedef struct gcx_spare:
        Py_UCS1 *data
        Py_ssize_t cap
    gcx_spare *gcx_spare_swap(gcx_spare *p)


# Above this size the buffer is freed after the call, not kept.
cdef Py_ssize_t _SCRATCH_KEEP = 16 << 20


cdef void _give_back(gcx_spare *spare, _Buf *b) noexcept:
    # b's memory into the spare slot (spare: the holder taken with it, or NULL).
    if b.data == NULL or b.cap > _SCRATCH_KEEP:
        PyMem_Free(b.data)
        PyMem_Free(spare)
        return
    if spare == NULL:
        spare = <gcx_spare *>PyMem_Malloc(sizeof(gcx_spare))
        if spare == NULL:  # nothing kept, nothing lost
            PyMem_Free(b.data)
            return
    spare.data = b.data
    spare.cap = b.cap
    spare = gcx_spare_swap(spare)
    if spare != NULL:  # another call gave one back meanwhile: one is enough
        PyMem_Free(spare.data)
        PyMem_Free(spare)


cdef str _style_text(bint empty_null, frozenset floats, tuple fields):
    cdef str text = u" empty=null" if empty_null else u""
    if floats:
        text += u" float=" + u",".join([_escape(_escape(f)) for f in fields if f in floats])
    return text


cdef str _assemble(_Buf *b, object head, str style, str tail):
    # The rows in b (their last LF dropped) after head, style and tail, in one
    # new string: the payload is copied once, not built and then joined.
    cdef Py_ssize_t n = b.len - 1 if b.len else 0, at = 0
    cdef int kind = b.kind
    # The buffer is at the kind of a string it holds: the result's kind.
    cdef Py_UCS4 top = (
        (255 if b.wide else 127) if kind == PyUnicode_1BYTE_KIND
        else (0xFFFF if kind == PyUnicode_2BYTE_KIND else 0x10FFFF)
    )
    cdef str out
    cdef Py_UCS1 *o
    if head is None:
        return PyUnicode_FromKindAndData(kind, b.data, n)
    for part in (head, style, tail):
        if PyUnicode_KIND(<str>part) > kind:
            return u"".join([head, style, tail, PyUnicode_FromKindAndData(kind, b.data, n)])
        if PyUnicode_MAX_CHAR_VALUE(<str>part) > top:
            top = 255
    out = PyUnicode_New(len(<str>head) + len(style) + len(tail) + n, top)
    o = <Py_UCS1 *>PyUnicode_DATA(out)
    for part in (head, style, tail):
        gcx_wide_copy(
            o + at * kind, kind, PyUnicode_DATA(<str>part), PyUnicode_KIND(<str>part),
            len(<str>part), 0,
        )
        at += len(<str>part)
    memcpy(o + at * kind, b.data, n * kind)
    return out


def encode_table(rows, fields, paths, head, str tail, keys, cuts=None, counted=None, /):
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

    Written in one pass in the style the first 16 rows foretell (the keys checked as
    the rows are read), and again only when the whole table picks another
    ``empty=null``; when only its float columns differ from the guess, the
    integral float cells marked in that pass gain or drop their ``.0``.
    """
    cdef tuple fs = tuple(fields)
    cdef Py_ssize_t nf = len(fs), i = 0, n
    cdef _Columns cols
    cdef _Stats st
    cdef _Buf own
    cdef _Buf *b = &own
    cdef gcx_spare *spare = NULL
    cdef int outcome
    cdef Py_ssize_t *starts = NULL
    cdef char *floatcol = NULL
    cdef Py_ssize_t *cut = NULL
    cdef _Integral marks
    if head is not None and not isinstance(head, str):
        raise TypeError(f"head must be a str or None, not {type(head).__name__}")
    if counted is not None and type(counted) is not list:
        raise TypeError(f"counted must be a list or None, not {type(counted).__name__}")
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
    if cuts is not None and len(cuts) != nf:
        raise ValueError("Every field needs a cut (or none at all)")
    cols = _Columns.__new__(_Columns)
    cols.build(paths)
    if keys is not None:
        cols.row_keys = tuple(keys)
    n = len(rows)
    own.data = NULL
    own.len = own.cap = 0
    own.kind = PyUnicode_1BYTE_KIND
    own.wide = False
    spare = gcx_spare_swap(NULL)  # NULL when another call holds it
    if spare != NULL:
        own.data = spare.data
        own.cap = spare.cap
    st.integral = <Py_ssize_t *>PyMem_Malloc(nf * sizeof(Py_ssize_t))
    st.has_int = <char *>PyMem_Malloc(nf)
    st.strs = <Py_ssize_t *>PyMem_Malloc(nf * sizeof(Py_ssize_t))
    floatcol = <char *>PyMem_Malloc(nf)
    starts = <Py_ssize_t *>PyMem_Malloc(2 * nf * sizeof(Py_ssize_t))
    cut = <Py_ssize_t *>PyMem_Malloc(nf * sizeof(Py_ssize_t))
    marks.end = marks.col = NULL
    marks.n = marks.cap = 0
    failed = None
    try:
        if (
            st.integral == NULL or st.has_int == NULL or st.strs == NULL or floatcol == NULL
            or starts == NULL or cut == NULL
        ):
            raise MemoryError()
        for i in range(nf):
            cut[i] = 0 if cuts is None else cuts[i]
            if cut[i] < 0:
                raise ValueError("A cut cannot be negative")
        _reserve(b, 4096)
        try:
            _zero(&st, nf)
            for i in range(16 if n > 16 else n):  # the style to write in
                if cols.gather(rows[i], i):
                    return None
                _count(cols, &st)
                cols.release()
            empty_null, floats = _guess(&st, fs, 16 if n > 16 else n, n)
            _zero(&st, nf)
            outcome = _write_rows(
                b, rows, cols, fs, empty_null, floats, floatcol, cut, starts, &st, &marks
            )
            if outcome == _ASKEW:
                return None
            cols.row_keys = None  # every row's keys are checked now
            if counted is not None:
                counted[:] = [st.strs[i] for i in range(nf)]
            style = _pick(&st, fs)
            if style == (empty_null, floats):
                text = _assemble(b, head, _style_text(empty_null, floats, fs), tail)
                return text, empty_null, floats
            if style[0] == empty_null:
                # Only the float= columns differ: their integral cells are patched.
                empty_null, floats = style
                _refloat(b, &marks, floatcol, floats, fs)
                text = _assemble(b, head, _style_text(empty_null, floats, fs), tail)
                return text, empty_null, floats
            empty_null, floats = style  # the first rows misled: write again in the table's style
            _write_rows(b, rows, cols, fs, empty_null, floats, floatcol, cut, starts, NULL, NULL)
            text = _assemble(b, head, _style_text(empty_null, floats, fs), tail)
            return text, empty_null, floats
        except Exception as exc:
            failed = exc
    finally:
        cols.release()
        PyMem_Free(st.integral)
        PyMem_Free(st.has_int)
        PyMem_Free(st.strs)
        PyMem_Free(floatcol)
        PyMem_Free(starts)
        PyMem_Free(cut)
        PyMem_Free(marks.end)
        PyMem_Free(marks.col)
        _give_back(spare, &own)
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
    # A column named "" is never a float column: `float=` cannot name it.
    floats = frozenset([k for k, n in integral.items() if n >= 3 and k and k not in has_int])
    return nulls > absent + 3, floats


# ------------------------------------------------ what the cell-style passes look for


cdef inline bint _cell_start(const void *data, int kind, Py_ssize_t i):
    # Whether a cell starts at i: the text's start, or after a TAB or LF.
    cdef Py_UCS4 c
    if i == 0:
        return True
    c = PyUnicode_READ(kind, data, i - 1)
    return c == _TAB or c == _LF


cdef inline bint _word_before(const void *data, int kind, Py_ssize_t at, str word):
    # Whether `word` (ASCII) ends right before index at and starts a cell.
    cdef Py_ssize_t n = len(word), j
    if at < n:
        return False
    for j in range(n):
        if PyUnicode_READ(kind, data, at - n + j) != <Py_UCS4>ord(word[j]):
            return False
    return _cell_start(data, kind, at - n)


cdef str _text_arg(object text):
    # The str a text leaf reads (a subclass as its text); the pure twin's TypeError otherwise.
    if type(text) is str:
        return <str>text
    if isinstance(text, str):
        return str.__str__(text)
    raise TypeError(f"Argument 'text' has incorrect type (expected str, got {type(text).__name__})")


def text_marks(text, /):
    """What written rows hold for the cell-style passes: ``(doubled, guarded, crlf)``.

    ``doubled``: two backslashes in a row; ``guarded``: a cell (at the text's
    start or after a TAB or LF) starts with a guard, ``\\`` then a digit or
    ``-``, or ``tru\\e``, ``fals\\e``, ``nul\\l``; ``crlf``: a CR followed by
    ``\\n``. Each marker holds a backslash: one search for those finds all three.
    """
    return _text_marks(_text_arg(text))


cdef tuple _text_marks(str text):
    cdef Py_ssize_t n = len(text), i = 0
    cdef int kind = PyUnicode_KIND(text)
    cdef const void *data = PyUnicode_DATA(text)
    cdef const Py_UCS1 *p
    cdef const Py_UCS1 *hit
    cdef Py_UCS4 c, nxt
    cdef bint doubled = False, guarded = False, crlf = False
    while i < n and not (doubled and guarded and crlf):
        if kind == PyUnicode_1BYTE_KIND:
            p = <const Py_UCS1 *>data
            hit = <const Py_UCS1 *>memchr(p + i, _BACKSLASH, n - i)
            if hit == NULL:
                break
            i = hit - p
        else:
            c = PyUnicode_READ(kind, data, i)
            if c != _BACKSLASH:
                i += 1
                continue
        nxt = PyUnicode_READ(kind, data, i + 1) if i + 1 < n else 0
        if nxt == _BACKSLASH:
            doubled = True
            i += 2  # the pair is one escaped backslash: neither starts a guard
            continue
        if nxt == _LOWER_N and i and PyUnicode_READ(kind, data, i - 1) == _CR:
            crlf = True
        elif nxt == _MINUS or _ZERO <= nxt <= _NINE:
            guarded = guarded or _cell_start(data, kind, i)
        elif nxt == _LOWER_E:
            guarded = guarded or _word_before(data, kind, i, u"tru") or _word_before(
                data, kind, i, u"fals"
            )
        elif nxt == _LOWER_L:
            guarded = guarded or _word_before(data, kind, i, u"nul")
        i += 1
    return doubled, guarded, crlf


def crlf_only(text, /):
    """Whether every CR in ``text`` starts a CR LF and every LF ends one."""
    return _crlf_only(_text_arg(text))


cdef bint _crlf_only(str text) except -1:
    cdef Py_ssize_t n = len(text), i, crs = 0, lfs = 0
    cdef int kind = PyUnicode_KIND(text)
    cdef const void *data = PyUnicode_DATA(text)
    cdef const Py_UCS1 *p = <const Py_UCS1 *>data
    cdef const Py_UCS1 *hit
    cdef Py_UCS4 c
    if kind == PyUnicode_1BYTE_KIND:
        i = 0
        while i < n:  # each CR must come before an LF ...
            hit = <const Py_UCS1 *>memchr(p + i, _CR, n - i)
            if hit == NULL:
                break
            i = hit - p + 1
            if i == n or p[i] != _LF:
                return False
            crs += 1
        i = 0
        while i < n:  # ... and no LF may be left over
            hit = <const Py_UCS1 *>memchr(p + i, _LF, n - i)
            if hit == NULL:
                break
            i = hit - p + 1
            lfs += 1
        return crs == lfs
    for i in range(n):
        c = PyUnicode_READ(kind, data, i)
        if c == _CR:
            if i + 1 == n or PyUnicode_READ(kind, data, i + 1) != _LF:
                return False
        elif c == _LF and (i == 0 or PyUnicode_READ(kind, data, i - 1) != _CR):
            return False
    return True
