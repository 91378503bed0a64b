"""One remote MCP server over Streamable HTTP, behind the interface of :class:`~.upstream.Upstream`.

The relay (or the gateway) sees lines, as with a stdio server: :meth:`HttpUpstream.send`
takes one JSON-RPC message, :meth:`HttpUpstream.readline` gives the next message
the server sent, in any order, and ``None`` once the upstream is stopped. Each
client message is one POST; the server answers a request with JSON or with an
SSE stream that may carry its requests and notifications before the answer.
Server-initiated messages also come on the GET stream, opened after
``notifications/initialized``.

The POSTs keep the client's order: each starts once the one before it was sent (a
notification or an answer accepted with 202, ``initialize`` answered, any other
request written), while the answers are read side by side, so a slow request holds
up nothing after it.

What the transport takes care of, as the spec has it:

- ``Mcp-Session-Id`` from the ``initialize`` answer, sent on every later request,
  and a DELETE of the session on exit;
- ``MCP-Protocol-Version``: the negotiated version after ``initialize``; in
  2026-07-28 the version of each request's ``_meta`` envelope, with ``Mcp-Method``
  and ``Mcp-Name`` beside it;
- resumption: a stream that ends before the answer (or the GET stream) is resumed
  with a GET carrying ``Last-Event-ID``, waiting the server's ``retry`` first;
- a lost session (404 to a POST that carried a session id, e.g. after the server
  restarted): the client's ``initialize`` is replayed without a session id, then
  ``notifications/initialized``, and the request or notification is sent again once,
  before anything after it;
- every other failure answers the request with a JSON-RPC error that says what
  happened (401/403 name the missing authorization, 404 the URL), so the client
  never waits forever.

httpx is imported only when an HTTP upstream starts (``pip install gcxwire[http]``):
the stdio proxy needs nothing beyond the standard library and orjson.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from ..errors import HttpUnavailable
from .jsonrpc import error_response, id_key, parse_line, request_of, response_id

if TYPE_CHECKING:
    import httpx

__all__ = ["HTTP_FAILED", "HttpUnavailable", "HttpUpstream", "require_httpx"]

log = logging.getLogger(__name__)

# Our own code for "the HTTP server did not answer this request", outside the
# spec's reserved -32768..-32000 (the relay's -31000 means a stdio server exited).
HTTP_FAILED = -31002

CONNECT_TIMEOUT = 10.0
# Resuming a broken stream: attempts, and the wait when the server gave no ``retry``.
RESUME_ATTEMPTS = 3
DEFAULT_RETRY = 1.0
MAX_RETRY = 30.0

_META_VERSION = "io.modelcontextprotocol/protocolVersion"
# Methods whose target the 2026-07-28 transport mirrors in the Mcp-Name header.
_NAMED = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
_AUTH_HELP = (
    "it needs authorization: pass a token with --header 'Authorization: Bearer ${TOKEN}', "
    "or put mcp-remote (which runs OAuth) in front, see docs/proxy.md"
)


def require_httpx() -> Any:
    """The httpx module; :class:`HttpUnavailable` with the install command without it."""
    try:
        import httpx
    except ModuleNotFoundError as exc:
        raise HttpUnavailable(
            "Remote servers (--url, or a url in --servers) need httpx (the http extra):"
            " pip install httpx"
        ) from exc
    return httpx


@dataclass
class _Event:
    data: str = ""
    id: str | None = None
    retry: float | None = None
    lines: list[str] = field(default_factory=list)


async def _sse_events(lines: AsyncIterator[str]) -> AsyncIterator[_Event]:
    """Server-sent events from a stream of lines (``event`` names are not used by MCP)."""
    event = _Event()
    async for raw in lines:
        line = raw.rstrip("\r\n")
        if not line:
            if event.lines or event.id is not None or event.retry is not None:
                event.data = "\n".join(event.lines)
                yield event
            event = _Event()
            continue
        if line.startswith(":"):
            continue  # a comment, often a keep-alive
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            event.lines.append(value)
        elif name == "id" and "\0" not in value:
            event.id = value
        elif name == "retry" and value.isdigit():
            event.retry = min(int(value) / 1000, MAX_RETRY)


def _one_line(data: bytes) -> bytes:
    # JSON strings cannot hold a raw newline, so any newline is whitespace between
    # tokens; the relay's wire is one message per line.
    return data.strip().replace(b"\r", b" ").replace(b"\n", b" ")


class _RequestFailed(Exception):
    """A request got no answer; the message says why, ``status`` is the HTTP status."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class _SessionLost(Exception):
    """404 to a POST that carried the session id ``session``: the server forgot it."""

    def __init__(self, session: str) -> None:
        super().__init__(session)
        self.session = session


