"""The one place that picks a speedups twin.

``GCXWIRE_NO_EXTENSIONS=1`` (or a non-CPython interpreter) forces the pure
twin; otherwise the Cython extension is used when it was built.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import TYPE_CHECKING

# Any value but empty or "0" forces pure Python, as the *_NO_EXTENSIONS switches of aio-libs do.
NO_EXTENSIONS = os.environ.get("GCXWIRE_NO_EXTENSIONS", "") not in ("", "0") or (
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

column_prefixes = _twin.column_prefixes
column_strings = _twin.column_strings
infix_runs = _twin.infix_runs
template_probes = _twin.template_probes
flat_prefixes = _twin.flat_prefixes
constant_columns = _twin.constant_columns
dcp_join = _twin.dcp_join
dcp_records = _twin.dcp_records
dcp_tree_records = _twin.dcp_tree_records
dcp_lines = _twin.dcp_lines
dcp_rows = _twin.dcp_rows
dcp_text = _twin.dcp_text
decode_row = _twin.decode_row
decode_rows = _twin.decode_rows
dict_column = _twin.dict_column
encode_row = _twin.encode_row
encode_table = _twin.encode_table
escape = _twin.escape
format_cell = _twin.format_cell
key_order = _twin.key_order
nest_rows = _twin.nest_rows
attach_items = _twin.attach_items
add_templates = _twin.add_templates
parse_cell = _twin.parse_cell
plain_json = _twin.plain_json
text_marks = _twin.text_marks
crlf_only = _twin.crlf_only
scan_style = _twin.scan_style
shared_keys = _twin.shared_keys
split_column = _twin.split_column
crlf_cells = _twin.crlf_cells
drop_crlf = _twin.drop_crlf
template_matches = _twin.template_matches
column_at = _twin.column_at
sparse_column = _twin.sparse_column
source_texts = _twin.source_texts
unescape = _twin.unescape
find_text = _twin.find_text
break_cells = _twin.break_cells
style_marks = _twin.style_marks
keys_differ = _twin.keys_differ
cl100k_count = _twin.cl100k_count
wide_runs = _twin.wide_runs
literal_scan = _twin.literal_scan
row_line_starts = _twin.row_line_starts


@contextlib.contextmanager
def use_twin(name: str) -> Iterator[None]:
    """Run every gcxwire module on the ``"c"`` (Cython) or ``"py"`` (pure) leaves for a while.

    Tests and benchmarks measure both twins in one process with it: each loaded
    module that imported a leaf from here gets the chosen twin's leaf, so a
    module split out later is swapped too.
    """
    if name not in ("c", "py"):
        raise ValueError(f"Unknown twin {name!r}: use 'c' or 'py'")
    if name == "c" and not USE_EXTENSIONS:
        raise RuntimeError("The Cython extension is not built")
    from . import _speedups_py

    source: ModuleType = _twin if name == "c" else _speedups_py
    here = sys.modules[__name__]
    current = {leaf: getattr(here, leaf) for leaf in _speedups_py.__all__}
    saved = []
    for module in _leaf_users():
        for leaf, fn in current.items():
            if getattr(module, leaf, None) is fn:
                saved.append((module, leaf, fn))
                setattr(module, leaf, getattr(source, leaf))
    try:
        yield
    finally:
        for module, leaf, fn in saved:
            setattr(module, leaf, fn)


def _leaf_users() -> list[ModuleType]:
    """The loaded gcxwire modules that may call leaves (not the twins nor this module)."""
    skip = {__name__, f"{__package__}._speedups_py", f"{__package__}._speedups"}
    return [
        m
        for n, m in list(sys.modules.items())
        if (n == __package__ or n.startswith(f"{__package__}.")) and n not in skip and m is not None
    ]


__all__ = [
    "NO_EXTENSIONS",
    "USE_EXTENSIONS",
    "use_twin",
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
]
