"""Lists of objects inside table rows as child sections: `of=items[].spec.containers`.

Round trips exactly on both twins, with values built to defeat the form (a row
holding a scalar, strings, an empty object or null where the others hold
lists; an item holding the link column's name; a member `containers[]` beside
`containers`), and reads in the reference-decoder model with the same
sections, rows and columns, every string cell of the input unchanged.
"""

from __future__ import annotations

import copy
import itertools
from typing import Any

import pytest
from hypothesis import strategies as st

from gcxwire import gcx
from gcxwire._gcx_decode import _of_path
from gcxwire.errors import DecodeError
from gcxwire.limits import Limits

from ..strategies import SCALARS, TEXT
from ..tiers import prove, tiers
from . import contract
from .gcx_checks import roundtrip

# Long member names make the JSON cells costly, so the child sections pay.
MEMBERS = st.sampled_from(["name", "image", "imagePullPolicy", "a.b", "k=v", "of", "x{y"])


@st.composite
def items(draw: st.DrawFn, depth: int) -> dict[str, Any]:
    out: dict[str, Any] = {"terminationMessagePath": draw(st.sampled_from(["/dev/log", "/x"]))}
    for key in draw(st.lists(MEMBERS, max_size=3, unique=True)):
        out[key] = draw(st.one_of(SCALARS, TEXT))
    if depth and draw(st.booleans()):
        out["ports"] = draw(st.lists(items(depth - 1), min_size=1, max_size=3))
    return out


WHERE = st.sampled_from([("containers",), ("spec", "containers"), ("spec", "tpl", "containers")])
DEFEATS = ["none"] * 8 + [
    *("absent", "null", "scalar", "strings", "empty", "beside", "holder", "link")
]


@st.composite
def tables(draw: st.DrawFn) -> list[dict[str, Any]]:
    where = draw(WHERE)
    rows = []
    size = draw(st.integers(1, 5))
    broken = draw(st.integers(0, size - 1))  # the one row a defeat applies to
    spoil = draw(st.sampled_from(DEFEATS))
    for i in range(size):
        row: dict[str, Any] = {"name": f"p{i}"}
        holder = row
        for key in where[:-1]:
            holder = holder.setdefault(key, {"x": i})
        value: Any = draw(st.lists(items(2), min_size=1, max_size=3))
        defeat = spoil if i == broken else "none"
        if defeat == "absent":
            continue
        if defeat == "null":
            value = None
        elif defeat == "scalar":
            value = draw(SCALARS)
        elif defeat == "strings":
            value = [draw(TEXT)]
        elif defeat == "empty":
            value = [*value, {}]
        elif defeat == "link":  # an item holds the link column's name
            value = [*value, {"[]": 1, "items[]": 2, "c[]": 3}]
        elif defeat == "beside":  # the renamed column's name is taken
            holder[where[-1] + "[]"] = draw(SCALARS)
        elif defeat == "holder" and len(where) > 1:  # the object on the way is no object
            row[where[0]] = draw(TEXT)
            rows.append(row)
            continue
        holder[where[-1]] = value
        row["tail"] = draw(TEXT)
        rows.append(row)
    return rows


@st.composite
def payloads(draw: st.DrawFn) -> Any:
    rows = draw(tables())
    kind = draw(st.sampled_from(["top", "member", "deep"]))
    if kind == "top":
        return rows
    if kind == "member":
        return {"kind": "List", "items": rows, "more": draw(SCALARS)}
    return {"data": {"total": 3, "items": rows}}


@tiers(fast=5, many=400)
def test_child_sections_round_trip(examples: int) -> None:
    prove(examples, roundtrip, payloads())


def reference_reads(value: Any) -> None:
    """No error, the same sections, rows and columns; unmarked string cells unchanged."""
    contract.holds(value, gcx.encode(value, tool="t"))


@tiers(fast=5, many=400)
def test_reference_decoder_reads_child_sections(examples: int) -> None:
    prove(examples, reference_reads, payloads())


