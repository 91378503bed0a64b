/* find_text's search over 2- and 4-byte text (gcx_find, _gcx_find.h, is the
   1-byte one): the needle's first and last characters are tested at 8 (UCS2)
   or 4 (UCS4) positions at a time, and only positions where both match are
   compared whole. The needle (kind wk, never wider than the text) is read
   through PyUnicode_READ: it is a few characters. */
#ifndef GCXWIRE_GCX_FIND_WIDE_H
#define GCXWIRE_GCX_FIND_WIDE_H

#include <Python.h>

#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
#include <emmintrin.h>
#define GCX_FIND_WIDE_SSE2 1
#endif

static int gcx_wide_rest(int kind, const void *s, Py_ssize_t i, int wk, const void *w, Py_ssize_t m) {
    /* Whether s[i+1 : i+m-1] is w[1 : m-1]. */
    Py_ssize_t j;
    for (j = 1; j < m - 1; j++) {
        if (PyUnicode_READ(kind, s, i + j) != PyUnicode_READ(wk, w, j)) {
            return 0;
        }
    }
    return 1;
}

static Py_ssize_t gcx_find_wide(
    int kind, const void *s, Py_ssize_t n, int wk, const void *w, Py_ssize_t m
) {
    /* The first index of w[0:m] (m >= 2) in s[0:n] (kind 2 or 4), or -1. */
    Py_ssize_t i = 0;
    const Py_UCS4 first = PyUnicode_READ(wk, w, 0), last = PyUnicode_READ(wk, w, m - 1);
    if (m > n) {
        return -1;
    }
#ifdef GCX_FIND_WIDE_SSE2
    if (kind == PyUnicode_2BYTE_KIND) {
        const Py_UCS2 *t = (const Py_UCS2 *)s;
        const __m128i f = _mm_set1_epi16((short)first);
        const __m128i l = _mm_set1_epi16((short)last);
        while (i + 7 + m - 1 < n) { /* positions i..i+7, their last characters < n */
            const __m128i a = _mm_loadu_si128((const __m128i *)(t + i));
            const __m128i b = _mm_loadu_si128((const __m128i *)(t + i + m - 1));
            unsigned int mask = (unsigned int)_mm_movemask_epi8(
                _mm_and_si128(_mm_cmpeq_epi16(a, f), _mm_cmpeq_epi16(b, l)));
            while (mask) { /* two mask bits a position */
                int k = __builtin_ctz(mask) >> 1;
                if (gcx_wide_rest(kind, s, i + k, wk, w, m)) {
                    return i + k;
                }
                mask &= ~(3u << (2 * k));
            }
            i += 8;
        }
    } else {
        const Py_UCS4 *t = (const Py_UCS4 *)s;
        const __m128i f = _mm_set1_epi32((int)first);
        const __m128i l = _mm_set1_epi32((int)last);
        while (i + 3 + m - 1 < n) {
            const __m128i a = _mm_loadu_si128((const __m128i *)(t + i));
            const __m128i b = _mm_loadu_si128((const __m128i *)(t + i + m - 1));
            unsigned int mask = (unsigned int)_mm_movemask_epi8(
                _mm_and_si128(_mm_cmpeq_epi32(a, f), _mm_cmpeq_epi32(b, l)));
            while (mask) { /* four mask bits a position */
                int k = __builtin_ctz(mask) >> 2;
                if (gcx_wide_rest(kind, s, i + k, wk, w, m)) {
                    return i + k;
                }
                mask &= ~(15u << (4 * k));
            }
            i += 4;
        }
    }
#endif
    for (; i + m <= n; i++) {
        if (PyUnicode_READ(kind, s, i) == first && PyUnicode_READ(kind, s, i + m - 1) == last
            && gcx_wide_rest(kind, s, i, wk, w, m)) {
            return i;
        }
    }
    return -1;
}

#endif
