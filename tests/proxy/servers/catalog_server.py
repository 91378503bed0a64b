"""An MCP server (the SDK's MCPServer) with prompts, resources, a resource template
and completions, for the gateway tests.

Run as ``python catalog_server.py LABEL``; it speaks MCP on stdio in both
protocol eras. Every text it answers names LABEL, so a test fronting two of them
sees which server answered. Both list ``catalog://shared/motd``, so a test can
check which one the gateway keeps.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import Completion, PromptReference
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

LABEL = sys.argv[1] if len(sys.argv) > 1 else "catalog"
server = MCPServer(f"gcxwire-catalog-{LABEL}")


@server.prompt(description="Greets someone, from this server.")
def greet(name: str) -> str:
    return f"{LABEL} greets {name}"


@server.prompt(name="review__code", description="A prompt whose own name holds __.")
def review_code(language: str = "python") -> str:
    return f"{LABEL} reviews {language}"


@server.resource(f"catalog://{LABEL}/readme", mime_type="text/plain")
def readme() -> str:
    return f"readme of {LABEL}"


@server.resource("catalog://shared/motd", mime_type="text/plain")
def motd() -> str:
    return f"motd of {LABEL}"


@server.resource(f"catalog://{LABEL}/items/{{item}}", mime_type="text/plain")
def item(item: str) -> str:
    return f"{LABEL} item {item}"


@server.completion()
async def complete(ref: Any, argument: Any, context: Any) -> Completion:
    what = ref.name if isinstance(ref, PromptReference) else ref.uri
    return Completion(values=[f"{LABEL}:{what}:{argument.name}={argument.value}"])


@server.tool(description="Tells a handshake-era client that prompts and resources changed.")
async def announce(ctx: Context) -> str:
    if ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
        session = ctx.request_context.session
        await session.send_prompt_list_changed()
        await session.send_resource_list_changed()
    return "announced"


@server.tool(description="Exits the server process at once, mid-call.")
def crash(status: int = 3) -> str:
    sys.stdout.flush()
    os._exit(status)


if __name__ == "__main__":
    server.run()
