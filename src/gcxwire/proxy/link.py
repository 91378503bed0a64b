"""One upstream as the relay sees it: its process, its requests in flight, its rewriter.

The single-server :class:`~.relay.Relay` holds one link; a multi-server router
holds one per upstream, so each server keeps its own pending ids, its own schema
lifecycle (inside its rewriter), its own input queue and its own crash handling.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import signal
import threading
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

import orjson

from ..errors import UpstreamGone
from . import later
from .http_upstream import HttpUpstream
from .jsonrpc import (
    UPSTREAM_BUSY,
    UPSTREAM_EXITED,
    JsonObject,
    PendingRequest,
    PendingTable,
    error_response,
    numbers_of,
    parse_lenient,
    parse_line,
    response_id,
)
from .upstream import DRAIN_AFTER_EXIT_TIMEOUT, Upstream

__all__ = [
    "Framer",
    "ResponseRewriter",
    "UpstreamLink",
    "describe_exit",
    "exit_status",
    "in_thread",
]

log = logging.getLogger(__name__)

# Answers larger than this are rewritten in a worker thread, so the client's
# messages keep flowing meanwhile; smaller ones cost little (the codecs are
# linear). Lines are still delivered in order: the pump waits for the result.
OFFLOAD_BYTES = 64 << 10
# How long one rewrite may hold up the server's output; past it the original
# goes out, and answers pass through until that rewrite has finished.
REWRITE_BUDGET = 5.0
# A server answer printed over several lines (pretty JSON) is joined back into
# one message, up to this size; past it the lines go out as they came.
MAX_JOINED_BYTES = 64 << 20

Deliver = Callable[[bytes], Awaitable[None]]
T = TypeVar("T")


class ResponseRewriter(Protocol):
    def rewrite(self, request: PendingRequest, response: JsonObject) -> JsonObject | None:
        """A replacement for ``response``, or ``None`` to forward it unchanged."""


def exit_status(returncode: int) -> int:
    """A child's status as a shell reports it: killed by signal N gives 128 + N."""
    return 128 - returncode if returncode < 0 else returncode


def describe_exit(returncode: int) -> str:
    if returncode < 0:
        try:
            return f"was killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"was killed by signal {-returncode}"
    return f"exited with status {returncode}"


