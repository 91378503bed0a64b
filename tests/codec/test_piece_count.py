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

from gcxwire import _auto, _speedups_py, tokens

from .gcx_checks import leaves

_REAL = Path(__file__).resolve().parents[2] / "bench" / "cases" / "real"


def _tiktoken(text: str) -> int:
    return len(tokens.encoding().encode_ordinary(text))


def _encode(text: str) -> Sized:
    return tokens.encoding().encode_ordinary(text)


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
    checked = mixed = 0
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
                assert count(text, _bpe(), _encode) == _tiktoken(text), (path.name, name)
                mixed += 1
    assert checked > 100
    assert mixed > 10


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


# Text past ASCII among the fragments above: Latin-1 (a 1-byte str past ASCII),
# other scripts, marks, wide spaces and line separators, emoji (a 4-byte str),
# letters and digits of other scripts beside ASCII punctuation and newlines.
_OTHER = [
    "\u00e9", "caf\u00e9", "\u00a0", "\u00b2", "\u0301", "\u041f\u0440\u0438\u0432\u0435\u0442",
    "\u65e5\u672c\u8a9e", "\u0663", "\u2019", "\u2028", "\u3000", "\U0001f680", "\u26a0\ufe0f",
    "\U0001f468\u200d\U0001f469", "\ufeff", "\u00e9\n", "\n\u00e9", "x\u00e9,", "1\u00b2.",
]  # fmt: skip
_MIXED = st.lists(
    st.one_of(st.sampled_from(_FRAGMENTS), st.sampled_from(_FRAGMENTS), st.sampled_from(_OTHER)),
    max_size=120,
).map("".join)
_ANY = st.text(max_size=200)


@settings(max_examples=400, deadline=None)
@given(st.one_of(_MIXED, _ANY))
@example("a," * 300 + "\u65e5\u672c\u8a9e" + "b." * 300)
@example("\u00e9a," * 3000)  # dense: spans joined up to the span limit
@example(("word, " * 50 + "\U0001f680\n") * 40)  # sparse, a 4-byte str
@example("\u041f" * 40_000)  # one run past the span limit, no cut in it
@example("x\n\u00e9" + "word." * 100)
@example("\u00e9\n \n")  # no cut after a line feed before a space: "\n \n" is one piece
@example("a\n  \n\u00e9")
def test_counts_mixed_text_as_tiktoken_does(twin: str, text: str) -> None:
    """Given tiktoken's encode, text that is not all ASCII is counted too:
    tiktoken's count, whatever the str kind and wherever the other runs fall."""
    assert leaves(twin).cl100k_count(text, _bpe(), _encode) == _tiktoken(text)


def test_mixed_text_hands_tiktoken_only_what_is_around_other_runs(twin: str) -> None:
    """Each text handed to encode holds a character past ASCII and starts and
    ends at cuts; sparse runs leave most of the text to the pieces."""
    handed: list[str] = []

    def spy(text: str) -> Sized:
        handed.append(text)
        return _encode(text)

    row = '{"name":"widget","note":"ok, shipped on time","id":12345}\n'
    sparse = (row * 20 + '{"name":"caf\u00e9 \U0001f680"}\n') * 10
    assert leaves(twin).cl100k_count(sparse, _bpe(), spy) == _tiktoken(sparse)
    assert handed and all(not piece.isascii() for piece in handed)
    assert sum(map(len, handed)) * 20 < len(sparse)
    at = 0
    for piece in handed:
        start = sparse.index(piece, at)
        assert tokens._is_cut(sparse, start) and tokens._is_cut(sparse, start + len(piece))
        at = start + len(piece)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.one_of(_MIXED, st.sampled_from(["a" * 500, "\u00e9" * 30])), max_size=8).map(
        "".join
    ),
    st.integers(0, 40),
)
@example("a" * 511 + "\u00e9\u00e9" + "b", 5)  # a run across two blocks counts twice
@example("\u65e5" * 2000, 1)
def test_wide_runs_are_the_runs_found_a_block_at_a_time(twin: str, text: str, most: int) -> None:
    """Runs of characters past ASCII as the pure twin's block search finds them
    (auto's choice of path hangs on it, so the twins agree), counted up to most + 1."""
    runs = sum(1 for _ in _speedups_py.not_ascii_runs(text))
    assert leaves(twin).wide_runs(text, most) == min(runs, most + 1)


def _row_starts(text: str, end: int, rows: int, wanted: list[int]) -> tuple[int, list[int]]:
    """row_line_starts by its definition: line k starts after the k-th line feed."""
    feeds = [at + 1 for at, char in enumerate(text[:end]) if char == "\n"]
    lines = len(feeds) + (end == len(text))
    if lines < rows:
        return lines, []
    starts = [0, *feeds]
    return lines, [
        starts[line] if line < len(starts) else end for line in (lines - rows + i for i in wanted)
    ]


_LINES = st.lists(
    st.one_of(
        st.text(max_size=12), st.text(max_size=400), st.sampled_from(["", "\u00e9", "\U0001f680"])
    ),
    max_size=40,
).map("\n".join)


@settings(max_examples=300, deadline=None)
@given(_LINES, st.integers(-5, 20_000), st.integers(0, 45), st.sets(st.integers(0, 46)))
@example("h\na\nb\n", 4, 2, {0, 1, 2})  # a section ending in a line feed, before a child
@example("h\na\nb\n", 6, 2, {0, 1, 2})  # the text's end after a line feed: an empty last line
@example("x" * 3000 + "\n" + "y\n" * 3, 10_000, 3, {0, 1, 2, 3})  # long lines, found one by one
def test_row_line_starts_are_after_each_line_feed(
    twin: str, text: str, end: int, rows: int, wanted: set[int]
) -> None:
    lines = sorted(wanted)
    bounded = max(0, min(end, len(text)))
    expected = _row_starts(text, bounded, rows, lines)
    assert leaves(twin).row_line_starts(text, end, rows, lines) == expected
