# ---------------------------------------------- exact cl100k counts of ASCII text
# tiktoken's count of a text is the sum of its pre-split pieces' BPE counts,
# each piece encoded apart. The texts auto counts repeat the same pieces (keys,
# enum values, numbers, framing), so the pieces are split here by a scanner of
# cl100k's pattern written for ASCII (tokens.py has it as a regex; the test
# holds both to tiktoken), and each piece's count is remembered in a bounded
# table: tiktoken's regex and its per-call overhead were most of the cost.
#
# cl100k's pattern, tried in this order at each piece's start:
#   '(?i:[sdmt]|ll|ve|re) | [^\r\n\p{L}\p{N}]?+\p{L}++ | \p{N}{1,3}+
#   | ' '?[^\s\p{L}\p{N}]++[\r\n]*+ | \s++$ | \s*[\r\n] | \s+(?!\S) | \s
# In ASCII \p{L} is [A-Za-z], \p{N} [0-9], \s the six of _SPACE below (not
# \x1c-\x1f: Unicode's White_Space, not Python's isspace).

cdef enum:
    _K_LETTER = 1
    _K_DIGIT = 2
    _K_SPACE = 4
    _K_NEWLINE = 8  # \r and \n, spaces too
    _K_OTHER = 16  # punctuation and control characters

cdef unsigned char _KIND[128]


cdef void _init_kinds() noexcept:
    cdef int c
    for c in range(128):
        if 65 <= c <= 90 or 97 <= c <= 122:
            _KIND[c] = _K_LETTER
        elif 48 <= c <= 57:
            _KIND[c] = _K_DIGIT
        elif c == 10 or c == 13:
            _KIND[c] = _K_SPACE | _K_NEWLINE
        elif 9 <= c <= 13 or c == 32:
            _KIND[c] = _K_SPACE
        else:
            _KIND[c] = _K_OTHER


_init_kinds()


cdef inline bint _is(const Py_UCS1 *s, Py_ssize_t i, Py_ssize_t n, unsigned char kind) noexcept:
    return i < n and (_KIND[s[i]] & kind) != 0


cdef Py_ssize_t _piece_end(const Py_UCS1 *s, Py_ssize_t i, Py_ssize_t n) noexcept:
    """Where the cl100k piece that starts at ``i`` ends (ASCII text)."""
    cdef Py_UCS1 c = s[i]
    cdef unsigned char kind = _KIND[c]
    cdef Py_UCS1 d, e
    cdef Py_ssize_t j, newline
    if c == 39 and i + 1 < n:  # a contraction
        d = s[i + 1] | _CASE_BIT
        if d == 115 or d == 100 or d == 109 or d == 116:  # s d m t
            return i + 2
        if i + 2 < n:
            e = s[i + 2] | _CASE_BIT
            if (d == 108 and e == 108) or (d == 118 and e == 101) or (d == 114 and e == 101):
                return i + 3  # ll ve re
    if kind & _K_LETTER or (
        not (kind & (_K_NEWLINE | _K_DIGIT)) and _is(s, i + 1, n, _K_LETTER)
    ):
        j = i + 1
        while _is(s, j, n, _K_LETTER):
            j += 1
        return j
    if kind & _K_DIGIT:
        j = i + 1
        while j < i + 3 and _is(s, j, n, _K_DIGIT):
            j += 1
        return j
    j = i + 1 if c == _SPACE and _is(s, i + 1, n, _K_OTHER) else i
    if _KIND[s[j]] & _K_OTHER:
        while _is(s, j, n, _K_OTHER):
            j += 1
        while _is(s, j, n, _K_NEWLINE):
            j += 1
        return j
    # whitespace: to the text's end, else to its last newline, else all but one
    j = i
    newline = -1
    while _is(s, j, n, _K_SPACE):
        if _KIND[s[j]] & _K_NEWLINE:
            newline = j
        j += 1
    if j == n:
        return n
    if newline >= 0:
        return newline + 1
    return j - 1 if j - i >= 2 else i + 1


