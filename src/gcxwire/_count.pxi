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


def cl100k_count(text, bpe, /):
    """``text``'s cl100k token count, or None when ``text`` is not ASCII:
    ``bpe(piece)`` is cl100k's tokens of one pre-split piece (bytes), and each
    piece's count is remembered (a bounded table, emptied for another ``bpe``)."""
    global _memo_bpe
    cdef str t = _text_arg(text)
    if not PyUnicode_IS_ASCII(t):
        return None
    if bpe is not _memo_bpe:
        _memo_clear()
        _memo_bpe = bpe
    cdef const Py_UCS1 *s = <const Py_UCS1 *>PyUnicode_DATA(t)
    cdef Py_ssize_t n = len(t), i = 0, end, total = 0
    while i < n:
        end = _piece_end(s, i, n)
        total += _piece_count(bpe, s + i, end - i)
        i = end
    return total
