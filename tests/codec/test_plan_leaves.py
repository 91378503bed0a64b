"""The planning passes' per-row leaves (child sections, cell styles): both twins agree."""

from __future__ import annotations

import copy
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gcxwire import _speedups_py
from gcxwire._gcx_columns import _at
from gcxwire._values import ABSENT
from gcxwire.errors import EncodeValueError

from .gcx_checks import leaves
from .test_speedups_parity import need_ext, outcome

try:
    from gcxwire import _speedups
except ImportError:  # pragma: no cover - CI requires the extension
    _speedups = None  # type: ignore[assignment]

# Rows that hold a list column `b` (or not), items that may break the split.
_ITEM = st.one_of(
    st.dictionaries(st.sampled_from(["c", "d", "[]"]), st.sampled_from([0, "x", "a\\b\tc", None])),
    st.sampled_from([1, "s", [], {"e": float("nan")}, {"e": 2**70}, {"e": "é😀"}]),
)
_VALUE: st.SearchStrategy[Any] = st.one_of(
    st.lists(_ITEM, max_size=3), st.sampled_from([None, 0, "x", {}])
)
_ROW = st.one_of(
    st.dictionaries(st.sampled_from(["a", "b", "b[]", "z"]), _VALUE, max_size=4),
    st.sampled_from([[1], "row", None]),
)


@need_ext
@settings(max_examples=150, deadline=None)
@given(st.lists(_ROW, max_size=5))
def test_split_column_agrees(rows: list[Any]) -> None:
    results = []
    for twin in (_speedups, _speedups_py):
        mine = copy.deepcopy(rows)
        results.append((outcome(twin.split_column, mine, "b", "b[]", "[]"), repr(mine)))
    assert results[0] == results[1]


def test_split_column_moves_the_lists_out(twin: str) -> None:
    rows: list[Any] = [
        {"a": 1, "b": [{"c": 1}, {"c": "x\ty"}], "z": 0},
        {"a": 2, "b": None},
        {"a": 3},
        "not a row",
    ]
    found = leaves(twin).split_column(rows, "b", "b[]", "[]")
    assert found is not None
    out, items, size = found
    assert out == [{"a": 1, "z": 0, "b[]": 2}, {"a": 2, "b[]": None}, {"a": 3}, "not a row"]
    assert list(out[0]) == ["a", "z", "b[]"] and out[2] is rows[2]
    assert items == [{"[]": 0, "c": 1}, {"[]": 0, "c": "x\ty"}]
    assert size == len('[{"c":1},{"c":"x\\\\ty"}]')  # the JSON cell, its backslash doubled
    assert rows[0]["b"] == [{"c": 1}, {"c": "x\ty"}]  # the input is left as it was


def test_split_column_refuses_what_it_cannot_move(twin: str) -> None:
    split = leaves(twin).split_column
    assert split([{"b": [{"c": 1}]}, {"b": 3}], "b", "b[]", "[]") is None  # a scalar
    assert split([{"b": [{}]}], "b", "b[]", "[]") is None  # an empty item
    assert split([{"b": [{"[]": 1}]}], "b", "b[]", "[]") is None  # an item holding the link
    assert split([{"b": [{"c": 1}], "b[]": 0}], "b", "b[]", "[]") is None  # the mark beside it
    assert split([{"b[]": 0}], "b", "b[]", "[]") is None
    assert split([{"b": [{"c": float("nan")}]}], "b", "b[]", "[]") is None  # no JSON for it


# Written rows around raw CRs: cells that start as JSON, escaped LFs, TABs and LFs
# between cells, in each string width.
_WRITTEN = st.lists(
    st.sampled_from(["\r", "\\n", "\r\\n", "\t", "\n", "x", "[", "{", '"', "\\", "é", "\u0100",
                     "\U0001f600"]),
    max_size=16,
).map("".join)  # fmt: skip


@need_ext
@settings(max_examples=200, deadline=None)
@given(_WRITTEN, st.booleans(), st.lists(st.integers(0, 4), max_size=3))
def test_crlf_leaves_agree(text: str, header: bool, chosen: list[int]) -> None:
    for name, args in (("crlf_cells", (text, header)), ("drop_crlf", (text, header, chosen))):
        assert outcome(getattr(_speedups, name), *args) == outcome(
            getattr(_speedups_py, name), *args
        )


def test_crlf_leaves_find_and_drop_the_cells_crs(twin: str) -> None:
    mod = leaves(twin)
    text = "head\r\\n\tx\na\r\\nb\t[\r\\n]\tc\r\\nd\r\n\r\\n\te\r\\n"
    assert mod.crlf_cells(text, True) == {0, 1, 2}
    assert mod.crlf_cells(text, False) == {0, 1, 2}
    # JSON cells and the header keep their CRs; a CR before anything but `\n` stays.
    dropped = "head\r\\n\tx\na\\nb\t[\r\\n]\tc\\nd\r\n\\n\te\\n"
    assert mod.drop_crlf(text, True, [0, 1, 2]) == dropped
    assert mod.drop_crlf(text, True, [3]) == text
    assert mod.drop_crlf("no rows\r\\n", True, [0]) == "no rows\r\\n"


class _Loose(str):
    """A str subclass: equal to its text, but not an exact str."""


_CELL = st.one_of(
    st.sampled_from(["a1b", "a12b", "ab", "a1", "1b", "", "é1😀", 1, None, True]),
    st.just(_Loose("a1b")),
)


