"""Declared layouts in ``--presets DIR``: a result that drifts from its tool's layout
is counted in the stats and logged (never a payload value), and sent in the encoding
inferred from it, never under the layout's id."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

import gcxwire
from gcxwire.proxy.cli import build_interceptor
from gcxwire.proxy.interceptor import ResponseInterceptor
from gcxwire.proxy.jsonrpc import PendingRequest
from gcxwire.proxy.options import parse_options
from gcxwire.proxy.presets import PresetError, load_layouts, load_schema_defs
from gcxwire.proxy.registry import SchemaResources, ServedRegistry
from gcxwire.proxy.stats import ProxyStats

from .helpers import TABLE_SERVER, carried_value, proxy_params, read_text, registry_rows, run
from .servers.table_server import rows_for

# The records of table_server's `drifting` tool at version 1 (rows_for), declared.
DRIFTING_LAYOUT = {
    "$layout": 1,
    "tool": "drifting",
    "version": 1,
    "fields": [
        {"path": "id", "type": "integer"},
        {"path": "name", "type": "string"},
        {"path": "score", "type": "number"},
        {"path": "active", "type": "boolean"},
        {"path": "note", "type": ["string", "null"]},
    ],
}


def presets_with_layout(tmp_path: Path) -> Path:
    presets = tmp_path / "presets"
    presets.mkdir()
    (presets / "drifting.v1.layout.json").write_text(json.dumps(DRIFTING_LAYOUT))
    return presets


def drifted_rows(n: int) -> list[dict[str, Any]]:
    return [{**row, "email": f"{row['name']}@example.org"} for row in rows_for(n)]


def interceptor_with_layout(tmp_path: Path, *options: str) -> ResponseInterceptor:
    parsed = parse_options(["--presets", str(presets_with_layout(tmp_path)), *options, "--", "s"])
    return build_interceptor(parsed, ProxyStats(parsed.server_name))


def as_result(value: Any) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": json.dumps(value, indent=2)}]}


@pytest.mark.parametrize("fmt", ["auto", "dcp"])
def test_a_result_that_drifts_from_its_layout_is_counted_and_sent_inferred(
    tmp_path: Path, fmt: str, caplog: pytest.LogCaptureFixture
) -> None:
    ic = interceptor_with_layout(tmp_path, "--format", fmt)
    fits = ic.rewrite_tool_result("drifting", as_result(rows_for(40)))
    assert fits is not None and ic.stats.tools["drifting"].drifts == 0
    if fmt == "dcp":  # the layout's own schema, under its id
        assert fits["content"][-1]["text"].startswith('["$S","drifting:v1"')
    with caplog.at_level("WARNING", logger="gcxwire.proxy"):
        drifted = ic.rewrite_tool_result("drifting", as_result(drifted_rows(40)))
    assert drifted is not None
    text = drifted["content"][-1]["text"]
    assert gcxwire.decode(text) == drifted_rows(40)  # every value, the new field too
    assert "drifting:v1" not in text  # never under the layout's id
    counters = ic.stats.tools["drifting"]
    assert counters.drifts == 1
    assert counters.last_drift == "new_field email at $[0].email, drifting:v1"
    assert "does not fit its layout" in caplog.text and "example.org" not in caplog.text
    assert "1 drifted from the layout" in ic.stats.summary()


def test_a_declared_layout_is_in_the_registry_from_the_start(tmp_path: Path) -> None:
    ic = interceptor_with_layout(tmp_path)
    assert ic.lifecycle is not None
    served = ServedRegistry(ic, SchemaResources(ic.lifecycle.schemas))
    read = PendingRequest(1, "resources/read", {"uri": "gcxwire://schemas/drifting"})
    answer = served.answer_locally(read)
    assert answer is not None
    (row,) = registry_rows(json.loads(answer)["result"]["contents"][0]["text"])
    assert (row["id"], row["version"], row["status"]) == ("drifting:v1", 1, "declared")
    assert row["fields"] == ["id", "name", "score", "active", "note"]


@pytest.mark.slow
def test_drift_from_a_declared_preset_through_the_proxy_is_in_the_stats(tmp_path: Path) -> None:
    stats_file, log_file = tmp_path / "stats.json", tmp_path / "proxy.log"
    options = ("--presets", str(presets_with_layout(tmp_path)), "--stats-file", str(stats_file))
    params = proxy_params(TABLE_SERVER, *options, "--log-file", str(log_file))

    async def scenario() -> None:
        async with Client(params, mode="legacy") as client:
            fits = await client.call_tool("drifting", {"n": 4, "version": 1})
            assert carried_value(fits) == rows_for(4)
            (row,) = registry_rows(await read_text(client, "gcxwire://schemas/drifting"))
            assert (row["id"], row["status"]) == ("drifting:v1", "declared")
            drifted = await client.call_tool("drifting", {"n": 4, "version": 2})
            assert carried_value(drifted) == drifted_rows(4)
            retyped = await client.call_tool("drifting", {"n": 4, "version": 3})
            assert all(isinstance(r["score"], str) for r in carried_value(retyped))

    run(scenario())
    for _ in range(100):  # written when the proxy exits, after the client closed it
        if stats_file.exists():
            break
        time.sleep(0.05)
    tool = json.loads(stats_file.read_text())["tools"]["drifting"]
    assert (tool["calls"], tool["drifts"]) == (3, 2)
    # The last drift's first place: version 3 changes score's type before its new email.
    assert tool["last_drift"] == "type_change score at $[0].score, drifting:v1"
    logged = log_file.read_text()
    assert logged.count("does not fit its layout") == 2 and "example.org" not in logged


def test_layout_files_are_layouts_not_schema_files_and_a_bad_one_names_itself(
    tmp_path: Path,
) -> None:
    presets = presets_with_layout(tmp_path)
    (presets / "search.json").write_text(
        json.dumps({"$dcp": "schema", "id": "search:v1", "fields": ["id"]})
    )
    assert list(load_schema_defs(str(presets))) == ["search"]
    assert [layout.id for layout in load_layouts(str(presets)).values()] == ["drifting:v1"]
    (presets / "broken.v1.layout.json").write_text('{"$layout": 1, "tool": "broken"}')
    with pytest.raises(PresetError, match=r"broken\.v1\.layout\.json"):
        load_layouts(str(presets))
