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

/* f's text in fixed notation: the digits of m with a point k digits from its end. */
static inline int gcx_fixed(int negative, unsigned long long m, int k, char *out) {
    char tmp[24];
    int i = 24, n = 0;
    do {
        tmp[--i] = (char)('0' + m % 10);
        m /= 10;
    } while (m);
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

static inline gcx_u128 gcx_pow10_u128(int k) {
    gcx_u128 p = 1;
    while (k--)
        p *= 10;
    return p;
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
       binary exponent (log10(2) ~ 0.30103), corrected below */
    *k = 15 - (int)floor((52 - *s) * 0.30103);
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

/* repr(a) when it has 17 digits (the nearest 16-digit decimal does not read back), else 0. */
static inline int gcx_float_17(double a, int negative, char *out) {
    unsigned long long m, mant;
    int k, s;
    gcx_u128 p10;
    if (gcx_near16(a, &m, &k, &p10, &s, &mant) != 2)
        return 0;
    if (!gcx_nearest(mant, s, p10 * 10, &m) || m >= 100000000000000000ULL || m % 10 == 0)
        return 0;
    return gcx_fixed(negative, m, k + 1, out);
}

/* repr(a) when no decimal of 15 digits or fewer reads back as a: its nearest 16-digit one. */
static inline int gcx_float_16(double a, int negative, char *out) {
    unsigned long long m, mant;
    int k, s;
    gcx_u128 p10;
    if (gcx_near16(a, &m, &k, &p10, &s, &mant) != 1 || m % 10 == 0)
        return 0;
    return gcx_fixed(negative, m, k, out);
}
#else
static inline int gcx_float_17(double a, int negative, char *out) {
    (void)a, (void)negative, (void)out;
    return 0;
}
static inline int gcx_float_16(double a, int negative, char *out) {
    (void)a, (void)negative, (void)out;
    return 0;
}
#endif

/* Writes repr(f) into out (at least 32 bytes) and returns its length, or 0. */
static inline int gcx_float_repr(double f, char *out) {
    double a = f < 0 ? -f : f, m = 0;
    int k;
    if (!(a >= 1e-4 && a < 1e15)) /* also NaN and the zeros */
        return 0;
    if (a * 1e15 != gcx_round(a * 1e15) && (k = gcx_float_17(a, f < 0, out)))
        return k; /* not a short decimal and 17 digits: no search of shorter ones */
    for (k = 0; k < 20; k++) {
        m = gcx_round(a * gcx_pow10[k]);
        if (m >= 1e15)
            return gcx_float_16(a, f < 0, out);
        if (m / gcx_pow10[k] == a)
            break;
    }
    if (k == 20)
        return 0;
    return gcx_fixed(f < 0, (unsigned long long)m, k, out);
}

#endif