# The remembered counts: an open-addressing table of (hash, piece, count), the
# pieces' bytes in an arena. Both are emptied when either fills, so the memory
# is bounded (~0.6 MB); pieces longer than _MEMO_LONGEST are counted each time.
cdef enum:
    _MEMO_SLOTS = 1 << 15
    _MEMO_MOST = 1 << 14  # entries: the table stays at most half full
    _MEMO_ARENA = 1 << 18
    _MEMO_LONGEST = 64

ctypedef struct _Slot:
    uint64_t hash  # 0: empty
    unsigned int at  # the piece's bytes in the arena
    unsigned short size
    unsigned short tokens

cdef _Slot _slots[_MEMO_SLOTS]
cdef Py_UCS1 _arena[_MEMO_ARENA]
cdef Py_ssize_t _used = 0, _entries = 0
cdef object _memo_bpe = None  # the counter the table's counts came from


cdef void _memo_clear() noexcept:
    global _used, _entries
    memset(_slots, 0, sizeof(_slots))
    _used = _entries = 0


cdef inline uint64_t _hash(const Py_UCS1 *p, Py_ssize_t size) noexcept:
    cdef uint64_t h = 14695981039346656037ULL  # FNV-1a
    cdef Py_ssize_t k
    for k in range(size):
        h = (h ^ p[k]) * 1099511628211ULL
    h = (h ^ (h >> 33)) * 0xFF51AFD7ED558CCDULL  # mixed: FNV's low bytes move few high bits
    return (h ^ (h >> 33)) | 1


cdef inline Py_ssize_t _slot_of(uint64_t h, const Py_UCS1 *p, Py_ssize_t size) noexcept:
    """The slot holding the piece, or the empty slot where it would go."""
    cdef Py_ssize_t at = <Py_ssize_t>(h >> 1) & (_MEMO_SLOTS - 1)
    while _slots[at].hash:
        if (
            _slots[at].hash == h
            and _slots[at].size == size
            and memcmp(&_arena[_slots[at].at], p, size) == 0
        ):
            return at
        at = (at + 1) & (_MEMO_SLOTS - 1)
    return at


cdef Py_ssize_t _bpe_count(object bpe, const Py_UCS1 *p, Py_ssize_t size) except -1:
    return len(bpe(PyBytes_FromStringAndSize(<const char *>p, size)))


cdef Py_ssize_t _piece_count(object bpe, const Py_UCS1 *p, Py_ssize_t size) except -1:
    global _used, _entries
    cdef uint64_t h
    cdef Py_ssize_t at, found
    if size > _MEMO_LONGEST:
        return _bpe_count(bpe, p, size)
    h = _hash(p, size)
    at = _slot_of(h, p, size)
    if _slots[at].hash:
        return _slots[at].tokens
    found = _bpe_count(bpe, p, size)
    # The call ran Python code, which may have counted (or cleared) meanwhile.
    if bpe is not _memo_bpe:
        return found
    if _entries >= _MEMO_MOST or _used + size > _MEMO_ARENA:
        _memo_clear()
    at = _slot_of(h, p, size)
    if not _slots[at].hash:
        memcpy(&_arena[_used], p, size)
        _slots[at].hash = h
        _slots[at].at = <unsigned int>_used
        _slots[at].size = <unsigned short>size
        _slots[at].tokens = <unsigned short>found
        _used += size
        _entries += 1
    return found


