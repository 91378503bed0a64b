"""cl100k_count, the exact cl100k counter of ASCII text, is tiktoken's count.

Both twins split the text into cl100k's pre-split pieces themselves (the
extension by a scanner of the pattern, the pure twin by a regex of it) and
remember each piece's count; either is held to len(encode_ordinary(text)).
"""

from __future__ import annotations

import json
from collections.abc import Sized
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gcxwire import _auto, tokens

from .gcx_checks import leaves

_REAL = Path(__file__).resolve().parents[2] / "bench" / "cases" / "real"


def _tiktoken(text: str) -> int:
    return len(tokens.encoding().encode_ordinary(text))


def _bpe() -> object:
    found = tokens._piece_tokens(tokens.encoding())
    assert found is not None, "the installed cl100k no longer splits as cl100k_count does"
    return found


# What the pattern's alternatives turn on: runs of spaces, tabs and newlines
# (\s+(?!\S) leaves a run's last space to the next piece, \s*[\r\n] ends at its
# last newline, \s++$ takes a run at the text's end), digit runs longer than 3,
# contractions in any case and their look-alikes, punctuation runs and their
# trailing newlines, letters after a space or a mark, and the ASCII controls
# (\x0b and \x0c are spaces to tiktoken, \x1c-\x1f are not).
_FRAGMENTS = [
    " ", "  ", "    ", "\t", "\t\t", "\n", "\n\n", "\r", "\r\n", " \n", "  \n  ", "\t \r\n ",
    "\x0b", "\x0c", "\x1c", "\x1f", "\x00", "\x7f", "1", "12", "1234", "1234567", "0.5",
    "'", "''", "'s", "'S", "'t", "'T", "'re", "'RE", "'rE", "'ve", "'VE", "'m", "'M", "'ll",
    "'LL", "'lL", "'d", "'D", "'x", "'l", "'r", "'v", "don", "X", "abc", "Foo", "URL", "_",
    ".", "..", "...", "!?", '"', '","', '":', "{", "}", "[", "]", "/", "\\", "#", "$", "-",
    "=>", "::", "*/", "\\n",
]  # fmt: skip
_ADVERSARIAL = st.lists(st.sampled_from(_FRAGMENTS), max_size=40).map("".join)
_ASCII = st.text(st.characters(max_codepoint=127), max_size=120)


@settings(max_examples=400, deadline=None)
@given(st.one_of(_ADVERSARIAL, _ASCII))
@example("x  \n\n  y'LLo 12345 \t\x1c\x1f!!\r\n ")
@example("a  \n")  # spaces before a newline: \s*[\r\n] takes them with it
@example("a \t b")  # a run before a letter leaves its last character to it
@example("a  ")  # a run at the end: \s++$
@example(" !!\n\nx")  # a space, punctuation and its newlines: one piece
def test_counts_as_tiktoken_does(twin: str, text: str) -> None:
    assert leaves(twin).cl100k_count(text, _bpe()) == _tiktoken(text)


def test_counts_real_responses_as_tiktoken_does(twin: str) -> None:
    """Every candidate text auto writes for the recorded real responses."""
    count = leaves(twin).cl100k_count
    checked = 0
    for path in sorted(_REAL.glob("*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        choice = _auto._Auto(case["input"], case["tool"])
        for name in ("json", "gcx", "dcp"):
            text = choice.texts["json"] if name == "json" else choice.text(name)
            if text is None:
                continue
            found = count(text, _bpe())
            if text.isascii():
                assert found == _tiktoken(text), (path.name, name)
                checked += 1
            else:
                assert found is None
    assert checked > 100


def test_non_ascii_text_is_left_to_tiktoken(twin: str) -> None:
    count = leaves(twin).cl100k_count
    assert count("caf\u00e9", _bpe()) is None
    assert count("\x80", _bpe()) is None
    assert count("", _bpe()) == 0


def test_refuses_what_is_not_text(twin: str) -> None:
    with pytest.raises(TypeError, match=r"expected str, got bytes"):
        leaves(twin).cl100k_count(b"abc", _bpe())


class _Fixed:
    """A piece counter that says every piece is ``tokens`` tokens."""

    def __init__(self, tokens: int) -> None:
        self.tokens = tokens
        self.asked = 0

    def __call__(self, piece: bytes) -> Sized:
        self.asked += 1
        return [0] * self.tokens


def test_counts_are_remembered_for_their_counter_only(twin: str) -> None:
    count = leaves(twin).cl100k_count
    one, two = _Fixed(1), _Fixed(2)
    text = "alpha beta alpha beta"  # pieces: alpha, " beta", " alpha", " beta"
    assert count(text, one) == 4
    assert one.asked == 3  # " beta" is counted once
    assert count(text, one) == 4 and one.asked == 3
    assert count(text, two) == 8  # another counter's counts are not the first one's
    assert count(text, one) == 4


def _letters(n: int) -> str:
    word = ""
    while True:
        n, digit = divmod(n, 26)
        word += chr(97 + digit)
        if not n:
            return word


def test_memory_is_bounded_and_counts_stay_exact(twin: str) -> None:
    """More distinct pieces than the memo holds: it is emptied, never wrong."""
    count = leaves(twin).cl100k_count
    fixed = _Fixed(3)
    words = " ".join(map(_letters, range(40_000)))  # 40,000 distinct pieces
    assert count(words, fixed) == 3 * 40_000
    assert count(words, fixed) == 3 * 40_000
    if twin == "py":
        assert len(leaves(twin)._memo) <= leaves(twin)._MEMO_MOST
    long_piece = "x" * 1000  # longer than any remembered piece: counted each time
    asked = fixed.asked
    assert count(long_piece + " " + long_piece, fixed) == 6
    assert fixed.asked == asked + 2
    assert count("memo", _bpe()) == _tiktoken("memo")
