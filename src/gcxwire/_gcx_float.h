/* repr(float) for the common short floats, without the shortest-digits search.

   A decimal D of at most 15 significant digits that reads back as the double
   f is the digits repr(f) writes: repr writes the shortest decimal that reads
   back as f, which then has at most as many digits as D, and two decimals of
   at most 15 digits never read back as the same double (DBL_DIG is 15). So
   when m / 10^k == f for an integer |m| < 10^15 (the division is IEEE exact-
   rounded, as reading the decimal m * 10^-k is), the text is m with a point
   put k digits from its end. Only fixed notation (1e-4 <= |f| < 1e15), as
   repr writes there; anything else returns 0 and the caller asks
   PyOS_double_to_string, so the text is always repr's. */
#ifndef GCXWIRE_GCX_FLOAT_H
#define GCXWIRE_GCX_FLOAT_H

#include <float.h>
#include <math.h>
#include <string.h>

/* x rounded to the nearest integer (ties to even), 0 <= x < 2^52: adding and
   taking away 2^52 leaves no fraction bits. Inline, unlike nearbyint (a libm
   call that saves the FPU state), where doubles are evaluated as doubles. */
static inline double gcx_round(double x) {
#if FLT_EVAL_METHOD == 0
    return x < 4503599627370496.0 ? (x + 4503599627370496.0) - 4503599627370496.0 : x;
#else
    return nearbyint(x);
#endif
}

static const double gcx_pow10[] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
    1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
};

static const char gcx_digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* The decimal digits of m (< 10^8) ending at end, two at a time; how many. */
static inline int gcx_digits8(unsigned int m, char *end) {
    char *p = end;
    while (m >= 100) {
        unsigned int r = m % 100;
        m /= 100;
        p -= 2;
        p[0] = gcx_digit_pairs[2 * r];
        p[1] = gcx_digit_pairs[2 * r + 1];
    }
    if (m >= 10) {
        p -= 2;
        p[0] = gcx_digit_pairs[2 * m];
        p[1] = gcx_digit_pairs[2 * m + 1];
    } else {
        *--p = (char)('0' + m);
    }
    return (int)(end - p);
}

/* f's text in fixed notation: the digits of m with a point k digits from its end.

   The digits are written two at a time from a table, the low eight apart from
   the rest (two short chains the processor runs side by side): a division per
   digit, each waiting on the one before, was most of a 17-digit float's time. */
static inline int gcx_fixed(int negative, unsigned long long m, int k, char *out) {
    char tmp[24];
    int i, n = 0, d;
    if (m >= 100000000ULL) {
        unsigned long long hi = m / 100000000ULL;
        unsigned int lo = (unsigned int)(m - hi * 100000000ULL);
        d = gcx_digits8(lo, tmp + 24);
        while (d < 8) /* the low part's leading zeros */
            tmp[24 - ++d] = '0';
        if (hi >= 100000000ULL) { /* at most 10^20 / 10^8: twelve digits */
            unsigned int top = (unsigned int)(hi / 100000000ULL);
            unsigned int mid = (unsigned int)(hi - (unsigned long long)top * 100000000ULL);
            int e = gcx_digits8(mid, tmp + 16);
            while (e < 8)
                tmp[16 - ++e] = '0';
            i = 8 - gcx_digits8(top, tmp + 8);
        } else {
            i = 16 - gcx_digits8((unsigned int)hi, tmp + 16);
        }
    } else {
        i = 24 - gcx_digits8((unsigned int)m, tmp + 24);
    }
    while (24 - i <= k) /* 0.00123: the zeros after the point */
        tmp[--i] = '0';
    if (negative)
        out[n++] = '-';
    for (; i < 24 - k; i++)
        out[n++] = tmp[i];
    out[n++] = '.';
    if (k == 0)
        out[n++] = '0';
    for (; i < 24; i++)
        out[n++] = tmp[i];
    return n;
}

#if defined(__SIZEOF_INT128__)
/* Floats of 16 or 17 significant digits (random(), ratios), exactly.

   With a = mant * 2^-s (mant the 53-bit significand), a * 10^k is the integer
   mant * 10^k shifted right by s: 128-bit integers hold it exactly (mant <
   2^53, 10^k <= 10^20 < 2^67), so its nearest integer m is exact too. The
   decimal m * 10^-k reads back as a when it lies within half an ulp of a:
   |m * 2^s - mant * 10^k| * 2 < 10^k. repr writes the shortest decimal that
   reads back as a, the nearest one among those of that length: when no
   decimal of 15 digits or fewer does, that is the nearest 16-digit one if it
   reads back, else the nearest 17-digit one (17 digits always do). Ties, a
   significand of 2^52 (its lower neighbour is nearer), and anything odd
   return 0, so the caller asks CPython. */
typedef unsigned __int128 gcx_u128;

