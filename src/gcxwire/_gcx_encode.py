"""Typed GCX1 writing: how a JSON value becomes sections, headers and rows.

The entry point; the parts live beside it: `_gcx_header` (header text), `_gcx_plan` (a
table's columns), `_gcx_section` (table sections), `_gcx_record` (objects), and the searches
for marked columns, `_gcx_prefix`, `_gcx_template`, `_gcx_groups` and `_gcx_cell_styles`."""

from __future__ import annotations

from typing import Any

from ._gcx_header import _tool_text
from ._gcx_plan import _table_fields
from ._gcx_record import _write_object, _write_value
from ._gcx_section import _section, _uniform_table
from .errors import EncodeValueError

# gortex's Go decoder reads a line of at most this many UTF-8 bytes (bufio.Scanner's buffer,
# a CR before the LF counted): gcx.encode refuses to write a longer one,
# and auto leaves GCX1 out.
GO_LINE_BYTES = 4 * 1024 * 1024 - 1


# A line shorter than twice this many characters fits, whatever they are.
_TILE = GO_LINE_BYTES // 8


def lines_fit_go(text: str) -> bool:
    """Whether every line of ``text`` is short enough for the Go reference decoder."""
    if len(text) * 4 <= GO_LINE_BYTES:  # 4 bytes per character at most
        return True
    # A line of 2 * _TILE characters or more holds a whole tile [k * _TILE, (k + 1) * _TILE):
    # when each holds an LF (a memchr each, stopping at the first), every line fits. The
    # split below copied a 5.7 MB payload into its lines (3.4 ms on issues-5000).
    size = len(text)
    if all(text.find("\n", at, at + _TILE) >= 0 for at in range(0, size - _TILE + 1, _TILE)):
        return True
    return all(
        len(line) * 4 <= GO_LINE_BYTES
        or len(line.encode("utf-8", "surrogatepass")) <= GO_LINE_BYTES
        for line in text.split("\n")
    )


def go_readable(text: str) -> str:
    """``text``, when the Go reference decoder reads every line of it; else EncodeValueError."""
    if lines_fit_go(text):
        return text
    number = next(i for i, line in enumerate(text.split("\n"), 1) if not lines_fit_go(line))
    raise EncodeValueError(
        f"Line {number} of the GCX1 text is longer than the {GO_LINE_BYTES:,} UTF-8 bytes"
        " gortex's Go decoder reads (JSON carries it)"
    )


def _encode_typed(value: Any, tool: str) -> str:
    tool_text = _tool_text(tool)
    out: list[str] = []
    if isinstance(value, dict):
        _write_object(out, tool_text, value)
    elif isinstance(value, (list, tuple)):
        text = _uniform_table(value, tool_text)
        if text is not None:
            return text
        fields = _table_fields(value, "$")
        if fields is None:
            _write_value(out, tool_text, value)
        else:
            table = _section(value, fields, "$", tool_text, None, (), (tool_text, "", 0))
            assert table is not None  # only a keys check gives None
            return table[2]  # the whole payload
    else:
        _write_value(out, tool_text, value)
    # Like a JSON text, a payload ends without a newline; every decoder accepts that.
    if out and out[-1] == "\n":
        out.pop()
        return "".join(out)
    return "".join(out)[:-1]
