# ------------------------------------------ form=lines search: the cells that may move

from cpython.unicode cimport Py_UNICODE_ISALNUM


def break_cells(str text, bint header, Py_ssize_t floor, /):
    """The row cells with ``floor`` (at least 1) or more ``\\n`` that follow no letter or digit.

    One pass over the written rows (after the header line with ``header``):
    ``[(row, index, start, end, count)]`` in text order, ``text[start:end]``
    the cell. An escape counts when the text before it in the cell, since the
    last escape, is not empty and does not end in a letter or digit, or ends
    in a ``\\t`` escape: at least as many as the line breaks a lines section
    of the cell's text saves (_gcx_lines._saved).
    """
    cdef int kind = PyUnicode_KIND(text)
    cdef const void *data = PyUnicode_DATA(text)
    cdef Py_ssize_t n = len(text), at, line_end, cell_end, row = 0, k, j, piece, count
    cdef Py_UCS4 c
    cdef list out = []
    if floor < 1:
        raise ValueError("floor must be at least 1")
    at = _rows_start(text, header)
    if at < 0:
        return out
    while at <= n:
        line_end = _find(kind, data, _LF, at, n)
        if line_end < 0:
            line_end = n
        k = 0
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
                break
            at = cell_end + 1
            k += 1
        at = line_end + 1
        row += 1
    return out