#define GCX_E19 10000000000000000000ULL
static const gcx_u128 gcx_pow10_128[] = {
    1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
    100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL, 1000000000000ULL,
    10000000000000ULL, 100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
    100000000000000000ULL, 1000000000000000000ULL, GCX_E19, (gcx_u128)GCX_E19 * 10,
    (gcx_u128)GCX_E19 * 100,
};

static inline gcx_u128 gcx_pow10_u128(int k) { /* 0 <= k <= 21 */
    return gcx_pow10_128[k];
}

/* The nearest integer to mant * 10^k / 2^s into *m; 0 on a tie. */
static inline int gcx_nearest(unsigned long long mant, int s, gcx_u128 p10, unsigned long long *m) {
    gcx_u128 t = (gcx_u128)mant * p10;
    gcx_u128 q = t >> s, r = t - (q << s), half = (gcx_u128)1 << (s - 1);
    if (r == half)
        return 0;
    *m = (unsigned long long)(r > half ? q + 1 : q);
    return 1;
}

/* a = mant * 2^-s, and k with a * 10^k of 16 digits before the point; 0 if unsupported. */
static inline int gcx_scale16(double a, unsigned long long *mant, int *s, int *k, gcx_u128 *p10) {
    unsigned long long bits;
    gcx_u128 t;
    memcpy(&bits, &a, sizeof bits); /* a normal double: a = (2^52 + frac) * 2^(exp - 1075) */
    *mant = (bits & ((1ULL << 52) - 1)) | (1ULL << 52);
    *s = 1075 - (int)(bits >> 52 & 0x7ff);
    if (*mant == (1ULL << 52) || *s < 2 || *s > 70)
        return 0;
    /* 16 digits before the point: k = 15 - floor(log10 a), a first guess from the
       binary exponent (78913 / 2^18 ~ log10(2); the shift floors, also below zero:
       floor() was a libm call without SSE4.1), corrected below */
    *k = 15 - (((52 - *s) * 78913) >> 18);
    for (;;) {
        if (*k < 0 || *k > 19)
            return 0;
        *p10 = gcx_pow10_u128(*k);
        t = ((gcx_u128)*mant * *p10) >> *s;
        if (t >= (gcx_u128)10000000000000000ULL)
            --*k;
        else if (t < (gcx_u128)1000000000000000ULL)
            ++*k;
        else
            return 1;
    }
}

/* The nearest 16-digit decimal m * 10^-k to a; 1 if it reads back as a, 2 if not, 0 if unsure. */
static inline int gcx_near16(double a, unsigned long long *m, int *k, gcx_u128 *p10, int *s,
                             unsigned long long *mant) {
    gcx_u128 x, t, diff;
    if (!gcx_scale16(a, mant, s, k, p10) || !gcx_nearest(*mant, *s, *p10, m))
        return 0;
    if (*m >= 10000000000000000ULL)
        return 0;
    x = (gcx_u128)*m << *s;
    t = (gcx_u128)*mant * *p10;
    diff = x > t ? x - t : t - x;
    if (diff * 2 == *p10)
        return 0;
    return diff * 2 < *p10 ? 1 : 2;
}

/* repr(a) when no decimal of 15 digits or fewer reads back as a: its nearest
   16-digit decimal if that reads back, else its nearest 17-digit one; 0 if unsure. */
static inline int gcx_float_long(double a, int negative, char *out) {
    unsigned long long m, mant;
    int k, s, near = 0;
    gcx_u128 p10;
    near = gcx_near16(a, &m, &k, &p10, &s, &mant);
    if (near == 1)
        return m % 10 == 0 ? 0 : gcx_fixed(negative, m, k, out);
    if (near != 2 || k > 20)
        return 0;
    if (!gcx_nearest(mant, s, p10 * 10, &m) || m >= 100000000000000000ULL || m % 10 == 0)
        return 0;
    return gcx_fixed(negative, m, k + 1, out);
}
#else
static inline int gcx_float_long(double a, int negative, char *out) {
    (void)a, (void)negative, (void)out;
    return 0;
}
#endif

/* 5^-j modulo 2^64, and the largest multiple of 5^j over 5^j: m is a multiple of
   5^j exactly when m * 5^-j (mod 2^64) is at most that, and then it is m / 5^j. */
