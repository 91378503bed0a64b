"""tokens.count on cl100k text that is not all ASCII: only the text around the
other characters goes to tiktoken, and the count stays tiktoken's."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gcxwire import tokens

_ASCII = [
    '{"k":',
    '"',
    ",",
    "\t",
    "\n",
    "\r\n",
    " ",
    "  ",
    "'s",
    "don",
    "Foo",
    "1234",
    ".",
    "/",
    "\\n",
]
_OTHER = ["é", "日本", "\u0301", "\u00a0", "🙂", "’", "\u2028", "Zoë", " café", "é\n"]
# Mostly ASCII, so the runs of other characters are sometimes sparse enough to be split out.
_TEXT = st.lists(
    st.one_of(st.sampled_from(_ASCII), st.sampled_from(_ASCII), st.sampled_from(_OTHER)),
    max_size=400,
).map("".join)


def _tiktoken(text: str) -> int:
    return len(tokens.encoding().encode_ordinary(text))


@settings(max_examples=300, deadline=None)
@given(_TEXT)
@example("Zo\u00eb" + "a," * 300 + "\u00e9")
@example("x\n\u00e9" + "word." * 100)
@example("a," * 255 + "\u65e5\u672c\u8a9e" + "b." * 300)  # a run across a block's end
def test_mixed_text_counts_as_tiktoken_does(text: str) -> None:
    assert tokens.count(text) == _tiktoken(text)


@settings(max_examples=300, deadline=None)
@given(_TEXT, st.integers(min_value=0))
def test_the_cut_before_a_place_is_the_last_one(text: str, at: int) -> None:
    """_cut_before gives a cut, and no cut lies between it and ``pos``: one place
    too early or too late, and this fails."""
    pos = at % (len(text) + 1)
    found = tokens._cut_before(text, pos, 0)
    assert 0 <= found <= pos
    assert tokens._is_cut(text, found)
    assert not any(tokens._is_cut(text, q) for q in range(found + 1, pos))


def test_sparse_other_characters_leave_the_ascii_to_the_pieces(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each piece tiktoken is handed holds a character that is not ASCII, and
    together they are a small part of the text; dense ones go to tiktoken whole."""
    row = '{"name":"widget","note":"ok, shipped on time","id":12345}\n'
    sparse = (row * 20 + '{"name":"caf\u00e9"}\n') * 10
    dense = "\u00e9a," * 500
    short = "ab," * 80 + "\u00e9"
    expected = {text: _tiktoken(text) for text in (sparse, dense, short)}
    loaded = tokens.encoding()
    handed: list[str] = []
    real = type(loaded).encode_ordinary

    def spy(self: object, text: str) -> list[int]:
        handed.append(text)
        return real(loaded, text)

    monkeypatch.setattr(type(loaded), "encode_ordinary", spy)
    assert tokens.count(sparse) == expected[sparse]
    assert handed and all(not piece.isascii() for piece in handed)
    assert sum(map(len, handed)) * 20 < len(sparse)
    handed.clear()
    assert tokens.count(dense) == expected[dense]
    assert sum(map(len, handed)) > len(dense) - 2 * tokens._SPARSE
    handed.clear()
    assert tokens.count(short) == expected[short]
    assert handed == [short]
