"""The real SDK client, through the proxy, to an MCPServer of our own, in both eras."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import ElicitResult, TextContent, TextResourceContents

from gcxwire import dcp
from gcxwire.mcp import is_hint
from gcxwire.proxy.jsonrpc import UPSTREAM_EXITED
from gcxwire.proxy.registry import SCHEMAS_URI, tool_uri

from .helpers import TABLE_SERVER, carried_value, proxy_params
from .servers.table_server import rows_for, search_for

# The SDK client's default (auto: 2026-07-28 against these servers) and the handshake
# era run by default; pinning 2026-07-28 takes the same path as auto after the version
# is chosen, so it runs in the slow tier (each case starts a proxy and a server).
MODES = ["legacy", "auto", pytest.param("2026-07-28", marks=pytest.mark.slow)]


def run(coro: Any) -> Any:
    return asyncio.run(coro)


@pytest.mark.parametrize("mode", MODES)
def test_results_read_back_as_sent_and_tools_stay_callable(mode: str) -> None:
    seen: list[float] = []
    logs: list[Any] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)

    async def on_log(params: Any) -> None:
        logs.append(params.data)

    async def scenario() -> None:
        client = Client(
            proxy_params(TABLE_SERVER), mode=mode, logging_callback=on_log, log_level="info"
        )
        async with client:
            # auto chooses 2026-07-28, as pinning it does (so MODES runs the pin as slow only)
            assert client.protocol_version == ("2026-07-28" if mode != "legacy" else "2025-11-25")
            listed = await client.list_tools()
            tools = {tool.name: tool for tool in listed.tools}
            assert "rows" in tools and "search" in tools
            # --structured drop (the default): no outputSchema is advertised any more.
            assert all(tool.output_schema is None for tool in tools.values())
            assert tools["rows"].input_schema["properties"]["n"]["type"] == "integer"

            rows = await client.call_tool("rows", {"n": 12})
            assert not rows.is_error
            assert rows.structured_content is None  # dropped with the rewrite
            assert carried_value(rows) == rows_for(12)

            as_text = await client.call_tool("rows_text", {"n": 30, "offset": 5})
            assert carried_value(as_text) == rows_for(30, 5)
            # The hint was said once: in the instructions, or (2026-07-28 without
            # server/discover) with the first result that needed it; a rarer marker at most once.
            *hints, _ = as_text.content
            assert len(hints) <= 1 and all(is_hint(block.text) for block in hints)  # type: ignore[union-attr]

            search = await client.call_tool("search", {"n": 8})
            assert carried_value(search) == search_for(8)

            small = await client.call_tool("small", {})
            # Not a table, but compact JSON is 2 tokens fewer than the server's text.
            assert small.content == [TextContent(type="text", text='{"ok":true,"count":2}')]
            hello = await client.call_tool("hello", {"name": "Ada"})
            assert hello.content[0].text == "Hello, Ada!"  # type: ignore[union-attr]
            boom = await client.call_tool("boom", {})
            assert boom.is_error
            assert "boom" in boom.content[0].text  # type: ignore[union-attr]

            slow = await client.call_tool("slow_rows", {"steps": 3}, progress_callback=on_progress)
            assert carried_value(slow) == rows_for(3)
            assert seen == [1, 2, 3]
            assert logs == ["working on step 1", "working on step 2", "working on step 3"]

            # The proxy's schema registry, after the server's own resource.
            uris = [str(item.uri) for item in (await client.list_resources()).resources]
            assert uris[:2] == ["table://readme", SCHEMAS_URI]
            (contents,) = (await client.read_resource(SCHEMAS_URI)).contents
            assert isinstance(contents, TextResourceContents)
            registry = dcp.decode(contents.text, schema=dcp.REGISTRY_SCHEMA)
            assert uris[2:] == [tool_uri(row["id"].split(":v")[0]) for row in registry]
            by_id = {row["id"]: row for row in registry}
            assert by_id["rows:v2"]["status"] == "confirmed"  # 12 rows: confirmed at once

    run(scenario())


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_structured_keep_leaves_structured_content_and_output_schema(mode: str) -> None:
    async def scenario() -> None:
        async with Client(proxy_params(TABLE_SERVER, "--structured", "keep"), mode=mode) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert tools["rows"].output_schema is not None
            # The client validates structuredContent against the schema: no error.
            rows = await client.call_tool("rows", {"n": 12})
            assert rows.structured_content == {"result": rows_for(12)}
            assert carried_value(rows) == rows_for(12)
            # The encoding, after a hint for what the session was not told yet, if anything.
            *hints, _ = rows.content
            assert len(hints) <= 1 and all(is_hint(block.text) for block in hints)  # type: ignore[union-attr]

    run(scenario())


@pytest.mark.parametrize("mode", MODES)
def test_server_requests_reach_the_client(mode: str) -> None:
    """Elicitation: a server-to-client request (legacy) or an input_required
    result the client retries (2026-07-28); both pass through untouched."""
    asked: list[str] = []

    async def on_elicit(context: Any, params: Any) -> ElicitResult:
        asked.append(params.message)
        return ElicitResult(action="accept", content={"color": "teal"})

    async def scenario() -> None:
        client = Client(proxy_params(TABLE_SERVER), mode=mode, elicitation_callback=on_elicit)
        async with client:
            result = await client.call_tool("ask", {})
            assert json.loads(result.content[-1].text) == [  # type: ignore[union-attr]
                {"color": "teal", "action": "accept"}
            ]
            assert asked == ["Which colour?"]

    run(scenario())


def test_a_large_result_is_relayed() -> None:
    # 8 MiB: larger than any line seen in the field (6.36 MB). The 64 MiB case runs
    # against a raw line server in test_relay.py, because the SDK itself needs ~45 s
    # for a 64 MiB result even without the proxy.
    size = 8 * 1024 * 1024

    async def scenario() -> None:
        async with Client(proxy_params(TABLE_SERVER), mode="2026-07-28") as client:
            result = await client.call_tool("blob", {"size": size})
            text = result.content[0].text  # type: ignore[union-attr]
            assert len(text) == size and text == "x" * size

    run(scenario())


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_an_upstream_crash_is_reported_to_the_client(mode: str) -> None:
    async def scenario() -> None:
        async with Client(proxy_params(TABLE_SERVER), mode=mode) as client:
            await client.list_tools()
            with pytest.raises(MCPError) as caught:
                await client.call_tool("crash", {"status": 3})
            assert caught.value.error.code == UPSTREAM_EXITED
            assert "'table_server' exited with status 3" in caught.value.error.message
            with pytest.raises(MCPError):  # the proxy is gone too: the connection closed
                await client.call_tool("hello", {"name": "again"})

    run(scenario())