cdef Py_ssize_t _ascii_count(
    object bpe, int kind, const void *data, Py_ssize_t start, Py_ssize_t end
) except -1:
    """The pieces' count of ``text[start:end]``, ASCII text of any str kind (a
    wider one is narrowed into a buffer first: the scanner reads bytes)."""
    cdef Py_ssize_t n = end - start, i = 0, stop, k, total = 0
    cdef Py_UCS1 *narrow = NULL
    cdef const Py_UCS1 *s
    if n <= 0:
        return 0
    if kind == PyUnicode_1BYTE_KIND:
        s = <const Py_UCS1 *>data + start
    else:
        narrow = <Py_UCS1 *>PyMem_Malloc(n)
        if narrow == NULL:
            raise MemoryError()
        for k in range(n):
            narrow[k] = <Py_UCS1>PyUnicode_READ(kind, data, start + k)
        s = narrow
    try:
        while i < n:
            stop = _piece_end(s, i, n)
            total += _piece_count(bpe, s + i, stop - i)
            i = stop
    finally:
        PyMem_Free(narrow)
    return total


# ------------------------------------------------ text that is not all ASCII
# Each run of characters past ASCII goes to tiktoken (``encode``) with the text
# around it out to the nearest cuts: places where cl100k and o200k start a
# piece whatever surrounds them (tokens.next_cut's, the pure twin's _CUT), so
# counts add up there. The ASCII between those spans is counted by its pieces.
# Spans fewer than _GAP characters apart go to tiktoken as one (a call costs
# about as much as 16 characters of its text), until one reaches _SPAN
# characters (tokens._CHUNK: the token list held at once): dense text is
# counted in a few calls, as tiktoken would count it whole.
cdef enum:
    _GAP = 16
    _SPAN = 1 << 14


cdef inline bint _cut_at(int kind, const void *data, Py_ssize_t p, Py_ssize_t n) noexcept:
    """Whether ``p`` is a cut: the text's ends; after a line feed, before
    printable ASCII other than "/"; between an ASCII letter or digit and ASCII
    punctuation other than "'"."""
    cdef Py_UCS4 a, b
    if p <= 0 or p >= n:
        return True
    a = PyUnicode_READ(kind, data, p - 1)
    b = PyUnicode_READ(kind, data, p)
    if b < 0x21 or b > 0x7E:
        return False
    if a == _LF:
        return b != 0x2F
    return a < 128 and (_KIND[a] & (_K_LETTER | _K_DIGIT)) != 0 and (
        (_KIND[b] & _K_OTHER) != 0 and b != 0x27
    )


cdef inline Py_ssize_t _wide_at(int kind, const void *data, Py_ssize_t i, Py_ssize_t n) noexcept:
    """The first character past ASCII at or after ``i`` (``n`` if none)."""
    while i < n and PyUnicode_READ(kind, data, i) < 128:
        i += 1
    return i


cdef inline Py_ssize_t _cut_from(int kind, const void *data, Py_ssize_t i, Py_ssize_t n) noexcept:
    """The first cut at or after ``i``."""
    while not _cut_at(kind, data, i, n):
        i += 1
    return i


cdef Py_ssize_t _mixed_count(object bpe, object encode, str t) except -1:
    cdef int kind = PyUnicode_KIND(t)
    cdef const void *data = PyUnicode_DATA(t)
    cdef Py_ssize_t n = len(t), at = 0, run, start, end, after, total = 0
    run = _wide_at(kind, data, 0, n)
    while run < n:  # ``at``: where the text not counted yet starts, a cut
        start = run
        while start > at and not _cut_at(kind, data, start, n):
            start -= 1
        end = _cut_from(kind, data, run + 1, n)
        after = _wide_at(kind, data, end, n)
        while after < n and after - end < _GAP and end - start < _SPAN:
            end = _cut_from(kind, data, after + 1, n)
            after = _wide_at(kind, data, end, n)
        total += _ascii_count(bpe, kind, data, at, start)
        total += len(encode(PyUnicode_Substring(t, start, end)))
        at, run = end, after
    return total + _ascii_count(bpe, kind, data, at, n)


