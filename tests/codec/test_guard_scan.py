"""The cell-style passes' quick scans (guards, doubled backslashes, CR LF) agree."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gcxwire._gcx_cell_styles import _GUARDED, _has_guard

from .gcx_checks import leaves

# Texts of the characters that make or break a guard at a cell's start.
_TEXTS = st.lists(
    st.sampled_from(
        [
            "\t",
            "\n",
            "\\",
            "tru\\e",
            "fals\\e",
            "nul\\l",
            "1",
            "-",
            "x",
            "e",
            "l",
            "tru",
            "fals",
            "nul",
        ]
    ),
    max_size=12,
).map("".join)


@settings(max_examples=200, deadline=None)
@given(_TEXTS)
def test_has_guard_is_the_regex(text: str) -> None:
    assert _has_guard(text) == (_GUARDED.search(text) is not None)


# Text around the three markers, in each string width (1-byte, 2-byte, 4-byte).
_MARKED = st.lists(
    st.sampled_from(["\t", "\n", "\r", "\\", "\\\\", "n", "tru", "fals", "nul", "e", "l", "5", "-",
                     "x", "\xe9", "\u0100", "\U0001f600"]),
    max_size=14,
).map("".join)  # fmt: skip


@settings(max_examples=100, deadline=None)
@given(_MARKED)
def test_text_marks_are_the_three_searches(twin: str, text: str) -> None:
    doubled, guarded, crlf = leaves(twin).text_marks(text)
    assert doubled == ("\\\\" in text)
    assert guarded == (_GUARDED.search(text) is not None)
    assert crlf == ("\r\\n" in text)


@settings(max_examples=100, deadline=None)
@given(_MARKED)
def test_crlf_only_is_every_cr_before_an_lf(twin: str, text: str) -> None:
    bare = text.replace("\r\n", "")
    assert leaves(twin).crlf_only(text) == ("\r" not in bare and "\n" not in bare)
