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
    cdef Py_ssize_t n = _ulen(<PyObject *>text), i = 0, line = 0, count = 0
    cdef int kind = _ukind(<PyObject *>text)
    cdef const Py_UCS1 *b
    cdef const Py_UCS1 *p
    cdef const Py_UCS1 *q
    cdef Py_UCS4 c
    cdef bint slash = False
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
    # Wider texts (rare in rows worth a look): one character at a time.
    while i < n:
        c = PyUnicode_READ(kind, _udata(<PyObject *>text), i)
        if c == _LF:
            if line >= first and count >= need:
                out.append(line)
            line += 1
            count = 0
            slash = False
        elif slash and c == _LOWER_N:
            count += 1
            slash = False
        else:
            slash = c == _BACKSLASH
        i += 1
    if line >= first and count >= need:
        out.append(line)
    return out
