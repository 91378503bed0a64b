# ------------------------------------------ table sections: one keys check over the rows


def keys_differ(rows, tuple keys, /):
    """Whether a row is not an exact dict holding exactly ``keys``, in this order.

    ``any(type(r) is not dict or tuple(r) != keys for r in rows)`` without a
    tuple per row: the writer asks it before each pass that changes the rows.
    """
    for row in rows:
        if _row_askew(row, keys):
            return True
    return False


cdef bint _row_askew(object row, tuple keys) except -1:
    # ``type(row) is not dict or tuple(row) != keys``, with no tuple made.
    cdef Py_ssize_t m = len(keys), pos = 0, e = 0
    cdef PyObject *k
    cdef PyObject **want = _tuple_items(<PyObject *>keys)
    cdef PyObject *v
    cdef object held  # the key, owned while its __eq__ runs
    if type(row) is not dict or _dict_size(<PyObject *>row) != m:
        return True
    while _dict_next(<PyObject *>row, &pos, &k, &v):
        if e >= m:
            return True
        if k != want[e]:
            held = <object>k
            if not _same_key(k, want[e]):
                return True
        e += 1
    return e != m
