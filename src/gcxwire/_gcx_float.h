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

#include <math.h>

static const double gcx_pow10[] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
    1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
};

/* Writes repr(f) into out (at least 32 bytes) and returns its length, or 0. */
static inline int gcx_float_repr(double f, char *out) {
    double a = f < 0 ? -f : f, m = 0;
    long long digits;
    char tmp[24];
    int k, i = 24, n = 0;
    if (!(a >= 1e-4 && a < 1e15)) /* also NaN and the zeros */
        return 0;
    for (k = 0; k < 20; k++) {
        m = nearbyint(a * gcx_pow10[k]);
        if (m >= 1e15)
            return 0;
        if (m / gcx_pow10[k] == a)
            break;
    }
    if (k == 20)
        return 0;
    digits = (long long)m;
    do {
        tmp[--i] = (char)('0' + digits % 10);
        digits /= 10;
    } while (digits);
    while (24 - i <= k) /* 0.00123: the zeros after the point */
        tmp[--i] = '0';
    if (f < 0)
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

#endif
