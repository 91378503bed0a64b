"""encode_table on rows that hold the asked keys: each row read in one walk, the same text."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gcxwire import _speedups_py

from .gcx_checks import leaves

FIELDS = ["f0", "f1", "f2"]
PATHS = [("f0",), ("f1",), ("f2",)]


class _Str(str):
    pass


class _Row(dict):  # type: ignore[type-arg]
    pass


def _fresh(key: str) -> str:
    # An equal key that is another object: the row is read by the general walk.
    return "".join(list(key))


# What a plain row's one walk writes (str of each width, ints, finite floats, literals)
# beside what sends a row to the general walk (big ints, NaN, JSON values, subclasses).
_VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.sampled_from([2**63, -(2**70), 1.0, -0.0, 3.25, 1e15, 1e300, float("nan"), float("inf")]),
    st.text(st.sampled_from('ab\\\t\n\r#"[{-1.é\u0100\U0001f600'), max_size=12),
    st.sampled_from(["GCX1 x", "#h", "tail\r", "\u0100\r", "true", "-12", "12345678901234567"]),
    st.lists(st.integers(0, 9), max_size=2),
    st.dictionaries(st.sampled_from(["k", "é"]), st.integers(), max_size=2),
    st.text(max_size=3).map(_Str),
)


def _row(values: list[Any], kind: int) -> dict[str, Any]:
    keys = [_fresh(k) for k in FIELDS] if kind == 1 else FIELDS
    row = dict(zip(keys, values, strict=True))
    if kind == 2:
        return _Row(row)
    if kind == 3:  # a key left out: the table is askew
        del row["f1"]
    return row


@settings(max_examples=150)
@given(
    st.lists(
        st.tuples(st.lists(_VALUE, min_size=3, max_size=3), st.sampled_from([0, 0, 0, 1, 2, 3])),
        max_size=8,
    ),
    st.sampled_from([None, "h", "h\u0100"]),
    st.sampled_from([None, [0, 2, 0]]),
)
def test_rows_of_the_asked_keys_agree_with_the_pure_twin(
    twin: str, spec: list[tuple[list[Any], int]], head: str | None, cuts: list[int] | None
) -> None:
    rows = [_row(values, kind) for values, kind in spec]
    got: list[Any] = []
    want: list[Any] = []
    for module, out in ((leaves(twin), got), (_speedups_py, want)):
        counted: list[int] = []
        try:
            out.append(module.encode_table(rows, FIELDS, PATHS, head, "\n", FIELDS, cuts, counted))
        except Exception as exc:  # the same refusal, with the same message
            out.append((type(exc), str(exc)))
        out.append(counted)
    assert got == want
