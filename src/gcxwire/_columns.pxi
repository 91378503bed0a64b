# --------------------------------------------------------- reading rows by path

cdef extern from "_gcx_keys.h":
    bint gcx_same_key(PyObject *a, PyObject *b) noexcept


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
    cdef Py_ssize_t *filled  # the slots gather set, nfilled of them: release clears only these
    cdef Py_ssize_t nfilled
    cdef tuple row_keys  # when not None: the keys every row must hold, in this order
    cdef bint exact  # read through exact dicts only: a row or member of another type holds nothing

    def __cinit__(self):
        self.ncols = self.ngroups = self.nslots = 0
        self.col_slot = self.g_parent = self.g_first = self.g_count = NULL
        self.keys = self.slots = NULL
        self.filled = NULL
        self.nfilled = 0
        self.row_keys = None
        self.exact = False

    def __dealloc__(self):
        self.release()
        PyMem_Free(self.col_slot)
        PyMem_Free(self.g_parent)
        PyMem_Free(self.g_first)
        PyMem_Free(self.g_count)
        PyMem_Free(self.keys)
        PyMem_Free(self.slots)
        PyMem_Free(self.filled)

    cdef int build(self, paths) except -1:
        cdef dict prefixes = None
        cdef list members = [[]], parents = [None], ms
        cdef list index = [{}]  # per group: member key -> its index in members
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
                    # A dict per group finds a member's index: `key in ms`
                    # made wide tables quadratic (32,000 columns: 9.5 s).
                    found = (<dict>index[g]).get(key)
                    if found is None:
                        at = len(ms)
                        index[g][key] = at
                        ms.append(key)
                    else:
                        at = found
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
                        index.append({})
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
            self.filled = <Py_ssize_t *>PyMem_Malloc((total + 1) * sizeof(Py_ssize_t))
            if (
                self.g_parent == NULL or self.g_first == NULL or self.g_count == NULL
                or self.keys == NULL or self.slots == NULL or self.filled == NULL
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
        # the expected order is read by one walk (keys of rows built alike are
        # the same objects: pointer compares; else, from the first key not met
        # that way, gcx_same_key's compares without a hash lookup); members not
        # met that way are looked up.
        cdef Py_ssize_t g, j, j0, n, first, pos, e, m
        cdef PyObject *d
        cdef PyObject *k
        cdef PyObject *v
        cdef PyObject **want
        cdef PyObject **ks
        cdef bint by_value
        for g in range(self.ngroups):
            if g == 0:
                d = <PyObject *>row
                if self.exact and _type_of(d) != &_DICT:
                    return 0
            else:
                d = self.slots[self.g_parent[g]]
                if d == NULL:
                    continue  # an absent object: its members are absent too
                if self.exact and _type_of(d) != &_DICT:
                    continue  # read through exact dicts only: no member here
                if not _is_dict(d):
                    raise TypeError(f"Row {index} holds a non-object where a column path goes on")
            first = self.g_first[g]
            n = self.g_count[g]
            ks = self.keys + first
            pos = 0
            j = 0
            if g == 0 and self.row_keys is not None:  # the same walk checks the row's keys
                want = _tuple_items(<PyObject *>self.row_keys)
                m = len(self.row_keys)
                if _dict_size(d) != m:
                    return 1
                e = 0
                while _dict_next(d, &pos, &k, &v):
                    if e >= m or (
                        k != want[e] and not gcx_same_key(k, want[e]) and not _same_key(k, want[e])
                    ):
                        return 1
                    e += 1
                    if j < n and gcx_same_key(k, ks[j]):
                        self._fill(first + j, v)
                        j += 1
                if e != m:
                    return 1
            else:
                # Each key is looked for from the last one met on: a row holding
                # some of the members in member order (a sparse row) is read in
                # one walk, its other members absent. A key not met that way
                # ends the walk (so it stays linear) and the members still unset
                # are looked up; so are they when keys beside the members were
                # passed over.
                m = _dict_size(d)
                e = 0
                by_value = False
                while _dict_next(d, &pos, &k, &v):
                    if not by_value:
                        j0 = j
                        while j < n and k != ks[j]:
                            j += 1
                        if j == n:  # not met by address: compare by value from here on
                            by_value = True
                            j = j0
                    if by_value:
                        while j < n and not gcx_same_key(k, ks[j]):
                            j += 1
                    if j == n:
                        break
                    self._fill(first + j, v)
                    j += 1
                    e += 1
                if e == m:  # every key was a member: the unset members are absent
                    continue
                j = 0
            while j < n:
                if self.slots[first + j] == NULL:
                    v = _dict_get(d, ks[j])
                    if v == NULL:
                        if _err_occurred() != NULL:
                            return -1
                    else:
                        self._fill(first + j, v)
                j += 1
        return 0

    cdef inline void _fill(self, Py_ssize_t s, PyObject *v) noexcept:
        # Slot s takes a reference to v; release clears it.
        _incref(v)
        self.slots[s] = v
        self.filled[self.nfilled] = s
        self.nfilled += 1

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

    cdef void release(self) noexcept:
        cdef Py_ssize_t i, s
        cdef PyObject *v
        if self.slots == NULL:
            return
        for i in range(self.nfilled):
            s = self.filled[i]
            v = self.slots[s]
            self.slots[s] = NULL
            _xdecref(v)
        self.nfilled = 0

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
    cdef list ps
    if not rows:
        return {}
    ps = list(paths)
    for path in ps:
        if type(path) is not tuple or len(<tuple>path) != 1:
            return _constant_columns_by_path(rows, ps)
    return _constant_columns_flat(rows, ps)


# From this many columns still constant after two rows, the other rows are read
# row by row: a wide table's rows, read a column at a time, left the cache
# between columns (10,000 columns: 5x the ns per cell of 100).
cdef Py_ssize_t _ROW_BY_ROW = 256


cdef bint _same_cell(object other, object value) except -1:
    # Whether other is value's scalar again: same exact type, equal, floats of one sign.
    cdef double f, a
    if type(other) is not type(value):
        return False
    if type(value) is float:
        f = other
        a = value
        return f == a and (signbit(f) != 0) == (signbit(a) != 0)
    return other is value or other == value


cdef dict _constant_columns_flat(rows, list ps):
    # constant_columns where every path is one key. The first two rows are read a
    # column at a time; where many columns are left, the other rows row by row.
    cdef Py_ssize_t nc = len(ps), n = len(rows), c, r, i, read, alive, start
    cdef list keys = [(<tuple>p)[0] for p in ps]
    cdef list value = [None] * nc  # each candidate column's value in the first row
    cdef list live = []  # the columns still constant
    cdef list left
    cdef dict found = {}
    cdef _Columns cols
    cdef PyObject *v
    first = rows[0]
    for c in range(nc):
        cell = _member(first, keys[c])
        kind = type(cell)
        if kind is str or kind is int or kind is float or kind is bool or cell is None:
            value[c] = cell
            live.append(c)
    i = 1
    if n > 1 and live:
        row = rows[1]
        live = [c for c in live if _same_cell(_member(row, keys[c]), value[c])]
        i = 2
    if len(live) >= _ROW_BY_ROW and n > 2:
        cols = _Columns.__new__(_Columns)
        cols.build([ps[c] for c in live])
        read = alive = len(live)
        while i < n and alive:
            row = rows[i]
            if type(row) is not dict:  # (a dict subclass is read by its get)
                break
            if 2 * alive <= read:  # half the columns read are settled: read the others only
                live = [c for c in live if c >= 0]
                cols = _Columns.__new__(_Columns)
                cols.build([ps[c] for c in live])
                read = alive
            cols.gather(row, i)
            try:
                for r in range(read):
                    c = live[r]
                    if c < 0:
                        continue
                    v = cols.slots[cols.col_slot[r]]
                    if v == NULL or not _same_cell(<object>v, value[c]):
                        live[r] = -1
                        alive -= 1
            finally:
                cols.release()
            i += 1
        live = [c for c in live if c >= 0]
    start = i
    for c in live:  # the rest a column at a time: a varying column stops at its first difference
        key = keys[c]
        cell = value[c]
        for i in range(start, n):
            if not _same_cell(_member(rows[i], key), cell):
                break
        else:
            found[c] = cell
    return found


cdef dict _constant_columns_by_path(rows, list ps):
    # constant_columns of any rows and paths: each column walked down the rows.
    cdef dict found = {}
    cdef Py_ssize_t k = 0, i, n = len(rows)
    cdef double a = 0, f
    cdef bint same
    if not rows:
        return found
    first = rows[0]
    for path in ps:
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
                same = f == a and (signbit(f) != 0) == (signbit(a) != 0)
            else:
                same = other is value or other == value
            if not same:
                break
        if same:
            found[k] = value
        k += 1
    return found


cdef Py_ssize_t _common_length(PyObject *a, PyObject *b, Py_ssize_t n):
    # How many leading characters of a and b agree, at most n (both have n or more).
    cdef Py_ssize_t i = 0
    cdef int ka = _ukind(a), kb = _ukind(b)
    cdef const Py_UCS1 *x
    cdef const Py_UCS1 *y
    if ka == kb == PyUnicode_1BYTE_KIND:
        x = <const Py_UCS1 *>_udata(a)
        y = <const Py_UCS1 *>_udata(b)
        while i < n and x[i] == y[i]:
            i += 1
        return i
    while i < n and PyUnicode_READ(ka, _udata(a), i) == PyUnicode_READ(kb, _udata(b), i):
        i += 1
    return i


def column_prefixes(rows, paths, least, /):
    """Per column, what its exact strs share: ``(least string, prefix length, count)``.

    The prefix length is that of their common prefix, cut so that every string
    keeps one character after it. A path is read through exact dicts only (a
    missing member or anything else on the way is no string). None for a
    ``None`` path, and when the column holds a dict, list, tuple or a str
    subclass (written whole, so read with the prefix it lacks), holds no exact
    str, or that prefix is shorter than ``least``.
    All columns are read in one pass over the rows.
    """
    cdef list ps = list(paths)
    cdef Py_ssize_t nc = len(ps), floor = least, c, s, m, i = 0, alive = nc, r, read = nc
    cdef list first = [None] * nc, low = [None] * nc  # owned: a row may go away meanwhile
    cdef Py_ssize_t *n = <Py_ssize_t *>PyMem_Malloc((3 * nc + 1) * sizeof(Py_ssize_t))
    cdef Py_ssize_t *count = n + nc
    cdef Py_ssize_t *col_of = n + 2 * nc  # per column read: the column it is
    cdef char *dead = <char *>PyMem_Malloc(nc + 1)
    cdef PyObject *v
    cdef _Columns cols
    try:
        if n == NULL or dead == NULL:
            raise MemoryError()
        cols = _Columns.__new__(_Columns)
        cols.build(ps)
        cols.exact = True
        for c in range(nc):
            n[c] = count[c] = 0
            col_of[c] = c
            dead[c] = cols.col_slot[c] < 0
            alive -= dead[c]
        for row in rows:
            if alive == 0:
                break
            if 2 * alive <= read:
                # Half the columns read are settled (most die in the first rows, and a
                # column of ints stays open to the end): read only the others from now.
                read = 0
                for c in range(nc):
                    if not dead[c]:
                        col_of[read] = c
                        read += 1
                cols = _Columns.__new__(_Columns)
                cols.build([ps[col_of[r]] for r in range(read)])
                cols.exact = True
            cols.gather(row, i)
            i += 1
            try:
                for r in range(read):
                    c = col_of[r]
                    if dead[c]:
                        continue
                    v = cols.slots[cols.col_slot[r]]
                    if v == NULL:
                        continue
                    if _type_of(v) == &_STR:
                        m = _ulen(v) - 1 if _ulen(v) else 0  # "" keeps none
                        if first[c] is None:
                            first[c] = low[c] = <object>v
                            n[c] = m
                        else:
                            if m > n[c]:
                                m = n[c]
                            n[c] = _common_length(<PyObject *>first[c], v, m)
                            if <str>v < <str>low[c]:
                                low[c] = <object>v
                        count[c] += 1
                        if n[c] < floor:
                            dead[c] = 1
                            alive -= 1
                    elif _is_dict(v) or _is_list(v) or _is_tuple(v) or _is_str(v):
                        # Subclasses too: a str subclass is written whole, so no prefix.
                        dead[c] = 1
                        alive -= 1
            finally:
                cols.release()
        return [
            None if dead[c] or first[c] is None else (low[c], n[c], count[c]) for c in range(nc)
        ]
    finally:
        PyMem_Free(n)
        PyMem_Free(dead)


cdef int _grow(Py_ssize_t **p, Py_ssize_t *cap, Py_ssize_t need) except -1:
    # *p holds at least need items afterwards (it doubles).
    cdef Py_ssize_t size = cap[0] * 2 if cap[0] else 256
    cdef Py_ssize_t *q
    if need <= cap[0]:
        return 0
    while size < need:
        size *= 2
    q = <Py_ssize_t *>PyMem_Realloc(p[0], size * sizeof(Py_ssize_t))
    if q == NULL:
        raise MemoryError()
    p[0] = q
    cap[0] = size
    return 0


cdef list _merge(Py_ssize_t *seqs, Py_ssize_t nseq, list fields):
    # A topological order of the keys every row order agrees with (seqs: each
    # distinct row's key indices, each run ended by -1), the key seen first
    # going first when several are ready; None when there is none. Linear:
    # the edges are bucketed by source and deduplicated with a mark per key.
    cdef Py_ssize_t m = len(fields), n = 0, i, j, a, b, top = 0, c, x, w
    cdef Py_ssize_t *succ = <Py_ssize_t *>PyMem_Malloc((nseq + 1) * sizeof(Py_ssize_t))
    cdef Py_ssize_t *start = <Py_ssize_t *>PyMem_Malloc((5 * m + 2) * sizeof(Py_ssize_t))
    cdef Py_ssize_t *stop = start + m + 1
    cdef Py_ssize_t *pending = stop + m
    cdef Py_ssize_t *mark = pending + m
    cdef Py_ssize_t *heap = mark + m
    cdef list order = []
    try:
        if succ == NULL or start == NULL:
            raise MemoryError()
        for i in range(m + 1):
            start[i] = 0
        for i in range(nseq - 1):  # successors per key, counted
            if seqs[i] >= 0 and seqs[i + 1] >= 0:
                start[seqs[i] + 1] += 1
                n += 1
        for i in range(m):
            start[i + 1] += start[i]
            stop[i] = start[i]
            pending[i] = 0
            mark[i] = -1
        for i in range(nseq - 1):  # then placed, bucketed by key
            a = seqs[i]
            if a >= 0 and seqs[i + 1] >= 0:
                succ[stop[a]] = seqs[i + 1]
                stop[a] += 1
        for a in range(m):  # each edge once: a mark says b already follows a
            w = start[a]
            for j in range(start[a], stop[a]):
                b = succ[j]
                if mark[b] != a:
                    mark[b] = a
                    succ[w] = b
                    w += 1
                    pending[b] += 1
            stop[a] = w
        for i in range(m):
            if pending[i] == 0:
                heap[top] = i  # ascending: already a heap
                top += 1
        while top:
            a = heap[0]  # the smallest index: the key seen first
            top -= 1
            x = heap[top]
            i = 0
            while True:  # sift x down from the root
                c = 2 * i + 1
                if c >= top:
                    break
                if c + 1 < top and heap[c + 1] < heap[c]:
                    c += 1
                if heap[c] >= x:
                    break
                heap[i] = heap[c]
                i = c
            if top:
                heap[i] = x
            order.append(fields[a])
            for j in range(start[a], stop[a]):
                b = succ[j]
                pending[b] -= 1
                if pending[b] == 0:
                    i = top  # sift b up
                    top += 1
                    while i and heap[(i - 1) // 2] > b:
                        heap[i] = heap[(i - 1) // 2]
                        i = (i - 1) // 2
                    heap[i] = b
        return order if len(order) == m else None
    finally:
        PyMem_Free(succ)
        PyMem_Free(start)


def key_order(rows, /):
    """The column order of rows that are all exact dicts with exact str keys.

    Keys follow their first appearance; when rows disagree on order, a
    topological merge finds one order every row agrees with (so each row
    keeps its key order), the key seen first going first when several could.
    None when a row or a key is of another type, or no order agrees with
    every row (the caller's general path then decides).
    """
    cdef dict index = {}
    cdef list fields = [], held = []
    cdef Py_ssize_t *seqs = NULL
    cdef Py_ssize_t cap = 0, nseq = 0, prev = -1, here, pos, at, last, size
    cdef PyObject *k
    cdef PyObject *v
    cdef bint ordered = True
    cdef _IdMap ids
    _id_init(&ids, 64, 1 << 20)
    try:
        for row in rows:
            if type(row) is not dict:
                return None
            size = _dict_size(<PyObject *>row)
            _grow(&seqs, &cap, nseq + size + 1)
            here = nseq
            pos = 0
            last = -1
            while _dict_next(<PyObject *>row, &pos, &k, &v):
                # A key met before is found by its address (an exact str, held);
                # any other by value, then remembered.
                if not _id_get(&ids, k, &at):
                    at = _key_index(index, fields, k)
                    if at < 0:
                        return None
                    # Rows whose keys are fresh objects (f-strings) would fill the map
                    # with every row's keys, out of the cache: keep about one set.
                    ids.room = 2 * len(fields) + 64
                    _id_put(&ids, held, k, at)
                if at < last:
                    ordered = False
                last = at
                seqs[nseq] = at
                nseq += 1
            seqs[nseq] = -1
            nseq += 1
            # A row shaped as the one before adds nothing to merge.
            if prev >= 0 and nseq - here == here - prev and memcmp(
                seqs + prev, seqs + here, (here - prev) * sizeof(Py_ssize_t)
            ) == 0:
                nseq = here
            else:
                prev = here
        if ordered:
            return fields
        return _merge(seqs, nseq, fields)
    finally:
        PyMem_Free(seqs)
        _id_free(&ids)


cdef Py_ssize_t _key_index(dict index, list fields, PyObject *k) except -2:
    # key_order's index of key k, a new one (appended to fields) when first met;
    # -1 when k is not an exact str.
    cdef PyObject *found
    cdef Py_ssize_t at
    if _type_of(k) != &_STR:
        return -1
    found = _dict_get(<PyObject *>index, k)
    if found == NULL:
        _raise_if_set()
        at = len(fields)
        fields.append(<object>k)
        index[<object>k] = at
        return at
    return PyLong_AsSsize_t(<object>found)
