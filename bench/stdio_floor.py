"""The floor of a stdio proxy: every line passed through, untouched.

``python bench/stdio_floor.py -- <server command>`` starts the server and
copies lines both ways with asyncio pipes (as gcxwire's gateway and ``--url``
relay do), with no parsing and no rewrite. ``--threads`` copies the bytes
instead with one thread per direction blocked in ``os.read`` on raw file
descriptors, as gcxwire's single stdio server relay does (no event loop per
line). ``proxy_latency.py`` runs both beside the real proxies: what the threaded
one adds is the cost of one more process hop each way, so gcxwire's added time
minus it is the proxy's own work; the asyncio one shows what the same hop
costs through the event loop's streams.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading

LIMIT = 1 << 27  # lines of 5,000 rows are megabytes
CHUNK = 1 << 16


async def relay(argv: list[str]) -> int:
    loop = asyncio.get_running_loop()
    server = await asyncio.create_subprocess_exec(
        *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=LIMIT
    )
    stdin, stdout = server.stdin, server.stdout
    assert stdin is not None and stdout is not None
    client_in = asyncio.StreamReader(limit=LIMIT)
    await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(client_in),
        os.fdopen(sys.stdin.fileno(), "rb", buffering=0, closefd=False),
    )
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin,
        os.fdopen(sys.stdout.fileno(), "wb", buffering=0, closefd=False),
    )
    client_out = asyncio.StreamWriter(transport, protocol, None, loop)

    async def to_server() -> None:
        while line := await client_in.readline():
            stdin.write(line)
            await stdin.drain()
        stdin.close()

    async def to_client() -> None:
        while line := await stdout.readline():
            client_out.write(line)
            await client_out.drain()

    await asyncio.gather(to_server(), to_client())
    return await server.wait()


def _copy(source: int, target: int) -> None:
    """Bytes from ``source`` to ``target`` as they come, until end of input."""
    while chunk := os.read(source, CHUNK):
        view = memoryview(chunk)
        while view:
            view = view[os.write(target, view) :]


def threaded(argv: list[str]) -> int:
    server = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    assert server.stdin is not None and server.stdout is not None
    into, out_of = server.stdin, server.stdout

    def to_server() -> None:
        _copy(sys.stdin.fileno(), into.fileno())
        into.close()

    threading.Thread(target=to_server, daemon=True).start()
    _copy(out_of.fileno(), sys.stdout.fileno())
    return server.wait()


if __name__ == "__main__":
    command = sys.argv[sys.argv.index("--") + 1 :]
    if "--threads" in sys.argv[: sys.argv.index("--")]:
        sys.exit(threaded(command))
    sys.exit(asyncio.run(relay(command)))
