/* gcx_dict_next: PyDict_Next, with the walk of a combined table inlined.

   PyDict_Next is a call into libpython per item (about 50 instructions with its
   checks): a table's rows are walked item by item several times an encode, and
   on short cells those calls were a tenth of the writer's time. A dict whose
   values live in its keys table (ma_values NULL: every dict built by a literal,
   dict() or json.loads) is walked here over its entries, in the same order,
   skipping deleted ones, as CPython's own loop does; a split table (instance
   dicts) and every other build go to PyDict_Next. The entry layout is that of
   CPython 3.11 to 3.13 (Include/internal/pycore_dict.h), the only ones read
   this way; the free-threaded build and any other version take PyDict_Next. */
#ifndef GCXWIRE_GCX_DICT_H
#define GCXWIRE_GCX_DICT_H

#include <stdint.h>
#include <Python.h>

#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030E0000 && !defined(Py_GIL_DISABLED) \
    && !defined(Py_LIMITED_API)
#define GCX_DICT_INLINE 1

/* struct _dictkeysobject */
typedef struct {
    Py_ssize_t dk_refcnt;
    uint8_t dk_log2_size;
    uint8_t dk_log2_index_bytes;
    uint8_t dk_kind; /* 0 general, 1 unicode, 2 split */
    uint32_t dk_version;
    Py_ssize_t dk_usable;
    Py_ssize_t dk_nentries;
    char dk_indices[];
} gcx_dict_keys;

typedef struct {
    PyObject *me_key;
    PyObject *me_value;
} gcx_unicode_entry;

typedef struct {
    Py_hash_t me_hash;
    PyObject *me_key;
    PyObject *me_value;
} gcx_key_entry;
#endif

static inline int gcx_dict_next(PyObject *op, Py_ssize_t *ppos, PyObject **pkey, PyObject **pvalue) {
#ifdef GCX_DICT_INLINE
    PyDictObject *mp = (PyDictObject *)op;
    if (PyDict_Check(op) && mp->ma_values == NULL) {
        const gcx_dict_keys *dk = (const gcx_dict_keys *)mp->ma_keys;
        Py_ssize_t i = *ppos, n = dk->dk_nentries;
        const void *entries = &dk->dk_indices[(size_t)1 << dk->dk_log2_index_bytes];
        if (i < 0)
            return 0;
        if (dk->dk_kind == 1) {
            const gcx_unicode_entry *e = (const gcx_unicode_entry *)entries;
            while (i < n && e[i].me_value == NULL)
                i++;
            if (i >= n)
                return 0;
            *pkey = e[i].me_key;
            *pvalue = e[i].me_value;
        } else if (dk->dk_kind == 0) {
            const gcx_key_entry *e = (const gcx_key_entry *)entries;
            while (i < n && e[i].me_value == NULL)
                i++;
            if (i >= n)
                return 0;
            *pkey = e[i].me_key;
            *pvalue = e[i].me_value;
        } else {
            return PyDict_Next(op, ppos, pkey, pvalue);
        }
        *ppos = i + 1;
        return 1;
    }
#endif
    return PyDict_Next(op, ppos, pkey, pvalue);
}

#endif
