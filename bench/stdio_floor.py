"""The floor of any asyncio stdio proxy: every line passed through, untouched.

``python bench/stdio_floor.py -- <server command>`` starts the server and
copies lines both ways with asyncio pipes, as ``gcxwire proxy`` does, with no
parsing and no rewrite. ``proxy_latency.py`` runs it beside the real proxies:
what it adds is the cost of one more process hop each way on this machine,
so a proxy's added time minus the floor's is the proxy's own work.
"""

from __future__ import annotations

import asyncio
import os
import sys

LIMIT = 1 << 27  # lines of 5,000 rows are megabytes


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


if __name__ == "__main__":
    sys.exit(asyncio.run(relay(sys.argv[sys.argv.index("--") + 1 :])))
