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


@settings(max_examples=120, deadline=None)
@given(_ROWS, st.booleans())
def test_style_marks_are_text_marks_and_crlf_cells(twin: str, text: str, header: bool) -> None:
    # Against the pure twin's two scans, which the one pass replaced.
    want = (*_speedups_py.text_marks(text), _speedups_py.crlf_cells(text, header))
    assert leaves(twin).style_marks(text, header) == want


def test_style_marks_finds_each_mark(twin: str) -> None:
    head = "GCX1 \r\\n\\\\\n"  # the header's marks count; its CR is no row cell's
    rows = "a\t\\7\tb\r\\nc\n" + "z" * 70 + "\t\tx\ry\n"
    assert leaves(twin).style_marks(head + rows, True) == (True, True, True, {2})
    assert leaves(twin).style_marks(rows, False) == (False, True, True, {2})
    assert leaves(twin).style_marks("a\\\\7\tnul\\l", False) == (True, True, False, set())
    assert leaves(twin).style_marks("GCX1 \r", True) == (False, False, False, set())
