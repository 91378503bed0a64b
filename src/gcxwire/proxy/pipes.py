"""Raw pipe I/O for the threaded stdio relay: lines split from ``os.read``
chunks, a client writer, and a server process whose pipes are plain fds.

A thread blocked in ``os.read`` wakes once per chunk and hands the line on in
the same thread; the event loop's streams cost a task switch and a loop turn
per line on each side (about 0.3 ms of CPU per call, more than a small rewrite).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import select
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence

from ..errors import ClientGone, UpstreamGone
from .framing import CHUNK_SIZE, FLUSH_TIMEOUT, _pollable
from .upstream import Upstream, _die_with_us

__all__ = ["FdWriter", "PipeUpstream", "read_fd", "split_lines"]

log = logging.getLogger(__name__)

# A writer keeps at most this much that the client has not read yet before the
# thread writing waits for it (asyncio's default high-water mark).
HIGH_WATER = 1 << 16


def split_lines(read: Callable[[], bytes]) -> Iterator[bytes]:
    """The lines of the chunks ``read()`` returns (``b""`` at the end), without
    their ``\\n``; a last line without one still counts. Linear in the bytes,
    whatever the line lengths."""
    held = bytearray()
    while chunk := read():
        start = 0
        end = chunk.find(b"\n")
        while end >= 0:
            if held:
                held += memoryview(chunk)[start:end]
                yield bytes(held)
                held.clear()
            elif start == 0 and end == len(chunk) - 1:
                yield chunk[:-1]  # one whole line per chunk: one copy
            else:
                yield chunk[start:end]
            start = end + 1
            end = chunk.find(b"\n", start)
        if start < len(chunk):
            held += memoryview(chunk)[start:]
    if held:
        yield bytes(held)


def read_fd(fd: int) -> bytes:
    """One chunk of ``fd`` (blocking); ``b""`` at its end or when it cannot be read."""
    try:
        return os.read(fd, CHUNK_SIZE)
    except OSError:
        return b""


class FdWriter:
    """Whole lines to the client's fd, from any thread, in the order written.

    A line goes out with one ``write`` where the pipe takes it. What it does
    not take waits in a buffer that the event loop writes out as the client
    reads; a relay thread then waits while over ``HIGH_WATER`` is buffered, the
    loop never does. ``broken`` is set once the reader went away (EPIPE); every
    later write raises :class:`ClientGone`.
    """

    def __init__(self, fd: int, loop: asyncio.AbstractEventLoop) -> None:
        self._fd = fd
        self._loop = loop
        self._watched = _pollable(fd)
        if self._watched:  # a pipe or a terminal: writes that cannot wait
            os.set_blocking(fd, False)
        self._lock = threading.Lock()
        self._room = threading.Condition(self._lock)
        self._pending = bytearray()
        self._closed = False
        self.broken = threading.Event()
        self.on_broken: Callable[[], None] = lambda: None  # called on the loop's thread

    def write_line(self, line: bytes, *, wait: bool = True) -> None:
        """Write ``line``; ``wait=False`` (the loop's own writes) never waits for room."""
        with self._lock:
            if self.broken.is_set() or self._closed:
                raise ClientGone("the client closed its input")
            data = line + b"\n"
            if self._pending:
                self._pending += data
            else:
                written = self._write(data)
                if written < len(data):
                    self._pending += memoryview(data)[written:]
                    self._loop.call_soon_threadsafe(self._watch)
            while wait and len(self._pending) > HIGH_WATER and not self._gone():
                self._room.wait()
            if self.broken.is_set():
                raise ClientGone("the client closed its input")

    async def write_line_async(self, line: bytes) -> None:
        """:meth:`write_line` as the link's ``deliver`` on the event loop."""
        self.write_line(line, wait=False)

    def _gone(self) -> bool:
        return self.broken.is_set() or self._closed

    def _write(self, data: bytes | bytearray) -> int:
        """Write what the fd takes now (all of it, if it blocks); mark EPIPE (lock held)."""
        try:
            if self._watched:
                return os.write(self._fd, data)
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view) :]
            return len(data)
        except BlockingIOError:
            return 0
        except (BrokenPipeError, ConnectionResetError):
            self._break()
            return len(data)

    def _break(self) -> None:
        self.broken.set()
        self._pending.clear()
        self._room.notify_all()
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
            self._loop.call_soon_threadsafe(self.on_broken)

    def _watch(self) -> None:
        with self._lock:
            if self._pending and not self._gone():
                self._loop.add_writer(self._fd, self._flush)

    def _flush(self) -> None:
        with self._lock:
            if self._pending and not self._gone():
                written = self._write(self._pending)
                del self._pending[:written]
                if len(self._pending) <= HIGH_WATER:
                    self._room.notify_all()
            if not self._pending or self._gone():
                self._loop.remove_writer(self._fd)

    async def close(self) -> None:
        """Flush every line written so far to the client (bounded), then stop writing."""
        deadline = self._loop.time() + FLUSH_TIMEOUT
        while self._pending and not self._gone() and self._loop.time() < deadline:
            await asyncio.sleep(0.01)
        with self._lock:
            self._closed = True
            self._room.notify_all()
            if self._watched:
                self._loop.remove_writer(self._fd)


