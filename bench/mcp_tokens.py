"""Print what a tool result costs a model, unencoded and through gcxwire.mcp (a markdown table).

Drives the test servers of tests/mcp (an ``mcp`` MCPServer and a ``fastmcp`` server, each
tool registered encoded and plain) in process with the SDK ``Client``. Tokens are
cl100k over every text block plus the compact JSON of ``structuredContent`` (clients
such as Claude Code show the model that field); "text only" leaves that field out.
"hand-rolled" is an MCPServer tool declared ``-> str`` that returns
``gcxwire.encode(...)``: MCPServer adds the text again as ``structuredContent``. Usage::

    python bench/mcp_tokens.py
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mcp import Client  # noqa: E402
from mcp.server.mcpserver import MCPServer  # noqa: E402

import gcxwire  # noqa: E402
from gcxwire import tokens  # noqa: E402
from tests.mcp.helpers import result_tokens, texts  # noqa: E402
from tests.mcp.servers import data, fastmcp_app, mcpserver_app  # noqa: E402


def hand_rolled() -> MCPServer:
    server = MCPServer("hand-rolled")
    for name, (_, meant) in data.CALLS.items():
        server.add_tool(_returning(gcxwire.encode(meant, tool=name)), name=name)
    return server


def _returning(text: str) -> Any:
    def tool(n: int) -> str:
        return text

    return tool


async def measure(server: Any, suffix: str, *, text_only: bool = False) -> dict[str, int]:
    count = (lambda r: sum(tokens.count(t) for t in texts(r))) if text_only else result_tokens
    async with Client(server) as client:
        return {
            name: count(await client.call_tool(name + suffix, arguments))
            for name, (arguments, _) in data.CALLS.items()
        }


async def main() -> None:
    fastmcp_server = fastmcp_app.build()._mcp_server
    columns = {
        "MCPServer plain, text only": await measure(
            mcpserver_app.build(), "_plain", text_only=True
        ),
        "MCPServer plain": await measure(mcpserver_app.build(), "_plain"),
        "hand-rolled `-> str`": await measure(hand_rolled(), ""),
        "MCPServer encoded": await measure(mcpserver_app.build(), ""),
        "fastmcp plain, text only": await measure(fastmcp_server, "_plain", text_only=True),
        "fastmcp plain": await measure(fastmcp_server, "_plain"),
        "fastmcp encoded": await measure(fastmcp_server, ""),
    }
    print("| tool (arguments) | " + " | ".join(columns) + " |")
    print("|---|" + "--:|" * len(columns))
    for name, (arguments, _) in data.CALLS.items():
        args = ", ".join(f"{k}={v}" for k, v in arguments.items())
        cells = " | ".join(str(column[name]) for column in columns.values())
        print(f"| {name}({args}) | {cells} |")
    hint = gcxwire.mcp.reading_hint("auto")
    print(f"\nThe reading hint in the instructions, once per session: {tokens.count(hint)} tokens.")


if __name__ == "__main__":
    asyncio.run(main())
