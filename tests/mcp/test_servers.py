"""MCPServer tools under ``encoded_tool`` and fastmcp tools under ``EncodingMiddleware``,
driven in process by the real SDK ``Client`` in both protocol eras."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from mcp import Client

from gcxwire import _auto
from gcxwire._values import difference
from gcxwire.mcp import FORMAT_ARG, is_hint, read_result, reading_hint

from .conftest import build_server, received_log
from .helpers import encoding, result_tokens, texts
from .servers import data

MODES = ["legacy", "auto", "2026-07-28"]


def drive(server: Any, mode: str, scenario: Callable[[Client], Awaitable[None]]) -> None:
    async def main() -> None:
        async with Client(server, mode=mode) as client:
            await scenario(client)

    asyncio.run(main())


@pytest.mark.parametrize("mode", MODES)
def test_encoded_text_goes_out_once_and_reads_back_exactly(framework: str, mode: str) -> None:
    async def scenario(client: Client) -> None:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        for name, (arguments, meant) in data.CALLS.items():
            # The plain twin promises structured output; the encoded tool promises none.
            assert tools[f"{name}_plain"].output_schema is not None
            assert tools[name].output_schema is None
            result = await client.call_tool(name, arguments)
            assert not result.is_error
            [text] = texts(result)  # one block: the encoding, once
            assert result.structured_content is None  # no escaped copy of it
            assert encoding(result) == _auto.detect(text)
            assert difference(meant, read_result(result)) is None, name
            # The unencoded twin reads back to the same value.
            plain = await client.call_tool(f"{name}_plain", arguments)
            assert difference(meant, read_result(plain)) is None, name

    drive(build_server(framework), mode, scenario)


def test_encoded_results_cost_fewer_tokens_than_the_unencoded_tool(framework: str) -> None:
    measured: dict[str, tuple[int, int]] = {}

    async def scenario(client: Client) -> None:
        for name, (arguments, _) in data.CALLS.items():
            plain = await client.call_tool(f"{name}_plain", arguments)
            encoded = await client.call_tool(name, arguments)
            measured[name] = (result_tokens(plain), result_tokens(encoded))

    drive(build_server(framework), "auto", scenario)
    for name, (plain, encoded) in measured.items():
        print(f"{framework} {name}: {plain} -> {encoded} tokens")
    assert all(encoded < plain for plain, encoded in measured.values()), measured


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_the_format_argument_is_honoured_and_never_reaches_the_function(
    framework: str, mode: str
) -> None:
    async def scenario(client: Client) -> None:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        schema = tools["users"].input_schema
        assert schema["properties"][FORMAT_ARG]["enum"] == ["auto", "gcx", "dcp", "json"]
        assert schema["properties"][FORMAT_ARG]["default"] == "auto"
        assert FORMAT_ARG not in schema.get("required", [])
        assert FORMAT_ARG not in tools["users_plain"].input_schema["properties"]
        arguments, meant = data.CALLS["users"]
        for fmt in ("gcx", "dcp", "json"):
            result = await client.call_tool("users", {**arguments, FORMAT_ARG: fmt})
            [text] = texts(result)
            assert encoding(result) == _auto.detect(text) == fmt
            assert difference(meant, read_result(result)) is None
        # DCP cannot tell absent keys from nulls: asked for anyway, exact JSON goes out.
        arguments, meant = data.CALLS["tricky"]
        result = await client.call_tool("tricky", {**arguments, FORMAT_ARG: "dcp"})
        assert encoding(result) == "json"
        assert difference(meant, read_result(result)) is None
        log = received_log(framework)
        log.clear()
        result = await client.call_tool("received", {"a": 7, "b": "y", FORMAT_ARG: "dcp"})
        assert encoding(result) == "dcp"
        assert read_result(result) == data.received(7, "y")
        assert log == [{"a": 7, "b": "y"}]  # the function saw its own arguments only
        bad = await client.call_tool("users", {"n": 2, FORMAT_ARG: "xml"})
        assert bad.is_error

    drive(build_server(framework), mode, scenario)


def test_format_argument_off(framework: str) -> None:
    async def scenario(client: Client) -> None:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert FORMAT_ARG not in tools["users"].input_schema["properties"]
        assert tools["users"].output_schema is None
        arguments, meant = data.CALLS["users"]
        result = await client.call_tool("users", arguments)
        assert difference(meant, read_result(result)) is None

    drive(build_server(framework, format_arg=False), "auto", scenario)


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_errors_and_results_that_are_no_table_pass_as_the_framework_writes_them(
    framework: str, mode: str
) -> None:
    async def scenario(client: Client) -> None:
        for name, arguments in [("boom", {}), ("status", {}), ("greet", {"name": "Ada"})]:
            encoded = await client.call_tool(name, arguments)
            plain = await client.call_tool(f"{name}_plain", arguments)
            assert encoding(encoded) is None
            assert encoded.is_error == plain.is_error == (name == "boom")
            # The same text: an error names its tool, the rest is as the framework writes it.
            assert texts(encoded) == [t.replace(f"{name}_plain", name) for t in texts(plain)]
        boom = await client.call_tool("boom", {FORMAT_ARG: "gcx"})
        assert boom.is_error and "boom" in texts(boom)[0]
        assert read_result(await client.call_tool("status", {})) == data.status()
        assert read_result(await client.call_tool("greet", {"name": "Ada"})) == "Hello, Ada!"
        # Asked for explicitly, a format applies to small objects too.
        status = await client.call_tool("status", {FORMAT_ARG: "gcx"})
        assert encoding(status) == "gcx"
        assert read_result(status) == data.status()

    drive(build_server(framework), mode, scenario)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_the_hint_comes_once_in_the_instructions(framework: str, mode: str) -> None:
    async def scenario(client: Client) -> None:
        assert client.instructions == "Test data.\n\n" + reading_hint("auto")
        result = await client.call_tool("users", data.CALLS["users"][0])
        assert len(result.content) == 1  # no hint block in results

    drive(build_server(framework), mode, scenario)


def test_the_hint_per_result_on_request(framework: str) -> None:
    async def scenario(client: Client) -> None:
        assert client.instructions == "Test data."
        arguments, meant = data.CALLS["search"]
        result = await client.call_tool("search", {**arguments, FORMAT_ARG: "gcx"})
        hint, payload = texts(result)
        assert is_hint(hint) and hint == reading_hint(payload)
        assert difference(meant, read_result(result)) is None
        plain_json = await client.call_tool("search", {**arguments, FORMAT_ARG: "json"})
        assert len(plain_json.content) == 1  # JSON needs no hint

    drive(build_server(framework, hint="result"), "auto", scenario)


def test_fastmcp_clients_results_read_back_exactly() -> None:
    import fastmcp

    from .servers import fastmcp_app

    async def main() -> None:
        async with fastmcp.Client(fastmcp_app.build()) as client:
            for name, (arguments, meant) in data.CALLS.items():
                result = await client.call_tool(name, arguments)
                assert result.structured_content is None
                assert difference(meant, read_result(result)) is None

    asyncio.run(main())


def test_a_fastmcp_tool_keeps_its_own_format_argument() -> None:
    async def scenario(client: Client) -> None:
        [tool] = [t for t in (await client.list_tools()).tools if t.name == "styled"]
        assert tool.input_schema["properties"][FORMAT_ARG]["default"] == "plain"
        assert tool.output_schema is None
        result = await client.call_tool("styled", {FORMAT_ARG: "fancy"})
        assert encoding(result) == "gcx"  # encoded as the default, "auto", chose
        assert read_result(result) == [{"row": i, "format": "fancy"} for i in range(3)]

    drive(build_server("fastmcp"), "auto", scenario)


def test_an_mcpserver_tool_with_its_own_format_argument_is_refused() -> None:
    from mcp.server.mcpserver import MCPServer

    from gcxwire.mcp import encoded_tool

    def styled(format: str = "plain") -> list[dict[str, Any]]:
        return []

    with pytest.raises(ValueError, match="own 'format' parameter"):
        encoded_tool(MCPServer("x"))(styled)
    encoded_tool(MCPServer("x"), format_arg=False)(styled)  # fine without the argument
