# Decode-side scans over 1-byte (Latin-1) text: plain pointer loops the compiler
# keeps in registers, where the generic PyUnicode_READ switch costs a branch a
# character. Used by the row reader's limit checks and the JSON literal cells.


cdef inline Py_ssize_t _count_brackets(const Py_UCS1 *b, Py_ssize_t n):
    # How many [ and { b[:n] holds, in one pass (a memchr per bracket is slow
    # on JSON, where they are dense).
    cdef Py_ssize_t count = 0, i
    for i in range(n):
        count += (b[i] == _LBRACKET) + (b[i] == _LBRACE)
    return count


cdef bint _digit_run(str text, Py_ssize_t at_least):
    # Whether text holds a run of at_least digits or more.
    cdef int kind = PyUnicode_KIND(text)
    cdef void *data = PyUnicode_DATA(text)
    cdef Py_ssize_t i, run = 0, n = len(text)
    cdef const Py_UCS1 *b
    if kind == PyUnicode_1BYTE_KIND:
        b = <const Py_UCS1 *>data
        for i in range(n):
            if <unsigned int>(b[i] - _ZERO) <= 9:
                run += 1
                if run >= at_least:
                    return True
            else:
                run = 0
        return False
    for i in range(n):
        if _digit(PyUnicode_READ(kind, data, i)):
            run += 1
            if run >= at_least:
                return True
        else:
            run = 0
    return False
