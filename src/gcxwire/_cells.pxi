# ------------------------------------------------------------------ formatting


cdef str _format_str(str s):
    if not s:
        return u'""'
    cdef str t = _escape(s)
    cdef int kind = PyUnicode_KIND(t)
    cdef void *data = PyUnicode_DATA(t)
    cdef Py_ssize_t n = len(t)
    cdef Py_UCS4 c = PyUnicode_READ(kind, data, 0)
    if c == _QUOTE or c == _LBRACKET or c == _LBRACE:  # " [ {
        return u"\\" + t
    if (c == _MINUS or _digit(c)) and _is_number(kind, data, 0, n):
        return u"\\" + t
    if (c == _LOWER_T or c == _LOWER_F or c == _LOWER_N) and (n == 4 or n == 5):
        # The backslash before a letter no JSON escape uses (t\rue would read as t, CR, ue).
        if t == u"true":
            return u"tru\\e"
        if t == u"false":
            return u"fals\\e"
        if t == u"null":
            return u"nul\\l"
    return t


cdef bint _plain_json(object v, int depth):
    # True when orjson writes v exactly as dumps_cell would (exact JSON types, 64-bit
    # ints); walked over borrowed pointers (_plain_tree.pxi).
    return _plain_tree(<PyObject *>v, depth)


def plain_json(object value, /):
    """Whether orjson writes ``value`` exactly as JSON: exact dict, list, str,
    bool and None, ints of 64 bits (signed), finite floats, str keys, nested
    less than 250 deep. False asks for the slow check, which names the path."""
    return _plain_json(value, 0)


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
        return PyObject_Str(value) if overflow == 0 else None  # format_cell: a path on error
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
    if isinstance(value, str):  # a subclass (StrEnum): its text, as the pure twin writes it
        return _format_str(str.__str__(value))
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


# ------------------------------------------------------------------- parsing


cdef object _literal(str text, Py_ssize_t err_pos):
    # A JSON literal cell (already unescaped), as loads_cell reads it.
    if not _digit_run(text, 17):  # any run of 17+ digits may be a big int: loads_cell decides
        try:
            return _loads(text)
        except _JSONDecodeError:
            pass
    try:
        return loads_cell(text)
    except ValueError as exc:
        raise DecodeError(f"Cell is not a valid JSON literal: {exc}", pos=err_pos) from None


cdef object _parse_range(
    str s, int kind, void *data, Py_ssize_t a, Py_ssize_t b, Py_ssize_t err_pos
):
    # The typed value of the raw cell s[a:b]; ABSENT for a lone backslash.
    cdef Py_ssize_t n = b - a
    if n == 0:
        return None
    cdef Py_UCS4 c = PyUnicode_READ(kind, data, a)
    if c == _BACKSLASH:
        if n == 1:
            return _ABSENT
        return _unescape_range(s, a, b)
    if c == _QUOTE or c == _LBRACKET or c == _LBRACE:
        return _literal(_unescape_range(s, a, b), err_pos)
    if c == _MINUS or _digit(c):
        if _is_number(kind, data, a, b):
            return _number(s, kind, data, a, b)
    elif n == 4:
        if (
            c == _LOWER_T
            and PyUnicode_READ(kind, data, a + 1) == _LOWER_R
            and PyUnicode_READ(kind, data, a + 2) == _LOWER_U
            and PyUnicode_READ(kind, data, a + 3) == _LOWER_E
        ):
            return True
        if (
            c == _LOWER_N
            and PyUnicode_READ(kind, data, a + 1) == _LOWER_U
            and PyUnicode_READ(kind, data, a + 2) == _LOWER_L
            and PyUnicode_READ(kind, data, a + 3) == _LOWER_L
        ):
            return None
    elif n == 5 and c == _LOWER_F and PyUnicode_Substring(s, a, b) == u"false":
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
        p = <const char *>memchr(<const char *>data + i, _TAB, b - i)
        return b if p == NULL else p - <const char *>data
    while i < b and PyUnicode_READ(kind, data, i) != _TAB:
        i += 1
    return i


cdef inline Py_ssize_t _split_cells(
    int kind, void *data, Py_ssize_t a, Py_ssize_t b, Py_ssize_t nfields, Py_ssize_t *ends,
    Py_ssize_t base,
) except -1:
    # The cells of the row data[a:b]: their ends into ends (len(fields) of them),
    # their count returned; more cells than fields is an error (position base +
    # the offset within the row), before any literal is read.
    cdef Py_ssize_t ncells = 0, cb = a, pos = 0
    while True:
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
    return ncells


cdef inline object _typed_cell(
    str s, int kind, void *data, Py_ssize_t ca, Py_ssize_t cb, Py_ssize_t err_pos, object field,
    bint any_floats, frozenset floats,
):
    # The typed value of the non-empty cell s[ca:cb] of column field; ABSENT for `\`.
    cdef object value = _parse_range(s, kind, data, ca, cb, err_pos)
    if any_floats and type(value) is int and field in floats:
        # From the text, so "-0" stays negative zero; an int beyond float range
        # (only a foreign payload can hold one here) stays an int.
        f = float(PyUnicode_Substring(s, ca, cb))
        if isfinite(f):
            return f
    return value


