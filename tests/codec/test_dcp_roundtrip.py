"""Round trips, proven by hypothesis per dialect, and every named loss tested as named.

What "fits" a dialect (docs/dcp.md, "What a round trip keeps"):
- gateway: every record has every key (absent reads back as null); any scalar, null and "-".
- v0.3: keys may be absent; no null and no "-" string in a cell (both are written as "-").
- dcp-py: as v0.3, and no array of scalars in a cell (arrays are comma-joined).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gcxwire import dcp
from gcxwire._values import difference
from gcxwire.dcp import infer_schema
from gcxwire.errors import DecodeError, EncodeError

from ..tiers import prove, tiers

DIALECTS = ["gateway", "v0.3", "dcp-py"]
EXAMPLES = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# --- strategies --------------------------------------------------------------------------------

KEYS = st.sampled_from(["id", "name", "url", "a", "b", "type", "n", "-", "$S", "é", "k k"])
TEXT = st.text(max_size=8) | st.sampled_from(["\ud800", "x\udfffy", "\t\r\n", '"\\', "\u2028"])
NUMBERS = (
    st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([1.0, -0.0, 0.0, 1e16, 1e-7, 2**53 + 1])
)


def scalars(dialect: str) -> st.SearchStrategy[Any]:
    base = st.booleans() | NUMBERS | TEXT
    if dialect == "gateway":
        return base | st.none()
    return base.filter(lambda v: not (isinstance(v, str) and v == "-"))


def cells(dialect: str) -> st.SearchStrategy[Any]:
    """A leaf value: a scalar, or (outside dcp-py) an array of JSON values that is not a table."""
    inner = st.recursive(
        st.none() | st.booleans() | NUMBERS | TEXT,
        lambda kids: st.lists(kids, max_size=3) | st.dictionaries(TEXT, kids, max_size=3),
        max_leaves=6,
    )
    if dialect == "dcp-py":
        return scalars(dialect)
    arrays = st.lists(inner, max_size=3).filter(
        lambda v: not (v and all(isinstance(x, dict) for x in v))
    )
    return scalars(dialect) | arrays


@st.composite
def shapes(draw: st.DrawFn, nest: bool) -> dict[str, Any]:
    """Top-level keys -> "leaf", a sub-object's keys, or ("nest", the keys of array items)."""
    shape: dict[str, Any] = {}
    for key in draw(st.lists(KEYS, min_size=1, max_size=5, unique=True)):
        kind = draw(st.sampled_from(["leaf", "leaf", "object"] + ["nest"] * nest))
        if kind == "leaf":
            shape[key] = "leaf"
        else:
            inner = draw(st.lists(KEYS, min_size=1, max_size=3, unique=True))
            shape[key] = inner if kind == "object" else ("nest", inner)
    return shape


@st.composite
def tables(
    draw: st.DrawFn, dialect: str, nest: bool = True, sparse_inside: bool = False
) -> list[dict[str, Any]]:
    """Records of one shape; keys in shape order; sparse only where the dialect can say so.

    ``nest``: some keys hold arrays of objects (sub-rows with a schema; dcp-py joins them
    without one, so its schema-less tables have none). ``sparse_inside``: objects below the
    top level may lack keys in any dialect (the gateway keeps such objects whole).
    """
    shape = draw(shapes(nest))
    sparse = dialect != "gateway"

    def keep(inside: bool = False) -> bool:
        return not (sparse or (inside and sparse_inside)) or draw(st.booleans())

    def obj(keys: list[str], at_least_one: bool) -> dict[str, Any]:
        if sparse_inside:  # objects below the top level may also list their keys in any order
            keys = draw(st.permutations(keys))
        out = {k: draw(cells(dialect)) for k in keys if keep(inside=True)}
        if at_least_one and not out:
            out[keys[0]] = draw(cells(dialect))
        return out

    records = []
    for _ in range(draw(st.integers(min_value=0, max_value=4))):
        record: dict[str, Any] = {}
        for key, spec in shape.items():
            if not keep():
                continue
            if spec == "leaf":
                record[key] = draw(cells(dialect))
            elif isinstance(spec, tuple):
                # dcp-py joins an array that did not become sub-rows: keep them non-empty
                n = draw(st.integers(min_value=int(dialect == "dcp-py"), max_value=3))
                record[key] = [obj(spec[1], at_least_one=False) for _ in range(n)]
            else:
                record[key] = obj(spec, at_least_one=True)
        records.append(record)
    return records


