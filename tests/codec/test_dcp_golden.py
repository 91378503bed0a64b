"""Byte compatibility with the reference encoders, and decoding of what they wrote.

Every case the reference encoded without error is here: dcp-wrap 0.3.1 (``gateway``), dcp-wrap
HEAD (``v0.3``) and dcp-py 0.3.0 (``dcp-py``). dcp-wrap is JavaScript, so its inputs are read as
JSON.parse reads them (``1.0`` is the number 1); dcp-py's are read by Python's json.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gcxwire import dcp
from gcxwire.dcp import DcpSchema, infer_schema
from gcxwire.errors import DecodeError

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
WRAP = {"wrap-0.3.1": ("gateway", "dcp-wrap"), "wrap-head": ("v0.3", "v0.3")}
PY = DCP / "rag_preset_with_text" / "dcp-py-0.3.0"


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def golden(path: Path) -> str:
    """The reference output; the harness saved it with one trailing newline the encoders lack."""
    text = path.read_text(encoding="utf-8")
    assert text.endswith("\n")
    return text[:-1]


def ts_schema(case: str) -> DcpSchema:
    folder = DCP / case / "wrap-0.3.1"
    return DcpSchema.from_def(load(folder / "schema.json"), load(folder / "mapping.json"))


def test_the_reference_refused_only_the_cases_we_skip() -> None:
    refused = sorted(p.parent.parent.name for p in DCP.glob("*/wrap-*/error.txt"))
    assert refused == ["fixture_mock_data_dirty", "fixture_mock_data_dirty"]
    assert sorted(p.parent.parent.name for p in DCP.glob("*/wrap-0.3.1/dcp.txt")) == sorted(CASES)


# --- dcp-wrap 0.3.1 and HEAD ------------------------------------------------------------------


@pytest.mark.parametrize("label", sorted(WRAP))
@pytest.mark.parametrize("case", CASES)
def test_encode_matches_dcp_wrap(case: str, label: str) -> None:
    dialect, types = WRAP[label]
    records = load_js(DCP / "inputs" / f"{case}.json")
    schema = infer_schema(records, domain=case, types=types)  # type: ignore[arg-type]
    text = dcp.encode(records, schema, dialect=dialect)  # type: ignore[arg-type]
    assert text == golden(DCP / case / label / "dcp.txt")


@pytest.mark.parametrize("label", sorted(WRAP))
@pytest.mark.parametrize("batch", ["A", "B"])
def test_cached_schema_cutdown_batches_match(label: str, batch: str) -> None:
    dialect, types = WRAP[label]
    folder = DCP / "cutdown_second_batch"
    schema = infer_schema(load_js(folder / "batchA.input.json"), domain="issues", types=types)  # type: ignore[arg-type]
    records = load_js(folder / f"batch{batch}.input.json")
    text = dcp.encode(records, schema, dialect=dialect)  # type: ignore[arg-type]
    assert text == golden(folder / label / f"batch{batch}.dcp.txt")
    meta = load(folder / label / "batch_meta.json")[batch]
    assert text.split("\n")[0].startswith(f'["$S","{meta["schemaId"]}"')


@pytest.mark.parametrize("case", CASES)
def test_decode_without_schema_reads_dcp_wrap_as_its_own_decoder_should(case: str) -> None:
    text = golden(DCP / case / "wrap-0.3.1" / "dcp.txt")
    assert dcp.decode(text) == load(DCP / case / "wrap-0.3.1" / "decoded_with_mask.json")


@pytest.mark.parametrize("case", CASES)
def test_decode_of_head_text_reads_dash_as_absent(case: str) -> None:
    text = golden(DCP / case / "wrap-head" / "dcp.txt")
    reference = load(DCP / case / "wrap-head" / "decoded_with_mask.json")
    # dcp-wrap's own decoder keeps "-" as a string; read as the gateway dialect we agree with it
    assert dcp.decode(text, dialect="gateway") == reference
    expected = [{k: v for k, v in row.items() if v != "-"} for row in reference]
    assert dcp.decode(text) == expected


@pytest.mark.parametrize("label", sorted(WRAP))
def test_cutdown_batch_decodes_aligned_by_the_header(label: str) -> None:
    folder = DCP / "cutdown_second_batch"
    text = golden(folder / label / "batchB.dcp.txt")
    reference = load(folder / label / "batchB.decoded_with_mask.json")
    assert dcp.decode(text, dialect="gateway") == reference
    # with the schema, the nesting comes back from the mapping paths
    schema = infer_schema(load_js(folder / "batchA.input.json"), domain="issues")
    rows = dcp.decode(text, schema=schema)
    assert rows[0] == {"id": "b1", "status": "open", "title": "x", "assignee": {"login": "cy"}}


@pytest.mark.parametrize("case", CASES)
def test_decode_with_schema_rebuilds_the_input(case: str) -> None:
    """Round trip through the reference's own text; what differs is exactly the named losses."""
    records = load_js(DCP / "inputs" / f"{case}.json")
    schema = infer_schema(records, domain=case)
    back = dcp.decode(golden(DCP / case / "wrap-0.3.1" / "dcp.txt"), schema=schema)
    assert len(back) == len(records)
    for original, decoded in zip(records, back):
        for name in schema.fields:
            path = schema.paths[name]
            want: Any = original
            for key in path:
                want = want.get(key) if isinstance(want, dict) else None
            got: Any = decoded
            for key in path:
                got = got[key]
            assert got == want  # absent and null both read back as null (gateway)


