"""`tree=` columns: objects whose every leaf is an empty object, written as key lists.

Kubernetes' `managedFields[].fieldsV1` is the real case; the strategies build
keys that need quoting (braces, quotes, commas, backslashes, spaces, the empty
key) and columns that break the form with one object that is not a tree.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import strategies as st

from gcxwire import gcx
from gcxwire._gcx_trees import is_tree, tree_json, tree_text
from gcxwire.errors import DecodeError

from .. import reference_model
from ..strategies import SCALARS, TEXT, same
from ..tiers import prove
from . import contract
from .gcx_checks import reference_sections, roundtrip
from .test_gcx_transforms import reads_new_forms

TREE_KEYS = st.one_of(
    st.sampled_from(
        [
            "f:metadata",
            "f:labels",
            ".",
            'k:{"uid":"57cc"}',
            'k:{"containerPort":53,"protocol":"TCP"}',
            'k:{"a":{"b":1}}',
            'k:{"a":"}"}',
            'k:{"a b":1}',
            "a:",
            ":{}",
            "",
            "a b",
            "a,b",
            "{",
            "}",
            "[",
            "]",
            '"',
            "\\",
            "\\n",
            "12",
            "true",
            "#x",
            "\t",
            "\ufeff",
        ]
    ),
    TEXT,
)


def trees(depth: int = 2) -> st.SearchStrategy[dict[str, Any]]:
    """Objects of empty objects, up to ``depth`` levels."""
    if depth == 0:
        return st.just({})
    return st.dictionaries(TREE_KEYS, trees(depth - 1), max_size=4)


@st.composite
def tree_tables(draw: st.DrawFn) -> Any:
    """Rows with a column of key trees; one row may break it (an object with a scalar leaf,
    a text that starts with a brace, a list, null, or no member at all)."""
    rows: list[dict[str, Any]] = []
    for i in range(draw(st.integers(min_value=1, max_value=5))):
        rows.append(
            {
                "manager": draw(st.sampled_from(["kubelet", "kube-scheduler", "{x}"])),
                "fieldsV1": draw(trees()),
                "n": i,
            }
        )
    k = draw(st.integers(0, len(rows) - 1))
    defeat = draw(st.sampled_from(["none", "none", "leaf", "text", "list", "null", "gone"]))
    if defeat == "leaf":  # one object whose leaf is no empty object: no key lists then
        rows[k]["fieldsV1"] = {"f:spec": {"f:x": draw(SCALARS)}}
    elif defeat == "text":
        rows[k]["fieldsV1"] = draw(st.sampled_from(["{a,b}", "{}", "{f:x{.}}"]))
    elif defeat == "list":
        rows[k]["fieldsV1"] = [draw(trees(2))]
    elif defeat == "null":
        rows[k]["fieldsV1"] = None
    elif defeat == "gone":
        del rows[k]["fieldsV1"]
    if draw(st.booleans()):  # a record: the single object's member holds the tree
        return {"kind": "Pod", "managedFields": rows[0].get("fieldsV1")}
    return rows


def test_key_trees_round_trip() -> None:
    prove(8, roundtrip, tree_tables())


def test_reference_decoder_reads_key_tree_sections() -> None:
    prove(8, reads_new_forms, tree_tables(), st.just("t"))


def test_key_list_text_reads_back_as_the_tree() -> None:
    def check(tree: dict[str, Any]) -> None:
        text = tree_text(tree)
        assert "\t" not in text and "\n" not in text
        back = orjson.loads(tree_json(text))
        assert same(back, tree) and is_tree(back)

    prove(10, check, trees(3))


def test_the_reference_contract_holds_on_key_tree_sections() -> None:
    # Every string cell outside the marked column reads as the same string there.
    prove(8, lambda value: contract.holds(value, gcx.encode(value, tool="t")), tree_tables())


FIELDS: dict[str, Any] = {
    "f:metadata": {"f:labels": {".": {}, "f:app": {}, "f:tier": {}}, "f:name": {}},
    "f:spec": {'k:{"name":"web"}': {".": {}, "f:image": {}, "f:name": {}, "f:ports": {}}},
}
STATUS: dict[str, Any] = {
    "f:status": {
        "f:conditions": {".": {}, 'k:{"type":"Ready"}': {".": {}}},
        "f:phase": {},
        "f:podIP": {},
    }
}


def test_a_column_of_field_sets_is_written_as_key_lists() -> None:
    rows = [{"manager": "kubelet", "fieldsV1": FIELDS}, {"manager": "kubectl", "fieldsV1": STATUS}]
    text = roundtrip(rows)
    header, first, second = text.split("\n")
    assert header == (
        "GCX1 tool=t fields=manager,fieldsV1{f:metadata,f:spec,f:status} flat={}"
        " tree=fieldsV1.f:metadata,fieldsV1.f:spec,fieldsV1.f:status"
    )
    assert first == (
        'kubelet\t{f:labels{.,f:app,f:tier},f:name}\t{k:{"name":"web"}{.,f:image,f:name,f:ports}}'
    )
    assert second == 'kubectl\t\t\t{f:conditions{.,k:{"type":"Ready"}{.}},f:phase,f:podIP}'
    # Reference decoders read the key list as the cell's text (the column is marked).
    model = reference_model.decode(text)["sections"][0]
    assert model["rows"][0]["f:spec"] == '{k:{"name":"web"}{.,f:image,f:name,f:ports}}'
    assert reference_sections(text)


def test_key_lists_escape_a_backslash_as_any_cell_does() -> None:
    rows = [{"id": 0, "f": {"a\\b": {"c": {}, "d": {}, "e": {}}, "x y": {}}}]
    assert roundtrip(rows) == 'GCX1 tool=t fields=id,f tree=f\n0\t{"a\\\\\\\\b"{c,d,e},"x y"}'
    rows.append({"id": 1, "f": rows[0]["f"]})  # four doubled: json=raw, single as in JSON cells
    assert roundtrip(rows).split("\n")[1:] == ['0\t{"a\\\\b"{c,d,e},"x y"}'] * 1 + [
        '1\t{"a\\\\b"{c,d,e},"x y"}'
    ]


def test_one_object_that_is_no_tree_keeps_the_column_json() -> None:
    rows: list[dict[str, Any]] = [{"id": 0, "f": FIELDS}, {"id": 1, "f": STATUS}]
    rows.append({"id": 2, "f": {**FIELDS, "f:metadata": {"f:labels": {"f:app": 3}}}})
    header, first, *_ = roundtrip(rows).split("\n")
    assert header.endswith(" tree=f.f:spec,f.f:status")  # not f.f:metadata
    assert first.startswith('0\t{"f:labels":{".":{},')
    few = [{"id": i, "f": {"a": {}, "b": {}}} for i in range(2)]  # 4 leaves: not worth a marker
    assert "tree=" not in roundtrip(few)


def test_a_record_member_that_is_a_tree_is_a_key_list() -> None:
    text = roundtrip({"kind": "Pod", "name": "web", "fieldsV1": FIELDS}, tool="read_pod")
    assert " tree=" in text.split("\n")[0]
    assert text.endswith('\t{k:{"name":"web"}{.,f:image,f:name,f:ports}}')


def test_a_stream_reads_key_lists_row_by_row() -> None:
    rows = [{"manager": f"m{i}", "fieldsV1": FIELDS} for i in range(3)]
    text = roundtrip(rows)
    decoder = gcx.Decoder()
    streamed = [row for line in text.split("\n") for _, row in decoder.feed(line + "\n")]
    assert same(streamed + [row for _, row in decoder.close()], rows)


@pytest.mark.parametrize(
    ("payload", "message", "column"),
    [
        ("GCX1 tool=t fields=a tree=b\nq", "names no column", 1),
        ("GCX1 tool=t fields=a,b tree=b\n1\t{x,}", "unexpected `}`", 3),
        ("GCX1 tool=t fields=a,b tree=b\n1\t{x{y}{z}}", "needs a key", 3),
        ("GCX1 tool=t fields=a,b tree=b\n1\t{x y}", "Malformed key tree", 3),
        ("GCX1 tool=t fields=a,b tree=b\n1\t{x", "unbalanced", 3),
        ("GCX1 tool=t fields=a,b tree=b\n1\t{x}}", "unbalanced", 3),
        ('GCX1 tool=t fields=a,b tree=b\n1\t{"x}', "Malformed key tree", 3),
    ],
)
def test_malformed_key_lists_raise_decode_error(payload: str, message: str, column: int) -> None:
    with pytest.raises(DecodeError, match=message) as info:
        gcx.decode(payload)
    assert info.value.colno == column
    decoder = gcx.Decoder()
    with pytest.raises(DecodeError, match=message):
        list(decoder.feed(payload))
        list(decoder.close())


def test_a_key_holding_a_flat_json_object_is_written_as_it_is() -> None:
    keys = ['k:{"port":53,"ok":true}', 'k:{"a":{"b":1}}', 'k:{"a":"}"}', "a:", 'k:{"a b":1}']
    text = tree_text({k: {"x": {}} for k in keys})
    assert text == (
        '{k:{"port":53,"ok":true}{x},"k:{\\"a\\":{\\"b\\":1}}"{x},"k:{\\"a\\":\\"}\\"}"{x},'
        '"a:"{x},"k:{\\"a b\\":1}"{x}}'
    )
    assert list(orjson.loads(tree_json(text))) == keys
    # A reader takes a bare `name:{…}` key to the brace that closes it.
    assert orjson.loads(tree_json('{a:{"b":"{"}{c},d}')) == {'a:{"b":"{"}': {"c": {}}, "d": {}}


def test_a_key_list_at_the_depth_limit_reads() -> None:
    # Its `k:{…}` keys' braces stand where the JSON's levels do: 11 levels here.
    deep = "{" + 'k:{"i":1}{' * 9 + 'k:{"i":1}' + "}" * 10
    assert gcx.decode(f"GCX1 tool=t fields=a,b tree=b\n1\t{deep}", limits=_limits(11))
    with pytest.raises(DecodeError, match="deeper"):
        gcx.decode(f"GCX1 tool=t fields=a,b tree=b\n1\t{deep}", limits=_limits(10))
    decoder = gcx.Decoder(limits=_limits(11))
    assert list(decoder.feed(f"GCX1 tool=t fields=a,b tree=b\n1\t{deep}\n"))


def test_a_key_list_reads_as_deep_as_its_braces() -> None:
    deep = "{" + "a{" * 20 + "b" + "}" * 21
    with pytest.raises(DecodeError, match="deeper"):
        gcx.decode(f"GCX1 tool=t fields=a,b tree=b\n1\t{deep}", limits=_limits(10))
    assert gcx.decode(f"GCX1 tool=t fields=a,b tree=b\n1\t{deep}", limits=_limits(30))


def _limits(depth: int) -> Any:
    from gcxwire.limits import Limits

    return Limits(max_depth=depth)
