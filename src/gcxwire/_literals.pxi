# ------------------------------------------ number literals a re-write may change
# The proxy asks of every answer line whether a parse and a re-write could
# change one of its number literals (jsonrpc.LineNumbers): a line is suspect
# where it holds any of
#   [0-9][eE] | -0(?![.0-9]) | \.[0-9]*[0-9]0(?![0-9]) | [0-9]{16} | [0-9.]{17}
# and it holds a number escape where \\u00(?:[23][0-9a-fA-F]|[46]5) matches
# (a \u escape writing a digit, "-", ".", "e" or "E"). The pure twin runs those
# regexes and substring searches (five passes over the line, ~25 us on a 50-row
# answer of 6.6 kB); this is one pass, a table lookup for most bytes.

cdef enum:
    _L_DIGIT = 1
    _L_DOT = 2
    _L_MINUS = 3
    _L_BACKSLASH = 4
    _L_E = 5  # e or E, after a digit

cdef unsigned char _LITERAL_KIND[256]


cdef void _init_literal_kinds() noexcept:
    cdef int c
    for c in range(256):
        _LITERAL_KIND[c] = 0
    for c in range(48, 58):
        _LITERAL_KIND[c] = _L_DIGIT
    _LITERAL_KIND[46] = _L_DOT
    _LITERAL_KIND[45] = _L_MINUS
    _LITERAL_KIND[92] = _L_BACKSLASH
    _LITERAL_KIND[69] = _L_E
    _LITERAL_KIND[101] = _L_E


_init_literal_kinds()


cdef inline bint _is_digit(unsigned char c) noexcept:
    return 48 <= c <= 57


cdef inline bint _is_hex(unsigned char c) noexcept:
    return 48 <= c <= 57 or 65 <= (c & ~32) <= 70


def literal_scan(data, /):
    """What a JSON line's number literals allow: 1 if it is suspect (a literal a
    parse and re-write may change could be in it), else 2 if it holds a ``\\u``
    escape writing a digit, ``-``, ``.``, ``e`` or ``E``, else 0. Digits inside
    strings count too (the caller then checks exactly)."""
    if type(data) is not bytes:
        raise TypeError(f"literal_scan takes bytes, not {type(data).__name__}")
    cdef const unsigned char *s = <const unsigned char *><char *>data
    cdef Py_ssize_t n = len(data), i = 0, j
    cdef Py_ssize_t digits = 0, numeric = 0  # the runs of [0-9] and of [0-9.] ending here
    cdef unsigned char kind, c, prev_digit = 0
    cdef int escape = 0
    while i < n:
        kind = _LITERAL_KIND[s[i]]
        if kind == 0:  # most bytes: skipped in a tight loop, the runs reset once
            digits = numeric = 0
            prev_digit = 0
            i += 1
            while i < n and _LITERAL_KIND[s[i]] == 0:
                i += 1
            continue
        if kind == _L_DIGIT:
            digits += 1
            numeric += 1
            if digits >= 16 or numeric >= 17:
                return 1
            prev_digit = 1
        elif kind == _L_E:
            if prev_digit:
                return 1
            digits = numeric = 0
            prev_digit = 0
        elif kind == _L_DOT:
            digits = 0
            numeric += 1
            if numeric >= 17:
                return 1
            prev_digit = 0
            j = i + 1
            while j < n and _is_digit(s[j]):
                j += 1
            if j - i - 1 >= 2 and s[j - 1] == 48:  # the fraction's run ends in 0
                return 1
        else:
            digits = numeric = 0
            prev_digit = 0
            if kind == _L_MINUS:
                if i + 1 < n and s[i + 1] == 48:
                    if i + 2 >= n:
                        return 1
                    c = s[i + 2]
                    if c != 46 and not _is_digit(c):
                        return 1
            elif not escape and i + 5 < n and s[i + 1] == 117 and s[i + 2] == s[i + 3] == 48:
                c = s[i + 4]  # \u00, then two more bytes
                if ((c == 50 or c == 51) and _is_hex(s[i + 5])) or (
                    (c == 52 or c == 54) and s[i + 5] == 53
                ):
                    escape = 1
        i += 1
    return 2 if escape else 0
