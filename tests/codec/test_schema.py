"""Schema inference against the dcp-wrap goldens, the options, DcpSchemaDef and the registry."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gcxwire._dcp_infer import infer_schema
from gcxwire._dcp_schema import (
    DcpSchema,
    SchemaRegistry,
    flatten,
    resolve,
    unwrap,
)
from gcxwire._values import ABSENT
from gcxwire.errors import DecodeError, EncodeError, EncodeTypeError

from ..jsdata import load_js

DCP = Path(__file__).parent.parent / "data" / "dcp"
CASES = [
    "api_flat",
    "scalars_arrays_mixed",
    "nested_array_inside_object",
    "github_search_items",
    "fixture_mock_data",
    "fixture_github_issues_sample",
    "fixture_github_prs_sample",
]
LABELS = {"wrap-0.3.1": "dcp-wrap", "wrap-head": "v0.3"}


def pretty(value: Any) -> str:
    """``JSON.stringify(value, null, 2)`` plus the trailing newline the goldens were saved with."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("label", sorted(LABELS))
@pytest.mark.parametrize("case", CASES)
def test_schema_and_mapping_match_dcp_wrap_byte_for_byte(case: str, label: str) -> None:
    records = load_js(DCP / "inputs" / f"{case}.json")
    schema = infer_schema(records, domain=case, types=LABELS[label])  # type: ignore[arg-type]
    folder = DCP / case / label
    assert pretty(schema.to_def()) == (folder / "schema.json").read_text(encoding="utf-8")
    assert pretty(schema.mapping_def()) == (folder / "mapping.json").read_text(encoding="utf-8")


@pytest.mark.parametrize("label", sorted(LABELS))
def test_cutdown_case_schema_matches(label: str) -> None:
    batch_a = load_js(DCP / "cutdown_second_batch" / "batchA.input.json")
    schema = infer_schema(batch_a, domain="issues", types=LABELS[label])  # type: ignore[arg-type]
    folder = DCP / "cutdown_second_batch" / label
    assert pretty(schema.to_def()) == (folder / "schema.json").read_text(encoding="utf-8")
    assert pretty(schema.mapping_def()) == (folder / "mapping.json").read_text(encoding="utf-8")


def test_dcp_py_schema_of_api_flat_matches() -> None:
    records = load_js(DCP / "inputs" / "api_flat.json")
    schema = infer_schema(records, domain="api_flat")
    expected = json.loads((DCP / "api_flat" / "dcp-py-0.3.0" / "schema.json").read_text())
    assert schema.to_def() == expected


# --- the inference rules, one by one ---------------------------------------------------------


def test_category_order_then_presence_then_name() -> None:
    records = [
        {"zeta": True, "title": "t" * 60, "count": 1, "status": "a", "id": 1, "misc": "x"},
        {"zeta": False, "title": "u" * 60, "count": 2, "status": "b", "id": 2, "misc": "y"},
    ]
    schema = infer_schema(records, domain="d")
    # identifier < classifier < numeric < text (> 50 chars) < other; "misc" before "zeta"
    assert schema.fields == ("id", "status", "count", "title", "misc", "zeta")


def test_low_unique_ratio_strings_are_classifiers() -> None:
    records = [{"colour": "red", "n": "a" * i} for i in range(1, 11)]
    assert infer_schema(records, domain="d").fields[0] == "colour"


def test_source_order_keeps_first_seen_order() -> None:
    records = [{"zeta": 1, "id": 2}, {"zeta": 3, "alpha": 4, "id": 5}]
    assert infer_schema(records, domain="d", order="source").fields == ("zeta", "id", "alpha")


def test_collision_renaming_uses_parent_then_counter() -> None:
    records = [{"id": 1, "user": {"id": 2, "url": "u"}, "repo": {"id": 3, "url": "r"}, "url": "x"}]
    schema = infer_schema(records, domain="d")
    # ties keep first-seen order, so the bare "url" lands on the first nested one
    assert schema.fields == ("id", "user_id", "repo_id", "url", "repo_url", "url_2")
    assert schema.paths["url"] == ("user", "url")
    assert schema.paths["url_2"] == ("url",)
    assert schema.paths["repo_url"] == ("repo", "url")


def test_depth_limit_keeps_deep_objects_opaque() -> None:
    record = {"profile": {"prefs": {"deep": {"y": {"z": 2}}}}}
    assert flatten(record) == {("profile", "prefs", "deep", "y"): {"z": 2}}
    assert flatten(record, max_depth=0) == {("profile",): record["profile"]}
    schema = infer_schema([record], domain="d")
    assert schema.paths == {"y": ("profile", "prefs", "deep", "y")}


