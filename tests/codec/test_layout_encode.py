"""GCX1 and DCP written with a declared layout: its field order, drift refusal and fallback,
and the header checked on decode."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gcxwire import dcp, gcx
from gcxwire._layout_check import tree_of
from gcxwire.errors import DecodeError, DriftError, EncodeValueError
from gcxwire.layouts import Drift, Field, Layout, Template

from .. import reference_model
from ..layout_strategies import batches, layouts
from ..strategies import same
from .layout_examples import EXAMPLES, MANY, REPOS


def _repo(n: int, **extra: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "html_url": f"https://github.com/o/r{n}",  # not in the layout's order
        "id": n,
        "full_name": f"o/r{n}",
        "owner": {"type": "User", "login": "o"},
        "description": None,
    }
    row.update(extra)
    return row


def _sorted(value: Any) -> Any:
    """The value with every object's keys sorted: a layout fixes key order, not values."""
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


def _in_layout_order(node: Any, obj: dict[str, Any]) -> None:
    assert list(obj) == [k for k in node.order if k in obj]
    for key, child in node.children.items():
        if key in obj:
            _in_layout_order(child, obj[key])


# --- round trips -----------------------------------------------------------------------------


def _gcx_round_trip(layout: Layout, records: list[dict[str, Any]], wrap: bool) -> None:
    value: Any = {"total": len(records), "items": records} if wrap else records
    text = gcx.encode(value, tool=layout.tool, layout=layout)
    back = gcx.decode(text, layout=layout)
    assert same(_sorted(back), _sorted(value))
    rows = back["items"] if wrap else back
    for row in rows:  # each record's keys in the layout's order
        _in_layout_order(tree_of(layout), row)
    # the header is the layout's, and a reference decoder reads every row of it
    (table,) = [s for s in gcx.parse(text) if s.meta.get("of", "items") == "items"]
    assert len(table.rows) == len(records)
    model = reference_model.decode(text)["sections"]
    assert [len(s["rows"]) for s in model] == [len(s.rows) for s in gcx.parse(text)]


def _dcp_round_trip(layout: Layout, records: list[dict[str, Any]], wrap: bool) -> None:
    value: Any = {"total": len(records), "items": records} if wrap else records
    text = dcp.encode(value, layout, exact=True)
    head = text.split("\n")[1 if wrap else 0]
    assert head.startswith(f'["$S","{layout.id}')
    back = dcp.decode(text, schema=layout)
    assert same(_sorted(back), _sorted(value))


@EXAMPLES
@given(st.data(), st.booleans())
def test_gcx_with_a_layout_writes_its_fields_and_reads_back_exactly(data: Any, wrap: bool) -> None:
    layout = data.draw(layouts(plain=True))
    _gcx_round_trip(layout, data.draw(batches(layout)), wrap)


@EXAMPLES
@given(st.data(), st.booleans())
def test_dcp_with_a_layout_writes_its_schema_and_reads_back_exactly(data: Any, wrap: bool) -> None:
    layout = data.draw(layouts(plain=True))
    _dcp_round_trip(layout, data.draw(batches(layout)), wrap)


@pytest.mark.slow
@MANY
@given(st.data(), st.booleans())
def test_layout_round_trips_hold_for_many_layouts(data: Any, wrap: bool) -> None:
    layout = data.draw(layouts(plain=True))
    records = data.draw(batches(layout))
    _gcx_round_trip(layout, records, wrap)
    _dcp_round_trip(layout, records, wrap)


def test_gcx_writes_the_layouts_order_groups_and_declared_markers() -> None:
    value = {"total_count": 2, "items": [_repo(1), _repo(2, topics=["a"])], "incomplete": False}
    text = gcx.encode(value, tool="search_repositories", layout=REPOS)
    head, *rows = text.split("\n")
    assert head == (
        "GCX1 tool=search_repositories"
        " fields=id,full_name,owner{login,type=User},description,html_url,topics flat={}"
        " prefix=html_url=https://github.com/ total_count=2 of=items incomplete=false"
    )
    assert rows == ["1\to/r1\to\t\tnull\to/r1", '2\to/r2\to\t\tnull\to/r2\t["a"]']
    assert gcx.decode(text, layout=REPOS) == value
    # one row or none: the same header, where inference would write another
    one = gcx.encode([_repo(1)], tool="search_repositories", layout=REPOS)
    assert one.split("\n")[0] == head.split(" total_count")[0]
    assert gcx.encode([_repo(1)], tool="search_repositories").split("\n")[0] != one.split("\n")[0]
    empty = gcx.encode([], tool="search_repositories", layout=REPOS)
    assert empty == one.split("\n")[0] and gcx.decode(empty, layout=REPOS) == []


