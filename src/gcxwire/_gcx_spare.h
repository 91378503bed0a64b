/* One spare byte buffer for gcxwire._speedups.encode_table, kept between calls
   (a fresh multi-megabyte buffer per table costs more in page faults than
   writing the rows). A call takes it with an atomic exchange and gives it back
   the same way, so two calls never share it: with or without the GIL
   (free-threaded builds), a call that finds the slot empty, being nested or
   concurrent, uses a buffer of its own. */
#ifndef GCXWIRE_GCX_SPARE_H
#define GCXWIRE_GCX_SPARE_H

#include <Python.h>

typedef struct {
    unsigned char *data;
    Py_ssize_t cap;
} gcx_spare;

static gcx_spare *gcx_spare_slot = NULL;

/* The slot's buffer (or NULL), p left in its place. */
static inline gcx_spare *gcx_spare_swap(gcx_spare *p) {
#if defined(__GNUC__) || defined(__clang__)
    return __atomic_exchange_n(&gcx_spare_slot, p, __ATOMIC_ACQ_REL);
#elif defined(_MSC_VER)
    return (gcx_spare *)_InterlockedExchangePointer((void *volatile *)&gcx_spare_slot, p);
#else
    /* No atomic exchange known here: keep nothing, every call uses its own. */
    return p;
#endif
}

#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#endif

#endif
