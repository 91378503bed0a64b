/* Whether two dict keys are the same key, compared without a Python call: by
   address, else (exact strs only) by hash, length, kind and characters. 0 says
   only "not shown the same": the caller then looks the key up by value.
   Rows built by a loop of f-strings share no key objects; this finds their
   keys in order without a hash lookup per member. */
#ifndef GCXWIRE_GCX_KEYS_H
#define GCXWIRE_GCX_KEYS_H

#include <Python.h>
#include <string.h>

static inline int gcx_same_key(PyObject *a, PyObject *b) {
    Py_hash_t ha, hb;
    Py_ssize_t n;
    int kind;
    if (a == b)
        return 1;
    if (!PyUnicode_CheckExact(a) || !PyUnicode_CheckExact(b))
        return 0;
    ha = ((PyASCIIObject *)a)->hash;
    hb = ((PyASCIIObject *)b)->hash;
    if (ha != -1 && hb != -1 && ha != hb)
        return 0;
    n = PyUnicode_GET_LENGTH(a);
    kind = PyUnicode_KIND(a);
    if (n != PyUnicode_GET_LENGTH(b) || kind != (int)PyUnicode_KIND(b))
        return 0;
    return memcmp(PyUnicode_DATA(a), PyUnicode_DATA(b), (size_t)n * (size_t)kind) == 0;
}

#endif
