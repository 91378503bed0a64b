"""The single-server relay for a stdio server: a thread per direction.

Each thread blocks in ``os.read`` on its raw fd, splits lines from the bytes,
and handles each line where it was read: the client's thread parses it and
writes it to the server's stdin; the server's thread matches, rewrites and
writes the answer to the client. The event loop only watches: signals, the
server's exit and its process group, the client's end, and the output the
client has not read yet. Per line it does nothing, which saves about 0.3 ms of
CPU per call over asyncio streams (bench/proxy_latency.py's floors).

Every rule of :class:`~.relay.Relay` holds here too: lines in order, byte for
byte unless rewritten, the original on any failure, an error for each request
the server can no longer answer. The multi-server gateway and an HTTP upstream
use :class:`~.relay.Relay`'s asyncio pumps.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from ..errors import UpstreamGone
from .jsonrpc import PendingRequest
from .link import Framer, ResponseRewriter, UpstreamLink, in_thread
from .pipes import FdWriter, PipeUpstream, read_fd, split_lines
from .relay import client_route, wind_down

__all__ = ["ThreadRelay"]

log = logging.getLogger(__name__)


class ThreadRelay:
    """Relay the client on fds ``in_fd``/``out_fd`` and one stdio server until
    either side goes away."""

    def __init__(
        self,
        in_fd: int,
        out_fd: int,
        upstream: PipeUpstream,
        rewriter: ResponseRewriter,
        *,
        local: Callable[[PendingRequest], bytes | None] | None = None,
    ) -> None:
        """``local(request)`` is the proxy's own answer to a client request, or
        ``None`` to send it to the server (the schema registry's resources)."""
        loop = asyncio.get_running_loop()
        self._in_fd = in_fd
        self._local = local
        self.client_out = FdWriter(out_fd, loop)
        self._gone = asyncio.Event()  # the client stopped reading (EPIPE)
        self.client_out.on_broken = self._gone.set
        self._upstream = upstream
        self._link = UpstreamLink(upstream, rewriter, self.client_out.write_line_async)
        self._stop = asyncio.Event()
        self._stopping = False  # once set, the client's thread hands on no more lines

    def request_stop(self) -> None:
        """Shut down as if the client had closed its end (used for SIGTERM/SIGINT)."""
        self._stop.set()

    async def run(self) -> int:
        """Relay until the client or the server is gone; the exit status to use."""
        upstream = self._upstream
        await upstream.start()
        pumped = in_thread(self._pump_from_server, "gcxwire-from-server")
        from_server = asyncio.ensure_future(self._from_server(pumped))
        from_client = in_thread(self._pump_from_client, "gcxwire-from-client")
        stop = asyncio.ensure_future(self._stop.wait())
        broken = asyncio.ensure_future(self._gone.wait())
        watched: set[asyncio.Future[object]] = {from_server, from_client, stop, broken}  # type: ignore[arg-type]
        done, _ = await asyncio.wait(watched, return_when=asyncio.FIRST_COMPLETED)
        self._stopping = True
        stop.cancel()
        broken.cancel()
        return await wind_down(upstream, done, from_server, from_client)

    async def _from_server(self, pumped: asyncio.Future[None]) -> int:
        await pumped
        return await self._link.finish()

    def _pump_from_server(self) -> None:
        """The server's lines to the client, each answer rewritten on the way."""
        link, write = self._link, self.client_out.write_line
        framer = Framer(link)
        for line in split_lines(self._upstream.read_chunk):
            raw, whole, message = framer.feed(line)
            for as_it_came in raw:
                write(as_it_came)
            if whole is not None:
                try:
                    write(link.answer_blocking(whole, message))
                finally:
                    link.settle()  # the stats, once the client has the line
        for as_it_came in framer.release():
            write(as_it_came)

    def _pump_from_client(self) -> None:
        """The client's lines to the server, until the client closes its end."""
        link, upstream = self._link, self._upstream
        in_fd = self._in_fd
        for line in split_lines(lambda: read_fd(in_fd)):
            if self._stopping:
                return
            reply, request, forward = client_route(line, link, self._local)
            if reply is not None:
                self.client_out.write_line(reply)
            if not forward:
                continue
            if request is not None:
                link.pending.add(request)
            try:
                upstream.write_line(line)
            except UpstreamGone:
                if request is not None and link.pending.pop(request.id) is not None:
                    self.client_out.write_line(link.gone_error(request.id, None))
        log.info("client closed its input")