def pod(i: int, n: int) -> dict[str, Any]:
    containers = [
        {"name": f"c{j}", "image": f"app:{j}", "imagePullPolicy": "IfNotPresent"} for j in range(n)
    ]
    return {"name": f"pod-{i}", "spec": {"containers": containers, "dnsPolicy": "Default"}}


def test_a_list_column_becomes_a_child_section_linked_by_row() -> None:
    text = roundtrip({"kind": "PodList", "items": [pod(0, 2), pod(1, 1)]}, tool="pods")
    assert text.split("\n") == [
        "GCX1 tool=pods fields=name,spec{containers[],dnsPolicy=Default} flat={} kind=PodList"
        " of=items",
        "pod-0\t2",
        "pod-1\t1",
        "GCX1 tool=pods fields=items[],name,image,imagePullPolicy=IfNotPresent"
        " of=items[].spec.containers",
        "0\tc0\tapp:0",
        "0\tc1\tapp:1",
        "1\tc0\tapp:0",
    ]


def test_top_level_tables_and_grandchildren() -> None:
    rows = [{"id": i, "c": [{**pod(j, 2), "id": j} for j in range(2)]} for i in range(2)]
    text = roundtrip(rows)
    ofs = [line.rsplit(" of=", 1)[-1] for line in text.split("\n") if line.startswith("GCX1")]
    assert ofs[1:] == ["[].c", "[].c[].spec.containers"]
    assert "fields=c[]," in text  # the grandchildren link to rows of the `c` section


def _named(n: int, key: str, i: int) -> list[dict[str, Any]]:
    return [{f"{key}Name": f"{key}-{i}-{j}", f"{key}Note": f"text {j}"} for j in range(n)]


def test_sibling_nested_and_grandchild_sections_keep_member_order() -> None:
    # Attaching replaces rows with renamed copies, deepest section first: the
    # grandchildren must reach the rows the table's own rows then hold, and
    # every object keep its member order (the list member between the others).
    rows: list[dict[str, Any]] = [
        {
            "id": i,
            "tags": [
                {"k": f"t{j}", "sub": _named(1 + (i + j) % 3, "sub", j)} for j in range(1 + i % 2)
            ],
            "user": {"login": f"u{i}", "labels": _named(i % 3, "label", i), "site": i},
            "more": _named(2 - i % 2, "more", i),
            "tail": f"end{i}",
        }
        for i in range(4)
    ]
    text = roundtrip(rows)
    ofs = [line.rsplit(" of=", 1)[-1] for line in text.split("\n")[1:] if line.startswith("GCX1")]
    assert ofs == ["[].tags", "[].tags[].sub", "[].more", "[].user.labels"]
    back = gcx.decode(text)
    assert [list(row) for row in back] == [list(row) for row in rows]
    assert [list(row["user"]) for row in back] == [["login", "labels", "site"]] * 4
    assert back[3]["tags"][1]["sub"] == rows[3]["tags"][1]["sub"]


def test_small_lists_stay_json_cells() -> None:
    rows = [{"id": i, "tags": [{"k": "a"}]} for i in range(2)]
    text = roundtrip(rows)
    assert "of=" not in text and '[{"k":"a"}]' in text


def test_a_member_named_like_the_renamed_column_keeps_the_list_inline() -> None:
    rows = [{**pod(i, 2), "spec": {**pod(i, 2)["spec"], "containers[]": 1}} for i in range(2)]
    assert "of=" not in roundtrip(rows)


