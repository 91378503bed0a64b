"""The single-server relay: client lines to the server, server lines to the client.

Two pumps run side by side. Every line passes through as the same bytes, in
order, unless it is the answer to a client request that the rewriter changes.
The relay never sends a message of its own to the server (no probe, no
``initialize``): Python MCP servers lock the protocol era on the first message,
so the client must choose it.

The per-server half lives in :class:`~.link.UpstreamLink`; a multi-server mode
reuses it, one link (and one rewriter) per upstream, behind a router.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Container

from .framing import LineReader, LineWriter
from .http_upstream import HttpUpstream
from .jsonrpc import PendingRequest, batch_refusal, parse_line, request_of
from .link import ResponseRewriter, UpstreamLink, exit_status
from .upstream import Upstream

__all__ = ["Relay", "client_route"]

log = logging.getLogger(__name__)


class Relay:
    """Relay one client and one upstream server until either side goes away."""

    def __init__(
        self,
        client_in: LineReader,
        client_out: LineWriter,
        upstream: Upstream | HttpUpstream,
        rewriter: ResponseRewriter,
        *,
        local: Callable[[PendingRequest], bytes | None] | None = None,
    ) -> None:
        """``local(request)`` is the proxy's own answer to a client request, or
        ``None`` to send it to the server (the schema registry's resources)."""
        self._client_in = client_in
        self._local = local
        self._client_out = client_out
        self._link = UpstreamLink(upstream, rewriter, client_out.write_line)
        self._stop = asyncio.Event()

    def request_stop(self) -> None:
        """Shut down as if the client had closed its end (used for SIGTERM/SIGINT)."""
        self._stop.set()

    async def run(self) -> int:
        """Relay until the client or the server is gone; the exit status to use."""
        upstream = self._link.upstream
        await upstream.start()
        from_server = asyncio.create_task(self._link.pump(), name="from-server")
        from_client = asyncio.create_task(self._pump_from_client(), name="from-client")
        stop = asyncio.create_task(self._stop.wait(), name="stop")
        broken = asyncio.create_task(self._client_out.broken.wait(), name="client-gone")
        done, _ = await asyncio.wait(
            {from_server, from_client, stop, broken}, return_when=asyncio.FIRST_COMPLETED
        )
        from_client.cancel()
        stop.cancel()
        broken.cancel()
        return await wind_down(upstream, done, from_server, from_client)

    async def _pump_from_client(self) -> None:
        while (line := await self._client_in.readline()) is not None:
            reply, request, forward = client_route(line, self._link, self._local)
            if reply is not None:
                await self._client_out.write_line(reply)
            if forward:
                await self._link.send(line, request)
        log.info("client closed its input")


async def wind_down(
    upstream: Upstream | HttpUpstream,
    done: Container[object],
    from_server: asyncio.Future[int],
    from_client: asyncio.Future[None],
) -> int:
    """The exit status once one of a relay's waits is ``done``: the server's
    pump's own, or the server's after it is stopped and its output drained."""
    if from_server in done:
        if from_server.exception() is None:
            return from_server.result()
        log.error("relaying to the client failed: %r", from_server.exception())
        log.debug("how", exc_info=from_server.exception())
        return exit_status(await upstream.stop())
    if from_client in done and from_client.exception() is not None:
        log.error("reading from the client failed: %r", from_client.exception())
    # The client is gone: stop the server while its output is still drained.
    status = await upstream.stop()
    # Bounded: once the server has exited, its stdout is cut after a drain
    # (upstream.DRAIN_AFTER_EXIT_TIMEOUT); a slow client only slows it down.
    try:
        await from_server
    except Exception as exc:  # the client is gone too: its answers cannot reach it
        log.info("the last answers of %s were not delivered: %r", upstream.name, exc)
    return exit_status(status)


def client_route(
    line: bytes,
    link: UpstreamLink,
    local: Callable[[PendingRequest], bytes | None] | None,
) -> tuple[bytes | None, PendingRequest | None, bool]:
    """What to do with one client line: ``(reply, request, forward)``, the
    proxy's own reply to the client if any, the request it carries (tracked
    once sent), and whether the line goes to the server."""
    if not line.strip():
        return None, None, False
    message = parse_line(line)
    if message is None:
        log.warning("client sent a %d-byte line that is not JSON; forwarding it", len(line))
        log.debug("the client's line is %.200r", line)
    elif isinstance(message, list):
        log.warning("client sent a JSON-RPC batch of %d; refusing it", len(message))
        return batch_refusal(message), None, False
    elif isinstance(message, dict) and message.get("method") == "notifications/cancelled":
        params = message.get("params")
        if isinstance(params, dict):
            link.forget(params.get("requestId"))
    request = request_of(message)
    answer = _answer_locally(request, local)
    if answer is not None:  # the server never sees this request
        return answer, None, False
    return None, request, True


def _answer_locally(
    request: PendingRequest | None, local: Callable[[PendingRequest], bytes | None] | None
) -> bytes | None:
    if request is None or local is None:
        return None
    try:
        return local(request)
    except Exception:  # never break a request: the server gets it as sent
        log.exception("answering %s failed; sending it to the server", request.method)
        return None
