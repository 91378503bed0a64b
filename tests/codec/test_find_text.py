"""find_text, the substring search of the quoted=json and cell-style passes, is str.find."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gcxwire import gcx

from .gcx_checks import leaves

# Pieces of JSON text and of the needles the passes look for, in each string
# width (1-byte ASCII and Latin-1, 2-byte, 4-byte), long enough to pass the
# 16-, 8- or 4-character blocks the extension tests at a time, and wide
# characters holding a quote's or brace's byte (U+2222, U+2227D): not one.
_PIECES = st.sampled_from(
    ['"', '""', '":{}', '","', "\t", '\t["', "\\", "\\\\r", "\n", "GCX1", "x", "{}", ":", ",",
     "a" * 17, '"' * 15, "\xe9", "\u0100", "\U0001f600", "\u4e2d" * 9, "\u2222",
     "\U0002227d"]
)  # fmt: skip
_TEXTS = st.lists(_PIECES, max_size=30).map("".join)
_NEEDLES = st.sampled_from(['""', '":{}', '","', '\t["', '\\\\r"\n', "\nGCX1", " form=lines",
                            '"', "", "a" * 17, "\xe9\"", "\u0100\"",
                            "\U0001f600\"", "\u4e2d\u4e2d"])  # fmt: skip
_BOUNDS = st.integers(-40, 400)


@settings(max_examples=150, deadline=None)
@given(_TEXTS, _NEEDLES, _BOUNDS, _BOUNDS)
def test_find_text_is_str_find(twin: str, text: str, needle: str, start: int, end: int) -> None:
    assert leaves(twin).find_text(text, needle, start, end) == text.find(needle, start, end)


def test_find_text_finds_the_first_of_many_candidates(twin: str) -> None:
    # Every position of each 16-character block is a candidate for the first and
    # last character; only one is the whole needle, and it is in the last block.
    text = '":{' * 40 + '":{}' + '":{}'
    find = leaves(twin).find_text
    assert find(text, '":{}', 0, len(text)) == 120
    assert find(text, '":{}', 121, len(text)) == 124
    assert find(text, '":{}', 0, 123) == -1
    assert find(text, '":{}', 0, 2**70) == 120  # a bound past Py_ssize_t clamps as str.find's


def test_empty_string_in_a_big_json_cell_marks_the_record(twin: str) -> None:
    # A one-row record whose long JSON cell holds "": its `""` are inside JSON
    # (no mark); an empty-string member after it is a cell `""` (quoted=json).
    body = [["", i] for i in range(30)]
    inside = gcx.encode({"a": 1, "body": body}, tool="t")
    assert inside.startswith("GCX1 tool=t fields=a,body is=object\n")
    after = gcx.encode({"body": body, "z": ""}, tool="t")
    assert after.split("\n", 1)[0].endswith("quoted=json")
    assert gcx.decode(after) == {"body": body, "z": ""}


def test_find_text_compares_whole_wide_characters(twin: str) -> None:
    # U+2222 holds two quote bytes, U+2227D a quote and a brace byte; at every
    # place in a block of 2-byte (then 4-byte) text, neither is a quote or a brace.
    find = leaves(twin).find_text
    for filler, decoy in (("\u4e2d", '\u2222"\u2222:{}'), ("\U0001f600", '\u2222"\U0002227d:{}')):
        for k in range(12):
            text = filler * k + decoy + filler * 9 + '"":{}'
            for needle in ('""', '":{}', '"\u2222'):
                assert find(text, needle, 0, len(text)) == text.find(needle), (filler, k, needle)
