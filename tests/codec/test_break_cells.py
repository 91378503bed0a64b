"""break_cells, the form=lines search's one pass over the written rows, on both twins."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .gcx_checks import leaves


def _old_cells(text: str, header: bool, floor: int) -> list[tuple[int, int, int, int, int]]:
    # The per-line search break_cells replaced (move_texts split the text into lines,
    # found the cells holding a `\n`, and counted each cell's breaks after a mark).
    lines = text.split("\n")
    start = 1 if header else 0
    at = len(lines[0]) + 1 if header else 0
    out = []
    for i in range(start, len(lines)):
        line = lines[i]
        if line.count("\\") >= floor and line.count("\\n") >= floor:
            pos = line.find("\\n")
            while pos >= 0:
                begin = line.rfind("\t", 0, pos) + 1
                end = line.find("\t", pos)
                end = len(line) if end < 0 else end
                cell = line[begin:end]
                pieces = cell.split("\\n")
                bound = sum(
                    1 for p in pieces[:-1] if p and (not p[-1].isalnum() or p.endswith("\\t"))
                )
                if cell.count("\\n") >= floor and bound >= floor:
                    out.append((i - start, line.count("\t", 0, begin), at + begin, at + end, bound))
                pos = line.find("\\n", end)
        at += len(line) + 1
    return out


# Written rows: escapes, marks, letters, digits, TABs, LFs, CRs, in each string width,
# and wide characters holding a TAB, LF, backslash or `n` byte (the wide scan skips them).
_ROWS = st.lists(
    st.sampled_from(["\\n", "\\t", "\\\\", "\\", "n", "t", ".", " ", "a", "7", "\t", "\n", "\r",
                     "\xe9", "\u00bd", "\u0416", "\u4e2d", "\U0001f525", "\U0001d7d9",
                     "\u5c09", "\u0a5c", "\u6e0a", "\U0005c00a"]),
    max_size=40,
).map("".join)  # fmt: skip


@settings(max_examples=80, deadline=None)
@given(_ROWS, st.booleans(), st.integers(1, 3))
def test_break_cells_is_the_search_it_replaced(
    twin: str, text: str, header: bool, floor: int
) -> None:
    found = leaves(twin).break_cells(text, header, floor)
    assert found == _old_cells(text, header, floor)
    for _row, _k, begin, end, _count in found:
        assert "\t" not in text[begin:end] and "\n" not in text[begin:end]


def test_break_cells_counts_breaks_after_marks(twin: str) -> None:
    # After `.`, a space and a `\t` escape a break counts; after a letter or digit,
    # at a cell's start or right after another break it does not.
    text = "GCX1 h\nx\ta.\\nb \\nc\\t\\n\\nd\\ne7\\n\n\\n\\n\\n\t.\\n.\\n"
    assert leaves(twin).break_cells(text, True, 1) == [(0, 1, 9, 31, 3), (1, 1, 39, 45, 2)]
    assert leaves(twin).break_cells(text, True, 3) == [(0, 1, 9, 31, 3)]
    assert leaves(twin).break_cells(text, False, 3) == [(1, 1, 9, 31, 3)]
    assert leaves(twin).break_cells("GCX1 no rows", True, 1) == []


def test_break_cells_refuses_a_floor_below_one(twin: str) -> None:
    with pytest.raises(ValueError, match="floor must be at least 1"):
        leaves(twin).break_cells("a.\\n", False, 0)


def test_break_cells_skips_wide_characters_sharing_a_mark_byte(twin: str) -> None:
    # U+5C09 holds a TAB and a backslash byte, U+0A5C a LF and a backslash byte:
    # neither ends a cell or a line, nor starts an escape. U+5C09 is a letter: the
    # escape after it does not count.
    text = "h\n\u5c09.\\n.\\n\u0a5c\t\u0a5c.\\n\u5c09\\n\n\U0005c00a\\n.\\n"
    assert leaves(twin).break_cells(text, True, 1) == _old_cells(text, True, 1)
    assert leaves(twin).break_cells(text, True, 1) == [
        (0, 0, 2, 10, 2),
        (0, 1, 11, 18, 1),
        (1, 0, 19, 25, 2),
    ]


# Long 1-byte rows: the extension reads these 64 bytes at a time, so marks fall
# on every side of a block's edge and after runs of plain text.
_LONG_ROWS = st.lists(
    st.sampled_from(["\\n", "\\t", "\\\\", "\\", "n", "t", ".", " ", "a", "7", "\t", "\n",
                     "\r", "\xe9", "\xb2", "x" * 15, "y" * 63]),
    max_size=120,
).map("".join)  # fmt: skip


@settings(max_examples=80, deadline=None)
@given(_LONG_ROWS, st.booleans(), st.integers(1, 3))
def test_break_cells_across_blocks(twin: str, text: str, header: bool, floor: int) -> None:
    assert leaves(twin).break_cells(text, header, floor) == _old_cells(text, header, floor)


def test_break_cells_reads_only_lines_with_enough_escapes(twin: str) -> None:
    # A line whose `\n` escapes, over all its cells, reach the floor is read cell by
    # cell; one that falls short holds no cell that does (1-byte and wide text alike).
    for wide in ("", "\u0416"):
        spread = f"a.\\n.\\n\t{wide}.\\n.\\n\t.\\n"  # five in the line, two at most a cell
        whole = f"x\t{wide}.\\n.\\n.\\n \\n"  # four in one cell
        text = f"h\n{spread}\n{whole}\n{spread}{whole}"
        for floor in (2, 3, 4, 5, 6):
            assert leaves(twin).break_cells(text, True, floor) == _old_cells(text, True, floor)
        assert [r[:2] for r in leaves(twin).break_cells(text, True, 4)] == [(1, 1), (2, 3)]
