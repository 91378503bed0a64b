"""The HTTP upstream keeps the client's order: a real Streamable HTTP server in the test.

:class:`OrderedServer` is a small MCP server (JSON answers, one session at a time) run
by uvicorn in the test's own loop. It writes down each message when it takes it in, as
the SDK servers do: a request when it arrives, a notification or an answer when it is
accepted with 202. It can hold a POST back (its answer, or its 202) until the next POST
arrives, so a client that starts the next one too early is seen doing so.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping
from typing import Any

import orjson
import pytest
import uvicorn

from gcxwire.proxy.http_upstream import HttpUpstream

from .helpers import TIMEOUT

# How long a held POST waits for the next one before it goes on anyway. A client that
# keeps the order sends nothing meanwhile, so each hold costs a correct client this much.
HOLD = 0.5
FOREVER = -1.0  # a hold that only the end of the test releases

Receive = Callable[[], Coroutine[Any, Any, dict[str, Any]]]
Send = Callable[[dict[str, Any]], Coroutine[Any, Any, None]]


class OrderedServer:
    """What arrived, in the order the server took it in; holds as asked."""

    def __init__(
        self,
        holds: Mapping[str, float] | None = None,
        *,
        open_sse: bool = False,
        stateless: bool = False,
    ) -> None:
        self.holds = dict(holds or {})  # a message's label -> its hold, once
        # Answer initialize on an SSE stream left open after the answer, until the end.
        self.open_sse = open_sse
        self.stateless = stateless  # 2026-07-28: no initialize, no session
        self.taken: list[tuple[str, str | None]] = []  # (label, the session id it came with)
        self.refused: list[tuple[str, int]] = []  # (label, HTTP status)
        self.session: str | None = None
        self._sessions = 0
        self._posts = 0
        self.arrived: list[str] = []  # every POST's label as it arrived, taken in or not
        self._arrival = asyncio.Condition()
        self.ended = asyncio.Event()

    def forget_sessions(self) -> None:
        """As a restarted server: every session id it gave is unknown now."""
        self.session = None

    async def __call__(self, scope: dict[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        method = scope["method"]
        if method == "DELETE":
            await _reply(send, 200)
            return
        if method != "POST":
            await _reply(send, 405)  # no GET stream
            return
        body = b""
        while True:
            event = await receive()
            body += event.get("body", b"")
            if not event.get("more_body"):
                break
        message = orjson.loads(body)
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        await self._post(message, headers.get("mcp-session-id"), send)

    async def _post(self, message: dict[str, Any], session: str | None, send: Send) -> None:
        label = message.get("method") or f"answer {message.get('id')}"
        if isinstance(message.get("params"), dict) and "name" in message["params"]:
            label += " " + message["params"]["name"]
        async with self._arrival:
            self._posts += 1
            self.arrived.append(label)
            seen = self._posts
            self._arrival.notify_all()
        is_request = "method" in message and "id" in message
        if label == "initialize" or self.stateless:
            pass  # no session (yet)
        elif session is None or session != self.session:
            status = 400 if session is None else 404
            self.refused.append((label, status))
            await _reply(send, status)
            return
        if is_request:
            self.taken.append((label, session))
        await self._hold(label, seen)
        if not is_request:
            self.taken.append((label, session))
            await _reply(send, 202)
            return
        headers: list[tuple[bytes, bytes]] = []
        result: dict[str, Any] = {}
        if label == "initialize":
            self._sessions += 1
            self.session = f"s{self._sessions}"
            headers.append((b"mcp-session-id", self.session.encode()))
            result = {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "ordered", "version": "1"},
            }
        answer = {"jsonrpc": "2.0", "id": message["id"], "result": result}
        if label == "initialize" and self.open_sse:
            headers.append((b"content-type", b"text/event-stream"))
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            event = b"event: message\ndata: " + orjson.dumps(answer) + b"\n\n"
            await send({"type": "http.response.body", "body": event, "more_body": True})
            await self.ended.wait()
            await send({"type": "http.response.body", "body": b""})
            return
        await _reply(send, 200, orjson.dumps(answer), headers)

    async def arrival(self, label: str) -> None:
        """Until a POST of ``label`` has arrived."""
        async with self._arrival:
            await asyncio.wait_for(self._arrival.wait_for(lambda: label in self.arrived), TIMEOUT)

    async def _hold(self, label: str, seen: int) -> None:
        hold = self.holds.pop(label, None)
        if hold is None:
            return
        if hold == FOREVER:
            await self.ended.wait()
            return
        async with self._arrival:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._arrival.wait_for(lambda: self._posts > seen), hold)


async def _reply(
    send: Send, status: int, body: bytes = b"", headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    fields = list(headers or [])
    if body:
        fields.append((b"content-type", b"application/json"))
    fields.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": fields})
    await send({"type": "http.response.body", "body": body})


@contextlib.asynccontextmanager
async def serving(server: OrderedServer) -> AsyncIterator[str]:
    """``server`` on a free 127.0.0.1 port, in this loop; its MCP URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(server, log_level="warning", lifespan="off")
    runner = uvicorn.Server(config)
    task = asyncio.create_task(runner.serve(sockets=[sock]))
    try:
        while not runner.started:
            if task.done():
                task.result()
            await asyncio.sleep(0.01)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.ended.set()
        runner.should_exit = True
        await asyncio.wait_for(task, TIMEOUT)
        sock.close()


