cdef bint _long_number(int kind, void *data, Py_ssize_t a, Py_ssize_t b, Py_ssize_t limit):
    # Whether data[a:b] holds a run of more than limit digits not after a backslash
    # or a quote (limits.long_number). Only every (limit+1)-th character is looked
    # at until one is a digit: a run that long covers one of them.
    cdef Py_ssize_t i = a, s, e
    cdef Py_UCS4 c
    while i + limit < b:  # data[i - 1], when i > a, is no digit
        if not _digit(PyUnicode_READ(kind, data, i + limit)):
            i += limit + 1
            continue
        s = i + limit
        while s > i and _digit(PyUnicode_READ(kind, data, s - 1)):
            s -= 1
        e = i + limit + 1
        while e < b and _digit(PyUnicode_READ(kind, data, e)):
            e += 1
        if e - s > limit:
            c = PyUnicode_READ(kind, data, s - 1) if s > a else 0
            if c != _BACKSLASH and c != _QUOTE:
                return True
        i = e + 1
    return False


# Characters _deep_cell must look at: outside a JSON string the brackets, quote
# and backslash (1), inside one the quote and backslash (2); the rest it skips.
cdef unsigned char _DEPTH_STOPS[256]
for _c in range(256):
    _DEPTH_STOPS[_c] = (
        (1 if _c in b'[]{}"\\' else 0) | (2 if _c in b'"\\' else 0)
    )
del _c


cdef bint _deep_cell(int kind, void *data, Py_ssize_t a, Py_ssize_t b, Py_ssize_t limit):
    # Whether a cell of the row data[a:b] that starts with [ or { nests deeper than
    # limit once unescaped: limits.depth_exceeds(unescape(cell)) for each such cell,
    # read in one pass, strings skipped as that function's regex skips them.
    cdef Py_ssize_t i = a, cb, depth
    cdef Py_UCS4 c
    cdef bint in_string, after_backslash
    cdef const Py_UCS1 *d = <const Py_UCS1 *>data
    cdef unsigned char stops
    while i <= b:
        cb = _find_tab(kind, data, i, b)
        c = PyUnicode_READ(kind, data, i) if i < cb else 0
        if c == _LBRACKET or c == _LBRACE:
            depth = 0
            in_string = after_backslash = False
            while i < cb:
                if kind == PyUnicode_1BYTE_KIND and not after_backslash:
                    # Skip what cannot change the depth or the string state.
                    stops = 2 if in_string else 1
                    while i < cb and not (_DEPTH_STOPS[d[i]] & stops):
                        i += 1
                    if i == cb:
                        break
                c = PyUnicode_READ(kind, data, i)
                i += 1
                if c == _BACKSLASH and i < cb:  # the cell's escape: \t, \n, \x
                    c = PyUnicode_READ(kind, data, i)
                    i += 1
                    if c == _LOWER_T:
                        c = _TAB
                    elif c == _LOWER_N:
                        c = _LF
                if in_string:
                    if after_backslash:  # a backslash before LF ends the string there
                        after_backslash = False
                        if c == _LF:
                            in_string = False
                    elif c == _BACKSLASH:
                        after_backslash = True
                    elif c == _QUOTE:
                        in_string = False
                elif c == _QUOTE:
                    in_string = True
                elif c == _LBRACKET or c == _LBRACE:
                    depth += 1
                    if depth > limit:
                        return True
                elif c == _RBRACKET or c == _RBRACE:
                    depth -= 1
        i = cb + 1
    return False


