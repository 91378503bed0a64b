# ------------------------------------------------- plain JSON check (nested records)
# A big nested object's JSON cell is checked whole before orjson writes it:
# over Python objects that walk took ~20 ns a value (65 % of orjson.dumps on
# nested-500); over borrowed pointers, with no reference counting, ~5.


cdef bint _plain_tree(PyObject *v, int depth) noexcept:
    # _plain_json's answer: exact JSON types, 64-bit ints, finite floats, str keys,
    # nested less than _ORJSON_DEPTH. No Python code runs here, so no value
    # can change under the walk.
    cdef PyTypeObject *t = _type_of(v)
    cdef Py_ssize_t pos = 0, i
    cdef PyObject *key
    cdef PyObject *item
    cdef int overflow = 0
    if t == &_STR or v == _NONE or v == _TRUE or v == _FALSE:
        return True
    if t == &_INT:
        _as_long_long(v, &overflow)
        return overflow == 0
    if t == &_FLOAT:
        return isfinite(_float_value(v))
    if depth >= _ORJSON_DEPTH:
        return False
    if t == &_DICT:
        while _dict_next(v, &pos, &key, &item):
            if _type_of(key) != &_STR or not _plain_tree(item, depth + 1):
                return False
        return True
    if t == &_LIST:
        for i in range(_list_size(v)):
            if not _plain_tree(_list_item(v, i), depth + 1):
                return False
        return True
    return False
