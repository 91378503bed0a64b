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
    from ._speedups_py import (
        decode_row,
        decode_rows,
        encode_row,
        encode_rows,
        encode_table,
        escape,
        flatten_rows,
        format_cell,
        nest_rows,
        parse_cell,
        scan_style,
        shared_keys,
        unescape,
    )

    USE_EXTENSIONS = False
else:
    try:
        from ._speedups import (
            decode_row,
            decode_rows,
            encode_row,
            encode_rows,
            encode_table,
            escape,
            flatten_rows,
            format_cell,
            nest_rows,
            parse_cell,
            scan_style,
            shared_keys,
            unescape,
        )

        USE_EXTENSIONS = True
    except ImportError:  # built without a compiler or without Cython
        from ._speedups_py import (
            decode_row,
            decode_rows,
            encode_row,
            encode_rows,
            encode_table,
            escape,
            flatten_rows,
            format_cell,
            nest_rows,
            parse_cell,
            scan_style,
            shared_keys,
            unescape,
        )

        USE_EXTENSIONS = False

__all__ = [
    "NO_EXTENSIONS",
    "USE_EXTENSIONS",
    "escape",
    "unescape",
    "format_cell",
    "parse_cell",
    "encode_row",
    "decode_row",
    "encode_rows",
    "decode_rows",
    "scan_style",
    "shared_keys",
    "nest_rows",
    "flatten_rows",
    "encode_table",
]
