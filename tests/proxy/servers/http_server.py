"""A real MCP server (Python SDK ``MCPServer``) in streamable-http mode, for the --url tests.

Run: ``python http_server.py PORT [--json] [--token T]``. It serves
``http://127.0.0.1:PORT/mcp`` with an in-memory event store, so a stream it
closes mid-answer can be resumed with ``Last-Event-ID``. ``--json`` answers
with JSON bodies instead of SSE; ``--token T`` refuses requests without
``Authorization: Bearer T`` (HTTP 401).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.streamable_http import EventCallback, EventMessage, EventStore

Scope = MutableMapping[str, Any]
App = Callable[[Scope, Any, Any], Awaitable[None]]


class MemoryEventStore(EventStore):
    """Every event kept, in order: enough for a test server's short life."""

    def __init__(self) -> None:
        self._events: list[tuple[str, str, Any]] = []  # (event id, stream id, message)
        self._ids = itertools.count(1)

    async def store_event(self, stream_id: str, message: Any) -> str:
        event_id = str(next(self._ids))
        self._events.append((event_id, stream_id, message))
        return event_id

    async def replay_events_after(self, last_event_id: str, send_callback: EventCallback) -> Any:
        ids = [event_id for event_id, _, _ in self._events]
        if last_event_id not in ids:
            return None
        start = ids.index(last_event_id)
        stream = self._events[start][1]
        for event_id, stream_id, message in self._events[start + 1 :]:
            if stream_id == stream and message is not None:
                await send_callback(EventMessage(message, event_id))
        return stream


def rows_for(n: int) -> list[dict[str, Any]]:
    return [{"id": i, "login": f"user{i}", "score": i / 4, "active": i % 3 == 0} for i in range(n)]


server = MCPServer("http-table-server", instructions="A table server reached over HTTP.")


@server.tool()
def rows(n: int) -> str:
    """n rows of a users table, as pretty JSON text."""
    return json.dumps(rows_for(n), indent=2)


@server.tool()
def clock() -> str:
    """A small object, pretty-printed, like mcp-server-time's."""
    return json.dumps(
        {"timezone": "UTC", "datetime": "2026-12-01T10:00:00+00:00", "is_dst": False}, indent=2
    )


@server.tool()
async def dropped_rows(n: int, ctx: Context) -> str:
    """Closes its answer's stream before answering: the client must resume it."""
    await ctx.report_progress(1, 2)
    await ctx.close_sse_stream()
    await ctx.report_progress(2, 2)
    return json.dumps(rows_for(n), indent=2)


@server.tool()
async def sleepy(seconds: float) -> str:
    """Answers after a silence of ``seconds``."""
    import asyncio

    await asyncio.sleep(seconds)
    return "awake"


@server.tool()
async def ask(ctx: Context) -> str:
    """Asks the client a question (elicitation) before answering."""
    from pydantic import BaseModel

    class Colour(BaseModel):
        colour: str

    answer = await ctx.elicit("Which colour?", Colour)
    colour = answer.data.colour if answer.action == "accept" else None
    return json.dumps({"action": answer.action, "colour": colour})


def with_token(app: App, token: str) -> App:
    """Refuse any request without the bearer token, as an OAuth-protected server would."""

    async def guarded(scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = dict(scope.get("headers", []))
            if headers.get(b"authorization") != f"Bearer {token}".encode():
                await send({"type": "http.response.start", "status": 401, "headers": []})
                await send({"type": "http.response.body", "body": b"unauthorized"})
                return
        await app(scope, receive, send)

    return guarded


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--token")
    args = parser.parse_args()
    app: App = server.streamable_http_app(
        json_response=args.json, event_store=MemoryEventStore(), retry_interval=100
    )
    if args.token:
        app = with_token(app, args.token)
    print(f"http_server: serving on {args.port}", file=sys.stderr, flush=True)
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
