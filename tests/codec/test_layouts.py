"""Declared layouts: the model, its files, the registry as one DCP table, and drift checks."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gcxwire import dcp
from gcxwire._values import difference
from gcxwire.errors import DriftError, LayoutError
from gcxwire.layouts import Drift, Field, Layout, Registry, Template, load, save

from ..layout_strategies import batches, layouts
from ..strategies import same
from .layout_examples import EXAMPLES, MANY, REPOS


def _repo(n: int, **extra: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": n,
        "full_name": f"o/r{n}",
        "owner": {"login": "o", "type": "User"},
        "description": None,
        "html_url": f"https://github.com/o/r{n}",
    }
    row.update(extra)
    return row


# --- round trips -----------------------------------------------------------------------------


@EXAMPLES
@given(layouts())
def test_a_layout_document_reads_back_as_the_same_layout(layout: Layout) -> None:
    _document_round_trip(layout)


def _document_round_trip(layout: Layout) -> None:
    document = json.loads(json.dumps(layout.to_dict()))
    again = Layout.from_dict(document)
    assert again == layout
    assert same(again.to_dict(), layout.to_dict())  # 1, 1.0 and true stay apart


@EXAMPLES
@given(layouts())
def test_a_layout_is_a_dcp_schema_and_back(layout: Layout) -> None:
    _dcp_round_trip(layout)


def _dcp_round_trip(layout: Layout) -> None:
    schema = layout.to_dcp()
    assert schema.id == layout.id == f"{layout.tool}:v{layout.version}"
    assert schema.fields == tuple(f.path for f in layout.fields)
    again = Layout.from_dcp(schema, status=layout.status)
    assert same(again.to_dict(), layout.to_dict())
    # and through DcpSchemaDef JSON, the files dcp-wrap reads
    definition = json.loads(json.dumps(schema.to_def(with_mapping=True)))
    back = Layout.from_dcp(dcp.DcpSchema.from_def(definition), status=layout.status)
    assert same(back.to_dict(), layout.to_dict())


@EXAMPLES
@given(st.lists(layouts(), max_size=4), st.sampled_from(["gateway", "v0.3"]))
def test_a_registry_is_one_dcp_table_that_decodes_back_exactly(
    items: list[Layout], dialect: Any
) -> None:
    _registry_round_trip(items, dialect)


def _registry_round_trip(items: list[Layout], dialect: Any) -> None:
    registry = Registry(items)
    entries = registry.entries()
    text = dcp.encode(entries, dcp.REGISTRY_SCHEMA, dialect=dialect)
    header = json.loads(text.splitlines()[0])
    assert header[:2] == ["$S", dcp.REGISTRY_SCHEMA.id]
    assert "version" in header and "status" in header
    assert len(text.split("\n")) == 1 + len(registry)
    back = dcp.decode(text, schema=dcp.REGISTRY_SCHEMA)
    assert difference(entries, back) is None
    again = Registry.from_entries(back)
    assert again == registry
    assert [same(a.to_dict(), b.to_dict()) for a, b in zip(again, registry)] == [True] * len(
        registry
    )


def test_registry_entries_carry_id_version_status_types_and_nesting() -> None:
    labels = Field("labels", "array", items=(Field("name", "string"), Field("color", "string")))
    layout = Layout("issues", 3, (Field("number", "integer"), labels), status="deprecated")
    (entry,) = Registry([layout]).entries()
    assert entry["id"] == "issues:v3"
    assert entry["version"] == 3
    assert entry["status"] == "deprecated"
    assert entry["fields"] == ["number", "labels"]
    assert entry["types"]["number"] == {"type": "integer"}
    sub = entry["nestSchemas"]["labels"]
    assert (sub["id"], sub["fields"], sub["status"]) == (
        "issues.labels:v3",
        ["name", "color"],
        "deprecated",
    )
    # the DCP schema registry says where each schema is in its lifecycle too
    schemas = Registry([layout]).to_dcp()
    assert schemas.status("issues:v3#2") == "deprecated"
    assert schemas.entries() == [entry]


@settings(EXAMPLES, max_examples=4)
@given(st.data())
def test_files_and_folders_read_back_as_the_same_registry(tmp_path_factory: Any, data: Any) -> None:
    items = data.draw(st.lists(layouts(), max_size=3, unique_by=lambda x: x.id))
    folder = tmp_path_factory.mktemp("layouts")
    registry = Registry(items)
    registry.save(folder / "all.layouts.json")
    assert Registry.load(folder / "all.layouts.json") == registry
    split = folder / "split"
    written = registry.save_folder(split)
    assert len(written) == len(registry)
    back = Registry.load(split)  # read file by file, in the order of their names
    assert sorted(back.ids()) == sorted(registry.ids())
    assert all(back.get(x.tool, x.version) == x for x in registry)
    for layout, file in zip(registry, written):
        assert load(file) == layout


@pytest.mark.slow
@MANY
@given(layouts(), st.lists(layouts(), max_size=4), st.sampled_from(["gateway", "v0.3"]), st.data())
def test_layout_properties_hold_for_many_layouts(
    layout: Layout, items: list[Layout], dialect: Any, data: Any
) -> None:
    _document_round_trip(layout)
    _dcp_round_trip(layout)
    _registry_round_trip(items, dialect)
    _fits(layout, data)


def test_a_folder_reads_only_layout_files_by_name(tmp_path: Path) -> None:
    save(REPOS, tmp_path / "repos.v2.layout.json")
    (tmp_path / "repos.v1.json").write_text('{"$dcp": "schema"}')  # a DCP preset beside it
    (tmp_path / "notes.txt").write_text("not json")
    assert Registry.load(tmp_path).ids() == ["search_repositories:v2"]


def test_current_layout_is_the_highest_version_not_deprecated() -> None:
    v1 = Layout("t", 1, (Field("a", "string"),))
    v2 = Layout("t", 2, (Field("a", "string"), Field("b", "integer")))
    v3 = Layout("t", 3, (Field("a", "integer"),), status="deprecated")
    registry = Registry([v1, v3, v2])
    assert registry.get("t") == v2
    assert registry.get("t", 3) == v3
    assert registry.get("u") is None
    assert registry.tools() == ["t"]


# --- freezing what is sent today -------------------------------------------------------------


@EXAMPLES
@given(st.data())
def test_records_fit_their_layout_and_the_layout_inferred_from_them(data: Any) -> None:
    _fits(data.draw(layouts()), data)


def _fits(layout: Layout, data: Any) -> None:
    records = data.draw(batches(layout, min_size=1))
    assert layout.check(records) == []
    assert layout.check({"total": 3, "items": records}) == []
    if any(records):
        frozen = Layout.infer(records, tool="t")
        assert frozen.check(records) == []


def test_infer_freezes_types_nullability_presence_nesting_and_items() -> None:
    records = [
        _repo(1, topics=["a"], labels=[{"name": "bug"}], score=1),
        _repo(2, labels=[], score=0.5, description="x"),
    ]
    frozen = Layout.infer({"total_count": 2, "items": records}, tool="search_repositories")
    by_path = {f.path: f for f in frozen.fields}
    assert list(by_path) == [
        "id",
        "full_name",
        "owner.login",
        "owner.type",
        "description",
        "html_url",
        "topics",
        "labels",
        "score",
    ]
    assert by_path["id"].type == "integer"
    assert by_path["score"].type == "number"  # an int and a float
    assert by_path["description"].type == ("string", "null")
    assert by_path["topics"].required is False
    assert by_path["labels"].items == (Field("name", "string"),)
    assert frozen.check(records) == []


def test_infer_refuses_keys_a_dot_path_cannot_name() -> None:
    with pytest.raises(LayoutError, match="cannot name the key 'a.b'"):
        Layout.infer([{"a.b": 1}], tool="t")


# --- drift -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("record", "kind", "path", "field"),
    [
        (_repo(1, stars=5), "new_field", "$.items[1].stars", "stars"),
        (
            _repo(1, owner={"login": "o", "type": "User", "id": 3}),
            "new_field",
            "$.items[1].owner.id",
            "owner.id",
        ),
        (_repo(1, id="1"), "type_change", "$.items[1].id", "id"),
        (_repo(1, owner="o"), "type_change", "$.items[1].owner", "owner"),
        (_repo(1, description=3), "type_change", "$.items[1].description", "description"),
        (
            {k: v for k, v in _repo(1).items() if k != "full_name"},
            "missing_field",
            "$.items[1].full_name",
            "full_name",
        ),
        (
            {k: v for k, v in _repo(1).items() if k != "owner"},
            "missing_field",
            "$.items[1].owner",
            "owner",
        ),
        (
            _repo(1, owner={"login": "o", "type": "Organization"}),
            "not_constant",
            "$.items[1].owner.type",
            "owner.type",
        ),
        (_repo(1, html_url="http://x/y"), "no_prefix", "$.items[1].html_url", "html_url"),
    ],
)
def test_a_drift_names_its_kind_path_field_tool_and_version(
    record: dict[str, Any], kind: str, path: str, field: str
) -> None:
    value = {"total_count": 2, "items": [_repo(0), record]}
    (drift,) = REPOS.check(value)
    assert (drift.kind, drift.path, drift.field) == (kind, path, field)
    assert (drift.tool, drift.version, drift.layout_id) == (
        "search_repositories",
        2,
        "search_repositories:v2",
    )
    assert "search_repositories:v2" in drift.message and str(drift).endswith(f"`{path}`")
    # no value from the payload in what a proxy logs
    for secret in ("Organization", "http://x/y", '"1"'):
        assert secret not in str(drift)


def test_a_value_that_is_not_tabular_drifts() -> None:
    (drift,) = REPOS.check({"a": [1], "b": [2]})
    assert (drift.kind, drift.path, drift.found) == ("not_tabular", "$", "object")
    (drift,) = REPOS.check([_repo(0), 7])
    assert (drift.kind, drift.path, drift.expected, drift.found) == (
        "not_tabular",
        "$[1]",
        "object",
        "integer",
    )


def test_check_lists_each_kind_of_drift_once_at_its_first_place() -> None:
    value = [_repo(0, stars=1), _repo(1, stars=2, id="x"), _repo(2, id="y")]
    drifts = REPOS.check(value)
    assert [(d.kind, d.path) for d in drifts] == [
        ("new_field", "$[0].stars"),
        ("type_change", "$[1].id"),
    ]


def test_a_drift_error_pickles_with_its_drift() -> None:
    drift = REPOS.check([_repo(0, stars=1)])[0]
    error = pickle.loads(pickle.dumps(DriftError(drift)))
    assert isinstance(error.drift, Drift) and error.drift == drift
    assert error.path == "$[0].stars" and "search_repositories:v2" in str(error)


# --- bad layouts and bad files ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Field("a..b", "string"), "dot-separated non-empty keys"),
        (lambda: Field("a", "int"), "Unknown JSON type 'int'"),  # type: ignore[arg-type]
        (lambda: Field("a", ()), "non-empty list"),
        (lambda: Field("a", "string", constant=1), "the field's type is not"),
        (lambda: Field("a", "number", constant=float("nan")), "finite"),
        (lambda: Field("a", "string", constant="x", required=False), "constant field is required"),
        (lambda: Field("a", "integer", prefix="x"), "type string"),
        (lambda: Field("a", "string", items=(Field("b", "string"),)), "type array"),
        (lambda: Layout("a b", 1, (Field("a", "string"),)), "tool name"),
        (lambda: Layout("t", 0, (Field("a", "string"),)), "integer from 1"),
        (lambda: Layout("t", 1, ()), "one field at least"),
        (lambda: Field("a", "integer", template=Template("b")), "type string"),
        (lambda: Field("a", "string", required=False, template=Template("b")), "is required"),
        (lambda: Field("a", "string", template=Template("a")), "another field"),
        (
            lambda: Layout("t", 1, (Field("a", "string", template=Template("b")),)),
            "not a field here",
        ),
        (
            lambda: Layout(
                "t",
                1,
                (
                    Field("a", "string", template=Template("b")),
                    Field("b", "string", template=Template("c")),
                    Field("c", "string"),
                ),
            ),
            "is itself derived",
        ),
        (lambda: Layout("t", 1, (Field("a", "string"),), status="live"), "Unknown status"),  # type: ignore[arg-type]
        (lambda: Layout("t", 1, (Field("a", "string"), Field("a", "string"))), "listed twice"),
        (
            lambda: Layout("t", 1, (Field("a", "object"), Field("a.b", "string"))),
            "is a field and holds fields",
        ),
        (
            lambda: Layout("t", 1, (Field("a.b", "string"), Field("a", "object"))),
            "is a field and holds fields",
        ),
        (
            lambda: Layout(
                "t", 1, (Field("a.b", "string"), Field("c", "string"), Field("a.d", "string"))
            ),
            "not listed together",
        ),
    ],
)
def test_a_bad_layout_is_refused_with_the_reason(make: Any, message: str) -> None:
    with pytest.raises(LayoutError, match=message):
        make()


GOOD = """{
  "$layout": 1,
  "tool": "search",
  "version": 1,
  "fields": [
    {"path": "id", "type": "integer"},
    {"path": "name", "type": "string"}
  ]
}
"""


@pytest.mark.parametrize(
    ("text", "where", "line", "column", "message"),
    [
        (GOOD.replace('"string"', '"str"'), "$.fields[1].type", 7, 30, "Unknown JSON type 'str'"),
        (
            GOOD.replace('"type": "integer"', '"typ": "integer"'),
            "$.fields[0].typ",
            6,
            27,
            "Unknown member 'typ'",
        ),
        (GOOD.replace('"version": 1', '"version": "1"'), "$.version", 4, 14, "integer from 1"),
        (GOOD.replace('"$layout": 1,', ""), "$", 1, 1, '"\\$layout": 1'),
        (
            GOOD.replace('"$layout": 1', '"$layout": 2'),
            "$['$layout']",
            2,
            14,
            "Unsupported layout format 2",
        ),
        (GOOD.replace("},\n", "}\n"), "$", 7, 5, "Invalid JSON"),
        (
            GOOD.replace('"tool": "search",', '"tool": "search", "tool": "x",'),
            "$",
            3,
            21,
            "'tool' is given twice",
        ),
        (GOOD.replace('1,\n  "fields"', 'NaN,\n  "fields"'), "$", 1, 1, "NaN is not JSON"),
    ],
)
def test_a_bad_file_is_refused_with_file_line_column_and_member(
    tmp_path: Path, text: str, where: str, line: int, column: int, message: str
) -> None:
    path = tmp_path / "search.v1.layout.json"
    path.write_text(text, encoding="utf-8")
    for read in (load, Registry.load):
        with pytest.raises(LayoutError, match=message) as caught:
            read(path)
        error = caught.value
        assert (error.where, error.line, error.column) == (where, line, column)
        assert error.file == str(path) and str(error).startswith(
            f"{path}, line {line}, column {column}: "
        )


def test_a_registry_document_names_the_bad_layout(tmp_path: Path) -> None:
    path = tmp_path / "all.layouts.json"
    body = {
        "$layouts": 1,
        "layouts": [json.loads(GOOD), {"tool": "x", "version": 1, "fields": [{"path": "a"}]}],
    }
    path.write_text(json.dumps(body, indent=1))
    with pytest.raises(LayoutError, match="A field needs 'type'") as caught:
        Registry.load(path)
    assert caught.value.where == "$.layouts[1].fields[0]"
    assert (caught.value.line, caught.value.column) == (23, 5)


def test_a_layout_in_two_files_of_a_folder_is_refused(tmp_path: Path) -> None:
    save(REPOS, tmp_path / "a.layout.json")
    save(REPOS, tmp_path / "b.layout.json")
    with pytest.raises(LayoutError, match=r"'search_repositories:v2' is also in .*a\.layout\.json"):
        Registry.load(tmp_path)


def test_the_documented_layout_document_loads_and_writes_back_the_same(tmp_path: Path) -> None:
    docs = Path(__file__).resolve().parents[2] / "docs" / "layouts.md"
    block = docs.read_text(encoding="utf-8").split("```json\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "search_repositories.v2.layout.json"
    path.write_text(block, encoding="utf-8")
    layout = load(path)
    assert layout.id == "search_repositories:v2"
    assert layout.to_dict() == json.loads(block)  # written as documented: defaults left out
