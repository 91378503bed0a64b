"""``gcxwire proxy --url``: real SDK clients, through the proxy, to real Streamable HTTP servers.

Each test that starts a server takes several seconds (the slow tier, ``pytest -m slow``).
The servers run on 127.0.0.1: our Python SDK ``MCPServer`` (tests/proxy/servers/http_server.py)
and npm ``@modelcontextprotocol/server-everything`` in its streamableHttp mode.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp.types import ElicitResult

import gcxwire
from gcxwire.mcp import MARKERS, is_hint
from gcxwire.proxy.gateway_config import GatewayConfigError, load_gateway_config
from gcxwire.proxy.http_upstream import HTTP_FAILED

from ..node_deps import node_missing
from .helpers import TABLE_SERVER, TIMEOUT, carried_value
from .http_servers import (
    MEMORY,
    TS_CLIENT,
    everything_server,
    free_port,
    python_server,
)
from .servers.http_server import rows_for

MODES = ["legacy", "auto", "2026-07-28"]


def proxy(*options: str, env: dict[str, str] | None = None) -> StdioServerParameters:
    """The proxy as the SDK client launches it, in front of a remote server."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "gcxwire.proxy", *options],
        env={**os.environ, **(env or {})},
    )


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 4 * TIMEOUT))


async def connect_error(params: StdioServerParameters) -> MCPError:
    """The error the SDK client raises when connecting fails (it may come in a group)."""
    try:
        async with Client(params, mode="legacy"):
            pass
    except BaseException as exc:  # noqa: B036 - the SDK wraps it in ExceptionGroups
        while len(getattr(exc, "exceptions", ())) == 1:
            exc = exc.exceptions[0]  # type: ignore[attr-defined]
        assert isinstance(exc, MCPError), repr(exc)
        return exc
    raise AssertionError("the client connected")


def hint_lines(texts: list[str]) -> list[str]:
    """Every marker explanation the client was shown, one entry per time it was shown."""
    return [line for text in texts for line in MARKERS.values() for _ in range(text.count(line))]


@pytest.mark.slow  # a real server and client: several seconds
@pytest.mark.parametrize("mode", MODES)
def test_the_python_sdk_client_through_url_in_each_era(mode: str) -> None:
    asked: list[str] = []

    async def on_elicit(context: Any, params: Any) -> ElicitResult:
        asked.append(params.message)
        return ElicitResult(action="accept", content={"colour": "teal"})

    async def scenario(url: str) -> None:
        client = Client(proxy("--url", url), mode=mode, elicitation_callback=on_elicit)
        async with client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert {"rows", "clock", "dropped_rows", "ask"} <= set(tools)
            seen: list[str] = []
            if mode != "2026-07-28":  # initialize or server/discover: the hint is in there
                assert client.instructions is not None and MARKERS["gcx"] in client.instructions
                seen.append(client.instructions)
            for n in range(10, 20):
                result = await client.call_tool("rows", {"n": n})
                assert carried_value(result) == rows_for(n)
                seen += [block.text for block in result.content]  # type: ignore[union-attr]
            clock = await client.call_tool("clock", {})
            assert clock.content[0].text.startswith('{"timezone":"UTC",')  # type: ignore[union-attr]
            if mode == "legacy":  # a server-to-client request on the answer's SSE stream
                # (in 2026-07-28 an MCPServer has no back-channel for ctx.elicit over HTTP)
                answer = await client.call_tool("ask", {})
                text = answer.content[-1].text  # type: ignore[union-attr]
                assert json.loads(text) == {"action": "accept", "colour": "teal"}
                assert asked == ["Which colour?"]
            # Ten tables, and each thing to know about reading them was said at most once.
            shown = hint_lines(seen)
            assert len(shown) == len(set(shown))

    with python_server() as url:
        run(scenario(url))


