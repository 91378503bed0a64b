"""An MCP server (the SDK's MCPServer) with tabular tools, for the proxy tests.

Run as ``python table_server.py``; it speaks MCP on stdio in both protocol eras.
Every tool returns data that is a pure function of its arguments, so a test can
compute what the server sent without the server's help (see ``rows_for``).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import (
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    InputRequiredResult,
)
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import BaseModel
from typing_extensions import TypedDict

server = MCPServer("gcxwire-table-server")


class Row(TypedDict):
    id: int
    name: str
    score: float
    active: bool
    note: str | None


def rows_for(n: int, offset: int = 0) -> list[dict[str, Any]]:
    """The rows the ``rows*`` tools return: deterministic, with a sparse ``note``."""
    return [
        {
            "id": offset + i,
            "name": f"user{offset + i}",
            "score": (offset + i) * 1.5,
            "active": i % 2 == 0,
            "note": None if i % 3 else f"note {i}\twith a tab",
        }
        for i in range(n)
    ]


def search_for(n: int) -> dict[str, Any]:
    """A GitHub-style wrapper: counters around one list of nested items."""
    items = [
        {
            "id": 1000 + i,
            "full_name": f"octo/repo{i}",
            "owner": {"login": f"octo{i % 3}", "id": i % 3, "site_admin": False},
            "topics": ["mcp", "proxy"][: i % 3],
            "stargazers_count": i * 7,
            "description": None if i % 4 == 0 else f"Repository number {i} — ünïcode",
        }
        for i in range(n)
    ]
    return {"total_count": 4939, "incomplete_results": False, "items": items}


@server.tool(
    description="Rows with an outputSchema: one text block per row plus structuredContent."
)
def rows(n: int = 5, offset: int = 0) -> list[Row]:
    return rows_for(n, offset)  # type: ignore[return-value]


@server.tool(
    description="The same rows as one JSON text block, no outputSchema.", structured_output=False
)
def rows_text(n: int = 5, offset: int = 0) -> str:
    return json.dumps(rows_for(n, offset), indent=2, ensure_ascii=False)


@server.tool(description="A search wrapper {total_count, items}.", structured_output=False)
def search(n: int = 6) -> str:
    return json.dumps(search_for(n), indent=2, ensure_ascii=False)


@server.tool(
    description="Rows whose shape changes with the version argument.", structured_output=False
)
def drifting(n: int = 4, version: int = 1) -> str:
    data = rows_for(n)
    if version >= 2:
        for row in data:
            row["email"] = f"{row['name']}@example.org"  # a new field
    if version >= 3:
        for row in data:
            row["score"] = str(row["score"])  # a type change
    return json.dumps(data)


@server.tool(description="A small object, not worth re-encoding.", structured_output=False)
def small() -> str:
    return json.dumps({"ok": True, "count": 2})


@server.tool(description="Plain text that is not JSON.", structured_output=False)
def hello(name: str) -> str:
    return f"Hello, {name}!"


@server.tool(description="Always fails.")
def boom() -> str:
    raise RuntimeError("boom")


@server.tool(description="A text of the given size in bytes, on one line.", structured_output=False)
def blob(size: int) -> str:
    return "x" * size


@server.tool(description="Reports progress and logs while it works.", structured_output=False)
async def slow_rows(ctx: Context, steps: int = 3) -> str:
    for step in range(steps):
        await ctx.report_progress(step + 1, steps, f"step {step + 1}")
        await ctx.info(f"working on step {step + 1}")
    return json.dumps(rows_for(steps))


class Answer(BaseModel):
    color: str


@server.tool(
    description="Asks the client for a colour (elicitation), then returns it.",
    structured_output=False,
)
async def ask(ctx: Context) -> str | InputRequiredResult:
    if ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
        # Handshake era: a server-to-client request while the call is in flight.
        result = await ctx.elicit("Which colour?", Answer)
        action = result.action
        data = getattr(result, "data", None)  # only an accepted elicitation has data
        color = data.color if action == "accept" and data else "none"
    else:
        # 2026-07-28: answer input_required; the client retries with the answer.
        answers = ctx.input_responses or {}
        if "color" not in answers:
            schema = {"type": "object", "properties": {"color": {"type": "string"}}}
            request = ElicitRequest(
                params=ElicitRequestFormParams(message="Which colour?", requested_schema=schema)
            )
            return InputRequiredResult(input_requests={"color": request}, request_state="asked")
        answer = answers["color"]
        assert isinstance(answer, ElicitResult)
        action = answer.action
        color = str((answer.content or {}).get("color", "none"))
    return json.dumps([{"color": color, "action": action}])


@server.tool(description="Exits the server process at once, mid-call.")
def crash(status: int = 3) -> str:
    sys.stdout.flush()
    os._exit(status)


@server.tool(description="Writes a stray non-JSON line to stdout, then answers.")
def stray() -> str:
    os.write(sys.__stdout__.fileno() if sys.__stdout__ else 1, b"this is not JSON\n")
    return "after the stray line"


@server.resource("table://readme", mime_type="text/plain")
def readme() -> str:
    return "the table server's own resource"


if __name__ == "__main__":
    server.run()