def test_late_paths_are_back_filled_so_nullability_is_right() -> None:
    records = [{"a": 1}, {"a": 2}, {"a": 3, "b": "x"}]
    schema = infer_schema(records, domain="d", min_presence=0)
    # dcp-wrap would call "b" a non-null string; it is missing from two of three records
    assert schema.types["b"] == {"type": ["string", "null"]}


def test_min_presence_drops_rare_and_all_null_fields() -> None:
    records: list[dict[str, Any]] = [{"a": 1, "n": None}] + [{"a": i} for i in range(20)]
    records[0]["rare"] = "x"
    assert infer_schema(records, domain="d").fields == ("a",)
    kept = infer_schema(records, domain="d", min_presence=0)
    assert set(kept.fields) == {"a", "n", "rare"}
    assert kept.types["n"] == {"type": "null"}


def test_types_enum_and_ranges() -> None:
    records = [
        {"m": m, "r": r, "n": n, "i": i}
        for m, r, n, i in [
            ("GET", 0.5, 3, 1),
            ("GET", 1, 7, 2),
            ("POST", 0.0, 1.5, 3),
            ("GET", 0.25, 2, 4),
        ]
    ]
    types = infer_schema(records, domain="d").types
    assert types["m"] == {"type": "string", "enum": ["GET", "POST"]}
    assert types["r"] == {"type": "number", "min": 0, "max": 1}
    assert types["n"] == {"type": "number", "min": 0}
    head = infer_schema(records, domain="d", types="v0.3").types
    assert head["i"] == {"type": "int", "min": 0}
    assert head["n"] == {"type": "number", "min": 0}


def test_booleans_are_not_numbers() -> None:
    schema = infer_schema([{"flag": True}, {"flag": False}], domain="d")
    assert schema.types["flag"] == {"type": "boolean"}


def test_include_exclude_field_names_max_fields() -> None:
    records = [{"id": 1, "user": {"login": "a", "id": 2}, "body": "b"}]
    assert infer_schema(records, domain="d", include=["user"]).fields == ("id", "login")
    assert infer_schema(records, domain="d", exclude=["user.id", "body"]).fields == (
        "id",
        "login",
    )
    renamed = infer_schema(records, domain="d", field_names={"user.login": "who"})
    assert "who" in renamed.fields and renamed.paths["who"] == ("user", "login")
    assert len(infer_schema(records, domain="d", max_fields=2).fields) == 2


def test_nested_arrays_of_objects_get_sub_schemas() -> None:
    records = [
        {"id": "u1", "teams": [{"id": "t1", "role": "lead", "meta": {"x": 1}}]},
        {"id": "u2", "teams": [{"id": "t2", "role": "member"}, {"id": "t3"}]},
    ]
    schema = infer_schema(records, domain="users")
    sub = schema.nest["teams"]
    assert schema.types["teams"] == {"type": "array"}
    assert sub.id == "users.teams:v1"
    assert sub.fields == ("id", "role", "meta")
    assert sub.paths["meta"] == ("meta",)  # items are not flattened (max depth 0)
    # as in dcp-wrap, one record holding objects is enough: an empty array elsewhere still nests
    records[1]["teams"] = []
    assert infer_schema(records, domain="users").nest["teams"].fields == ("id", "role", "meta")
    # arrays of anything but objects never do
    records[0]["teams"] = ["t1"]
    assert "teams" not in infer_schema(records, domain="users").nest


def test_path_naming_names_fields_by_path_and_keeps_unsafe_objects_whole() -> None:
    records = [
        {"id": 1, "owner": {"login": "a"}, "meta": {"k": 1}},
        {"id": 2, "owner": {"login": "b"}, "meta": None},
    ]
    schema = infer_schema(records, domain="d", naming="path", order="source")
    assert schema.fields == ("id", "owner.login", "meta")
    assert schema.paths["meta"] == ("meta",)


def test_wrapper_is_unwrapped_before_inference() -> None:
    wrapper = {"total_count": 2, "items": [{"a": 1}, {"a": 2}]}
    assert unwrap(wrapper) == ({"total_count": 2}, "items", wrapper["items"])
    assert infer_schema(wrapper, domain="d").fields == ("a",)


