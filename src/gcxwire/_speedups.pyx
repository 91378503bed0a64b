# cython: language_level=3, embedsignature=True, boundscheck=False, wraparound=False
"""The Cython twin of ``_speedups_py.py``: GCX1's hot leaves.

Same names, signatures, results and errors as the pure twin (the parity tests
hold them to it); the typing rule is documented there and in docs/wire-format.md.

Cells are read straight from the string's internal buffer (any of the three
PEP 393 kinds): escaping, unescaping, row splitting and typed parsing make no
intermediate Python strings, and whole tables are encoded and decoded in one
call. Anything unusual (huge ints, NaN, exotic types, bad literals) goes through
the same Python helpers the pure twin uses, so results and errors stay identical.

This file is the shell only (imports, C declarations, shared constants); the
code lives in the included parts, one job each:

  _escape.pxi        escape/unescape and the JSON number grammar
  _cells.pxi         one cell or one row: format_cell/parse_cell, encode_row/decode_row
  _buffer.pxi        the growing byte buffer and the cell writers into it
                     (the SSE2 escaper is C, in _gcx_escape.h; short floats'
                     repr in _gcx_float.h)
  _columns.pxi       a table's column paths compiled for reading rows, and
                     the per-column helpers (shared_keys, constant_columns, ...)
  _table_encode.pxi  whole tables: style counts, encode_table, scan_style
  _row_layout.pxi    typed rows read into their final shape (decode_rows'
                     layout): groups, constants, infixes, prefixes, templates
  _rows_decode.pxi   whole sections: decode_rows, nest_rows, attach_items,
                     add_templates (the depth limit's bracket count and
                     JSON depth scan are C, in _gcx_depth.h)
  _dcp_rows.pxi      DCP: a batch's positional rows and their lines
  _plan_rows.pxi     per-row work of the planning passes: a list column moved
                     out to a child section, the `crlf=` rewrite, the rows a
                     template holds
  _count.pxi         exact cl100k token counts of ASCII text: its pre-split
                     pieces, each piece's count remembered
  _literals.pxi      the proxy's check of an answer line's number literals
"""

import math

import orjson

from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.long cimport PyLong_AsLongLongAndOverflow, PyLong_AsSsize_t, PyLong_FromLongLong
from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from cpython.object cimport PyObject_Repr, PyObject_Str, PyTypeObject
from cpython.ref cimport PyObject
from cpython.unicode cimport (
    PyUnicode_1BYTE_KIND,
    PyUnicode_2BYTE_KIND,
    PyUnicode_4BYTE_KIND,
    PyUnicode_DATA,
    PyUnicode_FindChar,
    PyUnicode_FromKindAndData,
    PyUnicode_KIND,
    PyUnicode_New,
    PyUnicode_READ,
    PyUnicode_Substring,
    PyUnicode_WRITE,
    Py_UCS1,
    Py_UCS2,
)
from libc.math cimport isfinite, signbit
from libc.stdint cimport uint64_t
from libc.string cimport memchr, memcmp, memcpy, memmove, memset, strlen

from ._values import ABSENT, int_to_str, path_join, str_to_int
from ._values import dumps as dumps_cell
from ._values import loads as loads_cell
from .errors import DecodeError, EncodeError, EncodeTypeError, EncodeValueError

cdef extern from "_gcx_dict.h":
    # PyDict_Next, a combined table's walk inlined (see the header)
    int _dict_next "gcx_dict_next"(PyObject *d, Py_ssize_t *pos, PyObject **key, PyObject **value)

