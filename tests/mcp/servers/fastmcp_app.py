"""A ``fastmcp`` server whose tools gcxwire's middleware encodes, beside the same
tools unencoded (``*_plain``). Run as a script it serves stdio."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `tests.mcp.servers` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from fastmcp import Context, FastMCP

from gcxwire.mcp import EncodingMiddleware, HintMode
from tests.mcp.servers import data

RECEIVED: list[dict[str, Any]] = []
ENCODED = ("users", "points", "search", "tricky", "status", "greet", "boom", "received", "styled")


def build(*, hint: HintMode = "instructions", format_arg: bool = True) -> FastMCP:
    server = FastMCP("gcxwire-fastmcp-test", instructions="Test data.")
    server.add_middleware(EncodingMiddleware(tools=ENCODED, hint=hint, format_arg=format_arg))

    def both(fn: Any) -> None:
        server.tool(fn)
        server.tool(fn, name=f"{fn.__name__}_plain")

    def users(n: int) -> list[data.User]:
        """Users, as pydantic models."""
        return data.users(n)

    async def points(n: int, ctx: Context) -> list[data.Point]:
        """Points, as dataclasses, from an async tool that uses its context."""
        if ctx.request_id is None:  # the context reached the function
            raise RuntimeError("no request context")
        return data.points(n)

    def search(n: int) -> dict[str, Any]:
        """A wrapper object around rows."""
        return data.search(n)

    def tricky(n: int) -> list[dict[str, Any]]:
        """Rows that test an exact round trip."""
        return data.tricky(n)

    def status() -> dict[str, Any]:
        """A small object: not worth encoding."""
        return data.status()

    def greet(name: str) -> str:
        """Plain text."""
        return f"Hello, {name}!"

    def boom(n: int = 1) -> list[dict[str, Any]]:
        """Always fails."""
        raise RuntimeError("boom")

    def received(a: int, b: str = "x") -> list[dict[str, Any]]:
        """What the function was called with."""
        RECEIVED.append({"a": a, "b": b})
        return data.received(a, b)

    for fn in (users, points, search, tricky, status, greet, boom, received):
        both(fn)

    @server.tool
    def styled(format: str = "plain") -> list[dict[str, Any]]:
        """A tool with a `format` argument of its own."""
        return [{"row": i, "format": format} for i in range(3)]

    return server


server = build()

if __name__ == "__main__":
    server.run(show_banner=False)