ONE = "GCX1 tool=t fields=a,b[] of=x\n1\t1\n"
CHILD = "GCX1 tool=t fields=x[],c of=x[].b\n"


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (ONE + CHILD + "1\tq", "names no"),
        ("GCX1 tool=t fields=a,b[] of=x\n1\t2\n" + CHILD + "0\tq", "says 2"),
        ("GCX1 tool=t fields=a,b of=x\n1\t2\n" + CHILD + "0\tq", "no 'b\\[\\]'"),
        (ONE + "GCX1 tool=t fields=x,c of=x[].b\n0\tq", "end in"),
        (ONE + "GCX1 tool=t fields=x[],c of=y[].b\n0\tq", "no table"),
        (ONE + "GCX1 tool=t fields=x[] m=1 of=x[].b\n0", "members"),
        ("GCX1 tool=t fields=a,b[],b of=x\n1\t1\t2\n" + CHILD + "0\tq", "both"),
        ("GCX1 tool=t fields=a,b[]\n1\t2\nGCX1 tool=t fields=[],c of=[].b\n0\tq\n\\-1\tr", "names"),
        ("GCX1 tool=t fields=a,b[] of=x\n1\t1\n2\t1\n" + CHILD + "1\tq\n0\tr", "in order"),
    ],
)
def test_broken_child_sections_raise_decode_error(payload: str, message: str) -> None:
    with pytest.raises(DecodeError, match=message):
        gcx.decode(payload)


def test_max_depth_holds_for_child_paths() -> None:
    head = "GCX1 tool=t fields=a,b[] of=x\n1\t1\n"
    child = "GCX1 tool=t fields=x[],c of=x[]." + ".".join("k" * 12) + "\n0\tq"
    with pytest.raises(DecodeError, match="nests deeper than 10 levels"):
        gcx.decode(head + child, limits=Limits(max_depth=10))


def test_reference_decoder_reads_child_sections_and_grandchildren() -> None:
    reference_reads({"kind": "PodList", "items": [pod(0, 2), pod(1, 1)]})
    reference_reads([{"id": i, "c": [{**pod(j, 2), "id": j} for j in range(2)]} for i in range(2)])


@pytest.mark.parametrize(
    ("raw", "parts"),
    [
        ("a..b.", ["a", "", "b", ""]),  # plain keys: split at each dot
        ("x\\.y.z", ["x.y", "z"]),
        ("[].c[].d", [None, "c", None, "d"]),
        ("a\\[]\\t.b", ["a[]\t", "b"]),
    ],
)
def test_of_paths_read_plain_and_escaped_keys(raw: str, parts: list[str | None]) -> None:
    assert _of_path(raw) == parts


def test_lists_that_only_later_rows_hold_move_too() -> None:
    # Slack's Block Kit: the first blocks hold no list; a few later ones (past the
    # first eight) hold `fields`, and the items of `elements` hold `options` lists
    # from the second item on.
    blocks: list[dict[str, Any]] = [{"type": "section", "text": f"block {i}"} for i in range(12)]
    options = [{"description": f"choice {j}", "value": f"value-{j}"} for j in range(4)]
    boxes = {"type": "checkboxes", "options": options}
    elements = [{"type": "plain_text", "text": "updated"}, boxes, boxes]
    blocks[1] = {"type": "actions", "elements": elements}
    fields = [{"type": "plain_text", "text": f"field {j}", "emoji": True} for j in range(4)]
    blocks[10] = {"type": "section", "fields": fields}
    text = roundtrip({"type": "home", "blocks": blocks}, tool="views")
    ofs = [line.rsplit("of=", 1)[-1] for line in text.split("\n") if line.startswith("GCX1")]
    assert ofs == ["blocks", "blocks[].elements", "blocks[].elements[].options", "blocks[].fields"]
    reference_reads({"type": "home", "blocks": blocks})


def test_list_paths_are_plain_keys_to_lists_of_objects_through_objects() -> None:
    # Keys holding path characters, scalar lists and objects deeper than the
    # spread depth give no path; the first rows' lists of objects do, once each.
    from gcxwire._gcx_nested import list_paths

    item = [{"n": 1}]
    row = {
        "a": item, "b.c": item, "s": [1], "e": [], "x": 3,
        "o": {"p": item, "q{": item, "d": {"e": {"f": item, "h": {"i": item}}, "g": item}},
    }  # fmt: skip
    assert list_paths([row, row]) == [("a",), ("o", "p"), ("o", "d", "e", "f"), ("o", "d", "g")]