def decode_rows(
    str text, Py_ssize_t start, fields, bint typed, bint empty_null, frozenset floats,
    Py_ssize_t max_line, Py_ssize_t max_depth, Py_ssize_t max_digits, Py_ssize_t max_padding,
    layout=None, /,
):
    """Read the row and comment lines of a section from ``text[start:]``.

    Returns ``(rows, comments, stop, padded)``: ``stop`` is where reading stopped,
    at the start of a line it leaves to the caller (a ``GCX1`` header, a line
    longer than ``max_line``, typed, one holding a number of more than
    ``max_digits`` digits (0: no limit) or a JSON literal cell nesting deeper
    than ``max_depth``, or a short row whose padding would take the cells filled in
    past ``max_padding``) or at ``len(text)``; ``padded`` counts the cells filled
    in for short rows (untyped, or under ``empty_null``). A CR before LF is
    dropped, blank lines are skipped, comment text is kept without its ``#``.
    Row errors are DecodeErrors whose ``pos`` is an offset into ``text``.

    A ``layout`` (typed only) gives each row its final shape as it is read:
    ``(steps, groups, constants, infixes, prefixes, templates)``, columns by
    their index in ``fields``. Each row's values by column are taken in turn by
    ``constants`` (column, name, value: the cell must be blank, empty or
    ``\\``, and takes the value), ``infixes`` (column, mark, text: the first
    mark in a string becomes the text), ``prefixes`` (column, text: put before
    a string) and ``templates`` (column, source, before, after, name, source
    name: a column with no value takes before + the source's string or int's
    digits + after); then ``steps`` build the row: each (object, key, source)
    sets key in object 0 (the row) or k (1 to ``groups``) to column source's
    value when it has one, or for source -k to a new empty object k. A
    constant's or template's error is placed at its line's start.
    """
    cdef list rows = [], comments = []
    cdef tuple fs = tuple(fields)
    cdef Py_ssize_t n = len(text), pos = start, end, stop, i, brackets
    cdef int kind = PyUnicode_KIND(text)
    cdef void *data = PyUnicode_DATA(text)
    cdef const char *p
    cdef Py_UCS4 c
    cdef Py_ssize_t *ends = _cell_ends(len(fs))
    cdef Py_ssize_t left = max_padding  # cells short rows may still have filled in
    cdef Py_ssize_t before
    cdef object row
    cdef _RowLayout shape = None if layout is None else _RowLayout(layout, len(fs))
    cdef list values = None
    cdef PyObject **objects = NULL
    if shape is not None:
        values = [_ABSENT] * len(fs)
        if not typed:
            PyMem_Free(ends)
            raise ValueError("A layout needs typed rows")
        objects = <PyObject **>PyMem_Malloc(shape.nobjects * sizeof(PyObject *))
        if objects == NULL:
            PyMem_Free(ends)
            raise MemoryError()
    try:
        while pos < n:
            if kind == PyUnicode_1BYTE_KIND:
                p = <const char *>memchr(<const char *>data + pos, _LF, n - pos)
                end = n if p == NULL else p - <const char *>data
            else:
                end = PyUnicode_FindChar(text, _LF, pos, n, 1)
                if end < 0:
                    end = n
            stop = end
            if stop > pos and PyUnicode_READ(kind, data, stop - 1) == _CR:
                stop -= 1  # CRLF input, as Go's line reader takes it
            if stop > pos:
                if stop - pos > max_line or (
                    typed and 0 < max_digits < stop - pos
                    and _long_number(kind, data, pos, stop, max_digits)
                ):
                    return rows, comments, pos, max_padding - left
                c = PyUnicode_READ(kind, data, pos)
                if (
                    c == _UPPER_G and stop - pos >= 4
                    and PyUnicode_READ(kind, data, pos + 1) == _UPPER_C
                    and PyUnicode_READ(kind, data, pos + 2) == _UPPER_X
                    and PyUnicode_READ(kind, data, pos + 3) == _ONE
                ):  # GCX1
                    return rows, comments, pos, max_padding - left
                if c == _HASH:  # #
                    comments.append(PyUnicode_Substring(text, pos + 1, stop))
                else:
                    brackets = 0
                    if typed and stop - pos > max_depth:  # a shorter line cannot nest deeper
                        if kind == PyUnicode_1BYTE_KIND:
                            brackets = _count_brackets(<Py_UCS1 *>data + pos, stop - pos)
                        else:
                            for i in range(pos, stop):
                                c = PyUnicode_READ(kind, data, i)
                                if c == _LBRACKET or c == _LBRACE:
                                    brackets += 1
                    if brackets > max_depth:
                        # A line that may nest too deep is read first and its parsed
                        # cells measured (the JSON parsers bound their own depth):
                        # the text scan cost a fifth of the parse. Where the line
                        # is no row, the scan says whether the caller must see it.
                        # (A line left to the caller fills in no cells: left goes back.)
                        before = left
                        try:
                            if shape is None:
                                row = _read_row(
                                    text, kind, data, pos, stop, fs, typed, empty_null, floats,
                                    pos, ends, &left,
                                )
                            else:
                                row = _layout_row(
                                    text, kind, data, pos, stop, fs, empty_null, floats, pos,
                                    ends, &left, shape, values, objects, max_depth,
                                )
                        except DecodeError:
                            if _deep_cell(kind, data, pos, stop, max_depth):
                                return rows, comments, pos, max_padding - before
                            raise
                        if row is _DEEP or (shape is None and row is not None and (
                            _cells_deeper(text, pos, stop, max_depth)
                            if kind == PyUnicode_1BYTE_KIND
                            else _row_deeper(<dict>row, max_depth)
                        )):
                            return rows, comments, pos, max_padding - before
                    elif shape is None:
                        row = _read_row(
                            text, kind, data, pos, stop, fs, typed, empty_null, floats, pos,
                            ends, &left,
                        )
                    else:
                        row = _layout_row(
                            text, kind, data, pos, stop, fs, empty_null, floats, pos, ends,
                            &left, shape, values, objects, -1,
                        )
                    if row is None:  # its padding would pass max_padding
                        return rows, comments, pos, max_padding - left
                    rows.append(row)
            pos = end + 1
        return rows, comments, n, max_padding - left
    finally:
        PyMem_Free(ends)
        PyMem_Free(objects)