@pytest.mark.parametrize(
    ("records", "path"),
    [
        ([{"a": 1}, None], "$[1]"),
        ([{"a": 1}, "a bare string"], "$[1]"),
        ([[1, 2, 3]], "$[0]"),
        ("text", "$"),
        (None, "$"),
        (42, "$"),
        ({"a": 1}, "$"),
        ([{1: "non-string key"}], "$[0]"),
        ([{"a": {"b c": {1: 2}}}], "$[0].a['b c']"),
        ([{"a": [{"x": 1}]}, {"a": [{2: 3}]}], "$[1].a[0]"),
    ],
)
def test_bad_records_raise_a_clear_encode_error(records: Any, path: str) -> None:
    with pytest.raises(EncodeTypeError) as info:
        infer_schema(records, domain="d")
    assert info.value.path == path


def test_the_dirty_fixture_names_the_first_bad_record() -> None:
    dirty = load_js(DCP / "inputs" / "fixture_mock_data_dirty.json")
    with pytest.raises(EncodeError) as info:
        infer_schema(dirty, domain="dirty")
    assert info.value.path == "$[15]" and "null" in info.value.reason
    clean = [r for r in dirty if isinstance(r, dict)]
    schema = infer_schema(clean, domain="dirty")
    # mixed types put every field in the "other" rank: presence, then name, decide the order
    assert schema.fields == ("tags", "content", "flags", "summary", "importance", "$schema")
    assert schema.types["flags"] == {"type": ["boolean", "number", "string", "null"]}
    assert schema.types["content"] == {"type": ["number", "string", "null"]}  # objects: "string"


def test_empty_input_gives_an_empty_schema() -> None:
    schema = infer_schema([], domain="d")
    assert schema.fields == () and schema.full_mask == 0
    assert infer_schema([{}, {}], domain="d").fields == ()


def test_bad_domain_is_refused() -> None:
    with pytest.raises(EncodeError):
        infer_schema([{"a": 1}], domain="a#b")


# --- masks, resolve, DcpSchemaDef ------------------------------------------------------------


def test_mask_bits_put_the_first_field_in_the_msb() -> None:
    schema = DcpSchema(id="issues:v1", fields=("id", "status", "score", "title", "login"))
    assert schema.full_mask == 0x1F
    assert schema.fields_from_mask(0x1B) == ("id", "status", "title", "login")
    assert schema.cutdown_id(0x1B) == "issues:v1#1b"
    assert schema.cutdown_id(0x1F) == "issues:v1"
    assert (schema.domain, schema.version) == ("issues", 1)


def test_resolve_tells_absent_from_null() -> None:
    record = {"a": {"b": None}, "c": 1}
    assert resolve(record, ("a", "b")) is None
    assert resolve(record, ("a", "x")) is ABSENT
    assert resolve(record, ("c", "x")) is ABSENT


def test_to_def_from_def_round_trip_with_nest_schemas() -> None:
    records = [{"id": 1, "user": {"login": "a"}, "tags": [{"k": "x"}]}]
    schema = infer_schema(records, domain="d")
    again = DcpSchema.from_def(schema.to_def(), schema.mapping_def())
    assert again == schema
    assert again.nest["tags"].paths == {"k": ("k",)}
    one_file = schema.to_def(with_mapping=True)
    assert one_file["mapping"] == schema.mapping_def()
    assert DcpSchema.from_def(json.loads(json.dumps(one_file))) == schema


def test_from_def_reads_dcp_wrap_cli_files_and_auto_binds() -> None:
    folder = DCP / "cli" / "dcp-schemas"
    definition = json.loads((folder / "api-flat.v1.json").read_text())
    mapping = json.loads((folder / "api-flat.v1.mapping.json").read_text())
    schema = DcpSchema.from_def(definition, mapping)
    assert schema.fields == ("endpoint", "method", "status", "latency_ms")
    bound = DcpSchema.from_def(
        {"$dcp": "schema", "id": "x:v1", "fields": ["id", "login"]},
        samples=[{"id": 1, "user": {"login": "a"}}],
    )
    assert bound.paths == {"id": ("id",), "login": ("user", "login")}


@pytest.mark.parametrize(
    "definition",
    [
        {"id": "x:v1", "fields": []},
        {"$dcp": "schema", "fields": []},
        {"$dcp": "schema", "id": "x:v1", "fields": [1]},
        {"$dcp": "schema", "id": "x:v1", "fields": ["a"], "fieldCount": 2},
        {"$dcp": "schema", "id": "x:v1", "fields": ["a", "a"]},
        [],
    ],
)
def test_from_def_refuses_broken_definitions(definition: Any) -> None:
    with pytest.raises(EncodeError):
        DcpSchema.from_def(definition)


