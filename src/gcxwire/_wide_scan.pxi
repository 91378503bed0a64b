# ------------------------------------------ 2- and 4-byte text: memchr per kind
# The scans of written text look for ASCII marks (LF, TAB, backslash). A wide
# str holds each as a 2- or 4-byte unit with the mark in one of its bytes, so
# memchr for that byte finds every candidate unit; the few units that merely
# share the byte (U+5Cxx for a backslash) are checked and skipped. A
# character at a time costs ~1.3 ns; memchr ~0.05 ns a byte.


cdef Py_ssize_t _find_wide(
    int kind, const void *data, Py_UCS4 c, Py_ssize_t a, Py_ssize_t b
) noexcept:
    # The first index of c (1..255) in [a, b) of 2- or 4-byte data, or -1.
    cdef const char *base = <const char *>data
    cdef const char *hit
    cdef Py_ssize_t i
    while a < b:
        hit = <const char *>memchr(base + a * kind, <int>c, (b - a) * kind)
        if hit == NULL:
            return -1
        i = (hit - base) // kind  # the unit holding that byte: no unit before it holds c
        if PyUnicode_READ(kind, data, i) == c:
            return i
        a = i + 1
    return -1