_Admit = Callable[[], None]


class HttpUpstream:
    """Talk to one MCP server at ``url``, with the relay's upstream interface."""

    def __init__(
        self,
        url: str,
        *,
        name: str,
        headers: Mapping[str, str] | None = None,
        timeout: float = 300.0,
    ) -> None:
        self.url = url
        self.name = name
        self._headers = dict(headers or {})
        self._timeout = timeout
        self._client: httpx.AsyncClient | None = None
        self._lines: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._in_flight: dict[Any, asyncio.Task[Any]] = {}  # modern request id -> its POST
        self._session_id: str | None = None
        self._version: str | None = None  # negotiated in initialize (handshake era)
        self._initialize: tuple[Any, dict[str, Any]] | None = None  # the client's (id, message)
        self._initialized: bytes | None = None  # the client's notifications/initialized
        self._get_stream: asyncio.Task[Any] | None = None
        self._stopped = asyncio.Event()
        # The order: each client message's POST starts once the one before it was
        # sent (``_last`` is that one's future), and not while a session is renewed.
        self._last: asyncio.Future[None] | None = None
        self._renewing = asyncio.Lock()
        self._lost = 0  # POSTs that met a 404 and are not sent again yet
        self._ready = asyncio.Event()
        self._ready.set()

    # -- the upstream interface ---------------------------------------------------------

    async def start(self) -> None:
        """Get ready to send (a gateway may start a stopped upstream again: a new session)."""
        httpx = require_httpx()
        timeout = httpx.Timeout(self._timeout, connect=CONNECT_TIMEOUT)
        self._client = httpx.AsyncClient(timeout=timeout, follow_redirects=False)
        self._lines = asyncio.Queue()
        self._session_id = self._version = None
        self._get_stream = None
        self._last = None
        self._renewing = asyncio.Lock()
        self._lost = 0
        self._ready.set()
        self._stopped.clear()
        log.info("%s: remote MCP server at %s", self.name, self.url)

    @property
    def running(self) -> bool:
        return self._client is not None and not self._stopped.is_set()

    async def readline(self) -> bytes | None:
        """The next message the server sent, or ``None`` once stopped."""
        return await self._lines.get()

    async def send(self, line: bytes) -> None:
        """Send one client message; its answer (or an error) comes from :meth:`readline`.

        It returns at once; the POST goes out in its turn (see :meth:`_turn`).
        """
        message = parse_line(line)
        if not isinstance(message, dict):
            log.warning("%s: not sending a line that is not a JSON-RPC message", self.name)
            return
        request = request_of(message)
        if request is None and self._modern_cancel(message):
            return
        before, sent = self._last, asyncio.get_running_loop().create_future()
        self._last = sent
        admit = _admitter(sent)
        if request is None:
            opens = message.get("method") == "notifications/initialized"
            if opens:
                self._initialized = line
            task = self._spawn(self._post_other(message, line, before, admit, open_stream=opens))
            # However it ends: a task cancelled before it ever ran runs no finally.
            task.add_done_callback(lambda _: admit())
            return
        if request.method == "initialize":
            self._initialize = (request.id, message)
            self._version = None
        task = self._spawn(self._post_request(request.id, message, line, before, admit))
        task.add_done_callback(lambda _: admit())
        key = id_key(request.id)
        if self._is_modern(message) and key is not None:  # an array or object id is never ours
            self._in_flight[key] = task
            task.add_done_callback(lambda _: self._in_flight.pop(key, None))

    def close_stdin(self) -> None:
        """Nothing to close before :meth:`stop` (a stdio server's EOF has no HTTP twin)."""

    async def wait(self, timeout: float | None = None) -> int | None:
        try:
            await asyncio.wait_for(self._stopped.wait(), timeout)
        except asyncio.TimeoutError:
            return None
        return 0

    async def reaped(self) -> None:
        """Nothing to clean up after the end (a stdio server's process group has no HTTP twin)."""

    async def stop(self) -> int:
        """End the session (DELETE), drop the streams, and end :meth:`readline`."""
        if self._stopped.is_set():
            return 0
        self._stopped.set()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._client is not None:
            if self._session_id is not None:
                try:
                    response = await self._client.delete(
                        self.url, headers=self._base_headers(), timeout=CONNECT_TIMEOUT
                    )
                    log.info("%s: session ended (HTTP %d)", self.name, response.status_code)
                except Exception as exc:  # the server may already be gone
                    log.info("%s: ending the session failed: %r", self.name, exc)
            await self._client.aclose()
        self._lines.put_nowait(None)
        return 0

    # -- posting ----------------------------------------------------------------------

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _base_headers(self) -> dict[str, str]:
        headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            **self._headers,
        }
        if self._session_id is not None:
            headers["Mcp-Session-Id"] = self._session_id
        if self._version is not None:
            headers["MCP-Protocol-Version"] = self._version
        return headers

    def _headers_for(self, message: dict[str, Any]) -> dict[str, str]:
        headers = self._base_headers()
        params = message.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        if isinstance(meta, dict) and isinstance(meta.get(_META_VERSION), str):
            # 2026-07-28: each request names its version, method and target itself.
            headers["MCP-Protocol-Version"] = meta[_META_VERSION]
            method = message.get("method")
            if isinstance(method, str):
                headers["Mcp-Method"] = method
                target = params.get(_NAMED.get(method, "")) if isinstance(params, dict) else None
                if isinstance(target, str):
                    headers["Mcp-Name"] = _header_value(target)
        elif message.get("method") == "initialize":
            headers.pop("MCP-Protocol-Version", None)
        return headers

    @staticmethod
    def _is_modern(message: dict[str, Any]) -> bool:
        params = message.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        return isinstance(meta, dict) and _META_VERSION in meta

    def _modern_cancel(self, message: dict[str, Any]) -> bool:
        """In 2026-07-28 closing a request's stream cancels it; no notification is posted."""
        if message.get("method") != "notifications/cancelled":
            return False
        params = message.get("params")
        request_id = params.get("requestId") if isinstance(params, dict) else None
        key = id_key(request_id)
        task = None if key is None else self._in_flight.pop(key, None)
        if task is None:
            return False
        task.cancel()
        return True

    async def _turn(self, before: asyncio.Future[None] | None) -> None:
        """Until this message may be POSTed: the client's message before it was sent,
        and no session is being renewed.

        Sent means written, for a request (its answer may take as long as it takes, and
        the client may cancel it meanwhile); answered, for ``initialize`` (what follows
        needs its session id); accepted (202), for a notification or an answer. Every
        POST settles its future however it ends, so no turn waits for ever.
        """
        if before is not None and not before.done():
            await asyncio.wait([before])  # never cancels it, whatever happens to us
        await self._ready.wait()

    def _session_lost(self, session: str) -> _SessionLost:
        """A 404 to ``session``: no new POST starts until the ones lost are sent again."""
        self._lost += 1
        self._ready.clear()
        return _SessionLost(session)

    def _resent(self) -> None:
        self._lost -= 1
        if self._lost == 0:
            self._ready.set()

    async def _again(
        self, lost: _SessionLost, post: Callable[[_Admit], Awaitable[None]], admit: _Admit
    ) -> None:
        """After a 404: a new session (started by the first POST to meet one), then
        ``post`` once more. The POSTs lost go again one at a time, in the order their
        404s came, and new ones wait until every one lost went again."""
        held = settled = False

        def settle() -> None:  # once, however it ends: the lock, and this loss counted off
            nonlocal held, settled
            if held:
                held = False
                self._renewing.release()
            if not settled:
                settled = True
                self._resent()

        def admitted() -> None:
            settle()
            admit()

        try:
            await self._renewing.acquire()
            held = True
            if self._session_id == lost.session:
                await self._reinitialize()
            try:
                await post(admitted)
            except _SessionLost:  # lost again: not sent a third time, so nothing waits for it
                self._resent()
                raise
        finally:
            settle()

    async def _post_other(
        self,
        message: dict[str, Any],
        line: bytes,
        before: asyncio.Future[None] | None,
        admit: _Admit,
        open_stream: bool = False,
    ) -> None:
        """A notification or an answer to a server request: 202 expected, nothing to relay."""
        what = message.get("method", "an answer")
        try:
            await self._turn(before)
            try:
                await self._accepted(message, line, admit)
            except _SessionLost as lost:
                if "method" not in message:
                    # The request it answers belonged to the lost session; a new session
                    # may reuse its id for another request, which this must not answer.
                    self._resent()
                    log.warning("%s lost the session: an answer to it is not sent", self.name)
                    return
                await self._again(lost, lambda ok: self._accepted(message, line, ok), admit)
        except asyncio.CancelledError:
            raise
        except _SessionLost:
            log.warning("%s: %s lost the session again after starting a new one", self.name, what)
            return
        except Exception as exc:
            log.warning("%s: sending %s failed: %r", self.name, what, exc)
            return
        finally:
            admit()
        if open_stream and self._get_stream is None:
            self._get_stream = self._spawn(self._listen())

    async def _accepted(self, message: dict[str, Any], line: bytes, admit: _Admit) -> None:
        """POST a notification or an answer; ``admit()`` once the server took it."""
        assert self._client is not None
        headers = self._headers_for(message)
        session = headers.get("Mcp-Session-Id")
        async with self._client.stream("POST", self.url, content=line, headers=headers) as response:
            if response.status_code == 404 and session is not None:
                lost = self._session_lost(session)
                await response.aread()
                raise lost
            admit()
            await response.aread()  # a 202 has no body: the connection goes back to the pool
            if response.status_code >= 400:
                log.warning(
                    "%s refused %s: HTTP %d",
                    self.name,
                    message.get("method", "an answer"),
                    response.status_code,
                )

    async def _post_request(
        self,
        request_id: Any,
        message: dict[str, Any],
        line: bytes,
        before: asyncio.Future[None] | None,
        admit: _Admit,
    ) -> None:
        try:
            await self._turn(before)
            try:
                await self._exchange(request_id, message, line, admit)
            except _SessionLost as lost:  # once more: a second loss is an error
                again = lambda ok: self._exchange(request_id, message, line, ok)  # noqa: E731
                await self._again(lost, again, admit)
        except asyncio.CancelledError:
            raise
        except _SessionLost:
            self._fail(request_id, "lost the session again after starting a new one", 404)
        except _RequestFailed as exc:
            self._fail(request_id, str(exc), exc.status)
        except Exception as exc:
            self._fail(request_id, _describe(exc))
        finally:
            admit()  # cancelled or failed before it was written: sent as far as it goes

    async def _exchange(
        self, request_id: Any, message: dict[str, Any], line: bytes, admit: _Admit
    ) -> None:
        """POST one request and relay what comes back, until its answer; ``admit()``
        once it is written (``initialize``: once answered), or once it failed."""
        try:
            await self._exchange_once(request_id, message, line, admit)
        finally:
            admit()

    async def _exchange_once(
        self, request_id: Any, message: dict[str, Any], line: bytes, admit: _Admit
    ) -> None:
        assert self._client is not None
        headers = self._headers_for(message)
        session = headers.get("Mcp-Session-Id")
        handshake = message.get("method") == "initialize"
        # A 2026-07-28 subscription stream stays open and may be silent for ever.
        listen = message.get("method") == "subscriptions/listen"
        timeout = _no_read_timeout(self._timeout) if listen else self._client.timeout
        extensions = {} if handshake else {"trace": _on_written(admit)}
        async with self._client.stream(
            "POST", self.url, content=line, headers=headers, timeout=timeout, extensions=extensions
        ) as response:
            status = response.status_code
            if status == 404 and session is not None:
                lost = self._session_lost(session)
                await response.aread()
                raise lost
            if status >= 400:
                body = await response.aread()
                if self._relay_error_body(request_id, body, response):
                    return
                raise _RequestFailed(_status_problem(status, self.url), status)
            if 300 <= status < 400:
                where = response.headers.get("location", "elsewhere")
                raise _RequestFailed(f"redirects to {where}: give that URL to --url", status)
            if message.get("method") == "initialize":
                self._session_id = response.headers.get("mcp-session-id") or self._session_id
            kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
            if kind == "application/json":
                self._deliver(await response.aread())
                return
            if kind != "text/event-stream":
                raise _RequestFailed(
                    f"answered with HTTP {status} and content type {kind!r}", status
                )
            last_id, retry = await self._read_stream(response, request_id)
        if last_id is _ANSWERED:
            return
        if last_id is None:
            raise _RequestFailed(
                "closed the stream before answering (and gave no event id to resume)"
            )
        await self._resume(request_id, last_id, retry)

    def _relay_error_body(self, request_id: Any, body: bytes, response: httpx.Response) -> bool:
        """An error status whose body is a JSON-RPC error: relay it under the request's id."""
        if not response.headers.get("content-type", "").startswith("application/json"):
            return False
        message = parse_line(body)
        if isinstance(message, dict) and isinstance(message.get("error"), dict):
            self._lines.put_nowait(orjson.dumps({**message, "id": request_id}))
            return True
        return False

    async def _read_stream(
        self, response: httpx.Response, request_id: Any
    ) -> tuple[Any, float | None]:
        """Relay one SSE stream; ``(_ANSWERED, _)`` once ``request_id`` is answered, else
        the last event id seen (``None``: none) and the server's retry delay."""
        last_id: str | None = None
        retry: float | None = None
        try:
            async for event in _sse_events(response.aiter_lines()):
                last_id = event.id if event.id is not None else last_id
                retry = event.retry if event.retry is not None else retry
                if event.data.strip() and self._deliver(event.data.encode(), request_id):
                    return _ANSWERED, retry
        except Exception as exc:  # httpx.ReadError, RemoteProtocolError: the stream broke
            if "Timeout" in type(exc).__name__:
                raise  # no answer in time: an error for the client, not a resumption
            log.info("%s: the stream broke: %r", self.name, exc)
        return last_id, retry

    async def _resume(self, request_id: Any, last_id: str, retry: float | None) -> None:
        """Resume a stream with GET + Last-Event-ID until ``request_id`` is answered."""
        assert self._client is not None
        for attempt in range(RESUME_ATTEMPTS):
            await asyncio.sleep(retry if retry is not None else DEFAULT_RETRY)
            headers = {**self._base_headers(), "Last-Event-ID": last_id}
            headers["Accept"] = "text/event-stream"
            try:
                async with self._client.stream("GET", self.url, headers=headers) as response:
                    if response.status_code >= 400:
                        await response.aread()
                        raise _RequestFailed(
                            f"closed the stream before answering, and resuming it got "
                            f"HTTP {response.status_code}",
                            response.status_code,
                        )
                    seen, new_retry = await self._read_stream(response, request_id)
            except _RequestFailed:
                raise
            except Exception as exc:
                log.info("%s: resuming attempt %d failed: %r", self.name, attempt + 1, exc)
                continue
            if seen is _ANSWERED:
                return
            if seen is not None:
                last_id = seen
            retry = new_retry if new_retry is not None else retry
        raise _RequestFailed(
            f"closed the stream before answering; {RESUME_ATTEMPTS} resumptions failed"
        )

    async def _listen(self) -> None:
        """The GET stream of server-initiated messages, resumed while the session lasts."""
        assert self._client is not None
        last_id: str | None = None
        retry: float | None = None
        failures = 0
        while not self._stopped.is_set() and failures < RESUME_ATTEMPTS:
            headers = {**self._base_headers(), "Accept": "text/event-stream"}
            if last_id is not None:
                headers["Last-Event-ID"] = last_id
            try:
                async with self._client.stream(
                    "GET", self.url, headers=headers, timeout=_no_read_timeout(self._timeout)
                ) as response:
                    if response.status_code == 405:
                        log.info("%s offers no GET stream", self.name)
                        return
                    if response.status_code >= 400:
                        await response.aread()
                        log.info("%s: GET stream refused: HTTP %d", self.name, response.status_code)
                        failures += 1
                    else:
                        failures = 0
                        seen, new_retry = await self._read_stream(response, None)
                        last_id = seen if isinstance(seen, str) else last_id
                        retry = new_retry if new_retry is not None else retry
            except Exception as exc:
                log.info("%s: GET stream failed: %r", self.name, exc)
                failures += 1
            await asyncio.sleep(retry if retry is not None else DEFAULT_RETRY)

    async def _reinitialize(self) -> None:
        """Start a new session with the client's own initialize (the spec's answer to a
        404), then its notifications/initialized; the caller holds ``_renewing``."""
        if self._initialize is None:
            raise _RequestFailed("lost its session (HTTP 404), and no initialize to replay", 404)
        log.warning(
            "%s lost the session %s (HTTP 404): starting a new one", self.name, self._session_id
        )
        self._session_id = None
        self._version = None
        init_id, init = self._initialize
        replay = {**init, "id": f"gcxwire-reinit-{init_id}"}
        assert self._client is not None
        async with self._client.stream(
            "POST", self.url, content=orjson.dumps(replay), headers=self._headers_for(replay)
        ) as response:
            if response.status_code >= 400:
                await response.aread()
                raise _RequestFailed(
                    f"lost its session and refused a new one: HTTP {response.status_code}",
                    response.status_code,
                )
            self._session_id = response.headers.get("mcp-session-id")
            answer = await _answer_of(response, replay["id"])
        result = answer.get("result") if isinstance(answer, dict) else None
        if not isinstance(result, dict):
            raise _RequestFailed(f"lost its session and refused a new one: {answer!r:.200}")
        if isinstance(result.get("protocolVersion"), str):
            self._version = result["protocolVersion"]
        if self._initialized is not None:
            note = await self._client.post(
                self.url, content=self._initialized, headers=self._base_headers()
            )
            if note.status_code >= 400:
                log.warning(
                    "%s refused notifications/initialized: HTTP %d", self.name, note.status_code
                )
            if self._get_stream is not None and self._get_stream.done():
                self._get_stream = self._spawn(self._listen())

    # -- delivering ---------------------------------------------------------------------

    def _deliver(self, data: bytes, request_id: Any = None) -> bool:
        """Queue one message for the client; whether it answers ``request_id``."""
        line = _one_line(data)
        message = parse_line(line)
        is_response, answered = response_id(message)
        if is_response and self._initialize is not None and answered == self._initialize[0]:
            result = message.get("result")
            if isinstance(result, dict) and isinstance(result.get("protocolVersion"), str):
                self._version = result["protocolVersion"]
        self._lines.put_nowait(line)
        # Same type and value, as id_key tells ids apart; an array id is compared too.
        same = type(answered) is type(request_id) and answered == request_id
        return is_response and request_id is not None and same

    def _fail(self, request_id: Any, problem: str, status: int | None = None) -> None:
        if self._stopped.is_set():
            return
        log.error("%s: %s", self.name, problem)
        self._lines.put_nowait(
            error_response(
                request_id,
                HTTP_FAILED,
                f"MCP server {self.name!r} {problem}",
                {"server": self.name, "url": self.url, "status": status},
            )
        )


