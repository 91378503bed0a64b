# ------------------------------------------- key objects to indices, by identity
#
# Rows built alike (one json.loads, one dict literal in a loop) share their key
# objects, so a key's index can be found by its address: one multiply and a
# probe, no string hash or compare. A miss is resolved by the caller (a dict
# lookup by value) and then remembered. The map holds a reference to every key
# it remembers (in `held`), so an address cannot be reused by another object
# while it is alive.


cdef struct _IdMap:
    PyObject **keys  # per bucket: a key, or NULL
    Py_ssize_t *values  # per bucket: that key's index (or -1: known not to be one)
    Py_ssize_t mask  # buckets - 1 (a power of two less one)
    Py_ssize_t used
    Py_ssize_t room  # at most this many keys are remembered


cdef inline Py_ssize_t _id_bucket(_IdMap *m, PyObject *key):
    # Objects are 16-byte aligned: the low bits say nothing.
    return <Py_ssize_t>(((<size_t>key >> 4) * <size_t>0x9E3779B97F4A7C15) >> 20) & m.mask


cdef int _id_init(_IdMap *m, Py_ssize_t expected, Py_ssize_t room) except -1:
    cdef Py_ssize_t size = 16, i
    while size < 2 * expected:
        size *= 2
    m.keys = <PyObject **>PyMem_Malloc(size * sizeof(PyObject *))
    m.values = <Py_ssize_t *>PyMem_Malloc(size * sizeof(Py_ssize_t))
    m.mask = size - 1
    m.used = 0
    m.room = room
    if m.keys == NULL or m.values == NULL:
        _id_free(m)
        raise MemoryError()
    for i in range(size):
        m.keys[i] = NULL
    return 0


cdef void _id_free(_IdMap *m) noexcept:
    PyMem_Free(m.keys)
    PyMem_Free(m.values)
    m.keys = NULL
    m.values = NULL
    m.mask = -1
    m.used = 0


cdef inline bint _id_get(_IdMap *m, PyObject *key, Py_ssize_t *value):
    # Whether key is remembered (its index in *value).
    cdef Py_ssize_t i
    cdef PyObject *k
    if m.keys == NULL:
        return False
    i = _id_bucket(m, key)
    while True:
        k = m.keys[i]
        if k == key:
            value[0] = m.values[i]
            return True
        if k == NULL:
            return False
        i = (i + 1) & m.mask


cdef int _id_put(_IdMap *m, list held, PyObject *key, Py_ssize_t value) except -1:
    # Remember key (not yet remembered) -> value, while there is room.
    cdef Py_ssize_t i, size, j
    cdef PyObject **old_keys
    cdef Py_ssize_t *old_values
    if m.keys == NULL or m.used >= m.room:
        return 0
    if 2 * (m.used + 1) > m.mask + 1:  # keep it at most half full
        old_keys, old_values, size = m.keys, m.values, m.mask + 1
        m.keys = NULL
        m.values = NULL
        try:
            _id_init(m, size, m.room)
        except MemoryError:
            m.keys, m.values, m.mask = old_keys, old_values, size - 1
            m.room = m.used  # no room to grow: remember no more
            return 0
        for j in range(size):
            if old_keys[j] != NULL:
                i = _id_bucket(m, old_keys[j])
                while m.keys[i] != NULL:
                    i = (i + 1) & m.mask
                m.keys[i] = old_keys[j]
                m.values[i] = old_values[j]
                m.used += 1
        PyMem_Free(old_keys)
        PyMem_Free(old_values)
    held.append(<object>key)
    i = _id_bucket(m, key)
    while m.keys[i] != NULL:
        i = (i + 1) & m.mask
    m.keys[i] = key
    m.values[i] = value
    m.used += 1
    return 0
