# ------------------------------------------ child sections and cell styles: per-row leaves


def split_column(rows, key, mark, link, /):
    """The rows with list column ``key`` moved out: (rows, items, JSON size), or None.

    Each row that holds ``key`` is copied with ``key`` dropped and ``mark``
    (last) holding its list's length (None for null); each list item is
    copied as ``{link: row number, **item}``; the size is the length of the
    JSON cells the lists would have been. None when a row holds something
    else there (a scalar, a non-object or empty item, an item holding
    ``link``, a value JSON cannot carry) or holds ``mark`` beside it.
    """
    cdef list out = [], items = []
    cdef Py_ssize_t i = 0, j, size = 0
    cdef PyObject *value
    cdef object held  # value, owned: an item's key compare may run Python code
    cdef dict copy, item
    cdef _Buf b
    b.data = <Py_UCS1 *>PyMem_Malloc(256)
    if b.data == NULL:
        raise MemoryError()
    b.cap = 256
    b.kind = PyUnicode_1BYTE_KIND
    try:
        for row in rows:
            if type(row) is not dict or key not in <dict>row:
                if type(row) is dict and mark in <dict>row:
                    return None
                out.append(row)
                i += 1
                continue
            if mark in <dict>row:
                return None
            value = _dict_get(<PyObject *>row, <PyObject *>key)
            if value == NULL:
                _raise_if_set()
                return None  # key was there a moment ago: a key whose __eq__ lies
            held = <object>value
            if value == _NONE:
                count = None
            elif _type_of(value) == &_LIST:
                j = 0
                while j < _list_size(value):
                    entry = <object>_list_item(value, j)
                    if type(entry) is not dict or not entry or link in <dict>entry:
                        return None
                    item = {link: i}
                    item.update(<dict>entry)
                    items.append(item)
                    j += 1
                b.len = 0
                b.wide = False
                if _put_json(&b, value, 0):
                    size += b.len
                else:  # not plain: orjson writes it (and refuses NaN and the like)
                    try:
                        size += len(format_cell(<object>value))
                    except EncodeError:
                        return None
                count = _list_size(value)
            else:
                return None
            copy = (<dict>row).copy()
            del copy[key]
            copy[mark] = count
            out.append(copy)
            i += 1
    finally:
        PyMem_Free(b.data)
    return out, items, size