def wrapped(records: list[dict[str, Any]], where: int, key: str) -> dict[str, Any]:
    members: list[tuple[str, Any]] = [("total_count", len(records)), ("incomplete", False)]
    members.insert(where, (key, records))
    return dict(members)


# --- with a schema ----------------------------------------------------------------------------


@pytest.mark.parametrize("dialect", DIALECTS)
@tiers(fast=30, many=150)
def test_round_trip_with_an_inferred_schema(dialect: str, examples: int) -> None:
    prove(examples, lambda data: _with_a_schema(dialect, data), st.data())


def _with_a_schema(dialect: str, data: st.DataObject) -> None:
    records = data.draw(tables(dialect))
    order = data.draw(st.sampled_from(["category", "source"]))
    schema = infer_schema(records, domain="t", min_presence=0, order=order)  # type: ignore[arg-type]
    text = dcp.encode(records, schema, dialect=dialect)  # type: ignore[arg-type]
    back = dcp.decode(text, schema=schema)
    assert back == records
    if order == "source" and _consistent_order(records, into_arrays=True):
        # dcp-wrap's category order re-sorts keys; first-seen order keeps them
        assert difference(records, back) is None
    assert dcp.encode(back, schema, dialect=dialect) == text  # type: ignore[arg-type]
    # the same rows inside a wrapper object come back inside it
    value = wrapped(records, data.draw(st.integers(0, 2)), data.draw(KEYS))
    text = dcp.encode(value, schema, dialect=dialect)  # type: ignore[arg-type]
    assert dcp.decode(text, schema=schema) == value


# --- without a schema -------------------------------------------------------------------------


@pytest.mark.parametrize("dialect", DIALECTS)
@tiers(fast=30, many=150)
def test_round_trip_without_a_schema_is_exact(dialect: str, examples: int) -> None:
    prove(examples, lambda data: _without_a_schema(dialect, data), st.data())


def _without_a_schema(dialect: str, data: st.DataObject) -> None:
    records = data.draw(tables(dialect, nest=dialect != "dcp-py", sparse_inside=True))
    value: Any = records
    if data.draw(st.booleans()):
        value = wrapped(records, data.draw(st.integers(0, 2)), data.draw(KEYS))
    text = dcp.encode(value, dialect=dialect)  # type: ignore[arg-type]
    back = dcp.decode(text)
    if _consistent_order(records, into_arrays=False, deep=False):
        assert difference(value, back) is None, (value, text, back)
        assert dcp.encode(value, dialect=dialect, exact=True) == text  # type: ignore[arg-type]
    else:
        assert back == value
    assert dcp.encode(back, dialect=dialect) == text  # type: ignore[arg-type]


def _consistent_order(
    records: list[dict[str, Any]], *, into_arrays: bool, deep: bool = True
) -> bool:
    """Key order survives when every record (and sub-object) lists keys in first-seen order.

    ``into_arrays``: items of arrays of objects count too (they become sub-rows with a schema).
    ``deep=False``: only the records' own keys count (without a schema, objects below them
    whose key order varies are kept whole).
    """

    def walk(objs: list[dict[str, Any]]) -> bool:
        seen: list[str] = []
        for obj in objs:
            for key in obj:
                if key not in seen:
                    seen.append(key)
        for obj in objs:
            if [k for k in seen if k in obj] != list(obj):
                return False
        if not deep:
            return True
        for key in seen:
            inner = [o[key] for o in objs if key in o and isinstance(o[key], dict)]
            if into_arrays:
                inner += [
                    item
                    for o in objs
                    if isinstance(o.get(key), list)
                    for item in o[key]
                    if isinstance(item, dict)
                ]
            if inner and not walk(inner):
                return False
        return True

    return walk(records)