@need_ext
@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(_CELL, st.sampled_from(["1", "12", "", None, "é", _Loose("1")])), max_size=6
    ),
    st.sampled_from([("a", "b"), ("", ""), ("a", ""), ("é", "😀")]),
    st.booleans(),
)
def test_template_matches_agrees(pairs: list[Any], around: tuple[str, str], gap: bool) -> None:
    absent = object()
    values = [v for v, _ in pairs] + ([absent] if gap else [])
    texts = [t for _, t in pairs] + ([None] if gap else [])
    args = (values, texts, *around, absent)
    assert outcome(_speedups.template_matches, *args) == outcome(
        _speedups_py.template_matches, *args
    )


def test_template_matches_tells_strs_from_equal_values(twin: str) -> None:
    matches = leaves(twin).template_matches
    absent = object()
    values = ["a1b", "a2b", _Loose("a3b"), 7, "a4b"]
    assert matches(values, ["1", "9", "3", "7", None], "a", "b", absent) == [1, 0, 2, 0, 0]
    assert matches(["a1b", absent], ["1", "1"], "a", "b", absent) is None


class _Dict(dict[str, Any]):
    pass


# Rows of nested objects: members missing, values on the way that are no exact dict.
_NESTED: st.SearchStrategy[Any] = st.recursive(
    st.sampled_from([None, 0, 7, 2**70, True, "x", "", [], _Dict(a=1)]),
    lambda inner: st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2),
    max_leaves=6,
)


@need_ext
@settings(max_examples=150, deadline=None)
@given(st.lists(_NESTED, max_size=5), st.lists(st.sampled_from(["a", "b"]), max_size=3))
def test_column_leaves_agree(rows: list[Any], path: list[str]) -> None:
    # column_at reads through exact dicts only, as _at does; source_texts writes ints
    # as int_to_str does (its error past the digit limit), bools and the rest as None.
    for twin in (_speedups, _speedups_py):
        got = twin.column_at(rows, tuple(path))
        assert got == [_at(row, tuple(path)) for row in rows]
        assert outcome(twin.source_texts, got) == outcome(_speedups_py.source_texts, got)
    assert _speedups.source_texts([3, -4, True, None, "s", 2.5, _Str("t")]) == [
        "3", "-4", None, None, "s", None, None
    ]  # fmt: skip


class _Str(str):
    pass


def test_source_texts_refuse_ints_past_the_digit_limit(twin: str) -> None:
    limit = sys.get_int_max_str_digits()
    big = 10 ** (limit + 1) if limit else None
    assert leaves(twin).source_texts([2**70]) == [str(2**70)]
    if big is not None:
        with pytest.raises(EncodeValueError):
            leaves(twin).source_texts([1, big])


# A column of objects, nulls and missing keys, and what breaks it: another value, a row
# that is no exact dict, an empty object, the sentinel the searches use for "missing".
_SPARSE_CELL = st.sampled_from(
    [{"a": 1}, {"b": {"c": 2}}, {}, None, "x", 0, _Dict(a=1), ABSENT, "-"]
)


@need_ext
@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(_SPARSE_CELL.map(lambda v: {} if v == "-" else {"u": v}),
                          st.sampled_from([[], _Dict(u={"a": 1})])), max_size=6),
       st.integers(0, 3))  # fmt: skip
def test_sparse_column_agrees(rows: list[Any], least: int) -> None:
    got = _speedups.sparse_column(rows, "u", least)
    assert repr(got) == repr(_speedups_py.sparse_column(rows, "u", least))


def test_sparse_column_reads_one_kind_of_miss(twin: str) -> None:
    sparse = leaves(twin).sparse_column
    objects = [{"u": {"a": 1}}, {"u": {"a": 2}}]
    assert sparse([*objects, {"u": None}], "u", 2) == (True, [{"a": 1}, {"a": 2}])
    assert sparse([{"x": 0}, *objects], "u", 2) == (False, [{"a": 1}, {"a": 2}])
    assert sparse([*objects, {"u": None}, {}], "u", 2) == (None, None)  # both kinds
    assert sparse([*objects, {"u": None}], "u", 3) == (None, None)  # too few objects
    assert sparse(objects, "u", 2) == (None, None)  # none missing: dict_column's case
    assert sparse([*objects, {"u": {}}], "u", 2) == (None, None)


@need_ext
@settings(max_examples=150, deadline=None)
@given(st.lists(_ROW, max_size=5), st.sampled_from([("b",), ("a", "b"), ("b", "a"), ()]))
def test_split_column_with_keys_agrees(rows: list[Any], keys: tuple[str, ...]) -> None:
    # With keys, a row read that is not a dict of exactly those keys gives False.
    results = []
    for twin in (_speedups, _speedups_py):
        mine = copy.deepcopy(rows)
        results.append((outcome(twin.split_column, mine, "b", "b[]", "[]", keys), repr(mine)))
    assert results[0] == results[1]


def test_split_column_reads_each_rows_keys(twin: str) -> None:
    rows = [{"a": 1, "b": [{"c": 0}]}, {"a": 2, "b": [{"c": 1}]}]
    split = leaves(twin).split_column
    assert split(rows, "b", "b[]", "[]", ("a", "b")) == split(rows, "b", "b[]", "[]")
    assert split(rows, "b", "b[]", "[]", ("b", "a")) is False
    assert split([*rows, {"b": [], "a": 3}], "b", "b[]", "[]", ("a", "b")) is False
    with pytest.raises(TypeError, match="expected tuple, got list"):
        split(rows, "b", "b[]", "[]", ["a", "b"])
