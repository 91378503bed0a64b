# ------------------------------------------ table sections: one keys check over the rows


def keys_differ(rows, tuple keys, /):
    """Whether a row is not an exact dict holding exactly ``keys``, in this order.

    ``any(type(r) is not dict or tuple(r) != keys for r in rows)`` without a
    tuple per row: the writer asks it before each pass that changes the rows.
    """
    cdef Py_ssize_t m = len(keys), pos, e
    cdef PyObject *k
    cdef PyObject **want = _tuple_items(<PyObject *>keys)
    cdef PyObject *v
    cdef object held  # the key, owned while its __eq__ runs
    cdef int same
    for row in rows:
        if type(row) is not dict or _dict_size(<PyObject *>row) != m:
            return True
        pos = 0
        e = 0
        while _dict_next(<PyObject *>row, &pos, &k, &v):
            if e >= m:
                return True
            if k != want[e]:
                held = <object>k
                same = _same_key(k, want[e])
                if not same:
                    return True
            e += 1
        if e != m:
            return True
    return False
