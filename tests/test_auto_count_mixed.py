"""tokens.count on cl100k text that is not all ASCII: only the text around the
other characters goes to tiktoken, and the count stays tiktoken's."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gcxwire import _auto, _speedups_py, tokens

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
    assert len(handed) == 1


class _CountingRuns:
    """The pure twin's _NOT_ASCII, counting the runs its searches hand out."""

    def __init__(self) -> None:
        self.pattern = _speedups_py._NOT_ASCII
        self.handed = 0

    def finditer(self, text: str, start: int, end: int) -> Iterator[re.Match[str]]:
        for found in self.pattern.finditer(text, start, end):
            self.handed += 1
            yield found


@settings(max_examples=200, deadline=None)
@given(_TEXT, st.booleans())
def test_counted_by_pieces_is_its_definition(text: str, sized: bool) -> None:
    """Runs of other characters at most one in _SPARSE characters, whether the
    UTF-8 size is given or not."""
    runs = sum(1 for _ in tokens._not_ascii_runs(text))
    size = len(text.encode("utf-8", "surrogatepass")) if sized else None
    assert tokens.counted_by_pieces(text, size) == (runs * tokens._SPARSE <= len(text))


def test_dense_text_is_judged_from_a_few_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Dense runs are found out from the first run too many, not by a search of
    the whole text; text whose UTF-8 size leaves room for few runs is not searched."""
    spy = _CountingRuns()
    monkeypatch.setattr(_speedups_py, "_NOT_ASCII", spy)
    dense = "\u65e5a," * 20_000
    most = len(dense) // tokens._SPARSE
    assert _speedups_py.wide_runs(dense, most) == most + 1
    assert spy.handed == most + 1
    assert not tokens.counted_by_pieces(dense)
    sparse = ("word, " * 100 + "\u00e9") * 50
    monkeypatch.setattr(tokens, "wide_runs", _refuse)
    assert tokens.counted_by_pieces(sparse, len(sparse.encode()))


def test_dense_text_goes_to_tiktoken_without_splitting(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pure twin hands dense text to tiktoken without looking for cuts."""
    dense = "\u041f\u0440\u0438\u0432\u0435\u0442 \u043c\u0438\u0440, " * 200
    expected = _tiktoken(dense)
    monkeypatch.setattr(_speedups_py, "_count_mixed", _refuse)
    loaded = tokens.encoding()
    bpe = tokens._piece_tokens(loaded)
    assert bpe is not None
    assert _speedups_py.cl100k_count(dense, bpe, loaded.encode_ordinary) == expected


def _refuse(*args: object) -> int:
    raise AssertionError("dense text was split")


class _Sampled(Exception):
    pass


def test_a_long_value_is_sampled_without_a_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """JSON longer than _COUNT_WHOLE is sampled whatever its characters: auto
    goes to its sample without searching the text for runs past ASCII."""
    rows = [
        {"id": i, "title": "\u6570\u636e\u5e93" * (i % 5 + 1), "n": f"\u0421 {i}"}
        for i in range(3000)
    ]
    asked: list[str] = []
    real = tokens.counted_by_pieces

    def spy(text: str, /, size: int | None = None) -> bool:
        asked.append(text)
        return real(text, size) if size is not None else real(text)

    def sample(*args: object, **kwargs: object) -> bool:
        raise _Sampled

    monkeypatch.setattr(tokens, "counted_by_pieces", spy)
    monkeypatch.setattr(_auto._Auto, "estimate", sample)
    choice = _auto._Auto(rows, "read_logs")
    assert len(choice.texts["json"] or "") > _auto._COUNT_WHOLE
    with pytest.raises(_Sampled):
        choice.choose()
    assert asked == []
