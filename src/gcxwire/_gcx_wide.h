/* Text of the 2- and 4-byte string kinds (PEP 393) in gcxwire._speedups' byte
   buffer: a table's rows are written at the kind of the widest string met so
   far, so its text is copied into the result string as it is, never decoded.

   gcx_wide_copy(dst, dkind, src, skind, n, esc): src[0:n] (skind bytes a
   character) into dst (dkind >= skind), each character widened; with esc,
   backslash, TAB and LF become two characters each, as gcx_escape_into writes
   them. dst must hold 2n characters (n without esc); returns the characters
   written. With SSE2, 4, 8 or 16 characters are tested and widened at a time
   until a special one; when none was, the last 4, 8 or 16 go as one block too
   (overlapping what was written, at the same places), else the rest go one by
   one.

   gcx_widen(data, from, to, n): data's n characters of kind `from` rewritten
   in kind `to` in place (data holds n * to bytes), last first so that no
   character is overwritten before it is read. */
#ifndef GCXWIRE_GCX_WIDE_H
#define GCXWIRE_GCX_WIDE_H

#include <string.h>
#include <Python.h>

#include "_gcx_escape.h" /* gcx_special16 */

/* The scalar loop: every character, each special one as two. */
#define GCX_WIDE_LOOP(DT, ST)                                                    \
    for (; i < n; i++) {                                                         \
        ST u = s[i];                                                             \
        if (esc && (u == '\\' || u == '\t' || u == '\n')) {                      \
            *o++ = '\\';                                                         \
            *o++ = u == '\t' ? 't' : (u == '\n' ? 'n' : '\\');                   \
        } else {                                                                 \
            *o++ = (DT)u;                                                        \
        }                                                                        \
    }                                                                            \
    return o - (DT *)dst;

#ifdef GCX_SSE2
/* Nonzero when one of the 16 bytes at v, read as 8 UCS2 characters, is special. */
static inline int gcx_special8(__m128i v) {
    const __m128i m = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi16(v, _mm_set1_epi16('\\')), _mm_cmpeq_epi16(v, _mm_set1_epi16('\t'))),
        _mm_cmpeq_epi16(v, _mm_set1_epi16('\n')));
    return _mm_movemask_epi8(m);
}
#endif

#ifdef GCX_SSE2
/* Nonzero when one of the 16 bytes at v, read as 4 UCS4 characters, is special. */
static inline int gcx_special4(__m128i v) {
    const __m128i m = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi32(v, _mm_set1_epi32('\\')), _mm_cmpeq_epi32(v, _mm_set1_epi32('\t'))),
        _mm_cmpeq_epi32(v, _mm_set1_epi32('\n')));
    return _mm_movemask_epi8(m);
}
#endif