cdef extern from "Python.h":
    Py_UCS4 PyUnicode_MAX_CHAR_VALUE(object o)
    bint PyUnicode_IS_ASCII(object o)
    PyObject *_dict_get "PyDict_GetItemWithError"(PyObject *d, PyObject *key)
    int _dict_put "PyDict_SetItem"(PyObject *d, PyObject *key, PyObject *value) except -1
    bint _is_dict "PyDict_Check"(PyObject *o)
    bint _is_list "PyList_Check"(PyObject *o)
    bint _is_tuple "PyTuple_Check"(PyObject *o)
    bint _is_str "PyUnicode_Check"(PyObject *o)
    Py_ssize_t _dict_size "PyDict_GET_SIZE"(PyObject *o)
    PyObject *_err_occurred "PyErr_Occurred"()
    PyObject **_tuple_items "PySequence_Fast_ITEMS"(PyObject *o)
    # The hot loops look at values through borrowed pointers: no reference
    # counting on each value or on its type.
    PyTypeObject *_type_of "Py_TYPE"(PyObject *o)
    PyTypeObject _STR "PyUnicode_Type"
    PyTypeObject _INT "PyLong_Type"
    PyTypeObject _FLOAT "PyFloat_Type"
    PyTypeObject _DICT "PyDict_Type"
    PyTypeObject _LIST "PyList_Type"
    Py_ssize_t _list_size "PyList_GET_SIZE"(PyObject *o)
    PyObject *_list_item "PyList_GET_ITEM"(PyObject *o, Py_ssize_t i)
    PyObject *_NONE "Py_None"
    PyObject *_TRUE "Py_True"
    PyObject *_FALSE "Py_False"
    double _float_value "PyFloat_AS_DOUBLE"(PyObject *o)
    long long _as_long_long "PyLong_AsLongLongAndOverflow"(PyObject *o, int *overflow)
    int _ukind "PyUnicode_KIND"(PyObject *o)
    void *_udata "PyUnicode_DATA"(PyObject *o)
    Py_ssize_t _ulen "PyUnicode_GET_LENGTH"(PyObject *o)
    bint _uascii "PyUnicode_IS_ASCII"(PyObject *o)
    bint _ucompact "PyUnicode_IS_COMPACT"(PyObject *o)
    ctypedef struct PyASCIIObject:
        pass
    void _incref "Py_INCREF"(PyObject *o)
    void _xdecref "Py_XDECREF"(PyObject *o)


__all__ = [
    "escape",
    "unescape",
    "format_cell",
    "parse_cell",
    "encode_row",
    "decode_row",
    "decode_rows",
    "scan_style",
    "shared_keys",
    "nest_rows",
    "attach_items",
    "add_templates",
    "encode_table",
    "dict_column",
    "constant_columns",
    "column_prefixes",
    "key_order",
    "plain_json",
    "dcp_rows",
    "dcp_lines",
    "dcp_text",
    "dcp_join",
    "dcp_records",
    "dcp_tree_records",
    "text_marks",
    "crlf_only",
    "split_column",
    "crlf_cells",
    "drop_crlf",
    "template_matches",
    "column_at",
    "sparse_column",
    "source_texts",
    "column_strings",
    "infix_runs",
    "template_probes",
    "find_text",
    "break_cells",
    "style_marks",
    "flat_prefixes",
    "keys_differ",
    "cl100k_count",
    "wide_runs",
    "literal_scan",
    "row_line_starts",
]

cdef object _ABSENT = ABSENT
cdef frozenset _NO_FLOATS = frozenset()
cdef object _dumps = orjson.dumps
cdef object _loads = orjson.loads
cdef object _JSONEncodeError = orjson.JSONEncodeError
cdef object _JSONDecodeError = orjson.JSONDecodeError
# Nested containers at least this deep go to dumps_cell (orjson's own limit is 255).
cdef int _ORJSON_DEPTH = 250


# The bytes the grammar names, by ASCII code; they compare with Py_UCS1 and
# Py_UCS4 alike, so one set serves every string kind.
cdef enum:
    _BACKSPACE = 8  # \b
    _TAB = 9  # \t
    _LF = 10  # \n
    _FORMFEED = 12  # \f
    _CR = 13  # \r
    _SPACE = 32  # the first byte that is not a control character
    _QUOTE = 34  # "
    _HASH = 35  # #
    _PLUS = 43  # +
    _COMMA = 44  # ,
    _MINUS = 45  # -
    _DOT = 46  # .
    _ZERO = 48  # 0
    _ONE = 49  # 1
    _NINE = 57  # 9
    _COLON = 58  # :
    _UPPER_C = 67  # C
    _UPPER_E = 69  # E
    _UPPER_G = 71  # G
    _UPPER_X = 88  # X
    _LBRACKET = 91  # [
    _BACKSLASH = 92  # \
    _RBRACKET = 93  # ]
    _LOWER_E = 101  # e
    _LOWER_F = 102  # f
    _LOWER_L = 108  # l
    _LOWER_N = 110  # n
    _LOWER_R = 114  # r
    _LOWER_T = 116  # t
    _LOWER_U = 117  # u
    _LBRACE = 123  # {
    _RBRACE = 125  # }
    _CASE_BIT = 32  # an ASCII letter | 32 is its lower case


include "_escape.pxi"
include "_decode_scan.pxi"
include "_cells.pxi"
include "_buffer.pxi"
include "_idmap.pxi"
include "_columns.pxi"
include "_table_encode.pxi"
include "_row_layout.pxi"
include "_rows_decode.pxi"
include "_dcp_rows.pxi"
include "_wide_scan.pxi"
include "_plan_rows.pxi"
include "_break_cells.pxi"
include "_row_keys.pxi"
include "_flat_search.pxi"
include "_find.pxi"
include "_plain_tree.pxi"
include "_count.pxi"
include "_literals.pxi"
