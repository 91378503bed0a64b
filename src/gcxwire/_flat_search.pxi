# The flat-table searches' column reads (prefix=, infix=, template=): one call
# over a few sample rows instead of a Python loop per column and cell.

from cpython.unicode cimport PyUnicode_Contains


cdef object _value_at(object row, tuple path):
    # The value at path, read through exact dicts only; _ABSENT where there is none.
    cdef object cur = row
    for key in path:
        if type(cur) is not dict:
            return _ABSENT
        cur = (<dict>cur).get(key, _ABSENT)
    return cur


# From this many columns a row is walked once for them all; fewer (the infix search
# reads a single column of every row) are looked up, one dict lookup a cell.
cdef Py_ssize_t _WALK_COLUMNS = 4


cdef list _strings_by_lookup(list table, list ps, list cs, str mark):
    # column_strings a column at a time (arguments checked).
    cdef list out = [], strings
    cdef Py_ssize_t c, cut, n
    cdef tuple p
    for c in range(len(ps)):
        path = ps[c]
        if path is None:
            out.append(None)
            continue
        p = tuple(path)
        cut = cs[c]
        strings = []
        for row in table:
            value = _value_at(row, p)
            if not isinstance(value, str):
                continue
            if PyUnicode_Contains(value, mark):
                strings = None
                break
            if type(value) is str:
                n = len(<str>value)
                strings.append(value if cut == 0 else PyUnicode_Substring(value, cut, n))
        out.append(strings)
    return out


def column_strings(rows, paths, cuts, mark, /):
    """Per column, its rows' exact strs, each after its first ``cuts[k]`` characters.

    A path is read through exact dicts only (anything else on the way holds no
    value). None for a None path, and for a column where any str (a subclass
    too) holds ``mark``; a str subclass is no string of the column.
    """
    cdef list table = list(rows), ps = list(paths), cs = list(cuts), out = []
    cdef Py_ssize_t c, s, nc = len(ps), alive = 0, i = 0
    cdef Py_ssize_t *cut = NULL
    cdef PyObject *v
    cdef _Columns cols
    cdef tuple p
    if type(mark) is not str:
        raise TypeError("mark must be str")
    if len(ps) != len(cs):
        raise ValueError("paths and cuts differ in length")
    for c in range(nc):
        if cs[c] < 0:
            raise ValueError("A cut is never negative")
        path = ps[c]
        if path is None:
            continue
        p = tuple(path)
        if not p:
            raise ValueError("A column path needs at least one key")
        for key in p:
            hash(key)  # an unhashable key fails here, before any row is read
    if nc < _WALK_COLUMNS:
        return _strings_by_lookup(table, ps, cs, mark)
    # Each row is read once for every column (its dict walked by _Columns.gather,
    # keys met by address), not looked up once per column: a wide table's sample
    # spent most of the infix search in those lookups.
    cols = _Columns.__new__(_Columns)
    cols.build(ps)
    cols.exact = True
    cut = <Py_ssize_t *>PyMem_Malloc((nc + 1) * sizeof(Py_ssize_t))
    if cut == NULL:
        raise MemoryError()
    try:
        for c in range(nc):
            cut[c] = cs[c]
            if cols.col_slot[c] < 0:
                out.append(None)
            else:
                out.append([])
                alive += 1
        for row in table:
            if alive == 0:
                break
            cols.gather(row, i)
            i += 1
            try:
                for c in range(nc):
                    s = cols.col_slot[c]
                    if s < 0 or out[c] is None:
                        continue
                    v = cols.slots[s]
                    if v == NULL or not _is_str(v):
                        continue
                    if PyUnicode_Contains(<object>v, mark):
                        out[c] = None
                        alive -= 1
                    elif _type_of(v) == &_STR:
                        (<list>out[c]).append(
                            <object>v if cut[c] == 0
                            else PyUnicode_Substring(<object>v, cut[c], _ulen(v))
                        )
            finally:
                cols.release()
        return out
    finally:
        PyMem_Free(cut)


cdef inline bint _separator(Py_UCS4 ch):
    # Where a path or query string may be cut (`/?&#`).
    return ch == 47 or ch == 63 or ch == 38 or ch == 35


