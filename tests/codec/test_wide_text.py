"""Tables of 2- and 4-byte text: the extension writes what the pure twin writes.

The extension writes a table at the width of the widest string met so far
(1, 2 or 4 bytes a character) and widens what it wrote when a wider string
comes; these tests hold it to the pure twin's text, down to the result's
internal kind (CPython compares two strs of different kinds as unequal).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gcxwire import _speedups_py

from .test_speedups_parity import need_ext

try:
    from gcxwire import _speedups
except ImportError:  # pragma: no cover - CI requires the extension
    _speedups = None  # type: ignore[assignment]

FIELDS = ["a", "b", "c"]
PATHS = [("a",), ("b",), ("c",)]

# One character of each width beside the ones cells escape or guard; lone
# surrogates (the encoder writes them as they are) and an astral character.
WIDE_CHARS = 'ab1-.e \\\t\n\r"[{#GCX\xe9\u0416\u4e2d\ud800\udc00\U0001f525'
WIDE_TEXT = st.text(alphabet=st.sampled_from(WIDE_CHARS), max_size=24)
VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**20), 10**20), WIDE_TEXT,
    st.sampled_from([1.0, 2.0, 3.0, -0.0, 2.5, 1e16]),  # integral floats: float= patches
    st.lists(st.one_of(WIDE_TEXT, st.integers(0, 9)), max_size=3),
    st.dictionaries(WIDE_TEXT, WIDE_TEXT, max_size=2),
)  # fmt: skip
HEADS = st.sampled_from([None, "GCX1 t", "h\xe9", "h\u0416", "h\U0001f525"])


def both(*args: Any) -> Any:
    """The two twins' encode_table of the same arguments, held equal; the result."""
    ext = _speedups.encode_table(*args)
    assert ext == _speedups_py.encode_table(*args)
    if ext is not None:  # and at the narrowest kind, as a str built char by char is
        assert ext[0] == "".join(list(ext[0]))
    return ext


TABLES = st.lists(st.dictionaries(st.sampled_from(FIELDS), VALUES), min_size=1, max_size=20)
CUTS = st.sampled_from([None, [0, 0, 0], [1, 0, 2]])


@need_ext
@settings(max_examples=12)
@given(TABLES, HEADS, CUTS)
def test_mixed_kind_tables_agree(rows: list[dict[str, Any]], head: str | None, cuts: Any) -> None:
    both(rows, FIELDS, PATHS, head, "\n", None, cuts)


@pytest.mark.slow
@need_ext
@settings(max_examples=1500)
@given(TABLES, HEADS, CUTS)
def test_mixed_kind_tables_agree_long(
    rows: list[dict[str, Any]], head: str | None, cuts: Any
) -> None:
    both(rows, FIELDS, PATHS, head, "\n", None, cuts)


@need_ext
@pytest.mark.parametrize("special", ["\\", "\t", "\n", "\u4e2d", "\U0001f525"])
@pytest.mark.parametrize("wide", ["a", "\xe9", "\u0416", "\U0001f525"])
def test_escapes_next_to_wide_characters_at_every_position(special: str, wide: str) -> None:
    # The extension tests and widens 8 or 16 characters at a time: every
    # length and position around that, in buffers of each width.
    for n in range(1, 36):
        for at in range(n):
            chars = list(wide * n)
            chars[at] = special
            text = "".join(chars)
            for first in ("x", "\u0416", "\U0001f525"):  # the buffer's width before it
                rows = [{"a": first, "b": 1}, {"a": text, "b": [text]}]
                both(rows, ["a", "b"], [("a",), ("b",)], None, "", None)


@need_ext
@pytest.mark.parametrize(
    "cell",
    [
        '"\u4e2d',
        "[\u4e2d",
        "{\u4e2d",
        "#\u4e2d",
        "GCX1\u4e2d",
        "\u4e2d\r",
        "\U0001f525\r",
        "\ud800",
        "\udc00\ud800",
        "\ud83d\ude00",
        "\u4e2d\\",
        "\\\u4e2d",
    ],
)
def test_guarded_wide_cells(cell: str) -> None:
    # first and last cells (a `#`/GCX1 first cell, a raw CR at a line's end)
    for row in ({"a": cell}, {"a": cell, "b": 1}, {"a": 1, "b": cell}):
        both([{"a": "x"}, row, {"a": "\xe9"}], ["a", "b"], [("a",), ("b",)], "h", "\n", None)


@need_ext
def test_prefix_cut_leaves_narrower_text() -> None:
    # A wide prefix cut from a cell leaves ASCII that reads as a number or literal.
    rows = [{"a": "\u4e2d\u4e2d" + rest} for rest in ["123", "true", "-1.5", "x", "\u0416"]]
    text, _, _ = both(rows, ["a"], [("a",)], None, "", None, [2])
    assert text.split("\n")[:4] == ["\\123", "tru\\e", "\\-1.5", "x"]


@need_ext
def test_style_patches_and_rewrites_a_wide_table() -> None:
    # float= guessed wrong on the first 16 rows (patched), then empty=null (rewritten).
    rows: list[dict[str, Any]] = [{"a": "\U0001f525", "b": 1} for _ in range(16)]
    rows += [{"a": "\u4e2d", "b": 2.0} for _ in range(20)]
    assert both(rows, ["a", "b"], [("a",), ("b",)], "h", "\n", None)[2] == frozenset()
    rows = [{"a": "\u4e2d", "b": float(i)} for i in range(20)]
    assert both(rows, ["a", "b"], [("a",), ("b",)], "h", "\n", None)[2] == frozenset("b")
    rows = [{"a": "\u0416", "b": 1}] * 16 + [{"a": "\U0001f525", "b": None}] * 10
    assert both(rows, ["a", "b"], [("a",), ("b",)], None, "", None)[1] is True


@need_ext
@pytest.mark.parametrize("first", ["x", "\u0416", "\U0001f525"])
def test_json_cells_in_buffers_of_each_width(first: str) -> None:
    # Every Latin-1 character (controls, quote, backslash), wide text and lone
    # surrogates in JSON cells written after a cell of each width.
    latin1 = "".join(map(chr, range(256)))
    for text in (latin1, "\u4e2d\u0416", "\U0001f525\u4e2d", "a\ud800", "\udc00", "\u2028"):
        value = [text, {text: [text, -1, None]}, 2**63 - 1, True]
        rows = [{"a": first, "b": value}, {"a": 1, "b": {"k": value}}]
        both(rows, ["a", "b"], [("a",), ("b",)], "h", "\n", None)
