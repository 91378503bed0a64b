"""The `str=` pass's quick scan for guarded cells agrees with its regex."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gcxwire._gcx_encode import _GUARDED, _has_guard

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
