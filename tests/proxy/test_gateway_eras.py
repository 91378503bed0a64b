"""Two protocol eras behind one gateway: npm server-memory speaks only the
handshake era, PyPI mcp-server-time 2026-07-28. The Python SDK client, in its
default ``auto`` mode and pinned to the handshake era, must validate every result."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from ..node_deps import node_missing
from .http_servers import MEMORY

TIME_SERVER = [sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"]


def gateway_params(tmp_path: Path) -> StdioServerParameters:
    servers = {
        "memory": {"command": str(MEMORY), "env": {"MEMORY_FILE_PATH": str(tmp_path / "m.jsonl")}},
        "time": {"command": TIME_SERVER[0], "args": TIME_SERVER[1:]},
    }
    path = tmp_path / "gateway.json"
    path.write_text(json.dumps({"mcpServers": servers}))
    return StdioServerParameters(
        command=sys.executable, args=["-m", "gcxwire.proxy", "--servers", str(path)]
    )


async def session(params: StdioServerParameters, **mode: Any) -> dict[str, Any]:
    async with Client(params, **mode) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        entity = {"name": "gcxwire", "entityType": "project", "observations": ["a proxy"]}
        created = await client.call_tool("memory__create_entities", {"entities": [entity]})
        graph = await client.call_tool("memory__read_graph", {})
        now = await client.call_tool("time__get_current_time", {"timezone": "UTC"})
        return {
            "version": client.protocol_version,
            "names": names,
            "results": [created, graph, now],
        }


@pytest.mark.slow
@pytest.mark.parametrize("mode", [{}, {"mode": "legacy"}], ids=["auto", "legacy"])
def test_an_npm_handshake_server_and_a_2026_server_behind_one_gateway(
    tmp_path: Path, mode: dict[str, Any]
) -> None:
    missing = node_missing()
    if missing is not None:
        pytest.skip(missing)
    got = asyncio.run(asyncio.wait_for(session(gateway_params(tmp_path), **mode), 120))
    assert got["version"] == ("2026-07-28" if not mode else "2025-11-25")
    assert {"memory__read_graph", "time__get_current_time"} <= got["names"]
    for result in got["results"]:  # every one validated by the SDK on the way in
        assert not result.is_error
    assert "gcxwire" in json.dumps([block.model_dump() for block in got["results"][1].content])