class PipeUpstream(Upstream):
    """An :class:`Upstream` whose stdin and stdout are plain pipe fds, written
    and read with blocking calls from the relay's threads. Its process is
    still watched, stopped and reaped on the event loop."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        name: str,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        full_env: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(argv, name=name, env=env, cwd=cwd, full_env=full_env)
        self._stdin_fd: int | None = None
        self._stdout_fd: int | None = None
        self._stdin_lock = threading.Lock()
        self._close_stdin = False  # asked while a write held the lock
        self._wake_r, self._wake_w = -1, -1
        self._poll = select.poll()
        self._loop: asyncio.AbstractEventLoop | None = None

    async def start(self) -> None:
        self._eof = asyncio.Event()
        self._cut = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        child_in, self._stdin_fd = os.pipe()
        self._stdout_fd, child_out = os.pipe()
        self._wake_r, self._wake_w = os.pipe()
        try:
            self._process = await asyncio.create_subprocess_exec(
                *self.argv,
                stdin=child_in,
                stdout=child_out,
                stderr=None,
                env=self._env,
                cwd=self._cwd,
                start_new_session=True,
                preexec_fn=_die_with_us(),
            )
        except BaseException:
            for fd in (self._stdin_fd, self._stdout_fd, self._wake_r, self._wake_w):
                os.close(fd)
            self._stdin_fd = self._stdout_fd = None
            raise
        finally:
            os.close(child_in)
            os.close(child_out)
        self._poll.register(self._stdout_fd, select.POLLIN)
        self._poll.register(self._wake_r, select.POLLIN)
        self._reaper = asyncio.ensure_future(self._reap(self._process))
        log.info("started %s (pid %d): %s", self.name, self._process.pid, " ".join(self.argv))

    def read_chunk(self) -> bytes:
        """The next chunk of the server's stdout (blocking, in the relay's
        thread); ``b""`` at its end, or once the reaper cut it."""
        fd = self._stdout_fd
        if fd is None:
            return b""
        while True:
            events = dict(self._poll.poll())
            if self._wake_r in events:
                return b""  # cut: the server exited, a grandchild holds the pipe
            if events:
                break
        try:
            chunk = os.read(fd, CHUNK_SIZE)
        except OSError:
            chunk = b""
        if not chunk and self._loop is not None:
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._eof.set)
        return chunk

    def _cut_stdout(self, process: asyncio.subprocess.Process) -> None:
        os.write(self._wake_w, b"x")  # wakes read_chunk's poll

    def write_line(self, line: bytes) -> None:
        """Send one line (blocking, in the relay's thread); :class:`UpstreamGone`
        once the server's stdin is closed or broken."""
        with self._stdin_lock:
            fd = self._stdin_fd
            if fd is None:
                raise UpstreamGone(self.name)
            try:
                view = memoryview(line + b"\n")
                while view:
                    view = view[os.write(fd, view) :]
            except (BrokenPipeError, ConnectionResetError) as exc:
                self._close_stdin_fd()
                raise UpstreamGone(self.name) from exc
            finally:
                if self._close_stdin:
                    self._close_stdin_fd()

    async def send(self, line: bytes) -> None:
        raise NotImplementedError("a PipeUpstream is written from a relay thread: write_line")

    def close_stdin(self) -> None:
        """Close the server's stdin now, or once a write in progress is done
        (a server that does not read gets SIGTERM meanwhile, which ends it)."""
        self._close_stdin = True
        if self._stdin_lock.acquire(blocking=False):
            try:
                self._close_stdin_fd()
            finally:
                self._stdin_lock.release()

    def _close_stdin_fd(self) -> None:
        if self._stdin_fd is not None:
            os.close(self._stdin_fd)
            self._stdin_fd = None
