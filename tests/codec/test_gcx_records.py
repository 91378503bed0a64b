"""One-row records (`is=object`) whose member objects are spread into groups.

A single object's member objects (``billing_details{address{city,…},email}``)
are written as group columns unless a name reference decoders read in the
groups is read elsewhere in the record. The properties round-trip exactly on
both twins, with names built to defeat the groups, and read in the
reference-decoder model with the same sections, rows and columns.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import strategies as st

from gcxwire import gcx
from gcxwire.errors import EncodeValueError

from .. import reference_model
from ..strategies import SCALARS, TEXT
from ..tiers import prove, tiers
from .gcx_checks import reference_sections, roundtrip
from .test_gcx_transforms import reads_new_forms

# Member names that repeat across groups (`id`, `type`), read as groups (`a{b`,
# `c}`), hold a dot or an `=`, or are reserved meta keys.
NAMES = st.sampled_from(["id", "type", "url", "city", "a{b", "c}", "k=v", "x.y", "of", "name"])


@st.composite
def members(draw: st.DrawFn, depth: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in draw(st.lists(NAMES, min_size=0, max_size=4, unique=True)):
        if depth and draw(st.integers(0, 3)) == 0:
            out[key] = draw(members(depth - 1))
        else:
            out[key] = draw(st.one_of(SCALARS, TEXT, st.just(None)))
    return out


@st.composite
def records(draw: st.DrawFn) -> dict[str, Any]:
    """A single object: scalars, member objects up to four levels, and `a.b` beside `a`."""
    top: dict[str, Any] = {"id": draw(st.one_of(SCALARS, TEXT))}
    for key in draw(st.lists(st.sampled_from(["owner", "site", "a", "address"]), unique=True)):
        top[key] = draw(members(3))
        if draw(st.booleans()):
            top[draw(NAMES)] = draw(st.one_of(SCALARS, TEXT))
    if draw(st.integers(0, 4)) == 0:
        top["a.b"] = draw(SCALARS)  # a dotted name beside `a`: `a` stays one JSON cell
    if draw(st.integers(0, 2)) == 0:  # a table: the other members form record sections
        table = [{"n": i, "id": draw(TEXT)} for i in range(2)]
        where = draw(st.sampled_from(["items", "owner", "site"]))
        if type(top.get(where)) is dict and draw(st.booleans()):
            top[where]["items"] = table  # the object holding it is opened, by path
        else:
            top[where] = table
        top["tail"] = draw(st.one_of(SCALARS, members(2)))
    return top


@tiers(fast=15, many=400)
def test_spread_records_round_trip(examples: int) -> None:
    prove(examples, roundtrip, records())


def reads_records(value: dict[str, Any]) -> None:
    """Every record section reads in the reference model with one field per column,
    and each string member as the same string (derived and marked ones aside)."""
    reads_new_forms(value, "t")
    for section, header in reference_sections(gcx.encode(value, tool="t")):
        assert len(set(section["fields"])) == len(section["fields"]), section["fields"]
        if dict(header.raw_meta).get("is") != "object":
            continue
        derived = {name for name, *_ in header.templates} | header.crlf
        got = reference_model.by_column(section["rows"][0], section["fields"], header.columns)
        for column, cell in got.items():
            original = _member(value, column, header.flat)
            if (
                isinstance(original, str)
                and original not in ("", "true", "false", "null")
                and not original.endswith("\r")
                and column not in derived
            ):
                assert cell == original, (column, cell, original)


def _member(value: Any, column: str, groups: frozenset[str]) -> Any:
    # The input member a record column holds: its longest group prefix, then its key.
    group = max((g for g in groups if column.startswith(g + ".")), key=len, default="")
    for key in group.split(".") if group else []:
        value = value[key]
    return value.get(column[len(group) + 1 :] if group else column)


@tiers(fast=15, many=400)
def test_reference_decoder_reads_spread_records(examples: int) -> None:
    prove(examples, reads_records, records())


CHARGE = {
    "amount": 100,
    "billing_details": {
        "address": {"city": None, "country": None, "postal_code": None},
        "email": None,
        "name": "Jenny Rosen",
    },
    "currency": "usd",
    "id": "ch_1",
    "outcome": {"reason": None, "type": "authorized"},
    "source": {"object": "source", "id": "src_1", "livemode": False},
}


def test_member_objects_of_a_record_become_groups() -> None:
    text = roundtrip(CHARGE, tool="retrieve_charge")
    header, row = text.split("\n")
    assert header == (
        "GCX1 tool=retrieve_charge fields=amount,"
        "billing_details{address{city,country,postal_code},email,name},currency,id,"
        "outcome{reason,type},source{object,source.id,livemode} empty=null flat={} is=object"
    )
    # `source{object,id,livemode}` would be read with a second field `id`: qualified.
    assert row == "100\t\t\t\t\tJenny Rosen\tusd\tch_1\t\tauthorized\tsource\tsrc_1\tfalse"
    fields = reference_model.decode(text)["sections"][0]["fields"]
    assert len(fields) == len(set(fields)) == 13


def test_a_member_name_read_in_an_earlier_group_is_qualified_in_the_later_one() -> None:
    value = {"a": {"x": 1, "y": 2, "z": 3, "u": 4, "t": 5}, "b": {"w": 0, "y": 4, "v": 5}}
    text = roundtrip(value)
    assert text.split("\n")[0] == "GCX1 tool=t fields=a{x,y,z,u,t},b{w,b.y,v} flat={} is=object"


def test_an_object_most_of_whose_names_would_be_qualified_stays_whole() -> None:
    # In one row `b.y,b.z,b.u` cost about what the JSON cell's quoted keys do.
    a = {"x": 1, "y": 2, "z": 3, "u": 4, "t": 5}
    value = {"a": a, "b": {"w": 0, "y": 4, "z": 5, "u": 6, "v": 7}}
    text = roundtrip(value)
    assert text.split("\n")[0] == "GCX1 tool=t fields=a{x,y,z,u,t},b flat={} is=object"


def test_inner_objects_open_where_their_names_are_free() -> None:
    status = {"self": "s", "id": "2", "name": "n"}  # `id` would read like the top-level `id`
    votes = {"self": "v", "votes": 0, "hasVoted": False}
    value = {"id": 1, "fields": {"status": status, "votes": votes, "x": "y"}}
    text = roundtrip(value)
    assert text.split("\n") == [
        "GCX1 tool=t fields=id,fields{status,votes{self,votes,hasVoted},x} flat={} is=object",
        '1\t{"self":"s","id":"2","name":"n"}\tv\t0\tfalse\ty',
    ]


def test_a_small_object_stays_a_json_cell() -> None:
    # Two columns more do not pay for the `flat={}` mark.
    text = roundtrip({"id": 1, "avatarUrls": {"48x48": "a", "24x24": "b"}})
    assert text.split("\n")[0] == "GCX1 tool=t fields=id,avatarUrls is=object"


def test_an_object_of_number_like_strings_stays_a_json_cell() -> None:
    # Spread, "1" and "2" would each need a guard (`\1`), which costs more than their quotes.
    value = {
        "info": {"a": "1", "b": "2", "c": "x"},
        "other": {"p": 1, "q": 2, "r": 3, "s": 4, "t": 5},
    }
    text = roundtrip(value)
    assert text.split("\n")[0] == "GCX1 tool=t fields=info,other{p,q,r,s,t} flat={} is=object"


def test_members_beside_a_table_spread_too() -> None:
    conditions = [{"type": "A"}, {"type": "B"}]
    status = {"conditions": conditions, "startTime": "t", "counts": {"failed": 1, "ready": 0}}
    text = roundtrip({"kind": "Job", "status": status})
    assert text.split("\n")[3:] == [
        "GCX1 tool=t fields=status{startTime,counts{failed,ready}} flat={} is=object",
        "t\t1\t0",
    ]


DAEMONSET: dict[str, Any] = {
    "kind": "DaemonSet",
    "metadata": {"annotations": {"applied": '{"kind":"DaemonSet","labels":{"app":"x"}}'}},
    "spec": {
        "template": {
            "spec": {
                "dnsPolicy": "Default",
                "hostNetwork": True,
                "restartPolicy": "Always",
                "schedulerName": "default-scheduler",
                "containers": [{"name": "a", "image": "i:1"}, {"name": "b", "image": "i:2"}],
            }
        }
    },
}


def test_a_record_beside_a_table_takes_the_cell_styles() -> None:
    # JSON text inside a JSON cell (Kubernetes' last-applied-configuration): json=raw.
    header, row, *_ = roundtrip(DAEMONSET).split("\n")
    assert header.endswith(" flat={} json=raw is=object")
    assert row.startswith('DaemonSet\t{"annotations":{"applied":"{\\"kind\\":')


def test_a_record_beside_a_table_writes_opened_members_in_groups() -> None:
    header = roundtrip(DAEMONSET).split("\n")[0]
    assert "spec{template{spec{dnsPolicy,hostNetwork,restartPolicy,schedulerName}}}" in header
    few = {"spec": {"a": 1, "b": 2, "items": [{"n": 0}, {"n": 1}]}}  # two: dotted names
    assert roundtrip(few).split("\n")[0] == "GCX1 tool=t fields=spec.a,spec.b flat=spec is=object"


def test_a_record_without_member_objects_keeps_its_plain_field_list() -> None:
    text = roundtrip({"id": 1, "tags": [], "meta": {}})
    assert text.split("\n")[0] == "GCX1 tool=t fields=id,tags,meta is=object"


def test_errors_inside_a_spread_member_name_its_path() -> None:
    with pytest.raises(EncodeValueError) as caught:
        gcx.encode({"n": 1, "owner": {"site": {"rank": float("nan")}}}, tool="t")
    assert caught.value.path == "$.owner.site.rank"


def test_a_spread_member_equal_to_another_is_derived_once() -> None:
    url = "https://api.github.com/repos/octo-org/hello/contents/notes/today.txt?ref=main"
    links = {"self": url, "html": "h"}
    value = {"content": {"name": "today.txt", "url": url, "type": "file", "_links": links}}
    text = roundtrip(value)
    assert text.split("\n") == [
        "GCX1 tool=t fields=content{name,url={content._links.self},type,_links{self,html}}"
        " flat={} template={} is=object",
        f"today.txt\t\tfile\t{url}\th",
    ]