@pytest.mark.slow  # a real server and client: several seconds
def test_the_hint_is_in_the_instructions_once_over_many_calls() -> None:
    """A raw legacy session: the initialize answer carries the hint; 12 results do not repeat it."""

    async def scenario(url: str) -> None:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "gcxwire.proxy", "--url", url, "--format", "gcx",
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        )  # fmt: skip
        assert process.stdin is not None and process.stdout is not None

        async def ask(message: dict[str, Any]) -> Any:
            process.stdin.write(orjson.dumps(message) + b"\n")  # type: ignore[union-attr]
            if "id" not in message:
                return None
            return orjson.loads(await asyncio.wait_for(process.stdout.readline(), TIMEOUT))  # type: ignore[union-attr]

        init = {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        }
        hello = await ask({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init})
        instructions = hello["result"]["instructions"]
        assert instructions.startswith("A table server reached over HTTP.\n\n")
        await ask({"jsonrpc": "2.0", "method": "notifications/initialized"})
        texts = [instructions]
        for i in range(1, 13):
            params = {"name": "rows", "arguments": {"n": 12}}
            answer = await ask(
                {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params}
            )
            texts += [block["text"] for block in answer["result"]["content"]]
        assert sum(text.count(MARKERS["gcx"]) for text in texts) == 1  # once, over 12 calls
        assert not any(is_hint(text) and MARKERS["gcx"] in text for text in texts[1:])
        process.stdin.close()
        assert await asyncio.wait_for(process.wait(), TIMEOUT) == 0

    with python_server() as url:
        run(scenario(url))


@pytest.mark.slow  # a real server and client: several seconds
@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_a_stream_closed_mid_answer_is_resumed_with_last_event_id(mode: str) -> None:
    seen: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)

    async def scenario(url: str) -> None:
        async with Client(proxy("--url", url), mode=mode) as client:
            result = await client.call_tool("dropped_rows", {"n": 7}, progress_callback=on_progress)
            assert carried_value(result) == rows_for(7)
            assert seen == [1, 2]  # the second one came on the resumed stream

    with python_server() as url:
        run(scenario(url))


@pytest.mark.slow  # a real server and client: several seconds
def test_json_answers_instead_of_sse() -> None:
    async def scenario(url: str) -> None:
        async with Client(proxy("--url", url), mode="legacy") as client:
            assert carried_value(await client.call_tool("rows", {"n": 15})) == rows_for(15)

    with python_server("--json") as url:
        run(scenario(url))


@pytest.mark.slow  # a real server and client: several seconds
def test_401_says_what_is_missing_and_a_header_from_the_environment_fixes_it() -> None:
    async def refused(url: str) -> None:
        error = (await connect_error(proxy("--url", url))).error
        assert error.code == HTTP_FAILED
        assert "HTTP 401" in error.message and "mcp-remote" in error.message

    async def allowed(url: str) -> None:
        header = ("--header", "Authorization: Bearer ${GCXWIRE_TEST_TOKEN}")
        params = proxy("--url", url, *header, env={"GCXWIRE_TEST_TOKEN": "s3cret"})
        async with Client(params, mode="legacy") as client:
            assert carried_value(await client.call_tool("rows", {"n": 12})) == rows_for(12)

    with python_server("--token", "s3cret") as url:
        run(refused(url))
        run(allowed(url))


@pytest.mark.slow  # a real server and client: several seconds
def test_a_server_silent_past_the_http_timeout_gets_an_error_not_a_hang() -> None:
    async def scenario(url: str) -> None:
        async with Client(proxy("--url", url, "--http-timeout", "1"), mode="legacy") as client:
            with pytest.raises(MCPError) as caught:
                await client.call_tool("sleepy", {"seconds": 5})
            assert caught.value.error.code == HTTP_FAILED
            assert "did not answer in time" in caught.value.error.message
            assert (await client.call_tool("sleepy", {"seconds": 0})).content[0].text == "awake"  # type: ignore[union-attr]

    with python_server() as url:
        run(scenario(url))


@pytest.mark.slow  # a real server and client: several seconds
def test_a_wrong_path_and_a_dead_port_are_clear_errors() -> None:
    async def failing(url: str, words: str) -> None:
        error = (await connect_error(proxy("--url", url))).error
        assert error.code == HTTP_FAILED and words in error.message

    with python_server() as url:
        run(failing(url.replace("/mcp", "/nope"), "HTTP 404 Not Found: is"))
    run(failing(f"http://127.0.0.1:{free_port()}/mcp", "cannot be reached"))


@pytest.mark.slow
def test_a_restarted_server_gets_a_new_session_and_the_call_goes_through() -> None:
    port = free_port()

    async def restarted() -> None:
        params = proxy("--url", f"http://127.0.0.1:{port}/mcp")
        with contextlib.ExitStack() as first:
            first.enter_context(python_server(port=port))
            async with Client(params, mode="legacy") as client:
                assert carried_value(await client.call_tool("rows", {"n": 12})) == rows_for(12)
                first.close()  # the server goes, and its sessions with it
                with python_server(port=port):  # the same URL, a server that never saw the session
                    again = await client.call_tool("rows", {"n": 13})
                    assert carried_value(again) == rows_for(13)

    run(restarted())