# --- anything at all --------------------------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | NUMBERS | TEXT,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(KEYS | TEXT, kids, max_size=4),
    max_leaves=12,
)


@pytest.mark.parametrize("dialect", DIALECTS)
@EXAMPLES
@given(value=JSON)
def test_any_json_value_encodes_or_raises_encode_error(dialect: str, value: Any) -> None:
    try:
        text = dcp.encode(value, dialect=dialect, exact=True)  # type: ignore[arg-type]
    except EncodeError:
        return
    assert difference(value, dcp.decode(text)) is None


NOT_JSON = st.recursive(
    st.none()
    | st.floats()
    | st.integers()
    | TEXT
    | st.binary(max_size=2)
    | st.frozensets(st.integers(), max_size=2),
    lambda kids: (
        st.lists(kids, max_size=3)
        | st.tuples(kids)
        | st.dictionaries(KEYS | st.integers() | st.none(), kids, max_size=3)
    ),
    max_leaves=8,
)


@EXAMPLES
@given(value=NOT_JSON)
def test_values_json_cannot_carry_raise_only_encode_error(value: Any) -> None:
    try:
        text = dcp.encode(value, exact=True)
    except EncodeError:
        return
    assert difference(value, dcp.decode(text)) is None


@EXAMPLES
@given(value=JSON)
def test_exact_flag_agrees_with_the_decoder(value: Any) -> None:
    try:
        text = dcp.encode(value)
    except EncodeError:
        return
    try:
        dcp.encode(value, exact=True)
    except EncodeError:
        assert difference(value, dcp.decode(text)) is not None
    else:
        assert difference(value, dcp.decode(text)) is None


# --- the named losses, one by one ---------------------------------------------------------------


def test_gateway_absent_reads_back_as_null() -> None:
    records = [{"a": 1}, {"b": 2}]
    assert dcp.decode(dcp.encode(records)) == [{"a": 1, "b": None}, {"a": None, "b": 2}]
    with pytest.raises(EncodeError, match="not exact"):
        dcp.encode(records, exact=True)


def test_gateway_keeps_objects_with_varying_keys_whole() -> None:
    records = [{"id": 1, "attrs": {"a": 1}}, {"id": 2, "attrs": {"b": 2, "a": 3}}]
    text = dcp.encode(records, exact=True)
    assert text.split("\n")[0] == '["$S","data:v1","id","attrs"]'
    # the dash dialects can say "absent", so they flatten the same objects
    dashed = dcp.encode([records[0], {"id": 2, "attrs": {"a": 3, "b": 2}}], dialect="v0.3")
    assert dashed.split("\n")[0] == '["$S","data:v1",3,"id","attrs.a","attrs.b"]'


@pytest.mark.parametrize("dialect", ["v0.3", "dcp-py"])
def test_dash_dialects_read_null_and_dash_back_as_absent(dialect: str) -> None:
    records = [{"a": None, "b": "-", "c": 1}]
    text = dcp.encode(records, dialect=dialect)  # type: ignore[arg-type]
    assert dcp.decode(text) == [{"c": 1}]
    # sparse records, which the gateway cannot carry, survive
    sparse = [{"a": 1}, {"b": 2}]
    assert dcp.decode(dcp.encode(sparse, dialect=dialect)) == sparse  # type: ignore[arg-type]


def test_dcp_py_joins_scalar_arrays() -> None:
    records = [{"tags": ["x", 1, True, None]}, {"tags": []}]
    text = dcp.encode(records, dialect="dcp-py")
    assert text.split("\n")[1:] == ['["x,1,True,None"]', '["-"]']
    assert dcp.decode(text) == [{"tags": "x,1,True,None"}, {}]


def test_category_order_changes_key_order_only() -> None:
    records = [{"title": "t", "id": 1}]
    schema = infer_schema(records, domain="d")
    back = dcp.decode(dcp.encode(records, schema), schema=schema)
    assert back == records and list(back[0]) == ["id", "title"]


def test_schema_drops_what_it_does_not_map() -> None:
    records = [{"a": i} for i in range(20)] + [{"a": 0, "rare": "x"}]
    schema = infer_schema(records, domain="d")  # rare: presence below 0.1
    assert dcp.decode(dcp.encode(records, schema), schema=schema)[-1] == {"a": 0}


