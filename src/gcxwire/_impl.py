"""The one place that picks a speedups twin.

``GCXWIRE_NO_EXTENSIONS=1`` (or a non-CPython interpreter) forces the pure
twin; otherwise the Cython extension is used when it was built.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

NO_EXTENSIONS = bool(os.environ.get("GCXWIRE_NO_EXTENSIONS")) or (
    sys.implementation.name != "cpython"
)

if TYPE_CHECKING or NO_EXTENSIONS:
    from . import _speedups_py as _twin

    USE_EXTENSIONS = False
else:
    try:
        from . import _speedups as _twin

        USE_EXTENSIONS = True
    except ImportError:  # built without a compiler or without Cython
        from . import _speedups_py as _twin

        USE_EXTENSIONS = False

constant_columns = _twin.constant_columns
decode_row = _twin.decode_row
decode_rows = _twin.decode_rows
dict_column = _twin.dict_column
encode_row = _twin.encode_row
encode_table = _twin.encode_table
escape = _twin.escape
format_cell = _twin.format_cell
nest_rows = _twin.nest_rows
parse_cell = _twin.parse_cell
scan_style = _twin.scan_style
shared_keys = _twin.shared_keys
unescape = _twin.unescape

__all__ = [
    "NO_EXTENSIONS",
    "USE_EXTENSIONS",
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
    "encode_table",
    "dict_column",
    "constant_columns",
]