@pytest.mark.slow  # a real server and client: several seconds
def test_the_stats_file_over_url_has_both_baselines(tmp_path: Path) -> None:
    stats = tmp_path / "stats.json"

    async def scenario(url: str) -> None:
        options = ("--url", url, "--stats-file", str(stats), "--log-level", "info")
        async with Client(proxy(*options), mode="legacy") as client:
            await client.call_tool("rows", {"n": 30})
            await client.call_tool("clock", {})

    with python_server() as url:
        run(scenario(url))
    data = orjson.loads(stats.read_bytes())
    assert data["server"] == "127.0.0.1"
    rows, clock = data["tools"]["rows"], data["tools"]["clock"]
    assert rows["tokens_before"] > rows["tokens_compact"] > rows["tokens_after"]
    assert clock["tokens_before"] > clock["tokens_compact"] == clock["tokens_after"]
    assert data["totals"]["tokens_after"] == (
        rows["tokens_after"] + clock["tokens_after"] + data["instructions_hint_tokens"]
    )


@pytest.mark.slow  # a real server and client: several seconds
def test_deleting_the_session_on_exit() -> None:
    log = []

    async def scenario(url: str) -> None:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "gcxwire.proxy", "--url", url, "--log-level", "info",
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        assert process.stdin is not None and process.stdout is not None
        init = {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        }
        process.stdin.write(
            orjson.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init})
            + b"\n"
        )
        assert "result" in orjson.loads(await asyncio.wait_for(process.stdout.readline(), TIMEOUT))
        process.stdin.close()
        _, err = await asyncio.wait_for(process.communicate(), TIMEOUT)
        log.append(err.decode())

    with python_server() as url:
        run(scenario(url))
    assert "session ended (HTTP 200)" in log[0]


# -- the TypeScript SDK client, and server-everything -------------------------------------


def ts_client(command: list[str], calls: list[dict[str, Any]]) -> Any:
    """tests/node/mcp_client.mjs: the TypeScript SDK client over stdio, one JSON report."""
    spec = {"command": command[0], "args": command[1:], "calls": calls}
    done = subprocess.run(
        ["node", str(TS_CLIENT), json.dumps(spec)], capture_output=True, timeout=4 * TIMEOUT
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    return json.loads(done.stdout)


needs_node = pytest.mark.skipif(node_missing() is not None, reason=str(node_missing()))


@pytest.mark.slow  # a real server and client: several seconds
@needs_node
def test_the_typescript_sdk_client_through_url_to_the_python_server() -> None:
    with python_server() as url:
        calls = [{"name": "rows", "arguments": {"n": n}} for n in (12, 14, 16)]
        report = ts_client([sys.executable, "-m", "gcxwire.proxy", "--url", url], calls)
    assert report["instructions"].startswith("A table server reached over HTTP.")
    assert MARKERS["gcx"] in report["instructions"] or MARKERS["dcp"] in report["instructions"]
    for n, result in zip((12, 14, 16), report["results"]):
        assert gcxwire.decode(result["content"][-1]["text"]) == rows_for(n)


@pytest.mark.slow  # a real server and client: several seconds
@needs_node
def test_the_get_stream_brings_server_requests_and_the_answer_goes_back() -> None:
    """server-everything asks for roots/list on the GET stream once the client declares
    roots; the client's answer is POSTed back and the server logs what it got."""

    async def scenario(url: str) -> None:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "gcxwire.proxy", "--url", url,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        )  # fmt: skip
        assert process.stdin is not None and process.stdout is not None

        def send(message: dict[str, Any]) -> None:
            process.stdin.write(orjson.dumps(message) + b"\n")  # type: ignore[union-attr]

        async def receive() -> Any:
            return orjson.loads(await asyncio.wait_for(process.stdout.readline(), TIMEOUT))  # type: ignore[union-attr]

        caps = {"roots": {"listChanged": True}}
        init = {
            "protocolVersion": "2025-11-25",
            "capabilities": caps,
            "clientInfo": {"name": "t", "version": "1"},
        }
        send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": init})
        assert "result" in await receive()
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        asked = await receive()
        assert asked["method"] == "roots/list"
        send({"jsonrpc": "2.0", "id": asked["id"], "result": {"roots": []}})
        logged = await receive()
        assert logged["method"] == "notifications/message"
        assert "0 root(s) received" in logged["params"]["data"]
        process.stdin.close()
        assert await asyncio.wait_for(process.wait(), TIMEOUT) == 0

    with everything_server() as url:
        run(scenario(url))