_ANSWERED = object()


def _admitter(sent: asyncio.Future[None]) -> _Admit:
    """``admit()``: the POST of one client message was sent; the next one may start."""

    def admit() -> None:
        if not sent.done():
            sent.set_result(None)

    return admit


def _on_written(admit: _Admit) -> Callable[[str, dict[str, Any]], Awaitable[None]]:
    """An httpcore ``trace`` hook that calls ``admit()`` once the request body is written."""

    async def trace(event: str, info: dict[str, Any]) -> None:
        if event.endswith(".send_request_body.complete"):
            admit()

    return trace


def _header_value(value: str) -> str:
    """A header-safe value, base64-wrapped as the 2026-07-28 transport does when needed."""
    import base64

    if (
        value.isascii()
        and value.isprintable()
        and value == value.strip()
        and not value.startswith("=?")
    ):
        return value
    return f"=?base64?{base64.b64encode(value.encode()).decode('ascii')}?="


def _no_read_timeout(timeout: float) -> Any:
    httpx = require_httpx()
    return httpx.Timeout(timeout, connect=CONNECT_TIMEOUT, read=None)


def _status_problem(status: int, url: str) -> str:
    if status == 401:
        return f"refused the request: HTTP 401 Unauthorized; {_AUTH_HELP}"
    if status == 403:
        return f"refused the request: HTTP 403 Forbidden; {_AUTH_HELP}"
    if status == 404:
        return f"answered HTTP 404 Not Found: is {url} the server's MCP endpoint?"
    return f"answered HTTP {status}"


def _describe(exc: Exception) -> str:
    name = type(exc).__name__
    if "Timeout" in name:
        return f"did not answer in time ({name})"
    if "Connect" in name:
        return f"cannot be reached: {exc or name}"
    return f"failed: {exc!r}"


async def _answer_of(response: httpx.Response, request_id: Any) -> Any:
    """The answer to ``request_id`` in a JSON body or an SSE stream, read no further
    than the answer (the stream may stay open after it); what else it carries is dropped."""
    kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "text/event-stream":
        return parse_line(_one_line(await response.aread()))
    async for event in _sse_events(response.aiter_lines()):
        candidate = parse_line(_one_line(event.data.encode())) if event.data.strip() else None
        if isinstance(candidate, dict) and candidate.get("id") == request_id:
            return candidate
    return None
