"""style_marks, the cell-style passes' one look at the written rows, on both twins."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gcxwire import _speedups_py

from .gcx_checks import leaves

# Written rows with guards, doubled backslashes, CR LFs and raw CRs, long enough
# that the extension's 64-byte blocks split them, in each string width.
_ROWS = st.lists(
    st.sampled_from(["\\n", "\\t", "\\\\", "\\", "n", "e", "l", "7", "-", "\t", "\n", "\r",
                     "\r\\n", "tru\\e", "fals\\e", "nul\\l", "\\5", "\\-", "tru", "nul",
                     "\xe9", "\u0416", "\U0001f525", "x" * 15, "y" * 63]),
    max_size=80,
).map("".join)  # fmt: skip


def _lines(text: str, header: bool, floor: int) -> list[tuple[int, int, int]] | None:
    # The row lines with `floor` `\\n` escapes or more, as (row, start, end).
    if floor < 1:
        return None
    out, at = [], 0
    for i, line in enumerate(text.split("\n")):
        if (i or not header) and line.count("\\n") >= floor:
            out.append((i - header, at, at + len(line)))
        at += len(line) + 1
    return out


@settings(max_examples=120, deadline=None)
@given(_ROWS, st.booleans(), st.integers(0, 3))
def test_style_marks_are_text_marks_crlf_cells_and_lines(
    twin: str, text: str, header: bool, floor: int
) -> None:
    # Against the pure twin's two scans, which the one pass replaced, and the lines
    # break_cells would read first.
    want = (*_speedups_py.text_marks(text), _speedups_py.crlf_cells(text, header))
    assert leaves(twin).style_marks(text, header, floor) == (*want, _lines(text, header, floor))
    got = leaves(twin).style_marks(text, header, max(floor, 1))[4]
    cells = leaves(twin).break_cells(text, header, max(floor, 1), got)
    assert cells == leaves(twin).break_cells(text, header, max(floor, 1))


def test_style_marks_finds_each_mark(twin: str) -> None:
    head = "GCX1 \r\\n\\\\\n"  # the header's marks count; its CR is no row cell's
    rows = "a\t\\7\tb\r\\nc\n" + "z" * 70 + "\t\tx\ry\n"
    assert leaves(twin).style_marks(head + rows, True, 0) == (True, True, True, {2}, None)
    assert leaves(twin).style_marks(rows, False, 0) == (False, True, True, {2}, None)
    assert leaves(twin).style_marks(rows, False, 1) == (False, True, True, {2}, [(0, 0, 10)])
    assert leaves(twin).style_marks(head + rows, True, 1)[4] == [(0, 11, 21)]  # not the header
    marks = leaves(twin).style_marks("a\\\\7\tnul\\l", False, 1)
    assert marks == (True, True, False, set(), [])
    assert leaves(twin).style_marks("GCX1 \r", True, 1) == (False, False, False, set(), [])
    # The second backslash of a pair starts a `\\n` too, as str.count finds it.
    assert leaves(twin).style_marks("\r\\\\n\t\\n", False, 2)[4] == [(0, 0, 7)]