def _everything_calls() -> list[dict[str, Any]]:
    return [
        {"name": "echo", "arguments": {"message": "hello over HTTP"}},
        {"name": "get-sum", "arguments": {"a": 2, "b": 40}},
        {"name": "get-structured-content", "arguments": {"location": "New York"}},
    ]


@pytest.mark.slow  # a real server and client: several seconds
@needs_node
def test_server_everything_over_http_reads_the_same_through_the_proxy() -> None:
    with everything_server() as url:
        direct = ts_client_http(url)
        through = ts_client(
            [sys.executable, "-m", "gcxwire.proxy", "--url", url], _everything_calls()
        )
    assert {tool["name"] for tool in through["tools"]} == {tool["name"] for tool in direct["tools"]}
    for got, want in zip(through["results"], direct["results"]):
        assert "rejected" not in got, got
        assert _value(got) == _value(want)


def ts_client_http(url: str) -> Any:
    """The same calls, straight to the server with the TypeScript SDK's own HTTP transport."""
    script = """
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
const spec = JSON.parse(process.argv[1]);
const client = new Client({ name: "gcxwire-ts-test", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(spec.url)));
const tools = (await client.listTools()).tools;
const results = [];
for (const call of spec.calls) results.push(await client.callTool(call));
process.stdout.write(JSON.stringify({ tools, results }));
await client.close();
"""
    spec = json.dumps({"url": url, "calls": _everything_calls()})
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script, spec],
        capture_output=True,
        timeout=4 * TIMEOUT,
        cwd=TS_CLIENT.parent,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    return json.loads(done.stdout)


def _value(result: dict[str, Any]) -> Any:
    """What a result says, whether the proxy compacted its JSON text or not."""
    texts = [block.get("text") for block in result["content"] if block.get("type") == "text"]
    values = []
    for text in texts:
        try:
            values.append(gcxwire.decode(text))
        except Exception:
            values.append(text)
    return values, result.get("isError", False)


# -- --servers with a stdio and an HTTP server --------------------------------------------


def test_gateway_entries_take_url_and_headers(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "remote": {
                        "type": "http",
                        "url": "https://${HOST}/mcp",
                        "headers": {"Authorization": "Bearer ${TOKEN}"},
                    },
                    "local": {"command": "server", "args": ["--x"]},
                }
            }
        )
    )
    remote, local = load_gateway_config(str(path), {"HOST": "mcp.example.com", "TOKEN": "t0k"})
    assert (remote.url, remote.headers, remote.command) == (
        "https://mcp.example.com/mcp",
        {"Authorization": "Bearer t0k"},
        (),
    )
    assert local.url is None and local.command == ("server", "--x")
    for entry, problem in [
        ({"type": "sse", "url": "http://x/sse"}, r"HTTP\+SSE transport is not supported"),
        ({"url": "http://x/mcp", "command": "y"}, "takes no command"),
        ({"url": "ftp://x"}, "expected an http:// or https:// URL"),
        ({"command": "x", "headers": {"a": "b"}}, "headers belong to a server with a url"),
    ]:
        path.write_text(json.dumps({"mcpServers": {"s": entry}}))
        with pytest.raises(GatewayConfigError, match=problem):
            load_gateway_config(str(path), {})


@pytest.mark.slow  # a real server and client: several seconds
@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_servers_mixing_a_stdio_and_an_http_server(tmp_path: Path, mode: str) -> None:
    stats = tmp_path / "stats.json"

    async def scenario(url: str) -> None:
        config = tmp_path / "mcp.json"
        table = {"command": TABLE_SERVER[0], "args": TABLE_SERVER[1:]}
        config.write_text(json.dumps({"mcpServers": {"local": table, "remote": {"url": url}}}))
        options = ("--servers", str(config), "--stats-file", str(stats))
        async with Client(proxy(*options), mode=mode) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert {"local__rows", "remote__rows", "remote__clock"} <= names
            texts = []
            for n in range(12, 16):
                for alias in ("local", "remote"):
                    result = await client.call_tool(f"{alias}__rows", {"n": n})
                    texts += [block.text for block in result.content]  # type: ignore[union-attr]
            assert carried_value(result) == rows_for(15)
            shown = hint_lines(texts)
            assert len(shown) == len(set(shown))  # no marker explained twice, across both servers

    with python_server() as url:
        run(scenario(url))
    servers = orjson.loads(stats.read_bytes())["servers"]
    assert set(servers) == {"local", "remote"}
    for alias in ("local", "remote"):
        counters = servers[alias]["tools"]["rows"]
        assert counters["calls"] == 4
        assert counters["tokens_before"] > counters["tokens_compact"] > counters["tokens_after"]


