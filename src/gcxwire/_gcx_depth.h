/* Bracket counts and JSON nesting depth over 1-byte text, for the GCX1 row
   reader's depth limit (gcxwire._speedups, _decode_scan.pxi).

   gcx_count_brackets(p, n): how many '[' and '{' p[0:n] holds. With SSE2 the
   matches are summed in byte lanes, 16 bytes a step, and the lanes added up
   every 255 steps (a lane counts at most one a step, so it cannot wrap).

   gcx_json_deeper(p, n, limit): whether the valid JSON text p[0:n] nests
   more than limit arrays and objects deep. The text is read 64 bytes at a
   time as bit masks (quotes, backslashes, brackets): the escaped characters
   are found from the runs of backslashes, the string interiors by a prefix
   XOR of the unescaped quotes, and the brackets outside strings counted by
   popcount; only a block that could reach past the limit is walked bracket
   by bracket. The text must be valid JSON (a parser accepted it): an
   unclosed string or a stray bracket gives a depth, not an error. */
#ifndef GCXWIRE_GCX_DEPTH_H
#define GCXWIRE_GCX_DEPTH_H

#include <stdint.h>
#include <string.h>
#include <Python.h>

#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
#include <emmintrin.h>
#define GCX_DEPTH_SSE2 1
#endif

static inline Py_ssize_t gcx_count_brackets(const unsigned char *p, Py_ssize_t n) {
    Py_ssize_t count = 0, i = 0;
#ifdef GCX_DEPTH_SSE2
    const __m128i square = _mm_set1_epi8('['), curly = _mm_set1_epi8('{'), zero = _mm_setzero_si128();
    while (n - i >= 16) {
        Py_ssize_t steps = (n - i) / 16, k;
        __m128i lanes = zero, sums;
        if (steps > 255)
            steps = 255;
        for (k = 0; k < steps; k++, i += 16) {
            const __m128i c = _mm_loadu_si128((const __m128i *)(p + i));
            /* a match is -1 in its lane: subtracting it counts one */
            lanes = _mm_sub_epi8(lanes, _mm_or_si128(_mm_cmpeq_epi8(c, square), _mm_cmpeq_epi8(c, curly)));
        }
        sums = _mm_sad_epu8(lanes, zero);
        count += (Py_ssize_t)_mm_cvtsi128_si32(sums) + (Py_ssize_t)_mm_extract_epi16(sums, 4);
    }
#endif
    for (; i < n; i++)
        count += (p[i] == '[') + (p[i] == '{');
    return count;
}

#ifdef GCX_DEPTH_SSE2
static inline uint64_t gcx_depth_mask16(__m128i c, char a, char b) {
    return (uint64_t)(unsigned int)_mm_movemask_epi8(
        _mm_or_si128(_mm_cmpeq_epi8(c, _mm_set1_epi8(a)), _mm_cmpeq_epi8(c, _mm_set1_epi8(b))));
}
#endif

/* The bytes of the 64-byte block p that are a or b (a == b: one byte), a bit each. */
static inline uint64_t gcx_depth_mask(const unsigned char *p, char a, char b) {
#ifdef GCX_DEPTH_SSE2
    uint64_t m = 0;
    int k;
    for (k = 0; k < 4; k++)
        m |= gcx_depth_mask16(_mm_loadu_si128((const __m128i *)(p + 16 * k)), a, b) << (16 * k);
    return m;
#else
    uint64_t m = 0;
    int k;
    for (k = 0; k < 64; k++)
        if (p[k] == (unsigned char)a || p[k] == (unsigned char)b)
            m |= (uint64_t)1 << k;
    return m;
#endif
}

/* Set bits of m, by halves (SWAR): builds without -mpopcnt call a libgcc
   routine for __builtin_popcountll. */
static inline int gcx_depth_popcount(uint64_t m) {
    m = m - ((m >> 1) & 0x5555555555555555ULL);
    m = (m & 0x3333333333333333ULL) + ((m >> 2) & 0x3333333333333333ULL);
    m = (m + (m >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((m * 0x0101010101010101ULL) >> 56);
}

static int gcx_json_deeper(const unsigned char *p, Py_ssize_t n, Py_ssize_t limit) {
    const uint64_t even = 0x5555555555555555ULL, odd = ~0x5555555555555555ULL;
    uint64_t odd_run_before = 0; /* 1: the block before ended in an odd run of backslashes */
    uint64_t in_string_before = 0; /* all ones: the block before ended inside a string */
    Py_ssize_t depth = 0, at, rise;
    unsigned char tail[64];
    for (at = 0; at < n; at += 64) {
        const unsigned char *b = p + at;
        uint64_t slashes, starts, even_starts, odd_starts, even_carries, odd_carries, escaped;
        uint64_t quotes, strings, opens, closes, overflow_out;
        if (n - at < 64) { /* the last bytes, padded with NULs (no mark) */
            memset(tail, 0, sizeof tail);
            memcpy(tail, b, (size_t)(n - at));
            b = tail;
        }
        /* The escaped characters: each one right after an odd run of backslashes
           (a run carried over from the block before counts from its start). */
        slashes = gcx_depth_mask(b, '\\', '\\');
        starts = slashes & ~(slashes << 1);
        even_starts = starts & (even ^ odd_run_before);
        odd_starts = starts & ~(even ^ odd_run_before);
        even_carries = slashes + even_starts;
        odd_carries = slashes + odd_starts;
        overflow_out = odd_carries < slashes; /* an odd run reaches the block's end */
        odd_carries |= odd_run_before;
        odd_run_before = overflow_out;
        escaped = ((even_carries & ~slashes) & odd) | ((odd_carries & ~slashes) & even);
        /* The string interiors: from each unescaped quote to the next (a prefix XOR). */
        quotes = gcx_depth_mask(b, '"', '"') & ~escaped;
        strings = quotes;
        strings ^= strings << 1;
        strings ^= strings << 2;
        strings ^= strings << 4;
        strings ^= strings << 8;
        strings ^= strings << 16;
        strings ^= strings << 32;
        strings ^= in_string_before;
        in_string_before = (uint64_t)0 - (strings >> 63);
        opens = gcx_depth_mask(b, '[', '{') & ~strings;
        closes = gcx_depth_mask(b, ']', '}') & ~strings;
        rise = gcx_depth_popcount(opens);
        if (depth + rise <= limit) {
            depth += rise - gcx_depth_popcount(closes);
            continue;
        }
        while (opens | closes) { /* near the limit: bracket by bracket, in order */
            uint64_t low = (opens | closes) & (~(opens | closes) + 1);
            if (opens & low) {
                if (++depth > limit)
                    return 1;
            } else {
                depth--;
            }
            opens &= ~low;
            closes &= ~low;
        }
    }
    return 0;
}

#endif