static const unsigned long long gcx_inv5[] = {
    0x0000000000000001ULL, 0xCCCCCCCCCCCCCCCDULL, 0x8F5C28F5C28F5C29ULL,
    0x1CAC083126E978D5ULL, 0xD288CE703AFB7E91ULL, 0x5D4E8FB00BCBE61DULL,
    0x790FB65668C26139ULL, 0xE5032477AE8D46A5ULL, 0xC767074B22E90E21ULL,
    0x8E47CE423A2E9C6DULL, 0x4FA7F60D3ED61F49ULL, 0x0FEE64690C913975ULL,
    0x3662E0E1CF503EB1ULL, 0xA47A2CF9F6433FBDULL, 0x54186F653140A659ULL,
    0x7738164770402145ULL, 0xE4A4D1417CD9A041ULL, 0xC75429D9E5C5200DULL,
    0xC1773B91FAC10669ULL, 0x26B172506559CE15ULL,
};
static const unsigned long long gcx_max5[] = {
    0xFFFFFFFFFFFFFFFFULL, 0x3333333333333333ULL, 0x0A3D70A3D70A3D70ULL,
    0x020C49BA5E353F7CULL, 0x0068DB8BAC710CB2ULL, 0x0014F8B588E368F0ULL,
    0x000431BDE82D7B63ULL, 0x0000D6BF94D5E57AULL, 0x00002AF31DC46118ULL,
    0x0000089705F4136BULL, 0x000001B7CDFD9D7BULL, 0x00000057F5FF85E5ULL,
    0x000000119799812DULL, 0x0000000384B84D09ULL, 0x00000000B424DC35ULL,
    0x0000000024075F3DULL, 0x000000000734ACA5ULL, 0x000000000170EF54ULL,
    0x000000000049C977ULL, 0x00000000000EC1E4ULL,
};

/* m's trailing decimal zeros, at most k (< 20), dropped: how many. The twos
   are its trailing zero bits; the fives, a search over the multiples test
   above; a division per zero was most of a short float's time. */
static inline int gcx_drop_zeros(unsigned long long *m, int k) {
    int lo = 0, hi, mid, step, ok;
#if defined(__GNUC__)
    hi = *m ? __builtin_ctzll(*m) : k;
#else
    for (hi = 0; hi < k && !(*m >> hi & 1); hi++)
        ;
#endif
    if (hi > k)
        hi = k;
    /* the most fives, at most hi (5^j divides m for every j up to that), in
       five steps with no branch to mispredict: the digits vary cell to cell */
    for (step = 16; step; step >>= 1) {
        mid = lo + step;
        ok = mid <= hi;
        mid = ok ? mid : 0;
        ok &= *m * gcx_inv5[mid] <= gcx_max5[mid];
        lo = ok ? mid : lo;
    }
    *m = (*m * gcx_inv5[lo]) >> lo;
    return lo;
}

/* The shortest decimal of at most 15 digits that reads back as a (1e-4 <= a < 1e15)
   into m * 10^-k: 1 if there is one, 0 if there is none, -1 if unsure.

   With k such that a * 10^k lies in [10^14, 10^15), a decimal D of 15 digits or
   fewer within half an ulp of a is M * 10^-k for an integer M (its last digit
   is at 10^-k or above), and the product rounded to an integer is M: a * 10^k
   is within 0.12 of M (half an ulp of a, times 10^k, below 2^50 * 2^-53) and
   its rounding adds at most 2^-4. So one product says it, where trying each k
   from 0 on took a division per digit. Near the ends of the range the product
   may round across them: unsure there (the caller searches). */
static inline int gcx_short15(double a, unsigned long long *m, int *k) {
    unsigned long long bits;
    double x, r;
    int e2, d;
    memcpy(&bits, &a, sizeof bits);
    e2 = (int)(bits >> 52 & 0x7ff) - 1023; /* 2^e2 <= a < 2^(e2+1), -14 <= e2 <= 49 */
    /* floor(e2 * log10(2)) (78913 / 2^18 is log10(2) to 6 digits): floor(log10 a), or one less */
    d = (e2 * 78913) >> 18;
    *k = 14 - d;
    if (*k < 1 || *k > 19)
        return -1;
    *k -= a * gcx_pow10[*k] >= 1e15; /* the one less: one digit more before the point */
    x = a * gcx_pow10[*k];
    r = gcx_round(x);
    if (!(r > 1e14 + 1 && r < 1e15 - 1))
        return -1;
    if (r / gcx_pow10[*k] != a)
        return 0;
    *m = (unsigned long long)r;
    *k -= gcx_drop_zeros(m, *k); /* the shortest */
    return 1;
}

/* Writes repr(f) into out (at least 32 bytes) and returns its length, or 0. */
static inline int gcx_float_repr(double f, char *out) {
    double a = f < 0 ? -f : f, m = 0;
    unsigned long long q;
    int k, found;
    if (!(a >= 1e-4 && a < 1e15)) /* also NaN and the zeros */
        return 0;
    if (a * 1e15 != gcx_round(a * 1e15)) { /* likely not a short decimal: one product says */
        found = gcx_short15(a, &q, &k);
        if (found == 1)
            return gcx_fixed(f < 0, q, k, out);
        if (found == 0) /* no decimal of 15 digits or fewer: 16 digits, or 17 */
            return gcx_float_long(a, f < 0, out);
    }
    /* a short decimal (prices) or unsure: each number of decimals in turn, in
       divisions the processor overlaps (faster than the product for few decimals) */
    for (k = 0; k < 20; k++) {
        m = gcx_round(a * gcx_pow10[k]);
        if (m >= 1e15)
            return gcx_float_long(a, f < 0, out);
        if (m / gcx_pow10[k] == a)
            break;
    }
    if (k == 20)
        return 0;
    return gcx_fixed(f < 0, (unsigned long long)m, k, out);
}

#endif
