"""Newline-delimited JSON-RPC framing on byte streams, with no line-length limit.

asyncio's ``StreamReader.readline`` refuses lines over its 64 KiB default limit,
and real MCP servers send multi-megabyte lines, so lines are split here from raw
chunks. The reader never stops draining: a server blocked on a full stdout pipe
would never exit.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
from collections.abc import Awaitable, Callable

from ..errors import ClientGone

__all__ = [
    "BROKEN_PIPE_STATUS",
    "ChunkSource",
    "LineReader",
    "LineWriter",
    "open_stdio",
]

# Bytes asked for per read: large enough that a 64 MB line takes ~1000 reads.
CHUNK_SIZE = 1 << 16
# The exit status after the client stopped reading our output (EPIPE): what a
# shell reports for a process killed by SIGPIPE.
BROKEN_PIPE_STATUS = 128 + 13
# How long the last lines may take to reach the client at exit.
FLUSH_TIMEOUT = 10.0


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

    def buffered_line(self) -> bytes | None:
        """The next line if it is already buffered whole, without reading; else ``None``."""
        end = self._buffer.find(b"\n", self._scanned)
        if end < 0:
            self._scanned = len(self._buffer)
            return None
        line = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        self._scanned = 0
        return line

    async def readline(self) -> bytes | None:
        while True:
            line = self.buffered_line()
            if line is not None:
                return line
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
    :meth:`close` flushes what is still buffered: the event loop drops a
    transport's buffer when it ends. ``broken`` is set once the reader went
    away (EPIPE); every later write raises :class:`ClientGone`.
    """

    def __init__(
        self,
        write: Callable[[bytes], None],
        drain: Callable[[], Awaitable[None]],
        close: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self._write = write
        self._drain = drain
        self._close = close
        self.broken = asyncio.Event()

    @classmethod
    def from_stream(cls, stream: asyncio.StreamWriter) -> LineWriter:
        async def close() -> None:
            # drain() waits only above the high-water mark: with none, it
            # returns once the buffer is empty.
            stream.transport.set_write_buffer_limits(0)
            await stream.drain()
            stream.close()

        return cls(stream.write, stream.drain, close)

    async def write_line(self, line: bytes) -> None:
        if self.broken.is_set():
            raise ClientGone("the client closed its input")
        try:
            self._write(line + b"\n")
            await self._drain()
        except (BrokenPipeError, ConnectionResetError) as exc:
            self.broken.set()
            raise ClientGone("the client closed its input") from exc

    async def close(self) -> None:
        """Flush every line written so far to the client, then close, bounded."""
        if self._close is None or self.broken.is_set():
            return
        try:
            await asyncio.wait_for(self._close(), FLUSH_TIMEOUT)
        except (BrokenPipeError, ConnectionResetError):
            self.broken.set()
        except asyncio.TimeoutError:
            pass


async def open_stdio(in_fd: int, out_fd: int) -> tuple[LineReader, LineWriter]:
    """Wrap two file descriptors (normally our stdin and stdout) for the relay.

    Pipes, sockets and terminals get non-blocking asyncio transports. Anything
    else (a regular file, ``/dev/null``) cannot be watched by the event loop
    (epoll refuses it, or reports it ready forever), so it is read in a worker
    thread and written with blocking writes instead.
    """
    loop = asyncio.get_running_loop()
    reader: LineReader | None = None
    if _pollable(in_fd):
        with contextlib.suppress(ValueError, OSError, NotImplementedError):
            stream = asyncio.StreamReader()
            await loop.connect_read_pipe(
                lambda: asyncio.StreamReaderProtocol(stream),
                os.fdopen(in_fd, "rb", buffering=0, closefd=False),
            )
            reader = LineReader.from_stream(stream)
    if reader is None:
        reader = LineReader(lambda: loop.run_in_executor(None, _read, in_fd))
    if _pollable(out_fd):
        with contextlib.suppress(ValueError, OSError, NotImplementedError):
            transport, protocol = await loop.connect_write_pipe(
                asyncio.streams.FlowControlMixin,
                os.fdopen(out_fd, "wb", buffering=0, closefd=False),
            )
            writer = asyncio.StreamWriter(transport, protocol, None, loop)
            return reader, LineWriter.from_stream(writer)
    return reader, LineWriter(lambda data: _write_all(out_fd, data), _no_drain)


def _pollable(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or (stat.S_ISCHR(mode) and os.isatty(fd))


def _read(fd: int) -> bytes:
    try:
        return os.read(fd, CHUNK_SIZE)
    except OSError:  # a closed or unreadable stdin ends the input
        return b""


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


async def _no_drain() -> None:
    return None
