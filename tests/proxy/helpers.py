"""Shared helpers of the proxy tests: how to launch the proxy and read what it says."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult, TextContent, TextResourceContents

import gcxwire
from gcxwire import dcp

SERVERS = Path(__file__).parent / "servers"
TABLE_SERVER = [sys.executable, str(SERVERS / "table_server.py")]
LINE_SERVER = [sys.executable, str(SERVERS / "line_server.py")]
ROGUE_SERVER = [sys.executable, str(SERVERS / "rogue_server.py")]

# Generous bounds: CI runs on 2 shared cores.
TIMEOUT = 30.0


def proxy_argv(server: Sequence[str], *options: str) -> list[str]:
    return [sys.executable, "-m", "gcxwire.proxy", *options, "--", *server]


def proxy_params(server: Sequence[str], *options: str) -> StdioServerParameters:
    """Launch parameters for the SDK client: the proxy in front of ``server``."""
    argv = proxy_argv(server, *options)
    return StdioServerParameters(command=argv[0], args=argv[1:])


def carried_value(result: CallToolResult) -> Any:
    """The JSON value a tool result carries, whether or not the proxy re-encoded it.

    A rewritten result ends with one text block in GCX1, DCP or compact JSON
    (after an optional hint block); an untouched one holds JSON text blocks.
    """
    texts = [block.text for block in result.content if isinstance(block, TextContent)]
    assert len(texts) == len(result.content), "only text blocks expected"
    if len(texts) <= 2 and gcxwire._auto.detect(texts[-1]) != "json":
        return gcxwire.decode(texts[-1])
    values = [orjson.loads(text) for text in texts]
    return values[0] if len(values) == 1 else values


def run(coro: Any) -> Any:
    """Run a client scenario to its end, failing it after two minutes."""
    return asyncio.run(asyncio.wait_for(coro, 120))


def registry_rows(text: str) -> list[dict[str, Any]]:
    """The rows of the proxy's schema registry resource (a DCP table)."""
    rows: list[dict[str, Any]] = dcp.decode(text, schema=dcp.REGISTRY_SCHEMA)
    return rows


async def read_text(client: Client, uri: str) -> str:
    """The one text content of resource ``uri``, as the SDK client reads it."""
    (contents,) = (await client.read_resource(uri)).contents
    assert isinstance(contents, TextResourceContents) and contents.uri == uri
    return contents.text


class RawProxy:
    """The proxy as a subprocess driven line by line, for byte-level assertions."""

    def __init__(self, server: Sequence[str], *options: str, env: dict[str, str] | None = None):
        self.argv = proxy_argv(server, *options)
        self.env = {**os.environ, **(env or {})}
        self.process: asyncio.subprocess.Process | None = None
        self._buffer = bytearray()

    async def __aenter__(self) -> RawProxy:
        if self.argv[-1] != "--":  # the server command is known: start at once
            await self.start()
        return self

    async def start(self) -> None:
        self.process = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=self.env,
        )

    async def __aexit__(self, *exc: object) -> None:
        if self.process is None:
            return
        if self.process.returncode is None:
            self.process.kill()
        # Read both pipes to EOF so asyncio closes the transport (else a ResourceWarning).
        assert self.process.stdout is not None and self.process.stderr is not None
        if self.process.stdin is not None:
            self.process.stdin.close()
        await asyncio.gather(self.process.stdout.read(), self.process.stderr.read())
        await self.process.wait()

    async def send(self, message: Any) -> None:
        line = message if isinstance(message, bytes) else orjson.dumps(message)
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.write(line + b"\n")
        await self.process.stdin.drain()

    async def recv_line(self, timeout: float = TIMEOUT) -> bytes:
        """The next line the proxy wrote, without its newline."""
        assert self.process is not None and self.process.stdout is not None
        stdout = self.process.stdout
        while b"\n" not in self._buffer:
            chunk = await asyncio.wait_for(stdout.read(1 << 20), timeout)
            if not chunk:
                assert self.process.stderr is not None
                err = await asyncio.wait_for(self.process.stderr.read(), timeout)
                raise EOFError(
                    f"proxy closed stdout; partial: {bytes(self._buffer)[:200]!r}; "
                    f"stderr: {err.decode(errors='replace')[-2000:]}"
                )
            self._buffer += chunk
        end = self._buffer.index(b"\n")
        line = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        return line

    async def recv(self, timeout: float = TIMEOUT) -> Any:
        return orjson.loads(await self.recv_line(timeout))

    async def finish(self, timeout: float = TIMEOUT) -> tuple[int, bytes, bytes]:
        """Close stdin; the exit status, the rest of stdout and all of stderr."""
        assert self.process is not None and self.process.stdin is not None
        self.process.stdin.close()
        return await self.wait(timeout)

    async def wait(self, timeout: float = TIMEOUT) -> tuple[int, bytes, bytes]:
        assert self.process is not None
        assert self.process.stdout is not None and self.process.stderr is not None
        out, err = await asyncio.wait_for(
            asyncio.gather(self.process.stdout.read(), self.process.stderr.read()), timeout
        )
        status = await asyncio.wait_for(self.process.wait(), timeout)
        return status, bytes(self._buffer) + out, err
