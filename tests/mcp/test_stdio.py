"""The test servers as subprocesses on stdio, driven by the Python SDK ``Client`` in
both eras and by the TypeScript SDK client; both clients validate structuredContent
against every advertised outputSchema."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from gcxwire import _auto
from gcxwire._values import difference
from gcxwire.mcp import FORMAT_ARG, read_result, reading_hint

from ..node_deps import NODE_DIR, node_missing
from ..proxy.helpers import proxy_argv
from .conftest import FRAMEWORKS
from .helpers import encoding, result_tokens, texts
from .servers import data

SERVERS = Path(__file__).parent / "servers"


def server_argv(framework: str) -> list[str]:
    return [sys.executable, str(SERVERS / f"{framework}_app.py")]


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_python_client_over_stdio(framework: str, mode: str) -> None:
    command, *args = server_argv(framework)

    async def main() -> None:
        async with Client(StdioServerParameters(command=command, args=args), mode=mode) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            for name, (arguments, meant) in data.CALLS.items():
                assert tools[name].output_schema is None
                assert FORMAT_ARG in tools[name].input_schema["properties"]
                result = await client.call_tool(name, arguments)
                [text] = texts(result)
                assert result.structured_content is None
                assert encoding(result) == _auto.detect(text)
                assert difference(meant, read_result(result)) is None
                plain = await client.call_tool(f"{name}_plain", arguments)
                assert result_tokens(result) < result_tokens(plain)
            arguments, meant = data.CALLS["search"]
            for fmt in ("gcx", "dcp", "json"):
                result = await client.call_tool("search", {**arguments, FORMAT_ARG: fmt})
                assert encoding(result) == fmt
                assert difference(meant, read_result(result)) is None
            received = await client.call_tool("received", {"a": 1, FORMAT_ARG: "gcx"})
            assert read_result(received) == data.received(1, "x")
            boom = await client.call_tool("boom", {})
            assert boom.is_error and "boom" in texts(boom)[0]

    asyncio.run(main())


def run_ts_client(argv: list[str], calls: list[dict[str, Any]]) -> dict[str, Any]:
    missing = node_missing()
    if missing is not None:
        pytest.skip(f"{missing}: the TypeScript SDK client tests need them")
    node = shutil.which("node")
    assert node is not None
    spec = {"command": argv[0], "args": argv[1:], "calls": calls}
    done = subprocess.run(
        [node, str(NODE_DIR / "mcp_client.mjs"), json.dumps(spec)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    out: dict[str, Any] = json.loads(done.stdout)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_typescript_client_over_stdio(framework: str) -> None:
    calls: list[dict[str, Any]] = []
    for name, (arguments, _) in data.CALLS.items():
        calls += [
            {"name": name, "arguments": arguments},
            {"name": f"{name}_plain", "arguments": arguments},
        ]
    formats = ("gcx", "dcp", "json")
    arguments, _ = data.CALLS["users"]
    calls += [{"name": "users", "arguments": {**arguments, FORMAT_ARG: fmt}} for fmt in formats]
    calls += [
        {"name": "received", "arguments": {"a": 3, "b": "z", FORMAT_ARG: "dcp"}},
        {"name": "boom", "arguments": {}},
        {"name": "status", "arguments": {}},
        {"name": "greet", "arguments": {"name": "Ada"}},
    ]
    out = run_ts_client(server_argv(framework), calls)
    assert out["instructions"] == "Test data.\n\n" + reading_hint("auto")
    tools = {tool["name"]: tool for tool in out["tools"]}
    results = out["results"]
    # The SDK validated every result against the outputSchema it was shown.
    assert not [r for r in results if "rejected" in r], results
    for i, (name, (_, meant)) in enumerate(data.CALLS.items()):
        encoded, plain = results[2 * i], results[2 * i + 1]
        assert "outputSchema" not in tools[name] and "outputSchema" in tools[f"{name}_plain"]
        assert len(encoded["content"]) == 1 and "structuredContent" not in encoded
        assert encoded["_meta"]["gcxwire/encoding"] == _auto.detect(encoded["content"][0]["text"])
        assert difference(meant, read_result(encoded)) is None
        assert "structuredContent" in plain
    base = 2 * len(data.CALLS)
    for fmt, result in zip(formats, results[base : base + 3]):
        assert result["_meta"]["gcxwire/encoding"] == fmt
        assert difference(data.CALLS["users"][1], read_result(result)) is None
    received, boom, status, greet = results[base + 3 :]
    assert read_result(received) == data.received(3, "z")
    assert boom["isError"] is True
    assert read_result(status) == data.status()
    assert read_result(greet) == "Hello, Ada!"


@pytest.mark.slow
@pytest.mark.parametrize("hint", ["session", "per-result"])
def test_through_the_gcxwire_proxy(hint: str) -> None:
    """``gcxwire proxy`` in front of an encoded server: the server's encodings pass,
    the plain tools get the proxy's, and read_result gives back every value exactly."""
    command, *args = proxy_argv(server_argv("mcpserver"), "--hint", hint)

    async def main() -> None:
        async with Client(StdioServerParameters(command=command, args=args)) as client:
            for name, (arguments, meant) in data.CALLS.items():
                encoded = await client.call_tool(name, arguments)
                assert encoding(encoded) == _auto.detect(texts(encoded)[-1])
                plain = await client.call_tool(f"{name}_plain", arguments)
                for result in (encoded, plain):
                    assert difference(meant, read_result(result)) is None, name
            boom = await client.call_tool("boom", {})
            assert boom.is_error

    asyncio.run(main())
