/* A decimal number cell read as a double without strtod, when that is exact.

   CPython's float() goes through PyOS_string_to_double, which sets and
   restores the x87 control word around every call: more than half of the
   cost of a short float cell. A significand of at most 2^53 and a power of
   ten within 10^22 are both exact doubles, so one IEEE multiplication or
   division rounds m * 10^e correctly: the same double strtod gives
   (Clinger's fast path). Only where double arithmetic is not done in wider
   registers (FLT_EVAL_METHOD 0: SSE2, ARM); elsewhere the caller falls back. */
#ifndef GCXWIRE_GCX_NUMBER_H
#define GCXWIRE_GCX_NUMBER_H

#include <float.h>

static const double gcx_exact_pow10[23] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* 1 and *out = m * 10^exp10 when exact; 0: the caller must use strtod. */
static inline int gcx_exact_double(unsigned long long m, long exp10, double *out) {
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
    if (m <= (1ULL << 53) && exp10 >= -22 && exp10 <= 22) {
        double d = (double)m;
        *out = exp10 < 0 ? d / gcx_exact_pow10[-exp10] : d * gcx_exact_pow10[exp10];
        return 1;
    }
#endif
    (void)m; (void)exp10; (void)out;
    return 0;
}

#endif
