/* DCP rows written from str values (gcxwire._speedups.dcp_text): a str copied
   into a text buffer as orjson writes it inside a JSON string, widened from its
   kind to the buffer's.

   dcp_json_copy(dst, dkind, src, skind, n): src[0:n] (skind bytes a character)
   into dst (dkind >= skind) with JSON's escapes, as orjson writes them: `"` and
   backslash after a backslash, \b \t \n \f \r, other characters below U+0020
   as \u00XX (lower-case hex); nothing else is escaped. dst must hold 6n
   characters. Returns the characters written, or -1 for a lone surrogate
   (orjson refuses it). With SSE2, 16 / 8 / 4 characters of the 1 / 2 / 4-byte
   kinds are tested at a time and stored widened until one needs escaping; that
   one and those after it in the block go one by one. */
#ifndef GCXWIRE_GCX_DCP_TEXT_H
#define GCXWIRE_GCX_DCP_TEXT_H

#include <string.h>
#include <Python.h>

#include "_gcx_escape.h" /* GCX_SSE2 and emmintrin.h */

static const char dcp_hex[] = "0123456789abcdef";

/* One character u at o (type DT), escaped; o after it. -1 (through `bad`) for a
   surrogate, which only the 2- and 4-byte kinds can hold. */
#define DCP_PUT_CHAR(DT, u, bad)                                                 \
    if (u >= 0x20 && u != '"' && u != '\\') {                                    \
        if (sizeof(u) > 1 && (u >> 11) == 0x1B) goto bad;                        \
        *o++ = (DT)u;                                                            \
    } else {                                                                     \
        *o++ = '\\';                                                             \
        switch (u) {                                                             \
        case '"': *o++ = '"'; break;                                             \
        case '\\': *o++ = '\\'; break;                                           \
        case '\b': *o++ = 'b'; break;                                            \
        case '\t': *o++ = 't'; break;                                            \
        case '\n': *o++ = 'n'; break;                                            \
        case '\f': *o++ = 'f'; break;                                            \
        case '\r': *o++ = 'r'; break;                                            \
        default:                                                                 \
            *o++ = 'u'; *o++ = '0'; *o++ = '0';                                  \
            *o++ = (DT)dcp_hex[u >> 4]; *o++ = (DT)dcp_hex[u & 15];              \
        }                                                                        \
    }

#define DCP_TAIL(DT, ST)                                                         \
    for (; i < n; i++) {                                                         \
        ST u = s[i];                                                             \
        DCP_PUT_CHAR(DT, u, surrogate)                                           \
    }                                                                            \
    return o - (DT *)dst;

#ifdef GCX_SSE2
/* Nonzero when one of 16 1-byte characters needs escaping. */
static inline int dcp_special_1(__m128i v) {
    const __m128i m = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
        _mm_cmpeq_epi8(_mm_subs_epu8(v, _mm_set1_epi8(0x1F)), _mm_setzero_si128()));
    return _mm_movemask_epi8(m);
}

/* Nonzero when one of 8 2-byte characters needs escaping or is a surrogate. */
static inline int dcp_special_2(__m128i v) {
    const __m128i m = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi16(v, _mm_set1_epi16('"')), _mm_cmpeq_epi16(v, _mm_set1_epi16('\\'))),
        _mm_or_si128(
            _mm_cmpeq_epi16(_mm_subs_epu16(v, _mm_set1_epi16(0x1F)), _mm_setzero_si128()),
            _mm_cmpeq_epi16(_mm_and_si128(v, _mm_set1_epi16((short)0xF800)),
                            _mm_set1_epi16((short)0xD800))));
    return _mm_movemask_epi8(m);
}

/* Nonzero when one of 4 4-byte characters needs escaping or is a surrogate. */
static inline int dcp_special_4(__m128i v) {
    const __m128i m = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi32(v, _mm_set1_epi32('"')), _mm_cmpeq_epi32(v, _mm_set1_epi32('\\'))),
        _mm_or_si128(_mm_cmplt_epi32(v, _mm_set1_epi32(0x20)),
                     _mm_cmpeq_epi32(_mm_and_si128(v, _mm_set1_epi32((int)0xFFFFF800)),
                                     _mm_set1_epi32(0xD800))));
    return _mm_movemask_epi8(m);
}
#endif

