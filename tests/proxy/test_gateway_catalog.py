"""Prompts, resources, templates and completions through the gateway: two catalog
servers (the SDK's MCPServer) and one that cannot start, driven by the real SDK client."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import PromptReference, ResourceTemplateReference, TextContent

from gcxwire.proxy.jsonrpc import UPSTREAM_EXITED
from gcxwire.proxy.registry import SCHEMAS_URI

from .helpers import SERVERS

CATALOG_SERVER = [sys.executable, str(SERVERS / "catalog_server.py")]


def gateway(tmp_path: Path) -> StdioServerParameters:
    servers = [
        {"alias": "catA", "command": CATALOG_SERVER[0], "args": [*CATALOG_SERVER[1:], "A"]},
        {"alias": "catB", "command": CATALOG_SERVER[0], "args": [*CATALOG_SERVER[1:], "B"]},
        {"alias": "down", "command": "/nonexistent/mcp-server"},
    ]
    path = tmp_path / "gateway.json"
    path.write_text(json.dumps({"servers": servers}))
    return StdioServerParameters(
        command=sys.executable, args=["-m", "gcxwire.proxy", "--servers", str(path)]
    )


async def prompt_text(client: Client, prompt: str, **arguments: str) -> str:
    result = await client.get_prompt(prompt, arguments)
    content = result.messages[0].content
    assert isinstance(content, TextContent)
    return content.text


async def resource_text(client: Client, uri: str) -> str:
    contents = (await client.read_resource(uri)).contents
    text = getattr(contents[0], "text", None)
    assert isinstance(text, str), contents
    return text


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_prompts_and_resources_of_both_servers_are_listed_and_routed(
    tmp_path: Path, mode: str
) -> None:
    async def scenario() -> None:
        async with Client(gateway(tmp_path), mode=mode) as client:
            prompts = [prompt.name for prompt in (await client.list_prompts()).prompts]
            assert prompts == [
                "catA__greet",
                "catA__review__code",
                "catB__greet",
                "catB__review__code",
            ]
            uris = [str(r.uri) for r in (await client.list_resources()).resources]
            # The shared URI is listed once: the first server in the file keeps it; the
            # gateway's schema registry comes last.
            assert uris == [
                "catalog://A/readme",
                "catalog://shared/motd",
                "catalog://B/readme",
                SCHEMAS_URI,
            ]
            listed = await client.list_resource_templates()
            templates = [t.uri_template for t in listed.resource_templates]
            assert templates == ["catalog://A/items/{item}", "catalog://B/items/{item}"]

            assert await prompt_text(client, "catB__greet", name="Ann") == "B greets Ann"
            assert await prompt_text(client, "catA__greet", name="Bo") == "A greets Bo"
            assert await prompt_text(client, "catB__review__code") == "B reviews python"
            assert await resource_text(client, "catalog://B/readme") == "readme of B"
            assert await resource_text(client, "catalog://A/readme") == "readme of A"
            assert await resource_text(client, "catalog://shared/motd") == "motd of A"
            # No list names a template's URI: every server is asked, B alone knows it.
            assert await resource_text(client, "catalog://B/items/7") == "B item 7"

            ref = PromptReference(type="ref/prompt", name="catB__greet")
            done = await client.complete(ref, {"name": "name", "value": "An"})
            assert done.completion.values == ["B:greet:name=An"]  # B got its own name
            template = ResourceTemplateReference(type="ref/resource", uri=templates[0])
            done = await client.complete(template, {"name": "item", "value": "4"})
            assert done.completion.values == ["A:catalog://A/items/{item}:item=4"]

            for unknown in ("catA__nope", "nope__greet", "greet", "down__greet"):
                with pytest.raises(MCPError) as caught:
                    await client.get_prompt(unknown, {})
                assert caught.value.error.code == -32602, unknown
                assert caught.value.error.message == f"Unknown prompt: {unknown}"
            with pytest.raises(MCPError) as caught:
                unknown_ref = PromptReference(type="ref/prompt", name="catA__nope")
                await client.complete(unknown_ref, {"name": "name", "value": ""})
            assert caught.value.error.code == -32602

            tools = {tool.name for tool in (await client.list_tools()).tools}
            assert tools == {f"cat{s}__{t}" for s in "AB" for t in ("announce", "crash")}

    asyncio.run(scenario())


def test_list_changed_passes_through_and_a_crashed_server_leaves_the_lists(
    tmp_path: Path,
) -> None:
    notes: list[str] = []

    async def on_message(message: Any) -> None:
        method = getattr(message, "method", None)
        if isinstance(method, str):
            notes.append(method)

    async def seen(method: str, times: int) -> None:
        deadline = time.monotonic() + 10
        while notes.count(method) < times and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert notes.count(method) >= times, notes

    async def scenario() -> None:
        async with Client(gateway(tmp_path), mode="legacy", message_handler=on_message) as client:
            assert len((await client.list_prompts()).prompts) == 4
            assert len((await client.list_resources()).resources) == 3 + 1  # + gcxwire://schemas
            await client.call_tool("catB__announce", {})
            await seen("notifications/prompts/list_changed", 1)  # from catB, as it sent it
            await seen("notifications/resources/list_changed", 1)

            with pytest.raises(MCPError) as caught:
                await client.call_tool("catB__crash", {})
            assert caught.value.error.code == UPSTREAM_EXITED
            # The gateway itself announces that catB's items are gone.
            await seen("notifications/prompts/list_changed", 2)
            await seen("notifications/resources/list_changed", 2)
            prompts = (await client.list_prompts(cache_mode="bypass")).prompts
            assert [prompt.name for prompt in prompts] == ["catA__greet", "catA__review__code"]
            resources = (await client.list_resources(cache_mode="bypass")).resources
            assert [str(r.uri) for r in resources] == [
                "catalog://A/readme",
                "catalog://shared/motd",
                SCHEMAS_URI,
            ]
            with pytest.raises(MCPError) as caught:
                await client.get_prompt("catB__greet", {"name": "x"})
            assert caught.value.error.code == -32602
            # catB's URI is no longer routed; catA, asked instead, does not know it.
            with pytest.raises(MCPError) as caught:
                await client.read_resource("catalog://B/readme")
            assert "catalog://B/readme" in caught.value.error.message
            assert await prompt_text(client, "catA__greet", name="Cy") == "A greets Cy"

    asyncio.run(scenario())
