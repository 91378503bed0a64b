"""The planning passes' per-row leaves (child sections, cell styles): both twins agree."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from .gcx_checks import leaves
from .test_speedups_parity import _speedups, _speedups_py, need_ext, outcome

# Rows that hold a list column `b` (or not), items that may break the split.
_ITEM = st.one_of(
    st.dictionaries(st.sampled_from(["c", "d", "[]"]), st.sampled_from([0, "x", "a\\b\tc", None])),
    st.sampled_from([1, "s", [], {"e": float("nan")}, {"e": 2**70}, {"e": "é😀"}]),
)
_VALUE = st.one_of(st.lists(_ITEM, max_size=3), st.sampled_from([None, 0, "x", {}]))
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