def request(id: Any, method: str, **params: Any) -> bytes:
    return orjson.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": params})


def notification(method: str, **params: Any) -> bytes:
    return orjson.dumps({"jsonrpc": "2.0", "method": method, "params": params})


INIT = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "t", "version": "1"},
}


async def answers(upstream: HttpUpstream, count: int) -> dict[Any, Any]:
    """The next ``count`` messages from the server, by id."""
    got = {}
    for _ in range(count):
        line = await asyncio.wait_for(upstream.readline(), TIMEOUT)
        assert line is not None
        message = orjson.loads(line)
        got[message.get("id")] = message
    return got


def run(coro: Coroutine[Any, Any, None]) -> None:
    asyncio.run(asyncio.wait_for(coro, 4 * TIMEOUT))


def test_messages_reach_the_server_in_the_order_the_client_sent_them() -> None:
    """The server holds back the initialize answer and the 202 of initialized: what the
    client sent after each waits for it (a ping needs the session id the answer brings;
    tools/list must not overtake initialized), and nothing is dropped or sent twice."""
    server = OrderedServer({"initialize": HOLD, "notifications/initialized": HOLD})

    async def scenario() -> None:
        async with serving(server) as url:
            upstream = HttpUpstream(url, name="ordered")
            await upstream.start()
            await upstream.send(request(0, "initialize", **INIT))
            await upstream.send(request(1, "ping"))  # allowed before the answer
            got = await answers(upstream, 2)
            assert got[0]["result"]["serverInfo"]["name"] == "ordered"
            assert got[1]["result"] == {}
            await upstream.send(notification("notifications/initialized"))
            await upstream.send(request(2, "tools/list"))
            assert "result" in (await answers(upstream, 1))[2]
            await upstream.send(orjson.dumps({"jsonrpc": "2.0", "id": "srv-1", "result": {}}))
            await upstream.send(notification("notifications/roots/list_changed"))
            await upstream.send(request(3, "tools/call", name="rows", arguments={}))
            assert "result" in (await answers(upstream, 1))[3]
            await asyncio.wait_for(upstream.stop(), TIMEOUT)

    run(scenario())
    assert server.refused == []
    assert server.taken == [
        ("initialize", None),
        ("ping", "s1"),
        ("notifications/initialized", "s1"),
        ("tools/list", "s1"),
        ("answer srv-1", "s1"),
        ("notifications/roots/list_changed", "s1"),
        ("tools/call rows", "s1"),
    ]


