# Typed rows read straight into their final shape (decode_rows' layout): the
# cells into a list of values by column, the constant, infix, prefix and
# template columns filled in there, then the row's objects built in column
# order, groups (`flat=`) nested as they go. No flat row dict is made and
# made again, and the derived cells need no pass of their own.

cdef object _DEEP = object()  # _layout_row: the line nests too deep, leave it


cdef class _RowLayout:
    # A layout (see decode_rows) checked and compiled for the row loop: per
    # step, the object it writes into (0: the row, k: group k), the key, and
    # the source: a column (its value, when it has one) or -k (group k made
    # there, empty).
    cdef tuple steps
    cdef Py_ssize_t nsteps, nobjects
    cdef Py_ssize_t *holder
    cdef Py_ssize_t *source
    cdef PyObject **key
    cdef tuple constants, infixes, prefixes, templates

    def __cinit__(self, layout, Py_ssize_t ncols):
        steps, groups, constants, infixes, prefixes, templates = layout
        self.steps = tuple([tuple(step) for step in steps])  # holds the keys
        self.nsteps = len(self.steps)
        self.nobjects = groups + 1
        if groups < 0:
            raise ValueError("A layout's group count is negative")
        self.holder = <Py_ssize_t *>PyMem_Malloc((self.nsteps + 1) * sizeof(Py_ssize_t))
        self.source = <Py_ssize_t *>PyMem_Malloc((self.nsteps + 1) * sizeof(Py_ssize_t))
        self.key = <PyObject **>PyMem_Malloc((self.nsteps + 1) * sizeof(PyObject *))
        if self.holder == NULL or self.source == NULL or self.key == NULL:
            raise MemoryError()
        made = bytearray(self.nobjects)
        made[0] = 1
        for i, (h, k, s) in enumerate(self.steps):
            if type(k) is not str or not 0 <= h < self.nobjects or not made[h]:
                raise ValueError(f"Layout step {i} writes into no object made before it")
            if s < 0:
                if -s >= self.nobjects or made[-s]:
                    raise ValueError(f"Layout step {i} makes no new group")
                made[-s] = 1
            elif s >= ncols:
                raise ValueError(f"Layout step {i} reads no column")
            self.holder[i] = h
            self.source[i] = s
            self.key[i] = <PyObject *>k
        self.constants = tuple([(_column(c, ncols), n, v) for c, n, v in constants])
        self.infixes = tuple([(_column(c, ncols), <str?>m, <str?>t) for c, m, t in infixes])
        self.prefixes = tuple([(_column(c, ncols), <str?>t) for c, t in prefixes])
        self.templates = tuple([
            (_column(c, ncols), _column(s, ncols), <str?>b, <str?>a, n, sn)
            for c, s, b, a, n, sn in templates
        ])

    def __dealloc__(self):
        PyMem_Free(self.holder)
        PyMem_Free(self.source)
        PyMem_Free(self.key)


cdef Py_ssize_t _column(object c, Py_ssize_t ncols) except -1:
    cdef Py_ssize_t i = c
    if not 0 <= i < ncols:
        raise ValueError(f"Layout column {i} is out of range")
    return i


cdef object _layout_row(
    str s, int kind, void *data, Py_ssize_t a, Py_ssize_t b, tuple fields,
    bint empty_null, frozenset floats, Py_ssize_t base, Py_ssize_t *ends,
    Py_ssize_t *padding, _RowLayout layout, list values, PyObject **objects,
    Py_ssize_t deep,
):
    # The typed row s[a:b] in its layout's shape; None when its padding would
    # pass the bound (nothing read), _DEEP when deep >= 0 and a JSON cell nests
    # deeper than that. Cell errors are placed as _read_row places them; a
    # constant or template error at the line's start (base).
    cdef Py_ssize_t nfields = len(fields), ncells, i, ca, cb, src
    cdef bint any_floats = bool(floats)
    cdef object value, text
    cdef dict row, inner
    cdef int overflow
    ncells = _split_cells(kind, data, a, b, nfields, ends, base)
    if padding != NULL and ncells < nfields and empty_null:
        if nfields - ncells > padding[0]:
            return None
        padding[0] -= nfields - ncells
    for i in range(nfields):
        values[i] = _ABSENT
    ca = a
    for i in range(ncells):
        cb = ends[i]
        if cb == ca:
            if empty_null:
                values[i] = None
        else:
            values[i] = _typed_cell(
                s, kind, data, ca, cb, base + ca - a, fields[i], any_floats, floats
            )
        ca = cb + 1
    if empty_null:
        for i in range(ncells, nfields):
            values[i] = None
    if deep >= 0:
        if kind == PyUnicode_1BYTE_KIND:
            if _cells_deeper(s, a, b, deep):
                return _DEEP
        elif _values_deeper(values, deep):
            return _DEEP
    for c, name, constant in layout.constants:
        if values[c] is not _ABSENT and values[c] is not None:
            raise DecodeError(f"Constant column {name!r} has a cell in this row", pos=base)
        values[c] = constant
    for c, mark, infix in layout.infixes:
        value = values[c]
        if type(value) is str and mark in <str>value:
            values[c] = (<str>value).replace(mark, infix, 1)
    for c, prefix in layout.prefixes:
        value = values[c]
        if type(value) is str:
            values[c] = prefix + <str>value
    for c, src, before, after, name, source in layout.templates:
        if values[c] is not _ABSENT:
            continue
        value = values[src]
        if type(value) is str:
            values[c] = before + value + after
        elif type(value) is int:
            _as_long_long(<PyObject *>value, &overflow)  # past 64 bits: the digit limit
            text = str(value) if not overflow else int_to_str(value)
            values[c] = before + text + after
        else:
            msg = f"Column {name!r} is derived from {source!r}, which holds no text here"
            raise DecodeError(msg, pos=base)
    row = {}
    objects[0] = <PyObject *>row  # borrowed: row and the groups in it live on
    for i in range(layout.nsteps):
        src = layout.source[i]
        if src < 0:
            inner = {}
            _dict_put(objects[layout.holder[i]], layout.key[i], <PyObject *>inner)
            objects[-src] = <PyObject *>inner
        else:
            value = values[src]
            if value is not _ABSENT:
                _dict_put(objects[layout.holder[i]], layout.key[i], <PyObject *>value)
    return row


cdef bint _values_deeper(list values, Py_ssize_t limit):
    # _row_deeper over a row's values by column.
    cdef object value
    for value in values:
        if (type(value) is list or type(value) is dict) and _deeper(<PyObject *>value, limit):
            return True
    return False