static Py_ssize_t gcx_wide_copy(
    void *dst, int dkind, const void *src, int skind, Py_ssize_t n, int esc
) {
    Py_ssize_t i = 0;
    if (dkind == PyUnicode_4BYTE_KIND && skind == PyUnicode_2BYTE_KIND) {
        Py_UCS4 *o = (Py_UCS4 *)dst;
        const Py_UCS2 *s = (const Py_UCS2 *)src;
#ifdef GCX_SSE2
        const __m128i zero = _mm_setzero_si128();
        /* 8 characters at a time while none is special; the rest one by one */
        for (; i + 8 <= n; i += 8, o += 8) {
            __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
            if (esc && gcx_special8(v)) break;
            _mm_storeu_si128((__m128i *)o, _mm_unpacklo_epi16(v, zero));
            _mm_storeu_si128((__m128i *)(o + 4), _mm_unpackhi_epi16(v, zero));
        }
        /* the loop ran to the end (no special met): the last 8 again, when none of
           them is special either; nothing was escaped, so they go where they were
           (the overlap rewrites the same characters) */
        if (i < n && i + 8 > n && n >= 8) {
            __m128i v = _mm_loadu_si128((const __m128i *)(s + n - 8));
            if (!(esc && gcx_special8(v))) {
                Py_UCS4 *t = (Py_UCS4 *)dst + (n - 8);
                _mm_storeu_si128((__m128i *)t, _mm_unpacklo_epi16(v, zero));
                _mm_storeu_si128((__m128i *)(t + 4), _mm_unpackhi_epi16(v, zero));
                return n;
            }
        }
#endif
        GCX_WIDE_LOOP(Py_UCS4, Py_UCS2)
    }
    if (dkind == PyUnicode_2BYTE_KIND && skind == PyUnicode_2BYTE_KIND) {
        Py_UCS2 *o = (Py_UCS2 *)dst;
        const Py_UCS2 *s = (const Py_UCS2 *)src;
#ifdef GCX_SSE2
        for (; i + 8 <= n; i += 8, o += 8) {
            __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
            if (esc && gcx_special8(v)) break;
            _mm_storeu_si128((__m128i *)o, v);
        }
        if (i < n && i + 8 > n && n >= 8) { /* the last 8 again (see above) */
            __m128i v = _mm_loadu_si128((const __m128i *)(s + n - 8));
            if (!(esc && gcx_special8(v))) {
                _mm_storeu_si128((__m128i *)((Py_UCS2 *)dst + (n - 8)), v);
                return n;
            }
        }
#endif
        GCX_WIDE_LOOP(Py_UCS2, Py_UCS2)
    }
    if (dkind == PyUnicode_4BYTE_KIND && skind == PyUnicode_1BYTE_KIND) {
        Py_UCS4 *o = (Py_UCS4 *)dst;
        const Py_UCS1 *s = (const Py_UCS1 *)src;
#ifdef GCX_SSE2
        const __m128i zero = _mm_setzero_si128();
        for (; i + 16 <= n; i += 16, o += 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
            if (esc && gcx_special16(s + i)) break;
            __m128i lo = _mm_unpacklo_epi8(v, zero), hi = _mm_unpackhi_epi8(v, zero);
            _mm_storeu_si128((__m128i *)o, _mm_unpacklo_epi16(lo, zero));
            _mm_storeu_si128((__m128i *)(o + 4), _mm_unpackhi_epi16(lo, zero));
            _mm_storeu_si128((__m128i *)(o + 8), _mm_unpacklo_epi16(hi, zero));
            _mm_storeu_si128((__m128i *)(o + 12), _mm_unpackhi_epi16(hi, zero));
        }
        if (i < n && i + 16 > n && n >= 16 && !(esc && gcx_special16(s + n - 16))) { /* the last 16 again */
            __m128i v = _mm_loadu_si128((const __m128i *)(s + n - 16));
            __m128i lo = _mm_unpacklo_epi8(v, zero), hi = _mm_unpackhi_epi8(v, zero);
            Py_UCS4 *t = (Py_UCS4 *)dst + (n - 16);
            _mm_storeu_si128((__m128i *)t, _mm_unpacklo_epi16(lo, zero));
            _mm_storeu_si128((__m128i *)(t + 4), _mm_unpackhi_epi16(lo, zero));
            _mm_storeu_si128((__m128i *)(t + 8), _mm_unpacklo_epi16(hi, zero));
            _mm_storeu_si128((__m128i *)(t + 12), _mm_unpackhi_epi16(hi, zero));
            return n;
        }
#endif
        GCX_WIDE_LOOP(Py_UCS4, Py_UCS1)
    }
    if (dkind == PyUnicode_2BYTE_KIND) {  /* from 1 byte */
        Py_UCS2 *o = (Py_UCS2 *)dst;
        const Py_UCS1 *s = (const Py_UCS1 *)src;
#ifdef GCX_SSE2
        const __m128i zero = _mm_setzero_si128();
        for (; i + 16 <= n; i += 16, o += 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
            if (esc && gcx_special16(s + i)) break;
            _mm_storeu_si128((__m128i *)o, _mm_unpacklo_epi8(v, zero));
            _mm_storeu_si128((__m128i *)(o + 8), _mm_unpackhi_epi8(v, zero));
        }
        if (i < n && i + 16 > n && n >= 16 && !(esc && gcx_special16(s + n - 16))) { /* the last 16 again */
            __m128i v = _mm_loadu_si128((const __m128i *)(s + n - 16));
            Py_UCS2 *t = (Py_UCS2 *)dst + (n - 16);
            _mm_storeu_si128((__m128i *)t, _mm_unpacklo_epi8(v, zero));
            _mm_storeu_si128((__m128i *)(t + 8), _mm_unpackhi_epi8(v, zero));
            return n;
        }
#endif
        GCX_WIDE_LOOP(Py_UCS2, Py_UCS1)
    }
    if (dkind == PyUnicode_4BYTE_KIND) {  /* from 4 bytes */
        Py_UCS4 *o = (Py_UCS4 *)dst;
        const Py_UCS4 *s = (const Py_UCS4 *)src;
#ifdef GCX_SSE2
        for (; i + 4 <= n; i += 4, o += 4) {
            __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
            if (esc && gcx_special4(v)) break;
            _mm_storeu_si128((__m128i *)o, v);
        }
        if (i < n && i + 4 > n && n >= 4) { /* the last 4 again (see above) */
            __m128i v = _mm_loadu_si128((const __m128i *)(s + n - 4));
            if (!(esc && gcx_special4(v))) {
                _mm_storeu_si128((__m128i *)((Py_UCS4 *)dst + (n - 4)), v);
                return n;
            }
        }
#endif
        GCX_WIDE_LOOP(Py_UCS4, Py_UCS4)
    }
    {
        Py_UCS1 *o = (Py_UCS1 *)dst;
        const Py_UCS1 *s = (const Py_UCS1 *)src;
        GCX_WIDE_LOOP(Py_UCS1, Py_UCS1)
    }
}

#undef GCX_WIDE_LOOP

static void gcx_widen(void *data, int from, int to, Py_ssize_t n) {
    Py_ssize_t i;
    if (from == PyUnicode_1BYTE_KIND && to == PyUnicode_2BYTE_KIND) {
        for (i = n - 1; i >= 0; i--) ((Py_UCS2 *)data)[i] = ((const Py_UCS1 *)data)[i];
    } else if (from == PyUnicode_1BYTE_KIND && to == PyUnicode_4BYTE_KIND) {
        for (i = n - 1; i >= 0; i--) ((Py_UCS4 *)data)[i] = ((const Py_UCS1 *)data)[i];
    } else if (from == PyUnicode_2BYTE_KIND && to == PyUnicode_4BYTE_KIND) {
        for (i = n - 1; i >= 0; i--) ((Py_UCS4 *)data)[i] = ((const Py_UCS2 *)data)[i];
    }
}

#endif
