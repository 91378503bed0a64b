# ------------------------------------------------- substring search (nested records)
# The cell-style and quoted=json passes ask whether a written payload holds
# `""`, `":{}` or `\t["`; a one-row record of a big nested object is one long
# JSON cell, where str.find takes ~1.5 ns a character for these (their first
# character, a quote, is everywhere in JSON).


cdef extern from "_gcx_find.h":
    Py_ssize_t gcx_find(const unsigned char *s, Py_ssize_t n, const unsigned char *w, Py_ssize_t m)


cdef extern from "_gcx_find_wide.h":
    Py_ssize_t gcx_find_wide(
        int kind, const void *s, Py_ssize_t n, int wk, const void *w, Py_ssize_t m
    )


cdef object _str_find = str.find  # called as an object: Cython would convert the bounds


def find_text(text, needle, start, end, /):
    """``text.find(needle, start, end)``: the same index, found faster."""
    cdef str t = _text_arg(text)
    if type(needle) is not str or type(start) is not int or type(end) is not int:
        return _str_find(t, needle, start, end)
    try:
        return _find_text(t, <str>needle, start, end)
    except OverflowError:  # a bound past Py_ssize_t: str.find clamps it
        return _str_find(t, needle, start, end)


cdef Py_ssize_t _find_text(str text, str needle, Py_ssize_t start, Py_ssize_t end) except -2:
    cdef Py_ssize_t n = len(text), m = len(needle), at
    cdef int kind = PyUnicode_KIND(text), wk = PyUnicode_KIND(needle)
    if m < 2 or wk > kind:
        return text.find(needle, start, end)  # one character is a memchr there already
    # str.find's slice bounds
    if start < 0:
        start = max(start + n, 0)
    if end > n:
        end = n
    elif end < 0:
        end = max(end + n, 0)
    if end - start < m:
        return -1
    if kind != PyUnicode_1BYTE_KIND:
        at = gcx_find_wide(
            kind, <const char *>PyUnicode_DATA(text) + start * kind, end - start,
            wk, PyUnicode_DATA(needle), m,
        )
        return -1 if at < 0 else start + at
    at = gcx_find(
        <const unsigned char *>PyUnicode_DATA(text) + start,
        end - start,
        <const unsigned char *>PyUnicode_DATA(needle),
        m,
    )
    return -1 if at < 0 else start + at
