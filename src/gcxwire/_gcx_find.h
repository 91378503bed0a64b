/* A substring search over 1-byte text for gcxwire._speedups (find_text), in C
   because SSE2 intrinsics have no Cython spelling.

   gcx_find(s, n, w, m): the first index of w[0:m] (m >= 2) in s[0:n], or -1.
   str.find is slow on JSON text for the needles the cell-style passes look for
   (`""`, `":{}`, `\t["`): their first character is a quote, one character in
   five of such text, and each one is a candidate (~1.5 ns a character). Here
   16 positions are tested at a time for both the first and the last character
   of the needle, and only positions where both match are compared whole. */
#ifndef GCXWIRE_GCX_FIND_H
#define GCXWIRE_GCX_FIND_H

#include <string.h>
#include <Python.h>

#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
#include <emmintrin.h>
#define GCX_FIND_SSE2 1
#endif

static Py_ssize_t gcx_find(
    const unsigned char *s, Py_ssize_t n, const unsigned char *w, Py_ssize_t m
) {
    Py_ssize_t i = 0;
    const unsigned char first = w[0], last = w[m - 1];
    if (m > n) {
        return -1;
    }
#ifdef GCX_FIND_SSE2
    {
        const __m128i f = _mm_set1_epi8((char)first);
        const __m128i l = _mm_set1_epi8((char)last);
        /* Positions i..i+15 start a candidate; their last characters end at i+15+m-1 < n. */
        while (i + 15 + m - 1 < n) {
            const __m128i a = _mm_loadu_si128((const __m128i *)(s + i));
            const __m128i b = _mm_loadu_si128((const __m128i *)(s + i + m - 1));
            unsigned int mask = (unsigned int)_mm_movemask_epi8(
                _mm_and_si128(_mm_cmpeq_epi8(a, f), _mm_cmpeq_epi8(b, l)));
            while (mask) {
                int k = __builtin_ctz(mask);
                if (m == 2 || memcmp(s + i + k + 1, w + 1, (size_t)(m - 2)) == 0) {
                    return i + k;
                }
                mask &= mask - 1;
            }
            i += 16;
        }
    }
#endif
    for (; i + m <= n; i++) {
        if (s[i] == first && s[i + m - 1] == last && memcmp(s + i + 1, w + 1, (size_t)(m - 2)) == 0) {
            return i;
        }
    }
    return -1;
}

#endif
