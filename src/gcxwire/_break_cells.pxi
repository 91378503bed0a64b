# ------------------------------------------ form=lines search: the cells that may move

from cpython.unicode cimport Py_UNICODE_ISALNUM


cdef extern from "_gcx_escape.h":
    uint64_t gcx_specials(const Py_UCS1 *p, Py_ssize_t n)
    int gcx_lowest_bit(uint64_t m)


cdef bint _ALNUM1[256]  # Py_UNICODE_ISALNUM of each Latin-1 character
for _c in range(256):
    _ALNUM1[_c] = Py_UNICODE_ISALNUM(<Py_UCS4>_c)


def break_cells(str text, bint header, Py_ssize_t floor, lines=None, /):
    """The row cells with ``floor`` (at least 1) or more ``\\n`` that follow no letter or digit.

    One look at each of the written rows (after the header line with
    ``header``), a line read cell by cell only when it holds ``floor`` ``\\n``
    escapes in all: ``[(row, index, start, end, count)]`` in text order, ``text[start:end]``
    the cell. An escape counts when the text before it in the cell, since the
    last escape, is not empty and does not end in a letter or digit, or ends
    in a ``\\t`` escape: at least as many as the line breaks a lines section
    of the cell's text saves (_gcx_lines._saved). With ``lines`` (style_marks'
    lines for this ``floor``: ``(row, start, end)`` of each row line holding that
    many escapes) only those lines are read, without a look at the others.
    """
    cdef int kind = PyUnicode_KIND(text)
    cdef const void *data = PyUnicode_DATA(text)
    cdef Py_ssize_t n = len(text), at, line_end, row = 0, j, count, start, end
    cdef list out = []
    if floor < 1:
        raise ValueError("floor must be at least 1")
    if lines is not None:
        for row, start, end in lines:
            if not 0 <= start <= end <= n:
                raise ValueError("A line lies outside the text")
            if kind == PyUnicode_1BYTE_KIND:
                _break_line_1byte(<const Py_UCS1 *>data, start, end, row, floor, out)
            else:
                _break_line_wide(kind, data, start, end, row, floor, out)
        return out
    at = _rows_start(text, header)
    if at < 0:
        return out
    if kind == PyUnicode_1BYTE_KIND:
        return _break_cells_1byte(<const Py_UCS1 *>data, n, at, floor)
    while at <= n:
        line_end = _find(kind, data, _LF, at, n)
        if line_end < 0:
            line_end = n
        count = 0  # the line's `\\n` escapes first: as many as any of its cells counts, at most
        j = _find(kind, data, _BACKSLASH, at, line_end)
        while j >= 0 and count < floor:
            if j + 1 < line_end and PyUnicode_READ(kind, data, j + 1) == _LOWER_N:
                count += 1
            j = _find(kind, data, _BACKSLASH, j + 1, line_end)
        if count >= floor:
            _break_line_wide(kind, data, at, line_end, row, floor, out)
        at = line_end + 1
        row += 1
    return out


cdef int _break_line_wide(
    int kind, const void *data, Py_ssize_t at, Py_ssize_t line_end, Py_ssize_t row,
    Py_ssize_t floor, list out,
) except -1:
    # The cells of the line [at, line_end) of 2- or 4-byte text (any kind, in fact) with
    # ``floor`` or more escapes that count, appended to ``out``.
    cdef Py_ssize_t k = 0, cell_end, j, piece, count
    cdef Py_UCS4 c
    while True:  # each cell of the line
        cell_end = _find(kind, data, _TAB, at, line_end)
        if cell_end < 0:
            cell_end = line_end
        count = 0
        piece = at  # where the text since the last escape starts
        j = _find(kind, data, _BACKSLASH, at, cell_end)
        while j >= 0 and j + 1 < cell_end:
            if PyUnicode_READ(kind, data, j + 1) == _LOWER_N:
                if j > piece:
                    c = PyUnicode_READ(kind, data, j - 1)
                    if not Py_UNICODE_ISALNUM(c) or (
                        c == _LOWER_T and j - piece >= 2
                        and PyUnicode_READ(kind, data, j - 2) == _BACKSLASH
                    ):
                        count += 1
                piece = j + 2
                j = _find(kind, data, _BACKSLASH, j + 2, cell_end)
            else:  # `\\n` holds a `\n` too: searched as str.split would
                j = _find(kind, data, _BACKSLASH, j + 1, cell_end)
        if count >= floor:
            out.append((row, k, at, cell_end, count))
        if cell_end == line_end:
            return 0
        at = cell_end + 1
        k += 1


cdef list _break_cells_1byte(const Py_UCS1 *b, Py_ssize_t n, Py_ssize_t at, Py_ssize_t floor):
    # break_cells over 1-byte text from ``at``, a line at a time: a memchr for its end and
    # one per backslash count its `\\n` escapes (as many as any of its cells counts, at
    # most), and only a line with ``floor`` of them is read cell by cell, 64 bytes at a
    # time while it is in cache. Most lines have too few (a table without long multi-line
    # texts, or CR LF bodies with fewer breaks than a header costs): one look each.
    cdef list out = []
    cdef Py_ssize_t row = 0, end, count
    cdef const Py_UCS1 *q
    cdef const Py_UCS1 *p
    while at <= n:
        q = <const Py_UCS1 *>memchr(b + at, _LF, n - at)
        end = n if q == NULL else q - b
        count = 0
        p = b + at
        while count < floor:
            p = <const Py_UCS1 *>memchr(p, _BACKSLASH, (b + end) - p)
            if p == NULL:
                break
            p += 1
            if p < b + end and p[0] == _LOWER_N:
                count += 1
        if count >= floor:
            _break_line_1byte(b, at, end, row, floor, out)
        at = end + 1
        row += 1
    return out


cdef int _break_line_1byte(
    const Py_UCS1 *b, Py_ssize_t at, Py_ssize_t end, Py_ssize_t row, Py_ssize_t floor, list out
) except -1:
    # The cells of line b[at:end] (no LF in it) with ``floor`` or more escapes that count,
    # appended to ``out``: one pass that reads 64 bytes at a time and stops only at a
    # backslash or TAB.
    cdef Py_ssize_t k = 0, start = at, piece = at, count = 0, i = at, j, width
    cdef uint64_t mask
    cdef Py_UCS1 c
    while i < end:
        width = 64 if end - i >= 64 else end - i
        mask = gcx_specials(b + i, width)
        while mask:
            j = i + gcx_lowest_bit(mask)
            mask &= mask - 1
            if b[j] == _BACKSLASH:
                if j + 1 < end and b[j + 1] == _LOWER_N:
                    if j > piece:
                        c = b[j - 1]
                        if not _ALNUM1[c] or (
                            c == _LOWER_T and j - piece >= 2 and b[j - 2] == _BACKSLASH
                        ):
                            count += 1
                    piece = j + 2
            else:  # a TAB ends the cell
                if count >= floor:
                    out.append((row, k, start, j, count))
                count = 0
                k += 1
                start = piece = j + 1
        i += width
    if count >= floor:
        out.append((row, k, start, end, count))
    return 0
