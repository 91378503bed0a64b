"""The flat-record path of DCP encoding writes exactly what the general path writes.

Records without objects are encoded by builtin passes over the whole batch; anything it
does not take (NaN, big ints, lone surrogates, tuples, subclasses...) must fall through to
the general path, so both give the same text or the same error.
"""

from __future__ import annotations

import enum
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gcxwire import _dcp_encode, dcp
from gcxwire.errors import EncodeError


class _Tone(enum.Enum):
    LOW = 1


class _Text(str):
    pass


_KEYS = st.sampled_from(["id", "name", "a.b", "-", "$S", "é", ""])
_ODD = st.sampled_from(
    [float("nan"), float("inf"), 2**64, -(2**63) - 1, "\ud800", (1, 2), _Text("x"), _Tone.LOW,
     "],[", ["],["], [[1], [2]], [{"k": [1]}], [float("nan")], 1e308, None, "-", {"x": 1}, True]
)  # fmt: skip
_CELLS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**65), 2**65),
    st.floats(),
    st.text(max_size=6),
    st.lists(st.one_of(st.integers(), st.text(max_size=3), st.lists(st.integers())), max_size=3),
    _ODD,
)
_RECORDS = st.lists(st.dictionaries(_KEYS, _CELLS, max_size=4), max_size=5)


def _outcome(fn: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return fn(*args, **kwargs)
    except EncodeError as exc:
        return type(exc), str(exc), exc.path


def _general(*args: Any, **kwargs: Any) -> Any:
    flat = _dcp_encode._flat_table
    _dcp_encode._flat_table = lambda *_: None
    try:
        return _outcome(dcp.encode, *args, **kwargs)
    finally:
        _dcp_encode._flat_table = flat


_SETTINGS = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}


@settings(max_examples=20, **_SETTINGS)  # type: ignore[arg-type]
@given(
    records=_RECORDS,
    same=st.booleans(),
    wrapped=st.booleans(),
    dialect=st.sampled_from(["gateway", "v0.3"]),
)
def test_flat_path_writes_what_the_general_path_writes(
    records: list[dict[str, Any]], same: bool, wrapped: bool, dialect: str
) -> None:
    _agree(records, same, wrapped, dialect)


@pytest.mark.slow
@settings(max_examples=1500, **_SETTINGS)  # type: ignore[arg-type]
@given(
    records=_RECORDS,
    same=st.booleans(),
    wrapped=st.booleans(),
    dialect=st.sampled_from(["gateway", "v0.3"]),
)
def test_flat_path_agrees_at_length(
    records: list[dict[str, Any]], same: bool, wrapped: bool, dialect: str
) -> None:
    _agree(records, same, wrapped, dialect)


def _agree(records: list[dict[str, Any]], same: bool, wrapped: bool, dialect: str) -> None:
    if same and records:  # one key set (in varying orders): the itemgetter branch
        keys = list(records[0])
        records = [{k: r.get(k, i) for k in (keys if i % 2 else keys[::-1])}
                   for i, r in enumerate(records)]  # fmt: skip
    value: Any = {"total": 1, "items": records} if wrapped else records
    assert _outcome(dcp.encode, value, dialect=dialect) == _general(value, dialect=dialect)
