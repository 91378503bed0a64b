"""Real Streamable HTTP MCP servers on 127.0.0.1 for the --url tests, started as subprocesses."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from ..node_deps import NODE_DIR
from .helpers import SERVERS

EVERYTHING = NODE_DIR / "node_modules" / ".bin" / "mcp-server-everything"
MEMORY = NODE_DIR / "node_modules" / ".bin" / "mcp-server-memory"
TS_CLIENT = NODE_DIR / "mcp_client.mjs"
HTTP_SERVER = [sys.executable, str(SERVERS / "http_server.py")]
READY_TIMEOUT = 30.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_ready(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the test server exited with status {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"the test server did not listen on {port} within {READY_TIMEOUT} s")


@contextmanager
def running(argv: Sequence[str], port: int, env: dict[str, str] | None = None) -> Iterator[str]:
    """Run a server listening on ``port``; its MCP URL. Always stopped afterwards."""
    process = subprocess.Popen(list(argv), env={**os.environ, **(env or {})})
    try:
        _wait_ready(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def python_server(*options: str, port: int | None = None) -> Iterator[str]:
    """Our MCPServer (tests/proxy/servers/http_server.py) in streamable-http mode."""
    port = port or free_port()
    with running([*HTTP_SERVER, str(port), *options], port) as url:
        yield url


@contextmanager
def everything_server() -> Iterator[str]:
    """npm @modelcontextprotocol/server-everything in its streamableHttp mode."""
    port = free_port()
    with running([str(EVERYTHING), "streamableHttp"], port, {"PORT": str(port)}) as url:
        yield url
