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


def column_strings(rows, paths, cuts, mark, /):
    """Per column, its rows' exact strs, each after its first ``cuts[k]`` characters.

    A path is read through exact dicts only (anything else on the way holds no
    value). None for a None path, and for a column where any str (a subclass
    too) holds ``mark``; a str subclass is no string of the column.
    """
    cdef list table = list(rows), ps = list(paths), cs = list(cuts), out = [], strings
    cdef Py_ssize_t c, cut, n
    cdef tuple p
    if type(mark) is not str:
        raise TypeError("mark must be str")
    if len(ps) != len(cs):
        raise ValueError("paths and cuts differ in length")
    for c in range(len(ps)):
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