def test_the_reusable_encoder_takes_a_layout_too() -> None:
    value = [_repo(1), _repo(2)]
    text = gcx.Encoder().encode(value, tool="search_repositories", layout=REPOS)
    assert text == gcx.encode(value, tool="search_repositories", layout=REPOS)
    with pytest.raises(DriftError):
        gcx.Encoder().encode([_repo(1, x=1)], tool="search_repositories", layout=REPOS)


def test_the_reading_styles_follow_the_rows_as_without_a_layout() -> None:
    # no column marker fits these rows, so the layout's payload is the inferred one: the
    # same empty=null, float=, json=raw and str= choices
    rows = [
        {"code": str(100 + i), "score": float(i), "paths": [f"c:\\x\\{i}"], "n": i // 5 or None}
        for i in range(6)
    ]
    layout = Layout.infer(rows, tool="t")
    for value in (rows, {"total": 6, "items": rows}):
        text = gcx.encode(value, tool="t", layout=layout)
        assert text == gcx.encode(value, tool="t")
        head = text.split("\n")[0]
        assert all(m in head for m in ("empty=null", "float=", "json=raw", "str=code")), head


def test_a_declared_template_writes_a_derived_column_once() -> None:
    base = "https://api.github.com/repos/o/r/"
    layout = Layout(
        "list_issues",
        1,
        (
            Field("url", "string", prefix=base),
            Field("labels_url", "string", template=Template("url", after="/labels{/name}")),
            Field("number", "integer"),
        ),
    )
    rows = [
        {"url": f"{base}issues/{n}", "labels_url": f"{base}issues/{n}/labels{{/name}}", "number": n}
        for n in (1, 2)
    ]
    rows.append(
        {"url": f"{base}issues/3", "labels_url": "elsewhere", "number": 3}
    )  # keeps its cell
    text = gcx.encode(rows, tool="list_issues", layout=layout)
    assert text.split("\n") == [
        "GCX1 tool=list_issues fields=url,labels_url,number"
        f" template=labels_url={{url}}/labels\\{{/name\\}} prefix=url={base}",
        "issues/1\t\t1",
        "issues/2\t\t2",
        "issues/3\telsewhere\t3",
    ]
    assert gcx.decode(text, layout=layout) == rows
    assert layout.check([{**rows[0], "labels_url": "other"}]) == []  # a template is no promise
    with pytest.raises(DecodeError, match="derived columns differ"):
        gcx.decode(text.replace(" template=labels_url={url}/labels\\{/name\\}", ""), layout=layout)


def test_dcp_tells_null_from_absent_by_the_layout_in_every_dialect() -> None:
    layout = Layout("t", 1, (Field("a", "integer", required=False), Field("b", ("string", "null"))))
    records = [{"a": 1, "b": None}, {"b": "x"}]
    for dialect in ("gateway", "v0.3"):
        text = dcp.encode(records, layout, dialect=dialect, exact=True)
        assert dcp.decode(text, schema=layout) == records
        assert dcp.decode(text, schema=layout.to_dcp()) != records  # the dialect alone cannot


def test_dcp_read_with_a_registry_uses_the_layout_its_header_names() -> None:
    from gcxwire.layouts import Registry

    first = Layout("t", 1, (Field("a", "integer", required=False), Field("b", "string")))
    second = Layout("u", 3, (Field("c", ("string", "null")),))
    registry = Registry([first, second])
    assert registry.find("t:v1#1") is first and registry.find("t:v2") is None
    for layout, records in ((first, [{"b": "x"}, {"a": 1, "b": "y"}]), (second, [{"c": None}])):
        for dialect in ("gateway", "v0.3"):
            text = dcp.encode({"n": 1, "rows": records}, layout, dialect=dialect)
            assert dcp.decode("\n" + text, schema=registry) == {"n": 1, "rows": records}


# --- drift: refused, or the inferred encoding ------------------------------------------------


@pytest.mark.parametrize("fmt", ["gcx", "dcp"])
def test_a_value_that_does_not_fit_is_refused_naming_path_tool_and_version(fmt: str) -> None:
    value = {"total_count": 1, "items": [_repo(1), _repo(2, id="2")]}
    with pytest.raises(DriftError) as caught:
        if fmt == "gcx":
            gcx.encode(value, tool="search_repositories", layout=REPOS)
        else:
            dcp.encode(value, REPOS)
    error = caught.value
    assert error.path == "$.items[1].id"
    assert str(error) == (
        "Field 'id' is string, layout search_repositories:v2 says integer - at `$.items[1].id`"
    )
    assert (error.drift.kind, error.drift.tool, error.drift.version) == (
        "type_change", "search_repositories", 2,
    )  # fmt: skip


@pytest.mark.parametrize(
    "record",
    [
        _repo(1, stars=3),  # a new field
        {k: v for k, v in _repo(1).items() if k != "full_name"},  # a required one missing
        _repo(1, owner={"login": "o", "type": "Organization"}),  # not the constant
        _repo(1, html_url="https://gitlab.com/o/r"),  # not the prefix
    ],
)
def test_fallback_writes_what_no_layout_would_and_reports_the_drift(record: Any) -> None:
    seen: list[Drift] = []
    value = [_repo(0), record]
    for report in ("fallback", seen.append):
        text = gcx.encode(value, tool="search_repositories", layout=REPOS, on_drift=report)
        assert text == gcx.encode(value, tool="search_repositories")
        assert dcp.encode(value, REPOS, on_drift=report) == dcp.encode(value)
    assert len(seen) == 2 and seen[0] == seen[1] == REPOS.check(value)[0]
    with pytest.raises(DecodeError):  # a fallback is not the layout's payload
        gcx.decode(gcx.encode(value, tool="search_repositories"), layout=REPOS)


def test_fallback_logs_the_drift_without_the_value(caplog: pytest.LogCaptureFixture) -> None:
    value = [_repo(0, owner={"login": "o", "type": "Secret-Org"})]
    with caplog.at_level(logging.WARNING, logger="gcxwire.layouts"):
        gcx.encode(value, tool="search_repositories", layout=REPOS, on_drift="fallback")
    (entry,) = caplog.records
    message = entry.getMessage()
    assert "search_repositories:v2" in message and "$[0].owner.type" in message
    assert "Secret-Org" not in message
    assert entry.drift.kind == "not_constant"  # type: ignore[attr-defined]


def test_a_value_json_cannot_carry_is_an_encode_error_not_drift() -> None:
    with pytest.raises(EncodeValueError, match="nan is not valid JSON") as caught:
        gcx.encode([_repo(0, topics=[float("nan")])], tool="search_repositories", layout=REPOS)
    assert not isinstance(caught.value, DriftError)


def test_layout_misuse_is_refused() -> None:
    with pytest.raises(EncodeValueError, match="is not layout 'search_repositories:v2'"):
        gcx.encode([_repo(0)], tool="other", layout=REPOS)
    with pytest.raises(ValueError, match="typed profile"):
        gcx.encode([_repo(0)], tool="search_repositories", profile="reference", layout=REPOS)
    with pytest.raises(ValueError, match="on_drift"):
        gcx.encode([_repo(0)], tool="search_repositories", layout=REPOS, on_drift="ignore")  # type: ignore[arg-type]
    spaced = Layout("t", 1, (Field("a b", "string"),))
    with pytest.raises(EncodeValueError, match="cannot be a GCX1 field name"):
        gcx.encode([{"a b": "x"}], tool="t", layout=spaced)
    assert dcp.decode(dcp.encode([{"a b": "x"}], spaced), schema=spaced) == [{"a b": "x"}]


# --- decoding checks the header --------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message", "column"),
    [
        ("GCX1 tool=other fields=id\n1", "names tool 'other'", 6),
        ("GCX1 tool=search_repositories fields=id,name\n1\tx", "fields are 'id,name'", 31),
        ("GCX1 tool=t fields=a is=list\n1", "holds 0 tables", 1),
    ],
)
def test_gcx_decode_with_a_layout_checks_the_header(text: str, message: str, column: int) -> None:
    with pytest.raises(DecodeError, match=message) as caught:
        gcx.decode("# a comment\n" + text, layout=REPOS)
    assert (caught.value.lineno, caught.value.colno) == (2, column)