def in_thread(work: Callable[[], T], name: str) -> asyncio.Future[T]:
    """``work()`` in a daemon thread, its outcome as a future of the running loop.

    Daemon: a thread that overran its budget (a rewrite), or is still blocked in
    a read (the client's, after SIGTERM), must not hold up the proxy's exit, as
    a thread of the default executor would.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()
    # Read even when nobody awaits it (a client thread left behind at exit).
    future.add_done_callback(lambda done: done.cancelled() or done.exception())

    def settle(result: T | None, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)  # type: ignore[arg-type]

    def run() -> None:
        try:
            result, error = work(), None
        except BaseException as exc:  # handed to the awaiting coroutine
            result, error = None, exc
        try:
            loop.call_soon_threadsafe(settle, result, error)
        except RuntimeError:  # the loop is closed: nobody waits any more
            pass

    threading.Thread(target=run, name=name, daemon=True).start()
    return future


class UpstreamLink:
    """Send client lines to one upstream and deliver its lines back.

    ``deliver`` writes one line toward the client (a router may rename ids or
    tools on the way). Every line the server writes is delivered once, in order;
    the answer to a tracked request goes through ``rewriter`` first, and any
    failure there delivers the original line instead.

    With ``busy_limit`` (bytes) lines for the server wait in a queue of their
    own, so a server that stops reading holds up nobody else; once that much
    is queued, its requests are answered with an error at once. Without it
    :meth:`send` waits for the server to take the line.
    """

    def __init__(
        self,
        upstream: Upstream | HttpUpstream,
        rewriter: ResponseRewriter,
        deliver: Deliver,
        *,
        busy_limit: int | None = None,
    ) -> None:
        self.upstream = upstream
        self.rewriter = rewriter
        self.pending = PendingTable()
        self._deliver = deliver
        self._busy_limit = busy_limit
        self._queue: collections.deque[tuple[bytes, PendingRequest | None]] = collections.deque()
        self._queued_bytes = 0
        self._wake = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None
        self._rewriting: asyncio.Future[bytes] | None = None  # a rewrite in a thread
        self._blocking_rewrite: threading.Event | None = None  # the same, for a relay thread

    @property
    def name(self) -> str:
        return self.upstream.name

    async def send(self, line: bytes, request: PendingRequest | None = None) -> None:
        """Send one line; a ``request`` is tracked until answered, and answered
        with an error right away if the server is gone or not reading."""
        if request is not None:
            self.pending.add(request)
        if self._busy_limit is None:
            await self._write(line, request)
            return
        if self._queue and self._queued_bytes + len(line) > self._busy_limit:
            if request is None:
                log.warning("%s is not reading its input: a notification is dropped", self.name)
            elif self.pending.pop(request.id) is not None:
                log.warning("%s is not reading its input: a request is refused", self.name)
                await self._deliver(self.busy_error(request.id))
            return
        self._queue.append((line, request))
        self._queued_bytes += len(line)
        self._wake.set()
        if self._writer is None or self._writer.done():
            self._writer = asyncio.ensure_future(self._write_queue())

    async def _write(self, line: bytes, request: PendingRequest | None) -> bool:
        try:
            await self.upstream.send(line)
            return True
        except UpstreamGone:
            if request is not None and self.pending.pop(request.id) is not None:
                await self._deliver(self.gone_error(request.id, None))
            return False

    async def _write_queue(self) -> None:
        while True:
            while self._queue:
                line, request = self._queue[0]
                written = await self._write(line, request)
                self._queue.popleft()
                self._queued_bytes -= len(line)
                if not written:  # gone: what is queued gets its error now
                    while self._queue:
                        line, request = self._queue.popleft()
                        self._queued_bytes -= len(line)
                        await self._write(line, request)
            self._wake.clear()
            await self._wake.wait()

    async def flush(self, timeout: float) -> None:
        """Until every queued line was written to the server (at most ``timeout``)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self._queue and self._writer is not None and not self._writer.done():
            if loop.time() >= deadline:
                log.warning("%s: %d queued lines not written", self.name, len(self._queue))
                return
            await asyncio.sleep(0.01)

    def forget(self, request_id: Any) -> None:
        """Stop tracking a cancelled request: no answer will come for it."""
        self.pending.pop(request_id)

    async def pump(self) -> int:
        """Deliver the server's lines until its stdout closes; its exit status.

        Requests still in flight then get an error each: nobody else would
        answer them.
        """
        framer = Framer(self)
        try:
            while (line := await self.upstream.readline()) is not None:
                raw, whole, message = framer.feed(line)
                for as_it_came in raw:
                    await self._deliver(as_it_came)
                if whole is not None:
                    try:
                        await self._deliver(await self._answer(whole, message))
                    finally:
                        self.settle()
            for as_it_came in framer.release():
                await self._deliver(as_it_came)
        finally:
            if self._writer is not None:
                self._writer.cancel()
                self._writer = None
            self._queue.clear()
            self._queued_bytes = 0
        return await self.finish()

    async def finish(self) -> int:
        """Once the server's stdout is done: its exit status, after an error
        for each request still in flight (nobody else would answer them)."""
        status = await self.upstream.wait(DRAIN_AFTER_EXIT_TIMEOUT)
        if status is None:
            status = await self.upstream.stop()
        await self.upstream.reaped()
        log.info("%s exited with status %d", self.name, status)
        for request in self.pending.drain():
            await self._deliver(self.gone_error(request.id, status))
        return exit_status(status)

    async def _answer(self, line: bytes, message: Any) -> bytes:
        """The line to deliver for one server line (``message`` is its strict
        parse, or ``None``), rewritten off the loop when big."""
        matched = self._match(line, message)
        if matched is None:
            return line
        request, message = matched
        if self._rewriting is not None and not self._rewriting.done():
            log.warning("%s: an earlier rewrite is still running; forwarding as is", self.name)
            return line
        if len(line) <= OFFLOAD_BYTES:
            return self._rewrite(line, request, message, defer=True)
        self._rewriting = in_thread(
            lambda: self._rewrite(line, request, message), "gcxwire-rewrite"
        )
        try:
            return await asyncio.wait_for(asyncio.shield(self._rewriting), REWRITE_BUDGET)
        except asyncio.TimeoutError:
            self._log_over_budget(len(line))
            return line

    def answer(self, line: bytes) -> bytes:
        """The line to deliver for one server line: rewritten if it answers a request."""
        matched = self._match(line, parse_line(line))
        return line if matched is None else self._rewrite(line, *matched)

    def answer_blocking(self, line: bytes, message: Any) -> bytes:
        """:meth:`_answer` for a relay thread: a big rewrite runs in a thread of
        its own, waited for at most ``REWRITE_BUDGET``, as on the event loop."""
        matched = self._match(line, message)
        if matched is None:
            return line
        request, message = matched
        if self._blocking_rewrite is not None and not self._blocking_rewrite.is_set():
            log.warning("%s: an earlier rewrite is still running; forwarding as is", self.name)
            return line
        if len(line) <= OFFLOAD_BYTES:
            return self._rewrite(line, request, message, defer=True)
        done = threading.Event()
        result = [line]

        def work() -> None:
            try:
                result[0] = self._rewrite(line, request, message)
            finally:
                done.set()

        self._blocking_rewrite = done
        threading.Thread(target=work, name="gcxwire-rewrite", daemon=True).start()
        if done.wait(REWRITE_BUDGET):
            return result[0]
        self._log_over_budget(len(line))
        return line

    def _match(self, line: bytes, message: Any) -> tuple[PendingRequest, JsonObject] | None:
        """The request ``line`` answers and the parsed answer, if it is one to
        rewrite; every request it answers stops being pending, so none gets a
        second answer later."""
        strict = message is not None
        if message is None:
            message = parse_lenient(line)
            if message is None:
                self._log_not_json(line)
                return None
            log.warning("%s wrote %d bytes that are not strict JSON", self.name, len(line))
        if isinstance(message, list):  # a batch: each answer in it counts as given
            for item in message:
                is_response, request_id = response_id(item)
                if is_response:
                    self.pending.pop(request_id)
            return None
        is_response, request_id = response_id(message)
        request = self.pending.pop(request_id) if is_response else None
        if request is None or not strict:
            return None
        return request, message

    def settle(self) -> None:
        """Run the stats work of the answers written since (:mod:`.later`)."""
        later.settle()

    def _rewrite(
        self, line: bytes, request: PendingRequest, message: JsonObject, defer: bool = False
    ) -> bytes:
        """The rewritten line, or ``line``. With ``defer`` (a small answer), the
        rewriter's stats work waits for :meth:`settle`, after the line is written."""
        if defer:
            with later.LOCK, later.deferring():
                return self._rewrite(line, request, message)
        try:
            with numbers_of(line) as numbers:
                rewritten = self.rewriter.rewrite(request, message)
            if rewritten is None:
                return line
            if not numbers.survive():  # a re-write would change a number's text
                log.debug("%s: an answer keeps its numbers only as it is", self.name)
                return line
            return orjson.dumps(rewritten)
        except Exception:  # never break a response: forward the original
            log.exception("rewriting the answer to %s failed; forwarding it as is", request.method)
            return line

    def gone_error(self, request_id: Any, status: int | None) -> bytes:
        how = "exited" if status is None else describe_exit(status)
        return error_response(
            request_id,
            UPSTREAM_EXITED,
            f"MCP server {self.name!r} {how} before answering",
            {"server": self.name, "returncode": status},
        )

    def busy_error(self, request_id: Any) -> bytes:
        return error_response(
            request_id,
            UPSTREAM_BUSY,
            f"MCP server {self.name!r} is not reading its input",
            {"server": self.name},
        )

    def _log_over_budget(self, size: int) -> None:
        log.warning(
            "rewriting a %d-byte answer of %s took over %.0f s; forwarding it as is",
            size,
            self.name,
            REWRITE_BUDGET,
        )

    def _log_not_json(self, line: bytes) -> None:
        log.warning("%s wrote a %d-byte line that is not JSON; forwarding it", self.name, len(line))
        log.debug("%s: the line is %.200r", self.name, line)