static Py_ssize_t dcp_json_copy(void *dst, int dkind, const void *src, int skind, Py_ssize_t n) {
    Py_ssize_t i = 0;
    if (skind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *s = (const Py_UCS1 *)src;
        if (dkind == PyUnicode_1BYTE_KIND) {
            Py_UCS1 *o = (Py_UCS1 *)dst;
#ifdef GCX_SSE2
            for (; i + 16 <= n; i += 16, o += 16) {
                __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
                if (dcp_special_1(v)) break;
                _mm_storeu_si128((__m128i *)o, v);
            }
#endif
            DCP_TAIL(Py_UCS1, Py_UCS1)
        } else if (dkind == PyUnicode_2BYTE_KIND) {
            Py_UCS2 *o = (Py_UCS2 *)dst;
#ifdef GCX_SSE2
            const __m128i zero = _mm_setzero_si128();
            for (; i + 16 <= n; i += 16, o += 16) {
                __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
                if (dcp_special_1(v)) break;
                _mm_storeu_si128((__m128i *)o, _mm_unpacklo_epi8(v, zero));
                _mm_storeu_si128((__m128i *)(o + 8), _mm_unpackhi_epi8(v, zero));
            }
#endif
            DCP_TAIL(Py_UCS2, Py_UCS1)
        } else {
            Py_UCS4 *o = (Py_UCS4 *)dst;
#ifdef GCX_SSE2
            const __m128i zero = _mm_setzero_si128();
            for (; i + 16 <= n; i += 16, o += 16) {
                __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
                if (dcp_special_1(v)) break;
                __m128i lo = _mm_unpacklo_epi8(v, zero), hi = _mm_unpackhi_epi8(v, zero);
                _mm_storeu_si128((__m128i *)o, _mm_unpacklo_epi16(lo, zero));
                _mm_storeu_si128((__m128i *)(o + 4), _mm_unpackhi_epi16(lo, zero));
                _mm_storeu_si128((__m128i *)(o + 8), _mm_unpacklo_epi16(hi, zero));
                _mm_storeu_si128((__m128i *)(o + 12), _mm_unpackhi_epi16(hi, zero));
            }
#endif
            DCP_TAIL(Py_UCS4, Py_UCS1)
        }
    }
    if (skind == PyUnicode_2BYTE_KIND) {
        const Py_UCS2 *s = (const Py_UCS2 *)src;
        if (dkind == PyUnicode_2BYTE_KIND) {
            Py_UCS2 *o = (Py_UCS2 *)dst;
#ifdef GCX_SSE2
            for (; i + 8 <= n; i += 8, o += 8) {
                __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
                if (dcp_special_2(v)) break;
                _mm_storeu_si128((__m128i *)o, v);
            }
#endif
            DCP_TAIL(Py_UCS2, Py_UCS2)
        } else {
            Py_UCS4 *o = (Py_UCS4 *)dst;
#ifdef GCX_SSE2
            const __m128i zero = _mm_setzero_si128();
            for (; i + 8 <= n; i += 8, o += 8) {
                __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
                if (dcp_special_2(v)) break;
                _mm_storeu_si128((__m128i *)o, _mm_unpacklo_epi16(v, zero));
                _mm_storeu_si128((__m128i *)(o + 4), _mm_unpackhi_epi16(v, zero));
            }
#endif
            DCP_TAIL(Py_UCS4, Py_UCS2)
        }
    }
    {
        const Py_UCS4 *s = (const Py_UCS4 *)src;
        Py_UCS4 *o = (Py_UCS4 *)dst;
#ifdef GCX_SSE2
        for (; i + 4 <= n; i += 4, o += 4) {
            __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
            if (dcp_special_4(v)) break;
            _mm_storeu_si128((__m128i *)o, v);
        }
#endif
        DCP_TAIL(Py_UCS4, Py_UCS4)
    }
surrogate:
    return -1;
}

#undef DCP_TAIL
#undef DCP_PUT_CHAR

/* dcp_plain_1(s, i, n, seen): the index of the first `"`, backslash or LF in the
   1-byte text s[i:n] (n when none), for the row-line scan of DCP decoding: the
   text inside a JSON string up to where it may end. *seen gets 0x80 when one of
   the characters passed is above 127 (the joined text is then Latin-1). */
static Py_ssize_t dcp_plain_1(const Py_UCS1 *s, Py_ssize_t i, Py_ssize_t n, unsigned int *seen) {
#ifdef GCX_SSE2
    __m128i high = _mm_setzero_si128();
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
        int m = _mm_movemask_epi8(_mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
            _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))));
        if (m) {
            Py_ssize_t at = i + __builtin_ctz((unsigned int)m);
            for (; i < at; i++) *seen |= s[i] & 0x80;
            if (_mm_movemask_epi8(high)) *seen |= 0x80;
            return at;
        }
        high = _mm_or_si128(high, v);
    }
    if (_mm_movemask_epi8(high)) *seen |= 0x80;
#endif
    for (; i < n; i++) {
        Py_UCS1 u = s[i];
        if (u == '"' || u == '\\' || u == '\n') return i;
        *seen |= u & 0x80;
    }
    return n;
}

#endif