# --- dcp-py 0.3.0 -----------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES)
def test_dcp_py_with_the_dcp_wrap_schema_matches(case: str) -> None:
    records = load(DCP / "inputs" / f"{case}.json")
    text = dcp.encode(records, ts_schema(case), dialect="dcp-py")
    assert text == golden(DCP / case / "dcp-py-0.3.0" / "dcp_using_ts_schema.txt")


def test_dcp_py_own_schema_matches() -> None:
    records = load(DCP / "inputs" / "api_flat.json")
    schema = infer_schema(records, domain="api_flat")
    text = dcp.encode(records, schema, dialect="dcp-py")
    assert text == golden(DCP / "api_flat" / "dcp-py-0.3.0" / "dcp.txt")


@pytest.mark.parametrize("density", [0, 1, 2, 3, 4])
def test_dcp_py_header_densities_match(density: int) -> None:
    records = load(DCP / "inputs" / "api_flat.json")
    schema = infer_schema(records, domain="api_flat")
    expected = load(DCP / "api_flat" / "dcp-py-0.3.0" / "header_density_0_to_4.json")
    text = dcp.encode(records, schema, dialect="dcp-py", density=density)
    assert text == expected[str(density)]
    if density < 4:
        assert dcp.decode(text, schema=schema) == records
        assert dcp.decode(text) == records
    else:
        with pytest.raises(DecodeError, match="L4"):
            dcp.decode(text)


@pytest.mark.parametrize("batch", ["A", "B"])
def test_dcp_py_cutdown_batches_match(batch: str) -> None:
    folder = DCP / "cutdown_second_batch"
    batch_a = load(folder / "batchA.input.json")
    # dcp-py's own schema keeps the all-null "assignee"; its paths are auto-bound from batch A
    schema = DcpSchema.from_def(load(folder / "dcp-py-0.3.0" / "schema.json"), samples=batch_a)
    records = load(folder / f"batch{batch}.input.json")
    text = dcp.encode(records, schema, dialect="dcp-py")
    assert text == golden(folder / "dcp-py-0.3.0" / f"batch{batch}.dcp.txt")


def _rag() -> tuple[list[dict[str, Any]], DcpSchema]:
    records = load(DCP / "rag_preset_with_text" / "pinecone_matches.input.json")
    presets = load(DCP / "schemas" / "presets_field_mappings.json")
    paths = presets["rag"]["pinecone"]["rag-chunk-meta:v1"]
    schema = DcpSchema.from_def(load(DCP / "schemas" / "rag-chunk-meta.v1.json"), {"paths": paths})
    return records, schema


def test_dcp_py_pinecone_preset_with_and_without_text_lines() -> None:
    records, schema = _rag()
    with_text = dcp.encode(records, schema, dialect="dcp-py", text_key="metadata.text")
    assert with_text == golden(PY / "dcp_default.txt")
    assert dcp.encode(records, schema, dialect="dcp-py") == golden(PY / "meta_only.txt")
    back = dcp.decode(with_text, schema=schema, text_key="metadata.text")
    for original, decoded in zip(records, back):
        assert decoded["metadata"] == original["metadata"]
        assert decoded["score"] == original["score"]


@pytest.mark.parametrize("density", [0, 1, 2, 3, 4])
def test_dcp_py_densities_with_text_lines_match(density: int) -> None:
    records, schema = _rag()
    expected = load(PY / "header_density_0_to_4_with_text.json")[str(density)]
    text = dcp.encode(records, schema, dialect="dcp-py", density=density, text_key="metadata.text")
    assert text == expected


def test_dcp_py_preset_cutdown_matches() -> None:
    records, schema = _rag()
    trimmed = [
        {**r, "metadata": {k: v for k, v in r["metadata"].items() if k not in ("page", "section")}}
        for r in records
    ]
    text = dcp.encode(trimmed, schema, dialect="dcp-py")
    assert text == golden(PY / "cutdown_no_page_section.txt")
    assert dcp.decode(text, schema=schema)[0] == {
        "metadata": {"source": "docs/auth.md", "chunk_index": 3},
        "score": 0.92,
    }
