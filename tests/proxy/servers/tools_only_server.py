"""An MCP server (the SDK's low-level ``Server``) with tools and nothing else: it
advertises no ``resources`` capability, as many real servers do.

Run as ``python tools_only_server.py``; it speaks MCP on stdio in both protocol
eras. ``rows`` returns ``rows_for(n)`` of the table server as JSON text.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

if __package__ in (None, ""):  # run as a script: make `tests.proxy.servers` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from tests.proxy.servers.table_server import rows_for  # noqa: E402

ROWS_TOOL = types.Tool(
    name="rows",
    description="n deterministic rows",
    input_schema={"type": "object", "properties": {"n": {"type": "integer"}}},
)


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[ROWS_TOOL])


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    n = int((params.arguments or {}).get("n", 3))
    text = json.dumps(rows_for(n), indent=2)
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


server: Server[Any] = Server("gcxwire-tools-only", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