class Framer:
    """A server's lines as messages: an answer printed over several lines
    (pretty JSON) is joined back into one, up to ``MAX_JOINED_BYTES``; lines
    that make no message go out as they came."""

    def __init__(self, link: UpstreamLink) -> None:
        self._link = link
        self._held: list[bytes] = []
        self._held_bytes = 0

    def feed(self, line: bytes) -> tuple[list[bytes], bytes | None, Any]:
        """For one server line: the lines to deliver first as they came, then
        the message to answer (``None``: none yet) and its strict parse."""
        if not line.strip():
            return [], None, None
        held = self._held
        message = parse_line(line)
        if not held and message is not None:  # the common case: one line, one message
            return [], line, message
        alone = message is not None or parse_lenient(line) is not None
        if held and alone:  # the held lines made no message: as they came
            return self.release(), line, message
        if held or (not alone and line.lstrip()[:1] in (b"{", b"[")):
            held.append(line)
            self._held_bytes = self._held_bytes + len(line) if len(held) > 1 else len(line)
            joined = self._joined()
            if joined is None:
                if self._held_bytes > MAX_JOINED_BYTES:
                    return self.release(), None, None
                return [], None, None
            held.clear()
            return [], joined, parse_line(joined)
        return [], line, message

    def release(self) -> list[bytes]:
        """The held lines, to go out as they came."""
        lines = list(self._held)
        self._held.clear()
        for line in lines:
            self._link._log_not_json(line)
        return lines

    def _joined(self) -> bytes | None:
        """The held lines as one message once they make one (``None`` meanwhile).

        JSON strings cannot hold a raw newline, so joining the lines with a
        space keeps every token as the server wrote it.
        """
        held = self._held
        last = held[-1]
        if last[:1].isspace() or last.rstrip()[-1:] not in (b"}", b"]"):
            return None  # not where a printed value ends
        joined = b" ".join(held)
        if parse_line(joined) is None and parse_lenient(joined) is None:
            return None
        log.warning("%s printed one message over %d lines; joined", self._link.name, len(held))
        return joined