@pytest.mark.slow  # a real server and client: several seconds
@needs_node
@pytest.mark.parametrize("mode", MODES)
def test_servers_mixing_eras_a_handshake_only_npm_server_and_an_http_server(
    tmp_path: Path, mode: str
) -> None:
    """npm server-memory speaks only the handshake era; the Python server both. A
    2026-07-28 client gets each answer with the resultType that revision requires."""

    async def scenario(url: str) -> None:
        config = tmp_path / "mcp.json"
        memory = {"command": str(MEMORY), "env": {"MEMORY_FILE_PATH": str(tmp_path / "m.jsonl")}}
        config.write_text(json.dumps({"mcpServers": {"mem": memory, "remote": {"url": url}}}))
        async with Client(proxy("--servers", str(config)), mode=mode) as client:
            entities = [
                {"name": f"n{i}", "entityType": "t", "observations": ["o"]} for i in range(8)
            ]
            await client.call_tool("mem__create_entities", {"entities": entities})
            graph = await client.call_tool("mem__read_graph", {})
            assert not graph.is_error
            assert [e["name"] for e in carried_value(graph)["entities"]] == [
                e["name"] for e in entities
            ]
            assert carried_value(await client.call_tool("remote__rows", {"n": 12})) == rows_for(12)

    with python_server() as url:
        run(scenario(url))


@pytest.mark.slow  # a real server and client: several seconds
@needs_node
def test_the_typescript_client_through_servers_mixing_stdio_and_http(tmp_path: Path) -> None:
    with python_server() as url:
        config = tmp_path / "mcp.json"
        table = {"command": TABLE_SERVER[0], "args": TABLE_SERVER[1:]}
        config.write_text(json.dumps({"mcpServers": {"local": table, "remote": {"url": url}}}))
        calls = [{"name": f"{a}__rows", "arguments": {"n": 12}} for a in ("local", "remote")]
        report = ts_client([sys.executable, "-m", "gcxwire.proxy", "--servers", str(config)], calls)
    assert report["instructions"].count(MARKERS["gcx"]) <= 1
    local, remote = report["results"]
    assert gcxwire.decode(remote["content"][-1]["text"]) == rows_for(12)
    assert "rejected" not in local


def test_without_httpx_a_url_is_refused_with_the_install_command() -> None:
    code = (
        "import sys; sys.modules['httpx'] = None\n"
        "from gcxwire.proxy.cli import main\n"
        "sys.exit(main(['--url', 'http://127.0.0.1:9/mcp']))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=TIMEOUT)
    assert done.returncode == 1
    assert b"need httpx (the http extra): pip install httpx" in done.stderr


def test_the_stdio_proxy_does_not_import_httpx() -> None:
    code = "import sys, gcxwire.proxy.cli; print('httpx' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=TIMEOUT)
    assert done.stdout.strip() == b"False", done.stderr


# -- the SSE reader, on its own ---------------------------------------------------------


def test_server_sent_events_are_read_as_the_format_says() -> None:
    from gcxwire.proxy.http_upstream import _sse_events

    async def lines() -> Any:
        for line in [
            ": keep-alive comment\n",
            "id: 7\n",
            "retry: 250\n",
            "data:\n",  # a priming event: an id, no message
            "\n",
            "event: message\n",
            'data: {"jsonrpc":"2.0",\n',
            'data:  "id":1,"result":{}}\r\n',
            "id: 8\n",
            "\n",
        ]:
            yield line

    async def read() -> list[Any]:
        return [(e.id, e.retry, e.data) async for e in _sse_events(lines())]

    assert asyncio.run(read()) == [
        ("7", 0.25, ""),
        ("8", None, '{"jsonrpc":"2.0",\n "id":1,"result":{}}'),
    ]