def test_registry_saves_and_loads_dcp_wrap_named_files(tmp_path: Path) -> None:
    registry = SchemaRegistry(tmp_path)
    schema = infer_schema(load_js(DCP / "inputs" / "api_flat.json"), domain="api-flat")
    written = registry.save(schema)
    assert sorted(Path(p).name for p in written) == ["api-flat.v1.json", "api-flat.v1.mapping.json"]
    # the files are the ones dcp-wrap's CLI writes for the same records
    cli = DCP / "cli" / "dcp-schemas"
    for name in ("api-flat.v1.json", "api-flat.v1.mapping.json"):
        assert (tmp_path / name).read_bytes() == (cli / name).read_bytes()
    loaded = SchemaRegistry(tmp_path)
    assert loaded.ids() == ["api-flat:v1"]
    assert loaded.get("api-flat:v1#3") == schema
    assert "api-flat:v1" in loaded and len(loaded) == 1
    assert list(loaded) == [schema]


def test_registry_loads_dcp_wrap_cli_folder() -> None:
    registry = SchemaRegistry(DCP / "cli" / "dcp-schemas")
    found = registry.get("api-flat:v1")
    assert found is not None and found.paths["latency_ms"] == ("latency_ms",)


def test_registry_names_a_broken_file(tmp_path: Path) -> None:
    (tmp_path / "x.v1.json").write_text('{"$dcp": "schema",\n "id": }')
    with pytest.raises(DecodeError) as info:
        SchemaRegistry(tmp_path)
    assert info.value.lineno == 2 and "x.v1.json" in info.value.msg


def test_schema_does_not_touch_the_callers_paths() -> None:
    given: dict[str, tuple[str, ...]] = {"a": ("x", "a")}
    schema = DcpSchema(id="d:v1", fields=("a", "b"), paths=given)
    assert given == {"a": ("x", "a")}
    assert schema.paths == {"a": ("x", "a"), "b": ("b",)}


# --- the schema-of-schemas -------------------------------------------------------------------


def _golden_registry() -> SchemaRegistry:
    registry = SchemaRegistry()
    for case in CASES:
        records = load_js(DCP / "inputs" / f"{case}.json")
        registry.add(infer_schema(records, domain=case))
    teams = [{"id": 1, "teams": [{"name": "core", "members": [{"login": "ann"}]}]}]
    registry.add(infer_schema(teams, domain="users"))  # sub-schemas, nested twice
    return registry


@pytest.mark.parametrize("dialect", ["gateway", "v0.3"])
def test_a_registry_is_one_dcp_table_that_decodes_back_exactly(dialect: Any) -> None:
    from gcxwire import dcp
    from gcxwire._values import difference

    registry = _golden_registry()
    assert any(schema.nest for schema in registry)  # sub-schemas travel as nested entries
    entries = registry.entries()
    text = dcp.encode(entries, dcp.REGISTRY_SCHEMA, dialect=dialect)
    header = json.loads(text.splitlines()[0])
    assert header[:2] == ["$S", "dcp-schemas:v1"]
    assert header[-8:] == "id version status description fields types paths nestSchemas".split()
    assert len(text.splitlines()) == 1 + len(registry)
    back = dcp.decode(text, schema=dcp.REGISTRY_SCHEMA)
    assert difference(entries, back) is None
    again = SchemaRegistry.from_entries(back)
    assert again.ids() == registry.ids()
    assert all(again.get(s.id) == s for s in registry)
    # and without the fixed schema, the lossless inference carries it too
    assert difference(entries, dcp.decode(dcp.encode(entries))) is None


def test_a_registry_entry_carries_version_and_status_down_to_its_sub_schemas() -> None:
    teams = [{"id": 1, "teams": [{"name": "core", "members": [{"login": "ann"}]}]}]
    entry = infer_schema(teams, domain="users", version=3).to_entry("confirmed")
    assert (entry["id"], entry["version"], entry["status"]) == ("users:v3", 3, "confirmed")
    (sub,) = entry["nestSchemas"].values()
    assert (sub["id"], sub["version"], sub["status"]) == ("users.teams:v3", 3, "confirmed")
    assert SchemaRegistry().entries() == [] and _golden_registry().entries()[0]["status"] == ""