def cl100k_count(text, bpe, encode=None, /):
    """``text``'s cl100k token count: ``bpe(piece)`` is cl100k's tokens of one
    pre-split piece of ASCII text (bytes), and each piece's count is remembered
    (a bounded table, emptied for another ``bpe``). Text that is not all ASCII
    is counted only given ``encode``, cl100k's tokens of a str (tiktoken's
    encode_ordinary), else None: each run of other characters by ``encode``
    with the text around it out to the nearest cuts, the ASCII between by its
    pieces."""
    global _memo_bpe
    cdef str t = _text_arg(text)
    if not PyUnicode_IS_ASCII(t) and encode is None:
        return None
    if bpe is not _memo_bpe:
        _memo_clear()
        _memo_bpe = bpe
    if not PyUnicode_IS_ASCII(t):
        return _mixed_count(bpe, encode, t)
    return _ascii_count(bpe, PyUnicode_1BYTE_KIND, PyUnicode_DATA(t), 0, len(t))


def wide_runs(text, Py_ssize_t most, /):
    """How many runs of characters past ASCII ``text`` holds, counted up to
    ``most + 1``. The pure twin finds runs a block of 512 characters at a time,
    a run across two blocks counting twice: so here."""
    cdef str t = _text_arg(text)
    cdef int kind = PyUnicode_KIND(t)
    cdef const void *data = PyUnicode_DATA(t)
    cdef Py_ssize_t n = len(t), i = 0, runs = 0
    if PyUnicode_IS_ASCII(t):
        return 0
    while i < n:
        i = _wide_at(kind, data, i, n)
        if i >= n:
            break
        runs += 1
        if runs > most:
            break
        i += 1
        while i < n and i % 512 != 0 and PyUnicode_READ(kind, data, i) >= 128:
            i += 1
    return runs


cdef Py_ssize_t _next_line(int kind, const void *data, Py_ssize_t at, Py_ssize_t end) noexcept:
    """Where the line after the one at ``at`` starts: past its line feed, or
    -1 if no line feed ends it before ``end``."""
    cdef const char *hit
    cdef const Py_UCS2 *two
    cdef const Py_UCS4 *four
    if kind == PyUnicode_1BYTE_KIND:
        hit = <const char *>memchr(<const char *>data + at, _LF, end - at)
        return -1 if hit == NULL else (hit - <const char *>data) + 1
    if kind == PyUnicode_2BYTE_KIND:  # typed loops: PyUnicode_READ tests the kind each time
        two = <const Py_UCS2 *>data
        while at < end and two[at] != _LF:
            at += 1
    else:
        four = <const Py_UCS4 *>data
        while at < end and four[at] != _LF:
            at += 1
    return -1 if at >= end else at + 1


def row_line_starts(text, Py_ssize_t end, Py_ssize_t rows, wanted, /):
    """``(lines, starts)``: how many lines ``text[:end]`` has (one per line feed,
    and the text after the last one when ``end`` is the text's end), and where
    each of the lines ``wanted`` of its last ``rows`` lines (0 the first of
    them, ascending) starts, ``end`` for one past the last; no starts when
    there are fewer lines than ``rows``. Two passes of memchr, nothing copied:
    auto's row sampler asks for the few lines its sample needs."""
    cdef str t = _text_arg(text)
    cdef int kind = PyUnicode_KIND(t)
    cdef const void *data = PyUnicode_DATA(t)
    cdef Py_ssize_t lines = 0, line = 0, at = 0, after, want
    cdef list found = []
    end = max(0, min(end, len(t)))
    after = _next_line(kind, data, 0, end)
    while after >= 0:
        lines += 1
        after = _next_line(kind, data, after, end)
    lines += end == len(t)
    if lines < rows:
        return lines, found
    for item in wanted:
        want = lines - rows + <Py_ssize_t>item
        while line < want and at >= 0:
            at = _next_line(kind, data, at, end)
            line += 1
        found.append(at if 0 <= at and line >= want else end)
    return lines, found
