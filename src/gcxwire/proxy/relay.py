"""The relay core: client lines to the server, server lines to the client.

Two pumps run side by side. Every line passes through as the same bytes, in
order, unless it is the answer to a client request that the rewriter changes.
The relay never sends a message of its own to the server (no probe, no
``initialize``): Python MCP servers lock the protocol era on the first message,
so the client must choose it.

The relay knows nothing about encodings; a :class:`ResponseRewriter` does. The
multi-server mode reuses the same pieces (:class:`~.upstream.Upstream`,
:class:`~.jsonrpc.PendingTable`, one rewriter per upstream) behind a router.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from typing import Any, Protocol

import orjson

from .framing import LineReader, LineWriter
from .jsonrpc import (
    UPSTREAM_EXITED,
    JsonObject,
    PendingRequest,
    PendingTable,
    error_response,
    parse_line,
    request_of,
    response_id,
)
from .upstream import Upstream, UpstreamGone

__all__ = ["Relay", "ResponseRewriter", "exit_status"]

log = logging.getLogger("gcxwire.proxy")

# How long to keep relaying a server's last output after its process exited
# (a grandchild may still hold the pipe open).
DRAIN_AFTER_EXIT_TIMEOUT = 2.0


class ResponseRewriter(Protocol):
    def rewrite(self, request: PendingRequest, response: JsonObject) -> JsonObject | None:
        """A replacement for ``response``, or ``None`` to forward it unchanged."""


def exit_status(returncode: int) -> int:
    """A child's status as a shell reports it: killed by signal N gives 128 + N."""
    return 128 - returncode if returncode < 0 else returncode


class Relay:
    """Relay one client and one upstream server until either side goes away."""

    def __init__(
        self,
        client_in: LineReader,
        client_out: LineWriter,
        upstream: Upstream,
        rewriter: ResponseRewriter,
    ) -> None:
        self._client_in = client_in
        self._client_out = client_out
        self._upstream = upstream
        self._rewriter = rewriter
        self._pending = PendingTable()
        self._stop = asyncio.Event()

    def request_stop(self) -> None:
        """Shut down as if the client had closed its end (used for SIGTERM/SIGINT)."""
        self._stop.set()

    async def run(self) -> int:
        """Relay until the client or the server is gone; the exit status to use."""
        await self._upstream.start()
        from_server = asyncio.create_task(self._pump_from_server(), name="from-server")
        from_client = asyncio.create_task(self._pump_from_client(), name="from-client")
        stop = asyncio.create_task(self._stop.wait(), name="stop")
        done, _ = await asyncio.wait(
            {from_server, from_client, stop}, return_when=asyncio.FIRST_COMPLETED
        )
        from_client.cancel()
        stop.cancel()
        if from_server in done:
            if from_server.exception() is None:
                return from_server.result()
            log.error("relaying to the client failed: %r", from_server.exception())
            return exit_status(await self._upstream.stop())
        if from_client in done and from_client.exception() is not None:
            log.error("reading from the client failed: %r", from_client.exception())
        # The client is gone: stop the server while its output is still drained.
        status = await self._upstream.stop()
        try:
            await asyncio.wait_for(from_server, DRAIN_AFTER_EXIT_TIMEOUT)
        except asyncio.TimeoutError:
            log.warning("%s exited but its stdout stayed open", self._upstream.name)
        return exit_status(status)

    async def _pump_from_client(self) -> None:
        while (line := await self._client_in.readline()) is not None:
            if not line.strip():
                continue
            message = parse_line(line)
            if message is None:
                log.warning("client sent a line that is not JSON; forwarding it: %.200r", line)
            request = request_of(message)
            if request is not None:
                self._pending.add(request)
            elif isinstance(message, dict) and message.get("method") == "notifications/cancelled":
                # No answer will come for a cancelled request; forget it now.
                params = message.get("params")
                if isinstance(params, dict):
                    self._pending.pop(params.get("requestId"))
            try:
                await self._upstream.send(line)
            except UpstreamGone:
                if request is not None and self._pending.pop(request.id) is not None:
                    await self._client_out.write_line(self._gone_error(request.id, None))
        log.info("client closed its input")

    async def _pump_from_server(self) -> int:
        while (line := await self._upstream.readline()) is not None:
            if not line.strip():
                continue
            if len(self._pending):
                line = self._answer(line)
            elif line.lstrip()[:1] not in (b"{", b"["):
                self._log_not_json(line)
            await self._client_out.write_line(line)
        # The server closed stdout: it exited or crashed. Nobody else will
        # answer the requests in flight, so answer them with an error.
        status = await self._upstream.wait(DRAIN_AFTER_EXIT_TIMEOUT)
        if status is None:
            status = await self._upstream.stop()
        log.info("%s exited with status %d", self._upstream.name, status)
        for request in self._pending.drain():
            await self._client_out.write_line(self._gone_error(request.id, status))
        return exit_status(status)

    def _answer(self, line: bytes) -> bytes:
        """The line to send for one server line: rewritten if it answers a request."""
        message = parse_line(line)
        if message is None:
            self._log_not_json(line)
            return line
        is_response, request_id = response_id(message)
        request = self._pending.pop(request_id) if is_response else None
        if request is None:
            return line
        try:
            rewritten = self._rewriter.rewrite(request, message)
            return line if rewritten is None else orjson.dumps(rewritten)
        except Exception:  # never break a response: forward the original
            log.exception(
                "rewriting the answer to %s failed; forwarding it unchanged", request.method
            )
            return line

    def _log_not_json(self, line: bytes) -> None:
        log.warning(
            "%s wrote a line that is not JSON; forwarding it: %.200r", self._upstream.name, line
        )

    def _gone_error(self, request_id: Any, status: int | None) -> bytes:
        how = "exited" if status is None else describe_exit(status)
        return error_response(
            request_id,
            UPSTREAM_EXITED,
            f"MCP server {self._upstream.name!r} {how} before answering",
            {"server": self._upstream.name, "returncode": status},
        )


def describe_exit(returncode: int) -> str:
    if returncode < 0:
        try:
            return f"was killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"was killed by signal {-returncode}"
    return f"exited with status {returncode}"
