"""Results recorded from real MCP servers, replayed through the interceptor.

Every rewritten result must read back as the JSON its text carried, never cost
more tokens, and keep the tools callable; the shapes the proxy is for (memory's
graph, filesystem's tree) must actually be rewritten.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import gcxwire
from gcxwire import tokens
from gcxwire.proxy.cli import build_interceptor
from gcxwire.proxy.options import parse_options
from gcxwire.proxy.stats import ProxyStats
from gcxwire.proxy.tabular import parse_text_blocks

RECORDED: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "recorded_results.json").read_text(encoding="utf-8")
)
CALLS = [
    pytest.param(server, i, id=f"{server}-{i}-{call['call']['name']}")
    for server, data in RECORDED.items()
    for i, call in enumerate(data["calls"])
]


@pytest.mark.parametrize("structured", ["drop", "keep"])
@pytest.mark.parametrize(("server", "index"), CALLS)
def test_recorded_result_reads_back_and_never_grows(
    server: str, index: int, structured: str
) -> None:
    call = RECORDED[server]["calls"][index]
    result = call["result"]
    options = parse_options(["--structured", structured, "--", server])
    interceptor = build_interceptor(options, ProxyStats(server))
    new = interceptor.rewrite_tool_result(call["call"]["name"], result)
    if new is None:
        return
    texts = [block["text"] for block in result["content"]]
    assert gcxwire.decode(new["content"][-1]["text"]) == parse_text_blocks(texts, json.loads)
    after = sum(tokens.count(block["text"]) for block in new["content"])
    assert after < sum(tokens.count(text) for text in texts)
    assert ("structuredContent" in new) == (structured == "keep" and "structuredContent" in result)
    assert {k: v for k, v in new.items() if k not in ("content", "structuredContent")} == {
        k: v for k, v in result.items() if k not in ("content", "structuredContent")
    }


def test_the_shapes_the_proxy_is_for_are_rewritten() -> None:
    rewritten = set()
    for server, data in RECORDED.items():
        interceptor = build_interceptor(parse_options(["--", server]), ProxyStats(server))
        for call in data["calls"]:
            if interceptor.rewrite_tool_result(call["call"]["name"], call["result"]) is not None:
                rewritten.add(f"{server}.{call['call']['name']}")
    expected = {"memory.read_graph", "memory.create_entities", "filesystem.directory_tree"}
    assert expected <= rewritten
    # Plain text and Python reprs are left alone; a small pretty object becomes compact JSON.
    assert not {"git.git_log", "sqlite.read_query"} & rewritten
    assert "time.convert_time" in rewritten


@pytest.mark.parametrize("server", sorted(RECORDED))
def test_recorded_tools_lists_stay_callable(server: str) -> None:
    tools_list = RECORDED[server]["tools_list"]
    interceptor = build_interceptor(parse_options(["--", server]), ProxyStats(server))
    slim = interceptor.rewrite_tools_list(tools_list) or tools_list  # None: nothing to slim
    assert {k: v for k, v in slim.items() if k != "tools"} == {
        k: v for k, v in tools_list.items() if k != "tools"
    }
    for before, after in zip(tools_list["tools"], slim["tools"], strict=True):
        assert after["name"] == before["name"]
        assert after.get("description") == before.get("description")
        schema_before, schema_after = before["inputSchema"], after["inputSchema"]
        assert schema_after.get("required") == schema_before.get("required")
        assert list(schema_after.get("properties", {})) == list(schema_before.get("properties", {}))
        assert "outputSchema" not in after
    counters = interceptor.stats.tools_list
    if server == "sqlite":  # a low-level mcp 1.x server: no titles, no $schema, no outputSchema
        assert slim is tools_list and counters.tokens_after == counters.tokens_before
    else:
        assert counters.tokens_after < counters.tokens_before
