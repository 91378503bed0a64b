"""keys_differ, the table writer's one-call keys check, on both twins."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .gcx_checks import leaves

_KEYS = st.lists(st.sampled_from(["a", "b", "c", ""]), max_size=4, unique=True).map(tuple)
_ROW: st.SearchStrategy[Any] = st.one_of(
    _KEYS.map(lambda keys: dict.fromkeys(keys, 1)),
    st.just([]),
    st.just(None),
)


class _Row(dict):  # type: ignore[type-arg]
    pass


@settings(max_examples=60, deadline=None)
@given(st.lists(_ROW, max_size=5), _KEYS)
def test_keys_differ_is_the_tuple_compare(
    twin: str, rows: list[Any], keys: tuple[str, ...]
) -> None:
    expected = any(type(r) is not dict or tuple(r) != keys for r in rows)
    assert leaves(twin).keys_differ(rows, keys) is expected


def test_keys_differ_looks_at_exact_dicts_order_and_equal_keys(twin: str) -> None:
    differ = leaves(twin).keys_differ
    assert differ([], ("a",)) is False
    assert differ([{"a": 1, "b": 2}], ("a", "b")) is False
    assert differ([{"b": 2, "a": 1}], ("a", "b")) is True  # order counts
    assert differ([{"a": 1}], ("a", "b")) is True
    assert differ([_Row(a=1)], ("a",)) is True  # a dict subclass is no plain row
    assert differ([{"".join(["a", "b"]): 1}], ("ab",)) is False  # equal, not the same object
    assert differ(iter([{"a": 1}]), ("a",)) is False  # any iterable of rows


def test_keys_differ_wants_a_tuple(twin: str) -> None:
    with pytest.raises(TypeError, match="expected tuple, got list"):
        leaves(twin).keys_differ([], ["a"])
