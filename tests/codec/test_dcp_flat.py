"""The flat-record paths of DCP encoding and decoding do exactly what the general paths do.

Records without objects are encoded by builtin passes over the whole batch; anything it
does not take (NaN, big ints, lone surrogates, tuples, subclasses...) must fall through to
the general path, so both give the same text or the same error.
"""

from __future__ import annotations

import enum
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gcxwire import _dcp_decode, _dcp_encode, dcp
from gcxwire.errors import DecodeError, EncodeError
from gcxwire.limits import Limits

from ..tiers import prove, tiers


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


@tiers(fast=20, many=1500)
def test_flat_path_writes_what_the_general_path_writes(examples: int) -> None:
    dialects = st.sampled_from(["gateway", "v0.3"])
    prove(examples, _agree, _RECORDS, st.booleans(), st.booleans(), dialects)


def _agree(records: list[dict[str, Any]], same: bool, wrapped: bool, dialect: str) -> None:
    if same and records:  # one key set (in varying orders): the itemgetter branch
        keys = list(records[0])
        records = [{k: r.get(k, i) for k in (keys if i % 2 else keys[::-1])}
                   for i, r in enumerate(records)]  # fmt: skip
    value: Any = {"total": 1, "items": records} if wrapped else records
    assert _outcome(dcp.encode, value, dialect=dialect) == _general(value, dialect=dialect)


# Records holding objects: one nested shape, then perturbed (a key dropped or reordered, an
# object emptied, subclassed or made a scalar, a key holding "." or colliding dot names).
_LEAVES = st.one_of(st.none(), st.integers(-5, 5), st.text(max_size=3), _ODD)


class _Obj(dict):  # type: ignore[type-arg]
    pass


def _perturbed(record: dict[str, Any], how: int) -> dict[str, Any]:
    inner = dict(record["user"])
    if how == 1:
        inner.pop(next(iter(inner)))
    elif how == 2:
        inner = dict(reversed(inner.items()))
    elif how == 3:
        return {**record, "user": {}}
    elif how == 4:
        return {**record, "user": _Obj(inner)}
    elif how == 5:
        return {**record, "user": None}
    elif how == 6:
        inner["a.b"] = 1
    elif how == 7:
        return {"user.login": 1, **record}
    elif how == 8:
        inner["deep"] = {"x": {"y": {"z": 1}}}
    return {**record, "user": inner}


_SHAPED = st.lists(
    st.tuples(
        st.fixed_dictionaries(
            {
                "id": _LEAVES,
                "user": st.fixed_dictionaries(
                    {"login": _LEAVES, "site": st.fixed_dictionaries({"url": _LEAVES})}
                ),
                "labels": _LEAVES,
            }
        ),
        st.sampled_from([0] * 12 + list(range(1, 9))),
    ).map(lambda pair: _perturbed(*pair)),
    min_size=1,
    max_size=5,
)


@tiers(fast=20, many=1500)
def test_records_with_objects_write_what_the_general_path_writes(examples: int) -> None:
    dialects = st.sampled_from(["gateway", "v0.3"])
    prove(examples, _agree, _SHAPED, st.just(False), st.booleans(), dialects)


def test_records_with_objects_of_one_shape_take_the_batch_path() -> None:
    records = [
        {"n": i, "user": {"login": f"u{i}", "site": {"url": None}}, "labels": [{"k": i}]}
        for i in range(3)
    ]
    style = _dcp_encode.STYLES["v0.3"]
    assert _dcp_encode._flat_table(records, "data", style, lambda _: "") is not None
    text = dcp.encode(records, dialect="v0.3")
    assert text == _general(records, dialect="v0.3")
    assert text.splitlines()[:2] == [
        '["$S","data:v1",4,"n","user.login","user.site.url","labels"]',
        '[0,"u0","-",[{"k":0}]]',
    ]
    # "-" is absent, and an object of absent members is left out (docs/dcp.md)
    assert dcp.decode(text)[2] == {"n": 2, "user": {"login": "u2"}, "labels": [{"k": 2}]}


# --- decoding: the whole-batch row reader against the row loop ---------------------------------

_LINES = st.one_of(
    st.lists(_CELLS.filter(lambda v: not isinstance(v, (tuple, enum.Enum))), max_size=3).map(
        lambda row: json.dumps(row, ensure_ascii=False)
    ),
    st.sampled_from(
        [
            "",
            "\r",
            "[1, 2]\r",
            "[1,",
            "{}",
            '"-"',
            '["-", "-"]',
            "[[[[[[1]]]]]]",
            "[1] [2]",
            "[12345678901234567890, 1]",
            '["\\ud800", 1]',
            "[NaN, 1]",
            "[1e400, 2]",
            "[" * 3,
            "[1],[2]",
            '[1,"a],[b"]',
            '["a\\"]',
            '["a\\\\"]',
            "[1}",
            "[[1],[2]]",
            '["x"]"',
            "[1]\t",
            " [1]",
            "[1234567890123456789]",
            '["12345678901234567890"]',
        ]
    ),  # fmt: skip
)


@settings(max_examples=25, **_SETTINGS)  # type: ignore[arg-type]
@given(
    head=st.sampled_from(
        [
            '["$S","t:v1","a","b"]',
            '["$S","t:v1",2,"a","b"]',
            '{"n":1}\n["a"]',
            '["$S","t:v1","a.b","a.c"]',
            '["$S","t:v1",2,"a.b","c"]',
            '["$S","t:v1","a.b.c","d.e"]',
        ]
    ),  # fmt: skip
    lines=st.lists(_LINES, max_size=5),
    dialect=st.sampled_from([None, "gateway", "v0.3"]),
    depth=st.integers(2, 8),
)
def test_flat_rows_read_as_the_row_loop_reads_them(
    head: str, lines: list[str], dialect: str | None, depth: int
) -> None:
    text = "\n".join([head, *lines])
    limits = Limits(max_depth=depth, max_line=40)
    got = _decoded(dcp.decode, text, dialect=dialect, limits=limits)
    flat = _dcp_decode._flat_records
    _dcp_decode._flat_records = lambda *_: None
    try:
        assert got == _decoded(dcp.decode, text, dialect=dialect, limits=limits)
    finally:
        _dcp_decode._flat_records = flat


def _decoded(fn: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return repr(fn(*args, **kwargs))  # repr: NaN, -0.0 and types compare exactly
    except DecodeError as exc:
        return type(exc), str(exc)