def test_a_request_awaiting_its_answer_does_not_hold_up_what_follows() -> None:
    """The server answers the first call only once the next POST arrived (a JSON answer:
    no headers before it), so waiting for that call's answer before sending on would
    never end."""
    server = OrderedServer({"tools/call slow": 4 * TIMEOUT})

    async def scenario() -> None:
        async with serving(server) as url:
            upstream = HttpUpstream(url, name="ordered")
            await upstream.start()
            await upstream.send(request(0, "initialize", **INIT))
            await answers(upstream, 1)
            await upstream.send(notification("notifications/initialized"))
            await upstream.send(request(1, "tools/call", name="slow", arguments={}))
            await upstream.send(request(2, "ping"))
            got = await answers(upstream, 2)
            assert set(got) == {1, 2}
            await asyncio.wait_for(upstream.stop(), TIMEOUT)

    run(scenario())
    assert [label for label, _ in server.taken] == [
        "initialize",
        "notifications/initialized",
        "tools/call slow",
        "ping",
    ]


@pytest.mark.parametrize("open_sse", [False, True], ids=["json", "sse-left-open"])
def test_a_lost_session_is_renewed_and_what_was_lost_is_sent_again_in_order(
    open_sse: bool,
) -> None:
    """404 to a notification and to the request after it: one new session, then both on
    it in the client's order; the replayed initialize's answer is not the client's, and
    is read no further than the answer (a server may leave its stream open)."""
    server = OrderedServer(open_sse=open_sse)

    async def scenario() -> None:
        async with serving(server) as url:
            upstream = HttpUpstream(url, name="ordered")
            await upstream.start()
            await upstream.send(request(0, "initialize", **INIT))
            await answers(upstream, 1)
            await upstream.send(notification("notifications/initialized"))
            await upstream.send(request(1, "ping"))
            await answers(upstream, 1)
            server.forget_sessions()
            await upstream.send(notification("notifications/roots/list_changed"))
            await upstream.send(request(2, "tools/list"))
            assert list(await answers(upstream, 1)) == [2]
            await asyncio.wait_for(upstream.stop(), TIMEOUT)

    run(scenario())
    assert server.refused == [("notifications/roots/list_changed", 404)]
    assert server.taken[3:] == [
        ("initialize", None),
        ("notifications/initialized", "s2"),
        ("notifications/roots/list_changed", "s2"),
        ("tools/list", "s2"),
    ]


def test_stop_ends_while_the_server_never_accepts_a_notification() -> None:
    """The 202 of initialized never comes: the request behind it waits its turn, and
    stop still ends the session and the upstream."""
    server = OrderedServer({"notifications/initialized": FOREVER})

    async def scenario() -> None:
        async with serving(server) as url:
            upstream = HttpUpstream(url, name="ordered")
            await upstream.start()
            await upstream.send(request(0, "initialize", **INIT))
            await answers(upstream, 1)
            await upstream.send(notification("notifications/initialized"))
            await upstream.send(request(1, "tools/list"))
            await server.arrival("notifications/initialized")
            assert await asyncio.wait_for(upstream.stop(), TIMEOUT) == 0
            assert await asyncio.wait_for(upstream.readline(), TIMEOUT) is None
            assert server.arrived == ["initialize", "notifications/initialized"]

    run(scenario())


MODERN = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}


def test_a_2026_request_cancelled_while_it_waits_its_turn_is_never_sent() -> None:
    """2026-07-28: cancelling is closing the request's stream, so a request still behind
    a notification the server has not accepted yet is simply not sent; the next goes."""
    server = OrderedServer({"notifications/roots/list_changed": HOLD}, stateless=True)

    async def scenario() -> None:
        async with serving(server) as url:
            upstream = HttpUpstream(url, name="ordered")
            await upstream.start()
            await upstream.send(notification("notifications/roots/list_changed"))
            await upstream.send(request(1, "tools/call", name="rows", _meta=MODERN))
            await upstream.send(notification("notifications/cancelled", requestId=1))
            await upstream.send(request(2, "tools/list", _meta=MODERN))
            assert list(await answers(upstream, 1)) == [2]
            await asyncio.wait_for(upstream.stop(), TIMEOUT)

    run(scenario())
    assert server.arrived == ["notifications/roots/list_changed", "tools/list"]
