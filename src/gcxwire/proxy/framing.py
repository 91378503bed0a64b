"""Newline-delimited JSON-RPC framing on byte streams, with no line-length limit.

asyncio's ``StreamReader.readline`` refuses lines over its 64 KiB default limit,
and real MCP servers send multi-megabyte lines, so lines are split here from raw
chunks. The reader never stops draining: a server blocked on a full stdout pipe
would never exit.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable

__all__ = ["ChunkSource", "LineReader", "LineWriter", "open_stdio"]

# Bytes asked for per read: large enough that a 64 MB line takes ~1000 reads.
CHUNK_SIZE = 1 << 16

ChunkSource = Callable[[], Awaitable[bytes]]
"""A coroutine function returning the next chunk of bytes, ``b""`` at end of stream."""


class LineReader:
    """Split a byte stream into lines without the trailing ``\\n``.

    A final line without a newline is still returned; ``None`` means end of stream.
    """

    def __init__(self, source: ChunkSource) -> None:
        self._source = source
        self._buffer = bytearray()
        self._scanned = 0  # bytes of _buffer already known to hold no newline

    @classmethod
    def from_stream(cls, stream: asyncio.StreamReader) -> LineReader:
        return cls(lambda: stream.read(CHUNK_SIZE))

    async def readline(self) -> bytes | None:
        while True:
            end = self._buffer.find(b"\n", self._scanned)
            if end >= 0:
                line = bytes(self._buffer[:end])
                del self._buffer[: end + 1]
                self._scanned = 0
                return line
            self._scanned = len(self._buffer)
            chunk = await self._source()
            if not chunk:
                if not self._buffer:
                    return None
                line = bytes(self._buffer)
                self._buffer.clear()
                self._scanned = 0
                return line
            self._buffer += chunk


class LineWriter:
    """Write whole lines to a stream; each line goes out in one ``write`` call.

    One call per line keeps lines from concurrent writers whole without a lock.
    """

    def __init__(
        self, write: Callable[[bytes], None], drain: Callable[[], Awaitable[None]]
    ) -> None:
        self._write = write
        self._drain = drain

    @classmethod
    def from_stream(cls, stream: asyncio.StreamWriter) -> LineWriter:
        return cls(stream.write, stream.drain)

    async def write_line(self, line: bytes) -> None:
        self._write(line + b"\n")
        await self._drain()


async def open_stdio(in_fd: int, out_fd: int) -> tuple[LineReader, LineWriter]:
    """Wrap two file descriptors (normally our stdin and stdout) for the relay.

    Pipes and sockets get non-blocking asyncio transports. A regular file (``<
    file`` on a shell) cannot be watched by the event loop, so it is read in a
    worker thread and written with blocking writes instead.
    """
    loop = asyncio.get_running_loop()
    reader: LineReader
    try:
        stream = asyncio.StreamReader()
        await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(stream),
            os.fdopen(in_fd, "rb", buffering=0, closefd=False),
        )
        reader = LineReader.from_stream(stream)
    except (ValueError, OSError, NotImplementedError):
        reader = LineReader(lambda: loop.run_in_executor(None, os.read, in_fd, CHUNK_SIZE))
    try:
        transport, protocol = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, os.fdopen(out_fd, "wb", buffering=0, closefd=False)
        )
        writer = asyncio.StreamWriter(transport, protocol, None, loop)
        return reader, LineWriter.from_stream(writer)
    except (ValueError, OSError, NotImplementedError):
        return reader, LineWriter(lambda data: _write_all(out_fd, data), _no_drain)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


async def _no_drain() -> None:
    return None