cdef inline bint _url_char(Py_UCS4 ch):
    # What RFC 3986 allows in a URL or path (and `%` escapes): ASCII letters,
    # digits and -._~:/?#[]@!$&'()*+,;=%
    if ch >= 128:
        return False
    if 48 <= ch <= 57 or 65 <= ch <= 90 or 97 <= ch <= 122:
        return True
    return PyUnicode_FindChar("-._~:/?#[]@!$&'()*+,;=%", ch, 0, 23, 1) >= 0


cdef bint _may_be_run(str text, Py_ssize_t least):
    # Long enough, URL text, whole segments at both ends.
    cdef Py_ssize_t i, n = len(text)
    cdef int kind = _ukind(<PyObject *>text)
    cdef void *data = _udata(<PyObject *>text)
    if n < least or n == 0:
        return False
    if _separator(PyUnicode_READ(kind, data, 0)) or _separator(PyUnicode_READ(kind, data, n - 1)):
        return False
    for i in range(n):
        if not _url_char(PyUnicode_READ(kind, data, i)):
            return False
    return True


cdef list _segment_runs(str seed, str other, Py_ssize_t least, Py_ssize_t longest, Py_ssize_t most):
    # Maximal runs of the seed's segments that the other string holds too.
    cdef Py_ssize_t n = min(len(seed), longest), i, m = 0, start = -1, a, b
    cdef int kind = _ukind(<PyObject *>seed)
    cdef void *data = _udata(<PyObject *>seed)
    cdef list cuts = [], runs = []
    cdef str run
    for i in range(n):
        if m >= most:
            break
        if _separator(PyUnicode_READ(kind, data, i)):
            cuts.append(i)
            m += 1
    if m < 2:
        return runs
    for i in range(m):
        if i + 1 < m:
            a, b = cuts[i], cuts[i + 1]
            if PyUnicode_Contains(other, PyUnicode_Substring(seed, a + 1, b)):
                if start < 0:
                    start = i
                continue
        if start >= 0:
            run = PyUnicode_Substring(seed, <Py_ssize_t>cuts[start] + 1, <Py_ssize_t>cuts[i])
            if _may_be_run(run, least):
                runs.append(run)
            start = -1
    return runs


def infix_runs(strings, seeds, shortest, longest, least, most, /):
    """The runs an infix search scores, in order, from a column's sample strings.

    The seeds are the first ``seeds + 1`` strings ``shortest`` to ``longest``
    long; for each one and the next, the maximal runs of the seed's segments
    (between its first ``most`` separators `/?&#`) that the next holds too:
    at least ``least`` long, URL text, neither beginning nor ending with a
    separator (the cell keeps those around its mark).
    """
    cdef list picked = [], out = []
    cdef Py_ssize_t s, size, lo = shortest, hi = longest, want = seeds, at_least = least
    cdef Py_ssize_t cuts = most
    for value in strings:
        if type(value) is not str:
            raise TypeError("strings must be str")
        if len(picked) > want:
            continue
        size = len(<str>value)
        if lo <= size <= hi:
            picked.append(value)
    picked = picked[: want + 1]
    for s in range(len(picked) - 1):
        out.extend(_segment_runs(picked[s], picked[s + 1], at_least, hi, cuts))
    return out