def test_may_hold_lists_sees_a_list_or_object_value_in_a_sampled_row_only() -> None:
    # The gate answers from exact types in the sampled rows (the first and a spread of
    # the rest): a dict subclass, a tuple or a non-dict row holds no list column.
    from gcxwire._gcx_nested import may_hold_lists, sample

    class Sub(dict):  # type: ignore[type-arg]
        pass

    flat = [{"a": 1, "b": "x", "c": Sub(), "d": (1,)} for _ in range(40)]
    assert not may_hold_lists(flat)
    assert not may_hold_lists([*flat[:5], [[1]], *flat[6:]])
    value: Any
    for value in ([], {}):
        rows = [dict(r) for r in flat]
        sampled = {id(r) for r in sample(rows)}
        unsampled = next(i for i, r in enumerate(rows) if id(r) not in sampled)
        rows[unsampled]["z"] = value
        assert not may_hold_lists(rows)  # a guess: split() checks every row
        sample(rows)[-1]["z"] = value
        assert may_hold_lists(rows)


def test_the_spread_probe_rows_are_in_the_list_gate_sample() -> None:
    # _section skips its look for object cells in the first _PROBES rows when
    # may_hold_lists saw no list or object in its sample: those rows must be in it.
    from gcxwire._gcx_columns import _PROBES
    from gcxwire._gcx_nested import sample

    for size in (1, _PROBES, 2 * _PROBES + 1, 500):
        rows = [{"n": i} for i in range(size)]
        picked = {id(r) for r in sample(rows)}
        assert all(id(r) in picked for r in rows[:_PROBES])
    # and an object column there is still spread with child sections looked for
    spread: list[dict[str, Any]] = [{"id": i, "o": {"a": i, "b": "x"}} for i in range(40)]
    assert "o{a,b=x}" in gcx.encode(spread, tool="t").split("\n", 1)[0]


def test_a_template_column_beside_a_child_section_leaves_the_input_alone() -> None:
    # The rows that split copies lose their derived cells in place; rows it did not copy
    # (no list there) are copied first, so the value given is never changed. Short and
    # long tables (the prefix search may read a long one's rows after the drop).
    def rows(lacking: bool, size: int) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = [
            {
                "url": f"https://example.com/repos/acme/widgets/issues/{n}",
                "number": n,
                "labels": [{"name": f"l{n % 3}"}, {"name": "x"}],
            }
            for n in range(size)
        ]
        if lacking:
            del out[5]["labels"]
        return out

    for lacking, size in itertools.product((False, True), (20, 40)):
        value = rows(lacking, size)
        before = copy.deepcopy(value)
        text = gcx.encode(value, tool="t")
        assert value == before
        assert "fields=[],name of=[].labels" in text and "{number}" in text
        assert gcx.decode(text) == before


def test_rows_of_other_keys_leave_the_uniform_path_when_a_list_column_moves() -> None:
    # The rows moved to child sections are written without the writer's keys check:
    # split reads each row's keys as it copies it (a deeper list's caller reads them).
    from gcxwire._gcx_header import _tool_text
    from gcxwire._gcx_section import _uniform_table

    def rows(at: int, deep: bool, order: bool) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for n in range(40):
            items = [{"name": f"l{n}"}, {"name": "x"}]
            out.append({"n": n, "o": {"labels": items}} if deep else {"n": n, "labels": items})
        if order:  # the same keys in another order
            out[at] = dict(reversed(out[at].items()))
        else:  # a key more
            out[at] = {**out[at], "extra": 1}
        return out

    for at, deep, order in itertools.product((0, 7, 39), (False, True), (False, True)):
        value = rows(at, deep, order)
        assert _uniform_table(value, _tool_text("t")) is None
        roundtrip(value)  # the general path writes them, and reads back the same
    assert _uniform_table(rows(0, False, False)[1:], _tool_text("t")) is not None
