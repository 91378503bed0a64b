"""Rows of every dict layout are walked in their own order (the extension walks a
combined table's entries itself: deleted entries, general keys tables, split tables)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from gcxwire import _speedups_py, gcx

from .gcx_checks import leaves

FIELDS = ["a", "b", "c", "d"]


class _Slots:
    def __init__(self, n: int) -> None:
        self.a = n
        self.b = f"b{n}"
        self.c = n * 0.5
        self.d = None


class _Row(dict):  # type: ignore[type-arg]
    pass


def _with_holes(n: int) -> dict[str, Any]:
    # Deleted entries before, between and after the live ones.
    row: dict[str, Any] = {"x": 0, "a": n, "y": 1, "b": f"b{n}", "z": 2}
    row["c"] = n * 0.5
    row["d"] = None
    for key in ("x", "y", "z"):
        del row[key]
    return row


def _general(n: int) -> dict[Any, Any]:
    # A keys table that held a non-str key keeps its general layout (hashes stored).
    row: dict[Any, Any] = {1: 0, "a": n, (2, 3): 0, "b": f"b{n}", "c": n * 0.5, "d": None}
    del row[1]
    del row[(2, 3)]
    return row


def _split(n: int) -> dict[str, Any]:
    return _Slots(n).__dict__  # instances of a class share one keys table


def _refilled(n: int) -> dict[str, Any]:
    row: dict[str, Any] = {"q": 1, "r": 2}
    row.clear()
    row.update({"a": n, "b": f"b{n}", "c": n * 0.5, "d": None})
    return row


def _popped(n: int) -> dict[str, Any]:
    row = {"a": n, "b": f"b{n}", "c": n * 0.5, "d": None, "e": 5}
    row.popitem()
    return row


def _reordered(n: int) -> dict[str, Any]:
    # Keys in another order than FIELDS, one deleted and added again at the end.
    row = {"b": f"b{n}", "a": n, "d": None, "c": n * 0.5}
    del row["a"]
    row["a"] = n
    return row


def _subclass(n: int) -> dict[str, Any]:
    return _Row(_with_holes(n))


LAYOUTS: list[Callable[[int], dict[Any, Any]]] = [
    _with_holes,
    _general,
    _split,
    _refilled,
    _popped,
    _reordered,
    _subclass,
]


def _rows(make: Any) -> list[Any]:
    return [make(n) for n in range(40)]


def _outcome(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except Exception as exc:
        return type(exc), str(exc)


@pytest.mark.parametrize("make", LAYOUTS)
def test_the_leaves_walk_each_layout_as_the_pure_twin(twin: str, make: Any) -> None:
    rows = _rows(make)
    mixed = [row if i % 2 else {k: row[k] for k in row} for i, row in enumerate(rows)]
    ext = leaves(twin)
    for table in (rows, mixed):
        assert _outcome(ext.key_order, table) == _outcome(_speedups_py.key_order, table)
        assert _outcome(ext.shared_keys, table) == _outcome(_speedups_py.shared_keys, table)
        for keys in (None, tuple(FIELDS), tuple(table[0])):
            args: tuple[Any, ...] = (
                table,
                FIELDS,
                [(f,) for f in FIELDS],
                "h",
                "\n",
                keys,
                None,
                [],
            )
            assert _outcome(ext.encode_table, *args) == _outcome(_speedups_py.encode_table, *args)


@pytest.mark.parametrize("make", LAYOUTS)
def test_each_layout_round_trips(make: Any) -> None:
    rows = _rows(make)
    want = [{k: row[k] for k in row} for row in rows]
    assert gcx.decode(gcx.encode(rows, tool="t")) == want


def test_a_nested_object_of_each_layout_round_trips() -> None:
    # Members are walked too (a dict cell written as JSON, spread objects).
    rows: list[dict[str, Any]] = [
        {"id": n, "m": make(n), "j": [make(n)]} for n, make in enumerate(LAYOUTS * 3)
    ]
    want = [{"id": r["id"], "m": dict(r["m"]), "j": [dict(r["j"][0])]} for r in rows]
    assert gcx.decode(gcx.encode(rows, tool="t")) == want