def test_null_parent_reads_back_as_object_of_nulls_in_the_gateway() -> None:
    records = [{"u": {"login": "a"}}, {"u": None}]
    schema = infer_schema(records, domain="d")
    assert dcp.decode(dcp.encode(records, schema), schema=schema)[1] == {"u": {"login": None}}
    dashed = dcp.encode(records, schema, dialect="v0.3")
    assert dcp.decode(dashed, schema=schema)[1] == {}
    # without a schema the path naming keeps such an object whole: exact
    assert difference(records, dcp.decode(dcp.encode(records))) is None


def test_dotted_keys_read_back_as_nesting_without_a_schema() -> None:
    records = [{"a.b": 1}]
    assert dcp.decode(dcp.encode(records)) == [{"a": {"b": 1}}]
    assert dcp.decode(dcp.encode(records), expand_paths=False) == records
    with pytest.raises(EncodeError, match="not exact"):
        dcp.encode(records, exact=True)


def test_inconsistent_key_order_is_lost() -> None:
    records = [{"a": 1, "b": 2}, {"b": 3, "a": 4}]
    back = dcp.decode(dcp.encode(records))
    assert back == records and list(back[1]) == ["a", "b"]
    with pytest.raises(EncodeError, match="keys"):
        dcp.encode(records, exact=True)


def test_wrapper_readme_form_and_placeholder_form() -> None:
    items = [{"id": 1, "name": "x"}]
    readme = {"total_count": 4939, "incomplete_results": False, "items": items}
    text = dcp.encode(readme)
    assert text.split("\n")[0] == '{"total_count":4939,"incomplete_results":false}'
    assert text.split("\n")[1] == '["$S","items:v1","id","name"]'
    assert difference(readme, dcp.decode(text)) is None
    # another domain (or the array not last) keeps the key in place as "$S"
    named = dcp.encode(readme, domain="search_repositories")
    assert named.split("\n")[0] == '{"total_count":4939,"incomplete_results":false,"items":"$S"}'
    assert difference(readme, dcp.decode(named)) is None
    first = {"items": items, "total_count": 1}
    assert difference(first, dcp.decode(dcp.encode(first))) is None


def test_wrapper_with_a_schema_and_nested_sub_rows() -> None:
    items = [
        {"id": "u1", "teams": [{"id": "t1", "role": "lead"}, {"id": "t2"}]},
        {"id": "u2", "teams": []},
        {"id": "u3", "teams": [{"id": "t3"}]},
    ]
    schema = infer_schema([items[0], items[2]], domain="users")
    text = dcp.encode({"total": 3, "users": items}, schema, dialect="v0.3")
    lines = text.split("\n")
    assert lines[0] == '{"total":3}'
    assert lines[2] == '["u1",["$N","users.teams:v1",["t1","lead"],["t2","-"]]]'
    assert lines[3] == '["u2",["$N","users.teams:v1"]]'
    # a sub-field missing from every item of one array: the cutdown sub-id says which remain
    assert lines[4] == '["u3",["$N","users.teams:v1#2",["t3"]]]'
    assert dcp.decode(text, schema=schema) == {"total": 3, "users": items}
    gateway = dcp.encode(items, schema)
    assert '["$R","users.teams:v1",["t1","lead"],["t2",null]]' in gateway
    # sub-rows need the schema; without it they stay the raw arrays
    assert dcp.decode(gateway)[1] == {"id": "u2", "teams": ["$R", "users.teams:v1"]}


def test_exact_numbers_and_strings_survive() -> None:
    records = [{"big": 2**80, "neg": -(2**70), "f": 1.0, "z": -0.0, "s": "\ud800\x00\u2028é"}]
    for dialect in DIALECTS:
        text = dcp.encode(records, dialect=dialect, exact=True)  # type: ignore[arg-type]
        assert difference(records, dcp.decode(text)) is None
    assert "1.0" in dcp.encode(records)  # unlike dcp-wrap (JS), a float stays a float


