"""Drive ``gcxwire proxy`` as a subprocess with raw JSON-RPC lines, in front of load_server.

Only the standard library and orjson: the client side is deliberately thin, so what
the tests see is exactly what the proxy wrote.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import orjson

import gcxwire
from gcxwire._auto import detect
from gcxwire._values import difference
from tests.reliability.servers.load_server import table

SERVER = Path(__file__).parent / "servers" / "load_server.py"
# Generous: CI shares 2 cores between the proxy, the server and this client.
TIMEOUT = 60.0


def call(call_id: int, tool: str = "rows", **arguments: Any) -> dict[str, Any]:
    """The tools/call request with id ``call_id``; by default it asks for that id's table."""
    args = arguments or {"n": call_id, "rows": rows(call_id)}
    return {
        "jsonrpc": "2.0",
        "id": call_id,
        "method": "tools/call",
        "params": {"name": tool, "arguments": args},
    }


def rows(n: int) -> int:
    return 2 + n % 4


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": "init",
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "reliability", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def check_table(response: dict[str, Any]) -> str:
    """The response to call ``n`` decodes to exactly ``table(n, rows(n))``; its format."""
    n = response["id"]
    text = response["result"]["content"][-1]["text"]
    where = difference(table(n, rows(n)), gcxwire.decode(text))
    assert where is None, f"call {n}: decoded content differs at {where[0]}"
    return detect(text)


class ProxyProcess:
    """One proxy (and, behind it, one load_server) with its stdout read line by line."""

    def __init__(self, folder: Path, *server_options: str, gateway: tuple[str, ...] = ()) -> None:
        """One proxy in front of one load_server, or with ``gateway`` aliases a
        ``--servers`` gateway in front of one load_server per alias."""
        self.server_log = folder / "server.log"
        self.stderr_path = folder / "proxy.stderr"
        server = [sys.executable, str(SERVER), "--log", str(self.server_log), *server_options]
        self.argv = [sys.executable, "-m", "gcxwire", "proxy", "--", *server]
        self.logs = {alias: folder / f"{alias}.log" for alias in gateway}
        if gateway:
            config = folder / "gateway.json"
            entries = [
                {
                    "alias": alias,
                    "command": sys.executable,
                    "args": [str(SERVER), "--log", str(log), "--name", alias, *server_options],
                }
                for alias, log in self.logs.items()
            ]
            config.write_text(json.dumps({"servers": entries}), encoding="utf-8")
            self.argv = [sys.executable, "-m", "gcxwire", "proxy", "--servers", str(config)]
        self.process: asyncio.subprocess.Process | None = None
        self._buffer = bytearray()
        self._eof = False

    async def start(self) -> None:
        with open(self.stderr_path, "wb") as stderr:
            self.process = await asyncio.create_subprocess_exec(
                *self.argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=stderr,
                cwd=Path(__file__).resolve().parents[2],
            )

    @property
    def proc(self) -> asyncio.subprocess.Process:
        assert self.process is not None, "start() first"
        return self.process

    async def send(self, message: Any) -> None:
        stdin = self.proc.stdin
        assert stdin is not None
        stdin.write(orjson.dumps(message) + b"\n")
        await stdin.drain()

    async def close_stdin(self) -> None:
        stdin = self.proc.stdin
        assert stdin is not None
        stdin.close()
        await stdin.wait_closed()

    async def line(self, timeout: float = TIMEOUT) -> bytes | None:
        """The next line the proxy wrote (no newline); None at EOF (a last partial line
        is returned first)."""
        stdout = self.proc.stdout
        assert stdout is not None
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line = bytes(self._buffer[:end])
                del self._buffer[: end + 1]
                return line
            if self._eof:
                if self._buffer:
                    line = bytes(self._buffer)
                    self._buffer.clear()
                    return line
                return None
            chunk = await asyncio.wait_for(stdout.read(1 << 20), timeout)
            if chunk:
                self._buffer += chunk
            else:
                self._eof = True

    async def message(self, timeout: float = TIMEOUT) -> Any:
        line = await self.line(timeout)
        assert line is not None, "the proxy closed its stdout"
        return orjson.loads(line)

    async def wait(self, timeout: float = TIMEOUT) -> int:
        return await asyncio.wait_for(self.proc.wait(), timeout)

    async def kill(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.kill()
            await self.process.wait()

    def peak_rss_mb(self) -> float:
        """The proxy's peak resident set so far (Linux ``VmHWM``)."""
        status = Path(f"/proc/{self.proc.pid}/status").read_text(encoding="ascii")
        kb = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:"))
        return kb / 1024

    def stderr(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def server_entries(self, alias: str | None = None) -> list[dict[str, Any]]:
        log = self.server_log if alias is None else self.logs[alias]
        text = log.read_text(encoding="utf-8") if log.exists() else ""
        return [json.loads(line) for line in text.splitlines()]

    def server_pid(self) -> int:
        return int(next(e["pid"] for e in self.server_entries() if e["k"] == "pid"))

    def server_wrote(self) -> list[tuple[str, Any]]:
        """What the server wrote to its stdout, in order, as (kind, id or seq)."""
        return [
            (e["k"], e.get("id", e.get("seq")))
            for e in self.server_entries()
            if e["k"] in ("response", "notification", "garbage", "half")
        ]


def kind_of(line: bytes) -> tuple[str, Any]:
    """A line the proxy wrote, named as the server log names what the server wrote."""
    try:
        message = orjson.loads(line)
    except orjson.JSONDecodeError:
        return ("garbage", None)
    if isinstance(message, dict) and message.get("method") == "notifications/message":
        params = message["params"]
        return (
            "notification",
            (params["server"], params["seq"]) if "server" in params else params["seq"],
        )
    if isinstance(message, dict) and "id" in message and "method" not in message:
        return ("response", message["id"])
    return ("other", None)


def no_crash_in(stderr: str) -> None:
    assert "Traceback" not in stderr, stderr[-3000:]


async def wait_pid_gone(pid: int, timeout: float = TIMEOUT) -> None:
    """Until process ``pid`` no longer exists (the proxy must reap or abandon nothing)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"server {pid} still running")
        await asyncio.sleep(0.05)
