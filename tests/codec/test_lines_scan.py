"""break_lines, move_texts' one look at a text: both twins agree with the scan it replaced."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gcxwire import _impl, _speedups_py

from .test_speedups_parity import need_ext

try:
    from gcxwire import _speedups
except ImportError:  # pragma: no cover - CI requires the extension
    _speedups = None  # type: ignore[assignment]

# Row texts made of the characters that matter: escapes, LFs, 1-, 2- and 4-byte
# characters, and wide ones that hold a LF, backslash or `n` byte (not the mark:
# the wide scan's memchr finds them and must skip them).
_PIECES = ["\\", "n", "\n", "\\n", "\\\\n", "a", "\t", "é", "😀",
           "\u0416", "\u5c0a", "\u0a5c", "\u6e5c", "\U0005c00a"]  # fmt: skip
_TEXT = st.lists(st.sampled_from(_PIECES), max_size=30).map("".join)


def _replaced(text: str, start: int, least: int) -> list[int]:
    # The per-line filter move_texts ran before the leaf.
    lines = text.split("\n")
    return [
        i
        for i in range(max(start, 0), len(lines))
        if lines[i].count("\\") >= least and lines[i].count("\\n") >= least
    ]


@need_ext
@settings(max_examples=100, deadline=None)
@given(_TEXT, st.integers(-1, 3), st.integers(0, 3))
def test_break_lines_agrees(text: str, start: int, least: int) -> None:
    expected = _replaced(text, start, least)
    assert _speedups.break_lines(text, start, least) == expected
    assert _speedups_py.break_lines(text, start, least) == expected


def test_break_lines_finds_the_lines_with_enough_breaks(twin: str) -> None:
    text = "GCX1 head\\n\\n\nrow\\nx\\ny\n\\\\n\\n\nplain\n" + "é\\n" * 3
    assert _impl.break_lines(text, 1, 2) == [1, 2, 4]
    assert _impl.break_lines(text, 0, 2) == [0, 1, 2, 4]
    assert _impl.break_lines(text, 1, 3) == [4]
    assert _impl.break_lines("no escape\nat all", 0, 1) == []
    assert _impl.break_lines("a\nb", 0, 0) == [0, 1]
