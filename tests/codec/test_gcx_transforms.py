"""Column transforms of the typed profile: `prefix=`, `template=` columns, `form=columns`.

Each marker round-trips exactly on both twins, including values built to defeat
it, and what it writes still reads in the reference-decoder model with the same
sections, rows and columns; unmarked string cells read as the same strings.
"""

from __future__ import annotations

import enum
from collections import OrderedDict
from typing import Any

import orjson
import pytest
from hypothesis import strategies as st

from gcxwire import _gcx_template, gcx
from gcxwire.errors import DecodeError, EncodeValueError

from .. import reference_model
from ..strategies import SCALARS, TEXT, json_values, same
from ..tiers import prove, tiers
from . import contract
from .gcx_checks import roundtrip

PREFIXES = st.sampled_from(
    ["https://api.github.com/repos/octo-org/hello/", "https://x.test/a/b/", "/srv/demo/files/"]
)
SUFFIXES = st.one_of(
    st.from_regex(r"[a-z]{1,8}/[a-z0-9%{}]{1,8}(/[a-z]{1,6})?", fullmatch=True),
    st.sampled_from(["issues/12", "12", "-3", "true", "null", "labels/#x", "a\\b/c", "x/\ty"]),
    TEXT,
)


@st.composite
def url_tables(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Rows whose `url` (and `owner.html_url`) share a prefix, with cells built to break it."""
    prefix = draw(PREFIXES)
    rows = []
    for i in range(draw(st.integers(min_value=3, max_value=7))):
        row: dict[str, Any] = {"id": i, "url": prefix + draw(SUFFIXES)}
        if draw(st.booleans()):
            row["owner"] = {"login": draw(TEXT), "html_url": prefix + "users/" + draw(SUFFIXES)}
        row["note"] = draw(TEXT)
        rows.append(row)
    k = draw(st.integers(0, len(rows) - 1))
    defeat = draw(st.sampled_from(["none", "lacks", "exact", "null", "number", "list", "gone"]))
    if defeat == "lacks":  # one cell lacks the prefix
        rows[k]["url"] = draw(TEXT)
    elif defeat == "exact":  # one cell is the prefix itself (its suffix would be empty)
        rows[k]["url"] = prefix
    elif defeat == "null":
        rows[k]["url"] = None
    elif defeat == "number":
        rows[k]["url"] = draw(st.integers())
    elif defeat == "list":
        rows[k]["url"] = [prefix + "x/y"]
    elif defeat == "gone":
        del rows[k]["url"]
    return rows


TEMPLATE_PARTS = st.sampled_from(
    ["https://api.github.com/users/", "https://x.test/{a}/", "/srv/a\\b/", "", "user:"]
)
TAILS = st.sampled_from(["/followers", "/following{/other_user}", "@example.com", "", "}x{"])


@st.composite
def derived_tables(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Rows whose `url` (and `owner.url`) repeat `login` inside a fixed text, built to break it."""
    before, after = draw(TEMPLATE_PARTS), draw(TAILS)
    rows = []
    for i in range(draw(st.integers(min_value=3, max_value=7))):
        login: Any = draw(st.one_of(TEXT, st.integers(min_value=-5, max_value=10**20)))
        text = login if isinstance(login, str) else str(login)
        row: dict[str, Any] = {"login": login, "url": before + text + after, "id": i}
        if draw(st.booleans()):
            row["owner"] = {"name": text, "url": "https://example.org/people/" + text}
        rows.append(row)
    k = draw(st.integers(0, len(rows) - 1))
    defeat = draw(
        st.sampled_from(["none", "breaks", "null", "number", "list", "gone", "source", "bool"])
    )
    if defeat == "breaks":  # one row's cell does not follow the template
        rows[k]["url"] = draw(TEXT)
    elif defeat == "null":
        rows[k]["url"] = None
    elif defeat == "number":
        rows[k]["url"] = draw(st.integers())
    elif defeat == "list":
        rows[k]["url"] = [before + "x" + after]
    elif defeat == "gone":  # the derived column is absent in one row
        del rows[k]["url"]
    elif defeat == "source":  # the source is absent in one row
        del rows[k]["login"]
    elif defeat == "bool":  # a source that is no text (true is no "true")
        rows[k]["login"] = True
        rows[k]["url"] = before + "true" + after
    return rows


@st.composite
def derived_records(draw: st.DrawFn) -> dict[str, Any]:
    """One object whose members repeat its `url` inside fixed texts, built to break them."""
    url = draw(TEMPLATE_PARTS) + draw(TEXT) + "/repos/octo-org/hello-world"
    out: dict[str, Any] = {"id": draw(SCALARS), "url": url}
    for name, tail in [("forks_url", "/forks"), ("keys_url", "/keys{/key_id}"), ("html", "")]:
        out[name] = url + tail
    out["note"] = draw(TEXT)
    defeat = draw(st.sampled_from(["none", "breaks", "null", "number", "source", "bool"]))
    if defeat == "breaks":
        out["forks_url"] = draw(TEXT)
    elif defeat == "null":
        out["keys_url"] = None
    elif defeat == "number":
        out["html"] = draw(st.integers())
    elif defeat == "source":  # the source member is gone
        del out["url"]
    elif defeat == "bool":
        out["url"] = True
    return out


ESCAPED = st.sampled_from(['k:{"uid":"57cc"}', "C:\\temp\\x", "a\tb\nc", '"', "\\", "\\n"])


@st.composite
def json_tables(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Rows with JSON cells whose strings hold quotes and backslashes, beside texts that look so."""
    rows = []
    for i in range(draw(st.integers(min_value=1, max_value=5))):
        inner = draw(st.one_of(ESCAPED, TEXT))
        row: dict[str, Any] = {
            "id": i,
            "fields": draw(
                st.sampled_from([{inner: {}}, [inner, {"f": inner}], {"a": [1, inner]}])
            ),
            "note": draw(st.one_of(TEXT, st.sampled_from(['[x\\y"]', '{"a":"\\"}', "\\[", "[]"]))),
        }
        if draw(st.booleans()):
            row["more"] = draw(json_values(2))
        rows.append(row)
    return rows


NUMBERISH = st.one_of(
    st.from_regex(r"-?(0|[1-9][0-9]{0,6})(\.[0-9]{1,3})?(e[+-]?[0-9])?", fullmatch=True),
    st.sampled_from(["true", "false", "null", "\\12", "tru\\e", "#1", "12\r", "[1]", ""]),
    TEXT,
)


@st.composite
def string_columns(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Columns of number-like strings and words, built to break with one value of another type."""
    rows = [
        {"zip": draw(NUMBERISH), "id": i, "ts": draw(NUMBERISH)}
        for i in range(draw(st.integers(min_value=1, max_value=8)))
    ]
    k = draw(st.integers(0, len(rows) - 1))
    defeat = draw(st.sampled_from(["none", "int", "null", "gone", "bool"]))
    if defeat == "int":
        rows[k]["zip"] = draw(st.integers())
    elif defeat == "null":
        rows[k]["ts"] = None
    elif defeat == "gone":
        del rows[k]["zip"]
    elif defeat == "bool":
        rows[k]["ts"] = True
    return rows


LINES = st.lists(st.one_of(TEXT, st.sampled_from(["a\\nb", "\\", "[x]", "12", "#"])), max_size=4)


@st.composite
def crlf_columns(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Texts with Windows line ends, built to break with one lone LF or CR, or a non-string."""
    rows: list[dict[str, Any]] = []
    for i in range(draw(st.integers(min_value=1, max_value=5))):
        lines = [line.replace("\r", "").replace("\n", "") for line in draw(LINES)]
        rows.append({"id": i, "body": "\r\n".join([*lines, "end", ""])})
    k = draw(st.integers(0, len(rows) - 1))
    defeat = draw(st.sampled_from(["none", "lf", "cr", "crcr", "null", "int", "gone", "quote"]))
    if defeat == "lf":
        rows[k]["body"] += "x\ny"
    elif defeat == "cr":
        rows[k]["body"] += "x\r"
    elif defeat == "crcr":
        rows[k]["body"] += "\r\r\n"
    elif defeat == "null":
        rows[k]["body"] = None
    elif defeat == "int":
        rows[k]["body"] = 12
    elif defeat == "gone":
        del rows[k]["body"]
    elif defeat == "quote":  # a text that starts like a JSON literal keeps its guard
        rows[k]["body"] = '"q"\r\n[1]\r\n'
    return rows


NAMES = st.sampled_from(["time", "temperature_2m", "rain", "code", "a.b", "of"])


@st.composite
def columnar(draw: st.DrawFn) -> dict[str, Any]:
    """Objects of parallel arrays; sometimes one array is shorter (then they are no table)."""
    names = draw(st.lists(NAMES, min_size=2, max_size=4, unique=True))
    size = draw(st.integers(min_value=0, max_value=6))
    out: dict[str, Any] = {
        n: draw(st.lists(st.one_of(SCALARS, json_values(3)), min_size=size, max_size=size))
        for n in names
    }
    if draw(st.integers(0, 4)) == 0:
        out[names[-1]] = out[names[-1]][:-1]
    return out


@st.composite
def payloads(draw: st.DrawFn) -> Any:
    """The new forms at the top level and as members beside scalars and tables."""
    kind = draw(
        st.sampled_from(
            [
                *("table", "derived", "record", "json", "strings", "crlf", "columns"),
                *("object", "trees", "words"),
            ]
        )
    )
    if kind == "trees":
        from .test_gcx_trees import tree_tables

        return draw(tree_tables())
    if kind == "words":
        from .test_gcx_lists import word_tables

        return draw(word_tables())
    if kind == "table":
        return draw(url_tables())
    if kind == "derived":
        return draw(derived_tables())
    if kind == "record":
        return draw(derived_records())
    if kind == "json":
        return draw(json_tables())
    if kind == "strings":
        return draw(string_columns())
    if kind == "crlf":
        return draw(crlf_columns())
    if kind == "columns":
        return draw(columnar())
    out: dict[str, Any] = {}
    if draw(st.booleans()):
        out["latitude"] = draw(SCALARS)
    out["hourly"] = draw(columnar())
    if draw(st.booleans()):
        out["items"] = draw(st.one_of(url_tables(), derived_tables()))
    if draw(st.booleans()):
        out["units"] = {"time": "iso8601"}
    return out


WRAPPERS = st.sampled_from(["data", "query", "hits", "lines", "a.b", "of", "x y"])


@st.composite
def deep(draw: st.DrawFn) -> dict[str, Any]:
    """Tables one to three objects below the top, beside scalars, objects and colliding names."""
    inner: Any = draw(st.one_of(url_tables(), columnar(), st.lists(SCALARS, max_size=3)))
    for _ in range(draw(st.integers(1, 3))):
        level: dict[str, Any] = {}
        for _ in range(draw(st.integers(0, 2))):
            level[draw(st.sampled_from(["total", "next", "info", "a.b", ""]))] = draw(
                st.one_of(SCALARS, json_values(2))
            )
        level[draw(WRAPPERS)] = inner
        if draw(st.booleans()):
            level[draw(st.sampled_from(["after", "more"]))] = draw(SCALARS)
        inner = level
    out: dict[str, Any] = inner
    if draw(st.booleans()):  # a top-level name that starts like a group: `data.items`
        out = {**out, next(iter(out)) + ".items": draw(SCALARS)}
    return out


@tiers(fast=25, many=200)
def test_deep_tables_round_trip(examples: int) -> None:
    prove(examples, roundtrip, deep())


MEMBERS = st.sampled_from(["login", "id", "url", "site", "a{b", "c}", "k=v", "name"])


@st.composite
def grouped(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Rows with nested objects in every row: groups, with names built to defeat them.

    A member named like a top-level column (`id`) would repeat a name in the
    reference decoders' reading; braces in names or constants would read as
    groups; a member holding the same value in every row is a constant.
    """
    members = draw(st.lists(MEMBERS, min_size=1, max_size=4, unique=True))
    top = draw(st.sampled_from(["id", "n", "name"]))
    rows = []
    for i in range(draw(st.integers(1, 5))):
        owner: dict[str, Any] = {m: draw(st.one_of(SCALARS, st.just(f"v{i}"))) for m in members}
        if draw(st.booleans()):
            owner["site"] = {"url": f"u{i}", "kind": draw(st.sampled_from(["x", "{y}", "z}"]))}
        rows.append({top: i, "owner": owner, "tail": draw(TEXT)})
    return rows


@tiers(fast=25, many=200)
def test_grouped_field_lists_round_trip(examples: int) -> None:
    prove(examples, roundtrip, grouped())


@tiers(fast=25, many=200)
def test_reference_decoder_reads_grouped_field_lists(examples: int) -> None:
    prove(examples, reads_new_forms, grouped(), st.just("t"))


def test_groups_replace_dotted_names_when_no_name_repeats() -> None:
    rows = [{"id": i, "owner": {"login": f"a{i}", "site": {"url": f"u{i}"}}} for i in range(3)]
    text = roundtrip(rows)
    assert text.split("\n")[0] == "GCX1 tool=t fields=id,owner{login,site{url}} flat={}"
    fields = reference_model.decode(text)["sections"][0]["fields"]
    assert fields == ["id", "owner{login", "site{url}}"]  # three columns, as written


def test_a_one_row_table_spreads_its_objects_too() -> None:
    text = roundtrip([{"n": 1, "owner": {"login": "a", "site": {"url": "u"}}}])
    assert text.split("\n")[0] == "GCX1 tool=t fields=n,owner{login,site{url}} flat={}"


def test_a_name_that_would_repeat_is_qualified_by_its_group() -> None:
    rows = [{"id": i, "owner": {"login": f"a{i}", "id": i, "type": f"t{i}"}} for i in range(3)]
    text = roundtrip(rows)  # `owner{login,id,type}` would read as a second field `id`
    assert text.split("\n")[0] == "GCX1 tool=t fields=id,owner{login,owner.id,type} flat={}"
    fields = reference_model.decode(text)["sections"][0]["fields"]
    assert fields == ["id", "owner{login", "owner.id", "type}"]


def test_sibling_objects_qualify_what_they_share() -> None:
    # Jira's issue fields: objects with the same members, one inside another's twin.
    def user(n: int) -> dict[str, Any]:
        return {"self": f"s{n}", "name": f"n{n}", "avatarUrls": {"48": f"a{n}", "24": f"b{n}"}}

    rows = [
        {"key": f"K-{i}", "fields": {"project": user(i), "assignee": user(i + 9), "name": f"x{i}"}}
        for i in range(2)
    ]
    text = roundtrip(rows)
    assert text.split("\n")[0] == (
        "GCX1 tool=t fields=key,fields{project{self,name,avatarUrls{48,24}},"
        "assignee{self,assignee.name,assignee.avatarUrls{48,avatarUrls.24}},name} flat={}"
    )
    fields = reference_model.decode(text)["sections"][0]["fields"]
    assert len(set(fields)) == len(fields) == 10


def test_qualified_names_read_with_the_most_groups_that_match() -> None:
    text = "GCX1 tool=t fields=a{b{c,a.b.d,b.e}} flat={}\n1\t2\t3"
    assert gcx.decode(text) == [{"a": {"b": {"c": 1, "d": 2, "e": 3}}}]


def test_a_dotted_member_that_would_read_qualified_keeps_dotted_names() -> None:
    rows = [{"id": i, "owner": {"login": f"a{i}", "owner.id": i}} for i in range(3)]
    text = roundtrip(rows)  # in `owner{…}` the name `owner.id` would read as `id`
    assert "fields=id,owner.login,owner.owner.id flat=owner" in text


QUALIFIED_MEMBERS = st.sampled_from(["self", "id", "name", "a.id", "b.self", "x"])


@st.composite
def member_shapes(draw: st.DrawFn, depth: int = 0) -> dict[str, Any]:
    # An object's member names; a nested object's shape where one holds an object.
    out: dict[str, Any] = {
        m: None for m in draw(st.lists(QUALIFIED_MEMBERS, min_size=1, max_size=3, unique=True))
    }
    if depth < 2 and draw(st.booleans()):
        out[draw(st.sampled_from(["a", "b"]))] = draw(member_shapes(depth + 1))
    return out


@st.composite
def shared_members(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Rows of sibling objects (some nested in each other) drawing members from a few names.

    Built to defeat qualification: a top-level column named like a member, members
    named with a group's name and a dot (`a.id` in `a{…}` would read qualified),
    the same object name at two depths (`a` in `b{a{…}}` beside a top-level `a`).
    """
    names = draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=3, unique=True))
    shapes = {n: draw(member_shapes()) for n in names}
    top = draw(st.sampled_from(["id", "self", "n"]))

    def fill(shape: dict[str, Any], i: int) -> dict[str, Any]:
        return {
            k: draw(st.one_of(SCALARS, st.just(f"v{i}"))) if sub is None else fill(sub, i)
            for k, sub in shape.items()
        }

    return [
        {top: i, **{n: fill(shapes[n], i) for n in names}} for i in range(draw(st.integers(1, 3)))
    ]


def unique_reference_columns(value: Any) -> None:
    """Round trip, the reference reading (no error, same columns), and no repeated field."""
    text = roundtrip(value)
    reads_new_forms(value, "t")
    for section in reference_model.decode(text)["sections"]:
        assert len(set(section["fields"])) == len(section["fields"]), text


@tiers(fast=10, many=300)
def test_qualified_group_names_round_trip_and_read_as_distinct_columns(examples: int) -> None:
    prove(examples, unique_reference_columns, shared_members())


def test_constant_inside_a_group() -> None:
    rows = [{"n": i, "owner": {"login": f"a{i}", "type": "User"}} for i in range(3)]
    text = roundtrip(rows)
    assert text.split("\n")[0] == "GCX1 tool=t fields=n,owner{login,type=User} flat={}"


MISSING = st.sampled_from(["absent", "null", "object"])


@st.composite
def sparse_tables(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Rows where an object is there in some rows and null or absent in others.

    Built to defeat `optional=` / `nullable=`: members that are null, `{}` or
    absent (a row's cells may all be blank while it holds the object), inner
    objects that some of those objects lack, and both kinds of miss in one column.
    """
    members = draw(
        st.lists(st.sampled_from(["login", "id", "site", "n"]), min_size=1, max_size=3, unique=True)
    )
    rows: list[dict[str, Any]] = []
    for i in range(draw(st.integers(2, 6))):
        row: dict[str, Any] = {"id": i}
        kind = draw(MISSING)
        if kind == "object":
            owner: dict[str, Any] = {}
            for m in members:
                if draw(st.booleans()):
                    owner[m] = draw(st.one_of(SCALARS, st.just({}), st.just(f"v{i}")))
            if draw(st.booleans()):
                inner = draw(st.sampled_from([None, {}, {"url": f"u{i}"}, {"url": None}]))
                if inner is not None or draw(st.booleans()):
                    owner["home"] = inner
            row["owner"] = owner
        elif kind == "null":
            row["owner"] = None
        if draw(st.booleans()):
            row["tail"] = draw(st.one_of(SCALARS, TEXT))
        rows.append(row)
    return rows


@tiers(fast=25, many=300)
def test_sparse_groups_round_trip(examples: int) -> None:
    prove(examples, roundtrip, sparse_tables())


@tiers(fast=25, many=300)
def test_reference_decoder_reads_sparse_groups(examples: int) -> None:
    prove(examples, reads_new_forms, sparse_tables(), st.just("t"))


def test_an_object_some_rows_lack_is_spread_and_marked_optional() -> None:
    rows = [
        {"id": 1, "owner": {"login": "a", "site": "x"}},
        {"id": 2},
        {"id": 3, "owner": {"login": "c", "site": "z"}},
    ]
    text = roundtrip(rows)
    assert (
        text
        == "GCX1 tool=t fields=id,owner{login,site} flat={} optional=owner\n1\ta\tx\n2\n3\tc\tz"
    )
    assert reference_model.decode(text)["sections"][0]["fields"] == ["id", "owner{login", "site}"]


def test_an_object_some_rows_hold_null_is_marked_nullable() -> None:
    rows = [
        {"id": i, "milestone": {"title": f"m{i}", "state": "open"} if i % 2 else None}
        for i in range(4)
    ]
    text = roundtrip(rows)
    assert (
        text.split("\n")[0]
        == "GCX1 tool=t fields=id,milestone{title,state} flat={} nullable=milestone"
    )


def test_a_stream_reads_missing_groups_row_by_row() -> None:
    nulls = [{"id": i, "m": {"x": i, "y": "s"} if i % 2 else None} for i in range(4)]
    absents = [{"id": 9, "o": {"a": None}}, {"id": 10}, {"id": 11, "o": {"a": 1, "b": {}}}]
    for rows, marker in ((nulls, "nullable=m"), (absents, "optional=o")):
        text = gcx.encode(rows, tool="t")
        assert marker in text.split("\n")[0]
        decoder = gcx.Decoder()
        got = [row for line in text.split("\n") for _, row in decoder.feed(line + "\n")]
        got += [row for _, row in decoder.close()]
        assert got == rows


def test_objects_whose_cells_could_all_be_blank_stay_json() -> None:
    # {} and an object of an inner group only would read as a row without the object.
    first = {"login": "a", "home": {"url": "u0"}}
    for owner in ({}, {"home": {"url": "u1"}}):
        rows = [{"id": 0, "owner": first}, {"id": 1, "owner": owner}, {"id": 2}]
        assert "optional=" not in roundtrip(rows)
    rows = [{"id": 0, "owner": {"login": "a"}}, {"id": 1, "owner": None}, {"id": 2}]
    assert "optional=" not in roundtrip(rows) and "nullable=" not in roundtrip(rows)


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ("GCX1 tool=t fields=id,o{a,b} flat={} optional=p\n1", "names no group"),
        ("GCX1 tool=t fields=id,o{a,b} flat={} optional=o nullable=o\n1", "both"),
    ],
)
def test_missing_group_markers_name_declared_groups(payload: str, message: str) -> None:
    with pytest.raises(DecodeError, match=message):
        gcx.decode(payload)


@pytest.mark.parametrize(
    "payload",
    ["GCX1 tool=t fields=a} flat={}\n1", "GCX1 tool=t fields=a{b flat={}\n1"],
)
def test_unbalanced_groups_raise_decode_error(payload: str) -> None:
    with pytest.raises(DecodeError, match="(?i)group"):
        gcx.decode(payload)


def test_table_below_the_top_is_a_section_with_its_path() -> None:
    value = {
        "continue": {"offset": 10},
        "query": {
            "info": {"hits": 5060},
            "search": [{"ns": i, "title": t} for i, t in enumerate("ab")],
        },
        "done": True,
    }
    text = roundtrip(value, tool="search")
    assert text.split("\n") == [
        "GCX1 tool=search fields=continue,query.info flat=query is=object",
        '{"offset":10}\t{"hits":5060}',
        "GCX1 tool=search fields=ns,title of=query.search done=true",
        "0\ta",
        "1\tb",
    ]


def test_one_row_tables_stay_inside_their_object() -> None:
    value = {"lines": {"object": "list", "data": [{"id": 1}]}, "id": "in_1"}
    assert "of=" not in roundtrip(value)


def test_a_dotted_top_level_name_keeps_its_sibling_closed() -> None:
    rows = [{"id": i} for i in range(3)]
    text = roundtrip({"data": {"items": rows}, "data.items": 1})
    assert "of=data.items" not in text


def test_a_table_named_with_a_dot_escapes_it_in_its_path() -> None:
    text = roundtrip({"a.b": [{"id": i} for i in range(2)], "n": 1})
    assert "of=a\\.b" in text
    assert reference_model.decode(text)["sections"][0]["meta"]["of"] == "a.b"


@tiers(fast=25, many=200)
def test_new_forms_round_trip(examples: int) -> None:
    prove(examples, roundtrip, payloads())


@tiers(fast=25, many=200)
def test_reference_decoder_reads_new_forms(examples: int) -> None:
    tools = st.sampled_from(["t", "get_forecast"])
    prove(examples, reads_new_forms, st.one_of(payloads(), deep()), tools)


def reads_new_forms(value: Any, tool: str) -> None:
    """No error, the same sections, rows and columns; unmarked string cells unchanged."""
    contract.holds(value, gcx.encode(value, tool=tool))


LABELS = [
    {"id": 1000 + i, "url": f"https://api.github.com/repos/octo-org/labels/labels/{n}", "name": n}
    for i, n in enumerate(["bug", "docs", "duplicate", "enhancement"])
]


USERS: list[dict[str, Any]] = [
    {"login": n, "id": i, "followers_url": f"https://api.github.com/users/{n}/followers"}
    for i, n in enumerate(["octocat", "hubot", "monalisa", "defunkt", "mojombo", "pjhyett"])
]


def test_template_blanks_the_cells_it_gives() -> None:
    text = roundtrip(USERS, tool="list_users")
    header, first, *_ = text.split("\n")
    # Written in the field list (`template={}` says so), the column named once.
    assert header == (
        "GCX1 tool=list_users fields=login,id,"
        "followers_url=https://api.github.com/users/{login}/followers template={}"
    )
    assert first == "octocat\t0"


def test_template_row_that_breaks_it_keeps_its_cell() -> None:
    rows = [dict(r) for r in USERS]
    rows[1]["followers_url"] = "https://example.org/elsewhere"
    rows[2]["followers_url"] = None
    text = roundtrip(rows)
    assert "followers_url" in derived(text)
    assert text.split("\n")[2:4] == ["hubot\t1\thttps://example.org/elsewhere", "monalisa\t2\tnull"]


def test_template_found_in_a_long_table_from_a_sample_first() -> None:
    rows = [{"n": f"u{i}", "u": f"https://x.test/people/u{i}/page"} for i in range(200)]
    rows[100]["u"] = "https://elsewhere.test/u100"  # the sample may meet a row that breaks it
    assert derived(roundtrip(rows))["u"] == ("n", "https://x.test/people/", "/page")
    rows = [{"n": f"u{i}", "u": f"https://x.test/{i % 7}/u{i}"} for i in range(200)]
    assert not derived(roundtrip(rows))  # a seventh of the rows follow the first's


def test_template_braces_in_the_text_are_escaped() -> None:
    rows = [{"login": n, "u": f"https://x.test/{n}/gists{{/gist_id}}"} for n in "abcde"]
    text = roundtrip(rows)
    assert "template=u=https://x.test/{login}/gists\\{/gist_id\\}" in text
    model = reference_model.decode(text)["sections"][0]
    assert model["meta"]["template"] == "u=https://x.test/{login}/gists{/gist_id}"


def test_template_from_an_int_and_from_a_nested_column() -> None:
    base = "https://api.github.com/repos/o/r/issues/"
    rows = [
        {
            "number": n,
            "url": f"{base}{n}",
            "user": {"login": f"u{n}", "page": f"https://x.test/@u{n}"},
        }
        for n in (*range(1, 9), 10**30, -1)
    ]
    text = roundtrip(rows)
    assert derived(text)["url"] == ("number", "https://api.github.com/repos/o/r/issues/", "")
    assert derived(text)["user.page"] == ("user.login", "https://x.test/@", "")


def test_no_template_for_few_rows_or_when_a_row_lacks_the_column() -> None:
    short = [{"login": n, "u": f"https://example.test/{n}/x"} for n in ("ab", "cd")]
    assert not derived(roundtrip(short))  # two short cells do not pay for the header
    assert "followers_url" in derived(roundtrip(USERS[:2]))  # two long ones do
    rows = [dict(r) for r in USERS]
    del rows[3]["followers_url"]
    assert not derived(roundtrip(rows))
    rows = [dict(r) for r in USERS]
    for r in rows[:4]:  # more than half the rows break it
        r["followers_url"] = "https://example.org/" + r["login"][::-1]
    assert not derived(roundtrip(rows))


def test_template_text_around_the_placeholder_holds_no_whitespace() -> None:
    # The search finds a cell's first and last space once; a space inside the
    # placeholder's own text is allowed, one in the fixed text on either side is not.
    names = ["oct cat", "hu bot", "mona lisa", "de funkt"]
    inside = [{"n": n, "u": f"https://x.test/people/{n}/page"} for n in names]
    assert derived(roundtrip(inside))["u"] == ("n", "https://x.test/people/", "/page")
    for around in ("https://x.test/a b/{}/page", "https://x.test/{} /page", " https://x.test/{}"):
        rows = [{"n": n.replace(" ", "_"), "u": around.format(n.replace(" ", "_"))} for n in names]
        assert not derived(roundtrip(rows)), around


def test_no_template_when_a_row_is_not_a_dict() -> None:
    # The search looks only at the first row's type: any other row that is not
    # exactly a dict reads as lacking the column, so nothing is derived.
    fields = ["login", "id", "followers_url"]
    paths = [(f,) for f in fields]
    assert _gcx_template._templates(USERS, fields, paths, (), {}) != {}
    for other in ("octocat", None, OrderedDict(USERS[3])):
        for at in (0, 3, len(USERS) - 1):
            rows: list[Any] = list(USERS)
            rows[at] = other
            assert _gcx_template._templates(rows, fields, paths, (), {}) == {}, (other, at)


def test_template_needs_half_the_rows_however_they_break_it() -> None:
    # The count stops once too many rows break it: the same answer as counting all.
    for size in (3, 4, 17, 40):
        for broken in range(size):
            tail = "/page/" + "x" * 30  # long enough to pay on three rows
            rows = [{"n": f"u{i}", "u": f"https://x.test/people/u{i}{tail}"} for i in range(size)]
            for r in rows[size - broken :]:
                r["u"] = "https://elsewhere.test/" + r["n"]
            follow = size - broken
            expect = follow >= max(min(size, 3), (size + 1) // 2)
            if size > 16:  # the spread sample must hold it too
                expect = expect and sum(i * size // 8 < follow for i in range(8)) >= 4
            assert ("u" in derived(roundtrip(rows))) is expect, (size, broken)


def test_a_record_writes_its_members_derived_from_another_once() -> None:
    url = "https://api.github.com/repos/octokit-fixture-org/hello-world"
    repo = {"id": 1, "url": url, "forks_url": url + "/forks", "keys_url": url + "/keys{/key_id}"}
    text = roundtrip(repo, tool="get_repository")
    header, row = text.split("\n")
    # A text without braces of its own is written in the field list, one with them as a pair.
    assert header == (
        "GCX1 tool=get_repository fields=id,url,forks_url={url}/forks,keys_url"
        " template=keys_url={url}/keys\\{/key_id\\} template={} is=object"
    )
    assert row == "1\t" + url
    # One short member is not worth its header token: it stays in the row.
    assert not derived(roundtrip({"id": 1, "name": "hello-world-app", "slug": "hello-world-app!"}))


def test_json_cells_keep_their_backslashes_once_under_json_raw() -> None:
    rows = [
        {"name": f"pod-{i}", "managed": [[{'k:{"uid":"57cc"}': i}]], "path": f"C:\\x{i}"}
        for i in range(3)
    ]
    text = roundtrip(rows)
    header, first, *_ = text.split("\n")
    assert header.endswith(" json=raw")
    assert first == 'pod-0\t[[{"k:{\\"uid\\":\\"57cc\\"}":0}]]\tC:\\\\x0'
    assert "json=raw" not in roundtrip([{"a": ['"']}, {"a": ["b"]}])  # one pair: not worth it
    # The streamed reading takes the rows one by one, the marker too.
    decoder = gcx.Decoder()
    streamed = [row for line in text.split("\n") for _, row in decoder.feed(line + "\n")]
    assert same(streamed + [row for _, row in decoder.close()], rows)


def test_json_raw_errors_point_at_the_written_text() -> None:
    text = 'GCX1 tool=t fields=a,b json=raw\n1\t{"x":"\\\\"}\n2\t[1,\n'
    assert gcx.decode(text.split("\n2")[0]) == [{"a": 1, "b": {"x": "\\"}}]
    with pytest.raises(DecodeError) as info:
        gcx.decode(text)
    assert (info.value.lineno, info.value.colno) == (3, 3)


def test_a_column_of_strings_says_so_once_instead_of_guarding_each_cell() -> None:
    rows = [
        {"id": i, "zip": f"{10000 + i * 7}", "flag": ["true", "false"][i % 2]} for i in range(6)
    ]
    text = roundtrip(rows)
    header, first, second, *_ = text.split("\n")
    assert header == "GCX1 tool=t fields=id,zip,flag str=zip,flag"
    assert (first, second) == ("0\t10000\ttrue", "1\t10007\tfalse")
    model = reference_model.decode(text)["sections"][0]
    assert model["rows"][0] == {"id": "0", "zip": "10000", "flag": "true"}
    rows[3]["zip"] = 10021  # one number in the column: every string keeps its guard
    assert "str=zip" not in roundtrip(rows)
    crlf = gcx.decode("GCX1 tool=t fields=a str=a\r\n12\r\ntrue\r\n")
    assert crlf == [{"a": "12"}, {"a": "true"}]


def test_windows_line_ends_are_written_once_as_crlf() -> None:
    rows: list[dict[str, Any]] = [
        {"id": i, "body": f"Setup\r\n\r\n    arr = {i}\r\n"} for i in range(2)
    ]
    text = roundtrip(rows)
    header, first, _ = text.split("\n")
    assert header == "GCX1 tool=t fields=id,body crlf=body"
    assert first == "0\tSetup\\n\\n    arr = 0\\n"
    model = reference_model.decode(text)["sections"][0]
    assert model["rows"][0]["body"] == "Setup\n\n    arr = 0\n"  # marked: LF for CR LF
    rows[1]["body"] += "lone\n"  # one line break without its CR: every CR stays raw
    assert "crlf=" not in roundtrip(rows)


def test_a_record_takes_json_raw_and_crlf_too() -> None:
    fields: dict[str, Any] = {'k:{"uid":"57cc"}': {}, 'k:{"ip":"10.0.0.3"}': {}}
    pod = {"name": "coredns", "fieldsV1": fields, "body": "one\r\ntwo\r\n\r\nfour\r\n"}
    header, row = roundtrip(pod, tool="get_pod").split("\n")
    assert header == "GCX1 tool=get_pod fields=name,fieldsV1,body json=raw crlf=body is=object"
    assert row.split("\t")[1:] == [orjson.dumps(fields).decode(), "one\\ntwo\\n\\nfour\\n"]


def test_template_decoding_refuses_what_it_cannot_derive() -> None:
    with pytest.raises(DecodeError, match="holds no text"):
        gcx.decode("GCX1 tool=t fields=a,b template=b=x{a}y\ntrue")
    got = gcx.decode("GCX1 tool=t fields=a,b template=b=x\\{{a}\\}\n1\n2\tz")
    assert got == [{"a": 1, "b": "x{1}"}, {"a": 2, "b": "z"}]


def test_prefix_is_written_once_and_cells_keep_two_segments() -> None:
    text = roundtrip(LABELS, tool="list_labels")
    header, first, *_ = text.split("\n")
    assert header.endswith(" prefix=url=https://api.github.com/repos/octo-org/labels/")
    assert first == "1000\tlabels/bug\tbug"


def test_prefix_shrinks_to_what_every_cell_holds() -> None:
    rows = [dict(r) for r in LABELS]
    rows[2]["url"] = "https://api.github.com/users/someone"
    text = roundtrip(rows)
    assert " prefix=url=https://api.github.com/ " not in text  # one path segment stays
    assert "prefix=url=https://api.github.com/repos" not in text


def test_prefix_needs_three_strings_and_a_long_text() -> None:
    assert "prefix=" not in roundtrip(LABELS[:2])
    assert "prefix=" not in roundtrip([{"p": f"a/b/{i}"} for i in range(5)])


def test_prefix_leaves_a_cell_that_is_only_the_prefix_whole() -> None:
    rows = [
        {"u": "https://x.test/a/b/c"},
        {"u": "https://x.test/a/b/d"},
        {"u": "https://x.test/a/"},
    ]
    roundtrip(rows)


def test_prefixed_nested_column() -> None:
    rows = [{"user": {"login": n, "url": f"https://api.github.com/users/{n}"}} for n in "abc"]
    text = roundtrip(rows)
    assert "prefix=user.url=https://api.github.com/" in text


def test_columnar_object_becomes_rows() -> None:
    value = {
        "latitude": 51.5,
        "hourly": {"time": ["T00", "T01", "T02"], "temp": [12.2, 12.1, 12.0], "code": [1, 3, 3]},
    }
    text = roundtrip(value, tool="get_forecast")
    assert text.split("\n") == [
        "GCX1 tool=get_forecast fields=time,temp,code form=columns latitude=51.5 of=hourly",
        "T00\t12.2\t1",
        "T01\t12.1\t3",
        "T02\t12.0\t3",
    ]


def test_columnar_top_level() -> None:
    text = roundtrip({"a": [1, 2], "b": ["x", "y"]})
    assert text == "GCX1 tool=t fields=a,b form=columns\n1\tx\n2\ty"


def test_unequal_arrays_are_no_table() -> None:
    assert "form=" not in roundtrip({"a": [1, 2], "b": ["x"]})
    assert "form=" not in roundtrip({"a": [1], "b": ["x"]})  # one item: no table


def test_columnar_error_names_the_array_item() -> None:
    with pytest.raises(EncodeValueError) as info:
        gcx.encode({"hourly": {"t": [1.0, float("nan")], "c": [1, 2]}}, tool="t")
    assert info.value.path == "$.hourly.t[1]"


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ("GCX1 tool=t fields=a form=rows\n1", "Unknown `form=rows`"),
        ("GCX1 tool=t fields=a,b form=columns\n1\tx\n2", "lacks a column"),
        ("GCX1 tool=t fields=a prefix=b=https://x/\nq", "names no column"),
        ("GCX1 tool=t fields=a prefix=a=x/ prefix=a=y/\nq", "two prefixes"),
        ("GCX1 tool=t fields=a prefix=a\nq", "names no column"),
        ("GCX1 tool=t fields=a json=yes\nq", "Unknown `json=yes`"),
        ("GCX1 tool=t fields=a str=b\nq", "names no column"),
        ("GCX1 tool=t fields=a crlf=b\nq", "names no column"),
        ("GCX1 tool=t fields=a template=b=x{a}\nq", "names no column"),
        ("GCX1 tool=t fields=a,b template=b=x{c}\nq", "names no source"),
        ("GCX1 tool=t fields=a,b template=b=x{b}\nq", "names no source"),
        ("GCX1 tool=t fields=a,b template=b=x\nq", "one `{column}` place"),
        ("GCX1 tool=t fields=a,b template=b=x{a}{a}\nq", "one `{column}` place"),
        ("GCX1 tool=t fields=a,b template=b=x{a\nq", "one `{column}` place"),
        ("GCX1 tool=t fields=a,b template=b={a} template=b={a}/\nq", "two templates"),
        ("GCX1 tool=t fields=a,b,c template=b={a} template=c={b}\nq", "also a template's source"),
        ("GCX1 tool=t fields=a,b=1 template=b={a}\nq", "names no column"),
    ],
)
def test_bad_markers_raise_decode_error(payload: str, message: str) -> None:
    with pytest.raises(DecodeError, match=message):
        gcx.decode(payload)


def test_prefix_applies_to_strings_only() -> None:
    got = gcx.decode("GCX1 tool=t fields=a prefix=a=https://x.test/\nq/1\n2\nnull\n\\")
    assert got == [{"a": "https://x.test/q/1"}, {"a": 2}, {"a": None}, {}]


def test_prefix_found_past_leading_non_strings() -> None:
    # The quick pre-check looks for the first string, not the first row's cell.
    base = "https://api.github.com/repos/o/r/issues/"
    rows: list[dict[str, Any]] = [{"id": 1, "url": None}, {"id": 2}]
    rows += [{"id": i, "url": f"{base}{i}"} for i in range(3, 8)]
    text = gcx.encode(rows, tool="t")
    assert "prefix=url=" in text.split("\n")[0]
    assert gcx.decode(text) == rows


def test_no_prefix_when_a_later_string_starts_differently() -> None:
    base = "https://api.github.com/repos/o/r/issues/"
    rows = [{"url": f"{base}{i}"} for i in range(5)] + [{"url": "https://example.org/a/b/c"}]
    text = gcx.encode(rows, tool="t")
    assert "prefix=" not in text.split("\n")[0]
    assert gcx.decode(text) == rows


def test_a_two_row_table_writes_a_short_constant_before_the_last_cell_once() -> None:
    # National Weather Service observations: {value, unitCode, qualityControl} per member.
    rows = [{"value": v, "unitCode": "wmoUnit:degC", "qc": "V", "t": f"t{v}"} for v in (1, 2)]
    text = roundtrip(rows)
    assert text.split("\n") == [
        "GCX1 tool=t fields=value,unitCode=wmoUnit:degC,qc,t",
        "1\t\tV\tt1",
        "2\t\tV\tt2",
    ]
    fields = reference_model.decode(text)["sections"][0]["fields"]
    assert fields == ["value", "unitCode=wmoUnit:degC", "qc", "t"]


def test_a_two_row_table_keeps_long_or_braced_constants_in_the_rows() -> None:
    # A long text is often another column's too (a template gives it in both rows);
    # a brace in the field list would keep the groups out.
    url = "https://example.org/avatars/48/user-0001.png"
    rows = [
        {"id": i, "a": url, "u": "{uuid-1}", "owner": {"login": f"l{i}", "n": i}} for i in (1, 2)
    ]
    text = roundtrip(rows)
    assert text.split("\n")[0] == "GCX1 tool=t fields=id,a,u,owner{login,n} flat={}"


def test_a_str_subclass_keeps_a_column_unprefixed() -> None:
    # It is written whole, so a prefix would be read in front of it a second time.
    class Text(str, enum.Enum):
        URL = "https://api.example.test/repos/o/r/zz/x"

    rows: list[dict[str, Any]] = [
        {"u": f"https://api.example.test/repos/o/r/a{i}/b"} for i in range(3)
    ]
    rows.append({"u": Text.URL})
    text = gcx.encode(rows, tool="t")
    assert " prefix=" not in text
    assert gcx.decode(text)[-1] == {"u": Text.URL.value}


def derived(text: str) -> dict[str, tuple[str, str, str]]:
    """The derived columns of a payload's sections: name -> (source, before, after)."""
    decoder = gcx.Decoder(typed=False)
    decoder.feed(text)
    decoder.close()
    return {n: (src, a, b) for h in decoder.headers for n, src, a, b in h.templates}