def nest_rows(rows, plan, /):
    """Rebuild nested objects from flat rows; ``plan`` holds (field, group chain, member key).

    Raises DecodeError (no position) when a field's value stands where a group goes.
    """
    cdef list out = []
    cdef list steps = []
    cdef dict nested, target, flat
    cdef tuple step, chain
    cdef object before = None
    for name, chain_, key in plan:
        chain = tuple(chain_)
        # The members of one group follow one another: its chain is walked once a row.
        steps.append((name, chain, key, len(chain) > 0 and chain == before))
        before = chain
    for row in rows:
        flat = <dict?>row
        nested = target = {}
        for step in steps:
            if step[3] is False:
                target = nested
                for part in <tuple>step[1]:
                    inner = target.get(part)
                    if inner is None:
                        inner = target[part] = {}
                    elif type(inner) is not dict:
                        raise DecodeError(f"Field {step[0]!r} collides with member {part!r}")
                    target = <dict>inner
            value = flat.get(step[0], _ABSENT)
            if value is not _ABSENT:
                target[step[2]] = value
        out.append(nested)
    return out


def attach_items(parents, items, path, link, in_place=False, /):
    """Put a child section's items back into its table's rows.

    Each item's ``link`` member (popped) is the number of its row in ``parents``,
    in order. The object at ``path[:-1]`` of each row (the row itself for a
    one-key path) whose member ``path[-1] + "[]"`` holds the item count is
    replaced (in ``parents``, a list, or in the object holding it) by a copy
    with that member renamed ``path[-1]`` at its place, holding the items: so a
    section's children are attached before the section is attached to its own
    table. With ``in_place`` the rows already hold the count under ``path[-1]``
    (renamed while they were nested): the items replace it there, no copy.
    Raises DecodeError (no position) when links, counts or members do not agree.
    """
    if not path:
        raise DecodeError("A child section needs a path to its list")
    cdef bint renamed_before = bool(in_place)
    cdef list rows = parents if type(parents) is list else list(parents)
    cdef list found = list(items)
    cdef tuple steps = tuple(path)
    cdef Py_ssize_t n = len(rows), m = len(found), i, j = 0, start, last = 0, at
    cdef dict item, holder, renamed
    cdef object key = steps[len(steps) - 1], mark = key + "[]", value, count, got, outer, k, v
    cdef object probe = key if renamed_before else mark
    cdef tuple route = steps[:len(steps) - 1]
    # The links, checked in order: the items of row i are found[start:j] below.
    cdef Py_ssize_t *links = <Py_ssize_t *>PyMem_Malloc((m + 1) * sizeof(Py_ssize_t))
    if links == NULL:
        raise MemoryError()
    try:
        for i in range(m):
            item = <dict?>found[i]
            got = item.pop(link, _ABSENT)
            at = -1
            if type(got) is int and -1 < got < n:
                at = PyLong_AsSsize_t(got)
            if not last <= at < n:
                raise DecodeError(f"Child row link {got!r} names no row of its table, in order")
            links[i] = last = at
        for i in range(n):
            outer = None
            got = rows[i]
            for step in route:
                outer = got
                got = (<dict>got).get(step, _ABSENT) if type(got) is dict else _ABSENT
            start = j
            while j < m and links[j] == i:
                j += 1
            if type(got) is not dict or probe not in <dict>got:
                if j > start:
                    raise DecodeError(f"Row {i} has child rows but no {mark!r} member")
                continue
            holder = <dict>got
            count = holder[probe]
            if count is None and j == start:
                value = None
            elif type(count) is int and count == j - start:
                value = found[start:j]
            else:
                raise DecodeError(
                    f"Row {i} says {count!r} items in {mark!r}, {j - start} follow"
                )
            if renamed_before:
                holder[key] = value
                continue
            if key in holder:
                raise DecodeError(f"Row {i} holds both {key!r} and {mark!r}")
            # A renamed copy: renaming in place would move every later member.
            renamed = {}
            for k, v in holder.items():
                if k == mark:
                    renamed[key] = value
                else:
                    renamed[k] = v
            if route:
                (<dict>outer)[route[len(route) - 1]] = renamed
            else:
                rows[i] = renamed
    finally:
        PyMem_Free(links)


def add_templates(rows, templates, /):
    """Fill in each row's derived cells: a member ``name`` the row lacks becomes
    ``before + text + after``, ``text`` the string (or int) of member ``source``.

    ``templates`` holds (name, source, before, after). Raises DecodeError (no
    position) when the source holds neither.
    """
    cdef list plan = [(n, s, b, a) for n, s, b, a in templates]
    cdef dict row
    cdef tuple step
    cdef object value, text
    cdef int overflow
    for item in rows:
        row = <dict?>item
        for step in plan:
            if step[0] in row:
                continue
            value = row.get(step[1])
            if type(value) is str:
                row[step[0]] = step[2] + value + step[3]
            elif type(value) is int:
                _as_long_long(<PyObject *>value, &overflow)  # past 64 bits: the digit limit
                text = str(value) if not overflow else int_to_str(value)
                row[step[0]] = step[2] + text + step[3]
            else:
                msg = f"Column {step[0]!r} is derived from {step[1]!r}, which holds no text here"
                raise DecodeError(msg)
