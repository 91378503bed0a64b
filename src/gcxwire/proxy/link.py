"""One upstream as the relay sees it: its process, its requests in flight, its rewriter.

The single-server :class:`~.relay.Relay` holds one link; a multi-server router
holds one per upstream, so each server keeps its own pending ids, its own schema
lifecycle (inside its rewriter) and its own crash handling.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import orjson

from .http_upstream import HttpUpstream
from .jsonrpc import (
    UPSTREAM_EXITED,
    JsonObject,
    PendingRequest,
    PendingTable,
    error_response,
    parse_line,
    response_id,
)
from .upstream import Upstream, UpstreamGone

__all__ = ["ResponseRewriter", "UpstreamLink", "describe_exit", "exit_status"]

log = logging.getLogger("gcxwire.proxy")

# How long to keep relaying a server's last output after its process exited
# (a grandchild may still hold the pipe open).
DRAIN_AFTER_EXIT_TIMEOUT = 2.0

# Answers larger than this are rewritten in a worker thread: encoding a 7 MB
# table takes seconds, and the client's messages must keep flowing meanwhile.
# Lines are still delivered in order, because the pump waits for the result.
OFFLOAD_BYTES = 1 << 20

Deliver = Callable[[bytes], Awaitable[None]]


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


class UpstreamLink:
    """Send client lines to one upstream and deliver its lines back.

    ``deliver`` writes one line toward the client (a router may rename ids or
    tools on the way). Every line the server writes is delivered in order; the
    answer to a tracked request goes through ``rewriter`` first, and any failure
    there delivers the original line instead.
    """

    def __init__(
        self, upstream: Upstream | HttpUpstream, rewriter: ResponseRewriter, deliver: Deliver
    ) -> None:
        self.upstream = upstream
        self.rewriter = rewriter
        self.pending = PendingTable()
        self._deliver = deliver

    @property
    def name(self) -> str:
        return self.upstream.name

    async def send(self, line: bytes, request: PendingRequest | None = None) -> None:
        """Send one line; a ``request`` is tracked until answered, and answered
        with an error right away if the server is already gone."""
        if request is not None:
            self.pending.add(request)
        try:
            await self.upstream.send(line)
        except UpstreamGone:
            if request is not None and self.pending.pop(request.id) is not None:
                await self._deliver(self.gone_error(request.id, None))

    def forget(self, request_id: Any) -> None:
        """Stop tracking a cancelled request: no answer will come for it."""
        self.pending.pop(request_id)

    async def pump(self) -> int:
        """Deliver the server's lines until its stdout closes; its exit status.

        Requests still in flight then get an error each: nobody else would
        answer them.
        """
        while (line := await self.upstream.readline()) is not None:
            if not line.strip():
                continue
            if len(self.pending):
                if len(line) > OFFLOAD_BYTES:
                    line = await asyncio.to_thread(self.answer, line)
                else:
                    line = self.answer(line)
            elif line.lstrip()[:1] not in (b"{", b"["):
                self._log_not_json(line)
            await self._deliver(line)
        status = await self.upstream.wait(DRAIN_AFTER_EXIT_TIMEOUT)
        if status is None:
            status = await self.upstream.stop()
        log.info("%s exited with status %d", self.name, status)
        for request in self.pending.drain():
            await self._deliver(self.gone_error(request.id, status))
        return exit_status(status)

    def answer(self, line: bytes) -> bytes:
        """The line to deliver for one server line: rewritten if it answers a request."""
        message = parse_line(line)
        if message is None:
            self._log_not_json(line)
            return line
        is_response, request_id = response_id(message)
        request = self.pending.pop(request_id) if is_response else None
        if request is None:
            return line
        try:
            rewritten = self.rewriter.rewrite(request, message)
            return line if rewritten is None else orjson.dumps(rewritten)
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

    def _log_not_json(self, line: bytes) -> None:
        log.warning("%s wrote a line that is not JSON; forwarding it: %.200r", self.name, line)
