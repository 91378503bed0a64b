/* The GCX1 cell escaper of gcxwire._speedups, in C because SSE2 intrinsics
   have no Cython spelling.

   gcx_escape_into(dst, src, n, room_before): src[0:n] copied to dst with the
   GCX1 escapes: backslash, TAB and LF become two bytes each. dst must hold 2n
   bytes; returns the bytes written. With SSE2 (every x86-64) 16 bytes are
   tested at a time and stored whole; the last bytes are tested in the 16-byte
   window that ends with them, which starts before src when n < 16: the caller
   says whether 16 bytes before src + n are readable (a str's data follows its
   object header).

   gcx_specials(p, n): the same three bytes found as a bit mask of p[0:n],
   n <= 64, for the scans of written rows (break_cells); gcx_row_marks(p, n)
   those and CR (style_marks). */
#ifndef GCXWIRE_GCX_ESCAPE_H
#define GCXWIRE_GCX_ESCAPE_H

#include <stdint.h>
#include <string.h>
#include <Python.h>

#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
#include <emmintrin.h>
#define GCX_SSE2 1
/* A bit per byte of p[0:16] that is a backslash, TAB or LF. */
static inline unsigned int gcx_special16(const unsigned char *p) {
    const __m128i c = _mm_loadu_si128((const __m128i *)p);
    const __m128i m = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(c, _mm_set1_epi8('\\')), _mm_cmpeq_epi8(c, _mm_set1_epi8('\t'))),
        _mm_cmpeq_epi8(c, _mm_set1_epi8('\n')));
    return (unsigned int)_mm_movemask_epi8(m);
}
#endif

/* A bit per byte of p[0:n], n <= 64, that is a backslash, TAB or LF: the
   bytes the escaper marks, which in written rows also end cells and lines
   (the scans of written rows read them 64 at a time, stopping only there). */
static inline uint64_t gcx_specials(const unsigned char *p, Py_ssize_t n) {
    uint64_t m = 0;
    Py_ssize_t i;
#ifdef GCX_SSE2
    if (n == 64)
        return (uint64_t)gcx_special16(p) | ((uint64_t)gcx_special16(p + 16) << 16)
               | ((uint64_t)gcx_special16(p + 32) << 32) | ((uint64_t)gcx_special16(p + 48) << 48);
#endif
    for (i = 0; i < n; i++)
        if (p[i] == '\\' || p[i] == '\t' || p[i] == '\n')
            m |= (uint64_t)1 << i;
    return m;
}

/* gcx_specials with CR too: the marks the cell-style scan (style_marks) reads. */
#ifdef GCX_SSE2
static inline unsigned int gcx_row_marks16(const unsigned char *p) {
    const __m128i c = _mm_loadu_si128((const __m128i *)p);
    const __m128i m = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(c, _mm_set1_epi8('\\')), _mm_cmpeq_epi8(c, _mm_set1_epi8('\t'))),
        _mm_or_si128(_mm_cmpeq_epi8(c, _mm_set1_epi8('\n')), _mm_cmpeq_epi8(c, _mm_set1_epi8('\r'))));
    return (unsigned int)_mm_movemask_epi8(m);
}
#endif

static inline uint64_t gcx_row_marks(const unsigned char *p, Py_ssize_t n) {
    uint64_t m = 0;
    Py_ssize_t i;
#ifdef GCX_SSE2
    if (n == 64)
        return (uint64_t)gcx_row_marks16(p) | ((uint64_t)gcx_row_marks16(p + 16) << 16)
               | ((uint64_t)gcx_row_marks16(p + 32) << 32) | ((uint64_t)gcx_row_marks16(p + 48) << 48);
#endif
    for (i = 0; i < n; i++)
        if (p[i] == '\\' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r')
            m |= (uint64_t)1 << i;
    return m;
}

/* The index of the lowest set bit of m != 0. */
static inline int gcx_lowest_bit(uint64_t m) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(m);
#else
    int k = 0;
    while (!(m & 1u)) {
        m >>= 1;
        k++;
    }
    return k;
#endif
}

/* The second byte of the escape of backslash, TAB or LF. */
static inline unsigned char gcx_escape_letter(unsigned char u) {
    return u == '\t' ? 't' : (u == '\n' ? 'n' : '\\');
}

static inline void gcx_copy_short(unsigned char *o, const unsigned char *s, Py_ssize_t r) {
    /* 0 < r < 16 bytes, as two overlapping fixed-size copies */
    if (r >= 8) {
        memcpy(o, s, 8);
        memcpy(o + r - 8, s + r - 8, 8);
    } else if (r >= 4) {
        memcpy(o, s, 4);
        memcpy(o + r - 4, s + r - 4, 4);
    } else {
        o[0] = s[0];
        o[r / 2] = s[r / 2];
        o[r - 1] = s[r - 1];
    }
}

static Py_ssize_t gcx_escape_into(
    unsigned char *dst, const unsigned char *src, Py_ssize_t n, int room_before
) {
    unsigned char *o = dst;
    Py_ssize_t i = 0;
    unsigned char u;
#ifdef GCX_SSE2
    while (i + 16 <= n) {
        unsigned int mask = gcx_special16(src + i);
        /* o - dst <= 2i and i + 16 <= n, so these 16 bytes fit in the 2n. */
        _mm_storeu_si128((__m128i *)o, _mm_loadu_si128((const __m128i *)(src + i)));
        if (mask == 0) {
            o += 16;
            i += 16;
            continue;
        }
        {
            int k = __builtin_ctz(mask);
            o += k;
            i += k;
            u = src[i];
            o[0] = '\\';
            o[1] = gcx_escape_letter(u);
            o += 2;
            i += 1;
        }
    }
    if (i < n && (n >= 16 || room_before)) {
        Py_ssize_t r = n - i;
        if ((gcx_special16(src + n - 16) >> (16 - r)) == 0) {
            gcx_copy_short(o, src + i, r);
            return o + r - dst;
        }
    }
#else
    (void)room_before;
#endif
    for (; i < n; i++) {
        u = src[i];
        if (u == '\\' || u == '\t' || u == '\n') {
            o[0] = '\\';
            o[1] = gcx_escape_letter(u);
            o += 2;
        } else {
            *o++ = u;
        }
    }
    return o - dst;
}

#endif
