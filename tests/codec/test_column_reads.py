"""The table writer reads rows whose keys are equal strs, not the same objects, alike.

Rows built by a loop of f-strings share no key objects (json.loads's do); the
extension's row reader then compares keys by value as it walks a row. Every
case is written once from rows with fresh key objects and once from rows
sharing them: the texts must be equal, on both twins.
"""

from __future__ import annotations

from typing import Any

import pytest

from .gcx_checks import leaves


def _fresh(key: str) -> str:
    # An equal str that is another object (not interned, not the literal).
    return "".join([key[:1], key[1:]]) if len(key) > 1 else key + ""


def _rebuilt(value: Any) -> Any:
    if type(value) is dict:
        return {_fresh(k): _rebuilt(v) for k, v in value.items()}
    return value


class _Key(str):
    pass


_CASES: list[tuple[list[dict[str, Any]], list[str], list[Any]]] = [
    # sparse rows, keys in column order
    (
        [{"id": 1, "alpha": 2}, {"id": 2, "gamma": "x"}, {"id": 3, "beta": True, "gamma": "y"}],
        ["id", "alpha", "beta", "gamma"],
        [("id",), ("alpha",), ("beta",), ("gamma",)],
    ),
    # keys out of column order, extra keys no column reads, a held column
    (
        [{"gamma": 1, "id": 2, "extra": 3}, {"beta": 4, "alpha": 5}, {"zzz": 0}],
        ["id", "alpha", "beta", "gamma"],
        [("id",), ("alpha",), None, ("gamma",)],
    ),
    # members of nested objects, some absent
    (
        [{"user": {"login": "a", "id": 1}, "n": 1}, {"user": {"id": 2}, "n": 2}, {"n": 3}],
        ["user.login", "user.id", "n"],
        [("user", "login"), ("user", "id"), ("n",)],
    ),
]


@pytest.mark.parametrize(("rows", "fields", "paths"), _CASES)
def test_fresh_keys_read_as_shared_ones(
    twin: str, rows: list[dict[str, Any]], fields: list[str], paths: list[Any]
) -> None:
    encode_table = leaves(twin).encode_table
    fresh = [_rebuilt(row) for row in rows]
    assert any(a is not b for a, b in zip(fresh[0], rows[0], strict=True))  # really new keys
    want = encode_table(rows, fields, paths, None, "\n", None)
    assert encode_table(fresh, fields, paths, None, "\n", None) == want


def test_fresh_keys_pass_the_keys_check(twin: str) -> None:
    encode_table = leaves(twin).encode_table
    rows = [{"id": i, "name": f"n{i}", "size": i * 2} for i in range(20)]
    keys = ("id", "name", "size")
    fields, paths = list(keys), [(k,) for k in keys]
    want = encode_table(rows, fields, paths, "GCX1 tool=t fields=id,name,size", "\n", keys)
    fresh = [_rebuilt(row) for row in rows]
    got = encode_table(fresh, fields, paths, "GCX1 tool=t fields=id,name,size", "\n", keys)
    assert got == want
    fresh[7] = {_fresh("id"): 7, _fresh("size"): 14, _fresh("name"): "n7"}  # order differs
    assert encode_table(fresh, fields, paths, None, "\n", keys) is None


def test_a_str_subclass_key_is_looked_up(twin: str) -> None:
    encode_table = leaves(twin).encode_table
    rows = [{_Key("a"): 1, "b": 2}, {"b": 3, _Key("a"): 4}]
    got = encode_table(rows, ["a", "b"], [("a",), ("b",)], None, "\n", None)
    assert got[0] == "1\t2\n4\t3"


class _Row(dict):  # type: ignore[type-arg]
    pass


def _wide_rows() -> tuple[list[dict[str, Any]], list[Any], dict[int, Any]]:
    # 300 columns (the extension reads many constant columns row by row), 12 rows.
    nan = float("nan")
    rows: list[dict[str, Any]] = []
    for i in range(12):
        row: dict[str, Any] = {f"k{c}": c for c in range(300)}  # constant
        row["k1"] = i  # varies from the second row
        row["k2"] = i // 6  # varies at row 6
        row["k3"] = -0.0 if i == 9 else 0.0  # another sign in one row
        row["k4"] = nan  # the same NaN object: not equal to itself
        row["k5"] = 1 if i == 8 else True  # 1 is no bool
        row["k6"] = "text"
        if i == 10:
            del row["k7"]  # absent in one row
        rows.append(row)
    paths = [(f"k{c}",) for c in range(300)]
    want: dict[int, Any] = {c: c for c in range(300) if c not in (1, 2, 3, 4, 5, 6, 7)}
    want[6] = "text"
    return rows, paths, dict(sorted(want.items()))


def test_constant_columns_of_a_wide_table(twin: str) -> None:
    constant_columns = leaves(twin).constant_columns
    rows, paths, want = _wide_rows()
    got = constant_columns(rows, paths)
    assert got == want and list(got) == list(want)
    assert constant_columns([_rebuilt(r) for r in rows], paths) == want  # fresh keys


def test_constant_columns_of_a_wide_table_with_other_rows(twin: str) -> None:
    constant_columns = leaves(twin).constant_columns
    rows, paths, want = _wide_rows()
    subclassed = [*rows[:5], _Row(rows[5]), *rows[6:]]  # read by its get: the same values
    assert constant_columns(subclassed, paths) == want
    assert constant_columns([*rows[:5], [1], *rows[6:]], paths) == {}  # no row: no constant
    assert constant_columns(rows[:1], paths)[4] != constant_columns(rows[:1], paths)[4]  # NaN