cdef dict _read_row(
    str s, int kind, void *data, Py_ssize_t a, Py_ssize_t b, tuple fields,
    bint typed, bint empty_null, frozenset floats, Py_ssize_t base, Py_ssize_t *ends,
    Py_ssize_t *padding,
):
    # The row s[a:b]; error positions are base + the offset within the row.
    # ends holds len(fields) cell ends: the tabs are found once. padding (or
    # NULL: no bound) is how many cells a short row may still fill in; None
    # when this row would need more (nothing is read then).
    cdef Py_ssize_t nfields = len(fields), ncells, i, ca, cb
    cdef dict row = {}
    cdef bint any_floats = bool(floats)
    ncells = _split_cells(kind, data, a, b, nfields, ends, base)
    if padding != NULL and ncells < nfields and (empty_null or not typed):
        if nfields - ncells > padding[0]:
            return None
        padding[0] -= nfields - ncells
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
            value = _typed_cell(s, kind, data, ca, cb, base + ca - a, field, any_floats, floats)
            if value is not _ABSENT:
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
            typed, empty_null, floats, 0, ends, NULL,
        )
    finally:
        PyMem_Free(ends)


# ------------------------------------------------ what the cell-style passes look for


cdef extern from "_gcx_escape.h":
    uint64_t gcx_row_marks(const Py_UCS1 *p, Py_ssize_t n)


def style_marks(text, bint header, Py_ssize_t floor, /):
    """``text_marks(text) + (crlf_cells(text, header), lines)``:
    ``(doubled, guarded, crlf, cells, lines)``.

    On long texts holding raw CRs (CR LF bodies) one pass finds them all, where
    each walked every body: it reads 64 bytes at a time and stops only at a
    backslash, TAB, LF or CR. ``lines`` (``floor`` 1 or more; else None) are the
    row lines holding ``floor`` ``\\n`` escapes or more, as ``(row, start, end)``:
    break_cells' first look at each line, for the form=lines search after it.
    """
    cdef str s = _text_arg(text)
    cdef Py_ssize_t n = len(s)
    if PyUnicode_KIND(s) != PyUnicode_1BYTE_KIND or memchr(PyUnicode_DATA(s), _CR, n) == NULL:
        return (*_text_marks(s), crlf_cells(s, header), _break_lines(s, header, floor))
    return _style_marks_1byte(
        <const Py_UCS1 *>PyUnicode_DATA(s), n, _rows_start(s, header), header, floor
    )


cdef object _break_lines(str s, bint header, Py_ssize_t floor):
    # The row lines of s with ``floor`` `\\n` escapes or more: (row, start, end) each;
    # None for a floor below 1. A find for each line's end and one per backslash.
    cdef int kind = PyUnicode_KIND(s)
    cdef const void *data = PyUnicode_DATA(s)
    cdef Py_ssize_t n = len(s), at, end, j, count, row = 0
    cdef list out = []
    if floor < 1:
        return None
    at = _rows_start(s, header)
    if at < 0:
        return out
    while at <= n:
        end = _find(kind, data, _LF, at, n)
        if end < 0:
            end = n
        count = 0
        j = _find(kind, data, _BACKSLASH, at, end)
        while j >= 0 and count < floor:
            if j + 1 < end and PyUnicode_READ(kind, data, j + 1) == _LOWER_N:
                count += 1
            j = _find(kind, data, _BACKSLASH, j + 1, end)
        if count >= floor:
            out.append((row, at, end))
        at = end + 1
        row += 1
    return out


cdef tuple _style_marks_1byte(
    const Py_UCS1 *b, Py_ssize_t n, Py_ssize_t rows, bint header, Py_ssize_t floor
):
    # _text_marks's three over the whole text, crlf_cells's indexes from ``rows``
    # (-1: no row lines) and _break_lines' lines, in one pass.
    cdef set cells = set()
    cdef list lines = [] if floor >= 1 else None
    cdef Py_ssize_t i = 0, j, width, k = 0, skip = 0, last_k = -1
    cdef Py_ssize_t line = 0, first = 1 if header else 0, start = 0, breaks = 0
    cdef uint64_t mask
    cdef Py_UCS1 u, nxt
    cdef bint doubled = False, guarded = False, crlf = False
    while i < n:
        width = 64 if n - i >= 64 else n - i
        mask = gcx_row_marks(b + i, width)
        while mask:
            j = i + gcx_lowest_bit(mask)
            mask &= mask - 1
            u = b[j]
            if u == _TAB:
                k += 1
            elif u == _LF:
                k = 0
                if lines is not None and breaks >= floor and line >= first and rows >= 0:
                    lines.append((line - first, start, j))
                line += 1
                start = j + 1
                breaks = 0
            elif u == _CR:
                if 0 <= rows <= j and k != last_k:
                    cells.add(k)
                    last_k = k
            else:
                nxt = b[j + 1] if j + 1 < n else 0
                if nxt == _LOWER_N:  # every `\\n`, the second backslash of a pair's too
                    breaks += 1
                if j < skip:  # the second of a pair
                    continue
                if nxt == _BACKSLASH:
                    doubled = True
                    skip = j + 2  # the pair is one escaped backslash: neither starts a guard
                elif nxt == _LOWER_N:
                    crlf = crlf or (j > 0 and b[j - 1] == _CR)
                elif nxt == _MINUS or _ZERO <= nxt <= _NINE:
                    guarded = guarded or j == 0 or b[j - 1] == _TAB or b[j - 1] == _LF
                elif nxt == _LOWER_E:
                    guarded = guarded or _guard_word(b, j, b"tru", 3) or _guard_word(
                        b, j, b"fals", 4
                    )
                elif nxt == _LOWER_L:
                    guarded = guarded or _guard_word(b, j, b"nul", 3)
        i += width
    if lines is not None and breaks >= floor and line >= first and rows >= 0:
        lines.append((line - first, start, n))
    return doubled, guarded, crlf, cells, lines


cdef inline bint _guard_word(const Py_UCS1 *b, Py_ssize_t at, const char *word, Py_ssize_t m):
    # Whether `word` ends right before index at and starts a cell (_word_before, 1-byte).
    if at < m or memcmp(b + at - m, word, m) != 0:
        return False
    return at == m or b[at - m - 1] == _TAB or b[at - m - 1] == _LF
