# ------------------------------------------ form=lines: which row lines could move a text


def break_lines(text, start, least, /):
    """The indices (``start`` on) of the LF-separated lines of ``text`` that hold at
    least ``least`` ``\\n`` escapes (a backslash, then ``n``), as ``line.count("\\\\n")`` counts.

    One look at the text: move_texts reads only those lines, and none on a
    table without long multi-line texts.
    """
    if type(text) is not str:
        raise TypeError("text must be str")
    cdef Py_ssize_t first = start, need = least
    cdef list out = []
    cdef Py_ssize_t n = _ulen(<PyObject *>text), line = 0, count = 0
    cdef int kind = _ukind(<PyObject *>text)
    cdef const Py_UCS1 *b
    cdef const Py_UCS1 *p
    cdef const Py_UCS1 *q
    if need <= 0:  # every line holds that many
        return list(range(max(first, 0), text.count("\n") + 1))
    if kind == PyUnicode_1BYTE_KIND:
        b = <const Py_UCS1 *>_udata(<PyObject *>text)
        p = b
        while True:  # a line at a time: one memchr for its end, one per backslash in it
            q = <const Py_UCS1 *>memchr(p, _LF, n - (p - b))
            if q == NULL:
                q = b + n
            if line >= first:
                count = 0
                while True:
                    p = <const Py_UCS1 *>memchr(p, _BACKSLASH, q - p)
                    if p == NULL:
                        break
                    if p + 1 < q and p[1] == _LOWER_N:
                        count += 1
                    p += 1
                if count >= need:
                    out.append(line)
            if q == b + n:
                return out
            p = q + 1
            line += 1
    return _break_lines_wide(kind, _udata(<PyObject *>text), n, first, need)


cdef list _break_lines_wide(
    int kind, const void *data, Py_ssize_t n, Py_ssize_t first, Py_ssize_t need
):
    # break_lines for 2- and 4-byte text: the 1-byte loop, with _find_wide for memchr.
    cdef list out = []
    cdef Py_ssize_t at = 0, end, j, line = 0, count
    while True:
        end = _find_wide(kind, data, _LF, at, n)
        if end < 0:
            end = n
        if line >= first:
            count = 0
            j = _find_wide(kind, data, _BACKSLASH, at, end)
            while j >= 0:
                if j + 1 < end and PyUnicode_READ(kind, data, j + 1) == _LOWER_N:
                    count += 1
                j = _find_wide(kind, data, _BACKSLASH, j + 1, end)
            if count >= need:
                out.append(line)
        if end == n:
            return out
        at = end + 1
        line += 1