def test_gcx_decode_refuses_a_header_whose_markers_differ() -> None:
    good = gcx.encode([_repo(1), _repo(2)], tool="search_repositories", layout=REPOS)
    for bad in (
        good.replace("type=User", "type"),  # the constant column is gone
        good.replace(" prefix=html_url=https://github.com/", ""),  # and the prefix
        good.replace(
            "prefix=html_url=https://github.com/", "prefix=html_url=https://github.com/o/"
        ),
    ):
        with pytest.raises(DecodeError, match="search_repositories:v2 says otherwise"):
            gcx.decode(bad, layout=REPOS)
    assert gcx.decode(good, typed=False, layout=REPOS)["sections"][0]["fields"][0] == "id"


def test_dcp_decode_with_a_layout_checks_the_header() -> None:
    text = dcp.encode([{"id": 1}], domain="search_repositories")
    with pytest.raises(DecodeError, match="expected 'search_repositories:v2'") as caught:
        dcp.decode(text, schema=REPOS)
    assert (caught.value.lineno, caught.value.colno) == (1, 1)
    other = dcp.encode([_repo(1)], REPOS).replace('"id","full_name"', '"full_name","id"')
    with pytest.raises(DecodeError, match="differ from schema"):
        dcp.decode(other, schema=REPOS)