def template_probes(rows, path, source, before, after, probes, /):
    """Whether half of ``probes`` spread rows hold ``before + source text + after`` at ``path``.

    Row ``i * len(rows) // probes`` for each i; False as soon as one of them
    lacks the column, or more than half do not hold the template. A source's
    text is an exact str, or an exact int's digits; paths are read through
    exact dicts only.
    """
    cdef list table = rows if type(rows) is list else list(rows)
    cdef tuple p = tuple(path), q = tuple(source)
    cdef Py_ssize_t i, size = len(table), n = probes, misses = 0, lb, la, lt, lv
    if type(before) is not str or type(after) is not str:
        raise TypeError("before and after must be str")
    lb, la = len(<str>before), len(<str>after)
    for i in range(n):
        row = table[i * size // n]
        value = _value_at(row, p)
        if value is _ABSENT:
            return False
        got = _value_at(row, q)
        if type(got) is str:
            text = got
        elif type(got) is int:
            text = int_to_str(got)
        else:
            text = None
        if type(value) is str and text is not None:
            lt = len(<str>text)
            lv = len(<str>value)
            if (
                lv == lb + lt + la
                and PyUnicode_Tailmatch(value, before, 0, lb, -1) == 1
                and PyUnicode_Tailmatch(value, text, lb, lb + lt, -1) == 1
                and PyUnicode_Tailmatch(value, after, lb + lt, lv, 1) == 1
            ):
                continue
        misses += 1
        if misses > n // 2:
            return False
    return True


cdef inline int _prefix_take(
    PyObject *v, Py_ssize_t c, list first, list low, Py_ssize_t *n, Py_ssize_t *count,
    char *dead, Py_ssize_t floor
) except -1:
    # column_prefixes's step for one value (borrowed: nothing here runs Python code);
    # 1 when the column dies.
    cdef Py_ssize_t m
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
            return 1
    elif _is_dict(v) or _is_list(v) or _is_tuple(v) or _is_str(v):
        dead[c] = 1
        return 1
    return 0


def flat_prefixes(rows, keys, least, /):
    """``column_prefixes`` of top-level members: ``keys[c]`` is column c's key (None: not read).

    While more than a third of the columns are open, a row whose keys are
    the columns' own key objects in column order (rows built alike) is read
    by one walk over its items that looks only at the open columns' values;
    other rows, and the open columns of the rest, are looked up.
    """
    cdef list ks = list(keys), table = list(rows)
    cdef Py_ssize_t nc = len(ks), floor = least, c, j, pos, alive = 0, i = 0, wanted
    cdef list first = [None] * nc, low = [None] * nc
    cdef Py_ssize_t *n = <Py_ssize_t *>PyMem_Malloc((3 * nc + 1) * sizeof(Py_ssize_t))
    cdef Py_ssize_t *count = n + nc
    cdef Py_ssize_t *seen = n + 2 * nc  # per column: the last row (+1) that gave it its value
    cdef char *dead = <char *>PyMem_Malloc(nc + 1)
    cdef PyObject **kp = <PyObject **>PyMem_Malloc((nc + 1) * sizeof(PyObject *))
    cdef PyObject *d
    cdef PyObject *k
    cdef PyObject *v
    cdef bint walked, by_walk
    try:
        if n == NULL or dead == NULL or kp == NULL:
            raise MemoryError()
        for c in range(nc):
            n[c] = count[c] = seen[c] = 0
            key = ks[c]
            dead[c] = key is None
            kp[c] = <PyObject *>key
            if key is not None:
                hash(key)  # an unhashable key fails here, before any row is read
                alive += 1
        # Two columns of one key: each row's member is found by its lookups.
        wanted = alive
        by_walk = len({key for key in ks if key is not None}) == alive
        for row in table:
            if alive == 0:
                break
            i += 1
            if type(row) is not dict:
                continue  # read through exact dicts only: no member here
            d = <PyObject *>row
            pos = 0
            j = 0
            # Walking costs a look at every member; a few open columns are looked up.
            walked = by_walk and 3 * alive > wanted
            while walked and _dict_next(d, &pos, &k, &v):
                while j < nc and kp[j] != k:
                    j += 1
                if j == nc:
                    walked = False
                    break
                seen[j] = i
                if not dead[j]:
                    alive -= _prefix_take(v, j, first, low, n, count, dead, floor)
                j += 1
            if walked:
                continue
            for c in range(nc):  # a row of other keys or order: the others looked up
                if dead[c] or seen[c] == i:
                    continue
                v = _dict_get(d, kp[c])
                if v == NULL:
                    _raise_if_set()
                    continue
                _incref(v)
                try:
                    alive -= _prefix_take(v, c, first, low, n, count, dead, floor)
                finally:
                    _xdecref(v)
        return [
            None if dead[c] or first[c] is None else (low[c], n[c], count[c]) for c in range(nc)
        ]
    finally:
        PyMem_Free(n)
        PyMem_Free(dead)
        PyMem_Free(kp)