def test_zero_field_and_empty_batches() -> None:
    styles = [("gateway", None), ("v0.3", None)] + [("dcp-py", d) for d in (0, 1, 2, 3)]
    values: list[Any] = [[], [{}], [{}, {}], {"n": 0, "items": []}]
    for value in values:
        for dialect, density in styles:
            text = dcp.encode(value, dialect=dialect, density=density, exact=True)  # type: ignore[arg-type]
            assert difference(value, dcp.decode(text)) is None
    assert dcp.encode([]) == '["$S","data:v1"]'


def test_not_tabular_values_raise_encode_error() -> None:
    for value in (1, "x", None, True, 1.5, [1, 2], [None], [[1]], {"a": 1}, {"a": [1], "b": [2]}):
        with pytest.raises(EncodeError):
            dcp.encode(value)


def test_values_json_cannot_carry_raise_encode_error_with_a_path() -> None:
    with pytest.raises(EncodeError) as info:
        dcp.encode([{"a": {"b": [1, float("nan")]}}])
    assert info.value.path == "$[0].a.b[1]"
    with pytest.raises(EncodeError) as info:
        dcp.encode([{"x": 1}, {"a": {"b": {"c": {"d": {1: 2}}}}}])  # deeper than flattening
    assert info.value.path == "$[1].a.b.c.d"
    with pytest.raises(EncodeError, match="set"):
        dcp.encode([{"a": {1, 2}}])
    with pytest.raises(EncodeError):
        dcp.encode([{"a": (1, 2)}])
    deep: Any = []
    for _ in range(100000):
        deep = [deep]
    with pytest.raises(EncodeError, match="deep"):
        dcp.encode([{"a": deep}])


def test_ambiguous_wrapper_members_are_refused() -> None:
    with pytest.raises(EncodeError, match="placeholder"):
        dcp.encode({"note": "$S", "items": [{"a": 1}]})
    with pytest.raises(EncodeError, match="schema header"):
        dcp.encode({"$dcp": "schema", "items": [{"a": 1}]})


def test_marker_lookalike_in_a_nested_field_is_refused() -> None:
    schema = infer_schema([{"t": [{"x": 1}]}], domain="d")
    with pytest.raises(EncodeError, match="sub-rows"):
        dcp.encode([{"t": ["$R", "d.t:v1"]}], schema)


def test_bad_options_raise_encode_error() -> None:
    with pytest.raises(EncodeError, match="dialect"):
        dcp.encode([{"a": 1}], dialect="toon")  # type: ignore[arg-type]
    with pytest.raises(EncodeError, match="density"):
        dcp.encode([{"a": 1}], density=3)
    with pytest.raises(EncodeError, match="DcpSchema"):
        dcp.encode([{"a": 1}], {"id": "x"})  # type: ignore[arg-type]
    with pytest.raises(EncodeError, match="text line"):
        dcp.encode([{"a": "x\ny"}], text_key="a")


def test_compact_and_fallback_serializers_agree() -> None:
    # orjson writes what it can; the stdlib writes the rest: both must give JSON.stringify's text
    every_char = "".join(chr(c) for c in range(0x80)) + "é\u2028\U0001f600"
    fast = dcp.encode([{"s": every_char}])
    slow = dcp.encode([{"s": every_char, "big": 2**70}])
    assert fast.split("\n")[1] == "[" + json.dumps(every_char, ensure_ascii=False) + "]"
    assert slow.split("\n")[1].startswith(fast.split("\n")[1][:-1])


def test_decode_rejects_what_is_not_dcp() -> None:
    with pytest.raises(DecodeError):
        dcp.decode('["$S","x:v1","a"]\n[1,2]')


def test_a_batch_without_any_schema_field_keeps_its_record_count() -> None:
    schema = infer_schema([{"a": 1}], domain="x")
    for dialect, header in (("gateway", '["$S","x:v1#0"]'), ("v0.3", '["$S","x:v1#0",0]')):
        text = dcp.encode([{"other": 1}, {}], schema, dialect=dialect)  # type: ignore[arg-type]
        assert text.split("\n") == [header, "[]", "[]"]
        assert dcp.decode(text, schema=schema) == [{}, {}]
