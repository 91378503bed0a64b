"""DCP rows of wide text written from the str values (``dcp_text``) are orjson's text.

The leaf writes each row as orjson would, a line each, straight from the values; it
answers None where orjson's text is the faster start (a first row with no str past
U+00FF) and wherever orjson refuses a value, so ``dcp.encode`` then goes on as before.
The leaf is called as ``_dcp_encode`` calls it: on the twin the codec conftest swaps in.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gcxwire import _dcp_encode, _speedups_py, dcp
from gcxwire._dcp_encode import Dialect

from ..strategies import json_values

try:
    from gcxwire import _speedups
except ImportError:  # pragma: no cover - CI requires the extension
    _speedups = None  # type: ignore[assignment]

_NEED_EXT = [
    pytest.mark.compares_twins,
    pytest.mark.skipif(_speedups is None, reason="extension not built"),
]


def _leaf(rows: list[Any], head: str) -> str | None:
    """dcp_text as _dcp_encode calls it: the twin the conftest swapped in."""
    text: str | None = vars(_dcp_encode)["dcp_text"](rows, head)
    return text


def _orjson_lines(rows: list[Any], head: str) -> str:
    return "\n".join([head, *(orjson.dumps(row).decode() for row in rows)])


def _outcome(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except Exception as exc:  # noqa: BLE001 - both twins must fail alike
        return type(exc), str(exc)


# Characters of every kind and every escape: controls, quote, backslash, DEL,
# Latin-1, the edges of the 2-byte kind and of the surrogates, astral ones.
_CHARS = st.sampled_from(
    [chr(c) for c in range(0x20)]
    + ['"', "\\", "/", "\x7f", "a", "\xe9", "\xff", "\u0100", "\u5c5c", "\u2222", "\u2028"]
    + ["\ud7ff", "\ue000", "\uffff", "\U00010000", "\U0001f680", "\U0010ffff", "\ud800", "\udfff"]
)
_WIDE_TEXT = st.lists(_CHARS, max_size=40).map("".join)
_CELLS = st.one_of(
    _WIDE_TEXT,
    json_values(4),
    st.integers(-(2**64), 2**65),
    st.floats(),
    st.sampled_from([(1, "\u4e00"), "],[", ["],["]]),
)
_ROWS = st.lists(st.lists(_CELLS, max_size=5), min_size=1, max_size=5)
_HEADS = st.sampled_from(["H", '["$S","data:v1","a"]', "\xe9", "\u4e00", "\U0001f600"])


def _need_ext(test: Any) -> Any:
    """A test that calls both twins itself: once, and only with the extension."""
    for mark in _NEED_EXT:
        test = mark(test)
    return test


@_need_ext
@settings(max_examples=120)
@given(_ROWS, _HEADS, st.booleans())
def test_dcp_text_agrees(rows: list[Any], head: str, wide_first: bool) -> None:
    if wide_first:
        rows[0].insert(0, "\u4e00")  # the leaf writes only tables whose first row is wide
    got = _outcome(_speedups.dcp_text, rows, head)
    assert got == _outcome(_speedups_py.dcp_text, rows, head)
    if isinstance(got, str):
        assert got == _orjson_lines(rows, head)


@pytest.mark.parametrize(
    "rows",
    [
        [["\u4e00" + "".join(chr(c) for c in range(0x20)) + '"\\\x7f']],  # every escape
        [["\u4e00"], ["\xe9"], ["a"], ["\U0001f680"]],  # kinds 2, 1 (Latin-1), 1, 4
        [["\u4e00" * 40 + "\n" + "x" * 33], ["\U0001f680" * 9 + "\x00" + "\u4e00" * 9]],
        [["\u4e00", None, True, False, 0, -(2**63), 2**63 - 1, 2**64 - 1, 1.5e-7, -0.0]],
        [["\u4e00", [{"k": "\xe9\u4e00\U0001f680\n"}], {"a": [1, "],["]}, (1, 2), []]],
        [["\u4e00"], []],
    ],
)
def test_dcp_text_writes_orjson_text(rows: list[Any]) -> None:
    for head in ("H", "\xe9", "\U0001f600"):
        assert _leaf(rows, head) == _orjson_lines(rows, head)


def _nest(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    "rows",
    [
        [],
        [["a", "\xe9"]],  # no str past U+00FF in the first row
        [["a"], ["\u4e00"]],
        [["\u4e00", "\ud800"]],  # a lone surrogate
        [["\u4e00"], ["\udfff\u4e00"]],
        [["\u4e00", 2**64]],  # past orjson's ints
        [["\u4e00", object()]],
        [["\u4e00"], ("x",)],  # a row that is no list
        [["\u4e00", _nest(253)]],  # as deep as orjson goes in the whole table
    ],
)
def test_dcp_text_declines(rows: list[Any]) -> None:
    assert _leaf(rows, "H") is None


def test_dcp_text_takes_what_orjson_takes_in_the_table() -> None:
    rows = [["\u4e00", _nest(252)]]
    assert _leaf(rows, "H") == _orjson_lines(rows, "H")


_WIDE_RECORDS = [
    [{"id": i, "title": "\u6570\u636e" * i, "tag": "\U0001f680 x", "n": None} for i in range(6)],
    [{"a": "\u4e00", "b": 1.25}, {"a": "\xe9", "c": [1, "\u4e00"]}, {"b": '\\"\n'}],
    [{"user": {"login": "\u041e\u043a", "id": 1}, "body": "\r\n\u2028"}] * 3,
    {"total": 2, "items": [{"k": "\u4e00\t"}, {"k": "\U0001f680"}]},
    [{"a": "\u4e00"}, {"a": "\ud800"}],  # orjson refuses: the general path writes it
    [{"a": "\u4e00", "b": 2**70}],
]


@pytest.mark.parametrize("records", _WIDE_RECORDS)
@pytest.mark.parametrize("dialect", ["gateway", "v0.3"])
def test_encode_of_wide_text_is_unchanged(
    records: Any, dialect: Dialect, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = dcp.encode(records, dialect=dialect)
    monkeypatch.setattr(_dcp_encode, "dcp_text", lambda rows, head: None)
    assert text == dcp.encode(records, dialect=dialect)
    assert dcp.decode(text) == dcp.decode(dcp.encode(records, dialect=dialect))
