"""One proxy in front of two instances of our test server and mcp-server-time,
driven by the real SDK client (the dcp-gateway's aggregator suite, as processes)."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp.types import ElicitResult

import gcxwire
from gcxwire.proxy.jsonrpc import UPSTREAM_EXITED

from .helpers import TABLE_SERVER, carried_value
from .servers.table_server import rows_for

TABLE_TOOLS = {"ask", "blob", "boom", "crash", "drifting", "hello", "rows", "rows_text"}
TABLE_TOOLS |= {"search", "slow_rows", "small", "stray"}


def gateway_file(tmp_path: Path, *, restart_a: bool = False, extra: list[Any] | None = None) -> str:
    servers = [
        {
            "alias": "srvA",
            "command": TABLE_SERVER[0],
            "args": TABLE_SERVER[1:],
            "restart": restart_a,
        },
        {"alias": "srvB", "command": TABLE_SERVER[0], "args": TABLE_SERVER[1:]},
        {"alias": "time", "command": sys.executable, "args": ["-m", "mcp_server_time"]},
        *(extra or []),
    ]
    path = tmp_path / "gateway.json"
    path.write_text(json.dumps({"servers": servers}))
    return str(path)


def gateway(path: str, *options: str) -> StdioServerParameters:
    args = ["-m", "gcxwire.proxy", *options, "--servers", path]
    return StdioServerParameters(command=sys.executable, args=args)


def schema_version(text: str) -> int:
    header = orjson.loads(text.splitlines()[0])
    assert header[0] == "$S", text
    return int(header[1].rsplit(":v", 1)[1])


# auto negotiates 2026-07-28 here, as pinning it does: the pinned mode is the slow tier's.
@pytest.mark.parametrize(
    "mode", ["legacy", "auto", pytest.param("2026-07-28", marks=pytest.mark.slow)]
)
def test_tools_are_merged_prefixed_and_routed(tmp_path: Path, mode: str) -> None:
    async def scenario() -> None:
        async with Client(gateway(gateway_file(tmp_path)), mode=mode) as client:
            assert client.protocol_version == ("2026-07-28" if mode != "legacy" else "2025-11-25")
            tools = (await client.list_tools()).tools
            names = [tool.name for tool in tools]
            assert len(names) == len(set(names))  # no duplicates
            expected = {f"srv{s}__{t}" for s in "AB" for t in TABLE_TOOLS}
            assert set(names) == expected | {"time__get_current_time", "time__convert_time"}
            by_name = {tool.name: tool for tool in tools}
            assert by_name["srvA__rows"].description == by_name["srvB__rows"].description
            assert "outputSchema" not in by_name["srvA__rows"].model_dump(exclude_none=True)

            a = await client.call_tool("srvA__rows", {"n": 12})
            b = await client.call_tool("srvB__rows_text", {"n": 3, "offset": 7})
            assert carried_value(a) == rows_for(12)
            assert carried_value(b) == rows_for(3, 7)
            converted = await client.call_tool(
                "time__convert_time",
                {"source_timezone": "UTC", "time": "08:00", "target_timezone": "Asia/Tokyo"},
            )
            # Compacted (a pretty object): the value is in the text, structuredContent dropped.
            assert carried_value(converted)["target"]["timezone"] == "Asia/Tokyo"

            for unknown in ("nope__rows", "srvA__nope", "rows"):
                with pytest.raises(MCPError) as caught:
                    await client.call_tool(unknown, {})
                assert caught.value.error.code == -32602

    asyncio.run(scenario())


@pytest.mark.slow  # a few seconds of real servers; the default tier stays under 5 minutes
def test_each_server_has_its_own_schema_lifecycle(tmp_path: Path) -> None:
    async def scenario() -> None:
        params = gateway(gateway_file(tmp_path), "--format", "dcp", "--confirm-after", "10")
        async with Client(params, mode="2026-07-28") as client:
            await client.list_tools()
            versions = {}
            for alias, calls in (("srvA", 11), ("srvB", 1)):
                for _ in range(calls):
                    # 12 rows: enough that DCP, with its reading hint the first time, saves.
                    result = await client.call_tool(f"{alias}__rows", {"n": 12})
                    text = result.content[-1].text  # type: ignore[union-attr]
                    assert gcxwire.decode(text) == rows_for(12)
                versions[alias] = schema_version(text)
            # A shared cache would leave both at the same version.
            assert versions["srvA"] > versions["srvB"] == 1

    asyncio.run(scenario())


def test_colliding_server_requests_are_remapped(tmp_path: Path) -> None:
    """Both servers ask the client at once; each numbers its request 0."""
    asked: list[str] = []

    async def on_elicit(context: Any, params: Any) -> ElicitResult:
        asked.append(params.message)
        color = f"c{len(asked)}"
        await asyncio.sleep(0.2)  # keep both requests open at the same time
        return ElicitResult(action="accept", content={"color": color})

    async def scenario() -> None:
        client = Client(
            gateway(gateway_file(tmp_path)), mode="legacy", elicitation_callback=on_elicit
        )
        async with client:
            await client.list_tools()
            a, b = await asyncio.gather(
                client.call_tool("srvA__ask", {}), client.call_tool("srvB__ask", {})
            )
            colors = {
                json.loads(r.content[-1].text)[0]["color"]  # type: ignore[union-attr]
                for r in (a, b)
            }
            assert colors == {"c1", "c2"}
            assert asked == ["Which colour?", "Which colour?"]

    asyncio.run(scenario())


@pytest.mark.slow  # a few seconds of real servers; the default tier stays under 5 minutes
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_a_crash_leaves_the_others_serving_and_restart_brings_it_back(
    tmp_path: Path, mode: str
) -> None:
    async def scenario() -> None:
        path = gateway_file(tmp_path, restart_a=True)
        async with Client(gateway(path), mode=mode) as client:
            await client.list_tools()
            with pytest.raises(MCPError) as caught:
                await client.call_tool("srvA__crash", {"status": 3})
            assert caught.value.error.code == UPSTREAM_EXITED
            assert "'srvA' exited with status 3" in caught.value.error.message
            assert carried_value(await client.call_tool("srvB__rows", {"n": 4})) == rows_for(4)
            names = {tool.name for tool in (await client.list_tools(cache_mode="bypass")).tools}
            assert not any(name.startswith("srvA__") for name in names)
            assert "srvB__rows" in names
            deadline = time.monotonic() + 15  # restarted after 1 s, handshake replayed
            while time.monotonic() < deadline:
                await asyncio.sleep(0.3)
                listed = await client.list_tools(cache_mode="bypass")
                if any(tool.name == "srvA__rows" for tool in listed.tools):
                    break
            assert carried_value(await client.call_tool("srvA__rows", {"n": 3})) == rows_for(3)

    asyncio.run(scenario())


def test_a_server_that_cannot_start_does_not_stop_the_others(tmp_path: Path) -> None:
    broken = {"alias": "broken", "command": "/nonexistent/mcp-server"}

    async def scenario() -> None:
        async with Client(gateway(gateway_file(tmp_path, extra=[broken])), mode="auto") as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert "srvA__rows" in names and not any(n.startswith("broken__") for n in names)
            with pytest.raises(MCPError) as caught:
                await client.call_tool("broken__anything", {})
            assert caught.value.error.code == -32602

    asyncio.run(scenario())
