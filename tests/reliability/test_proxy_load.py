"""10,000 tools/call requests through the proxy, 100 in flight, nothing lost.

The server answers in shuffled batches and interleaves its own notifications; the
client interleaves notifications of its own and cancels every 100th call. Then:

- the proxy's output is exactly the sequence of messages the server wrote (its log):
  every response once, with its id, in the server's order, and every notification;
- every call not cancelled got its response, and each decodes (``gcxwire.decode``)
  to exactly the table the server sent;
- the server received every call, notification and cancellation the client sent;
- the proxy exits 0 once the client closes its end, and its peak RSS is reported.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.reliability.harness import (
    INITIALIZE,
    INITIALIZED,
    TIMEOUT,
    ProxyProcess,
    call,
    check_table,
    kind_of,
    no_crash_in,
)

CALLS = 10_000
IN_FLIGHT = 100
CANCEL_EVERY = 100
NOTIFY_EVERY = 10  # the client sends a notification after every 10th call
SERVER_NOTIFY_EVERY = 25  # the server writes one after every 25th answer
RSS_BOUND_MB = 400  # a leak over 10,000 calls would show far above the ~60 MB baseline


class LoadClient:
    """Keeps IN_FLIGHT calls outstanding and records every line the proxy writes."""

    def __init__(self, proxy: ProxyProcess, aliases: tuple[str, ...] = ()) -> None:
        self.proxy = proxy
        self.aliases = aliases
        self.slots = asyncio.Semaphore(IN_FLIGHT)
        self.freed: set[Any] = set()
        self.cancelled: set[int] = set()
        self.waiting: set[int] = set()  # calls neither answered nor cancelled
        self.seen: list[tuple[str, Any]] = []
        self.responses: Counter[Any] = Counter()
        self.formats: Counter[str] = Counter()
        self.all_answered = asyncio.Event()
        self.sent_done = False

    def free(self, call_id: Any) -> None:
        # A slot comes back once per call: at its answer or at its cancellation.
        if call_id not in self.freed:
            self.freed.add(call_id)
            self.slots.release()

    async def read(self) -> None:
        while (line := await self.proxy.line()) is not None:
            kind, key = kind_of(line)
            self.seen.append((kind, key))
            if kind != "response" or key == "init":
                continue
            self.responses[key] += 1
            message = orjson.loads(line)
            if "result" in message:  # a cancelled call may come back late, unrewritten
                self.formats[check_table(message)] += 1
            self.waiting.discard(key)
            self.free(key)
            if self.sent_done and not self.waiting:
                self.all_answered.set()

    def tool(self, n: int) -> str:
        """Behind a gateway the calls alternate between the servers (``alias__rows``)."""
        return f"{self.aliases[n % len(self.aliases)]}__rows" if self.aliases else "rows"

    async def push(self, calls: int) -> None:
        for n in range(1, calls + 1):
            await self.slots.acquire()
            self.waiting.add(n)
            await self.proxy.send(call(n, tool=self.tool(n)))
            if n % NOTIFY_EVERY == 0:
                await self.proxy.send(
                    {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}
                )
            if n % CANCEL_EVERY == 0:
                await self.proxy.send(
                    {
                        "jsonrpc": "2.0",
                        "method": "notifications/cancelled",
                        "params": {"requestId": n, "reason": "load test"},
                    }
                )
                self.cancelled.add(n)
                self.waiting.discard(n)
                self.free(n)
        self.sent_done = True
        if not self.waiting:
            self.all_answered.set()


async def run_load(folder: Path, calls: int, aliases: tuple[str, ...] = ()) -> dict[str, Any]:
    proxy = ProxyProcess(folder, "--notify", str(SERVER_NOTIFY_EVERY), gateway=aliases)
    await proxy.start()
    try:
        await proxy.send(INITIALIZE)
        first = await proxy.line()
        assert first is not None and kind_of(first) == ("response", "init")
        await proxy.send(INITIALIZED)
        client = LoadClient(proxy, aliases)
        client.seen.append(kind_of(first))
        reader = asyncio.create_task(client.read())
        loop = asyncio.get_running_loop()
        started = loop.time()
        await asyncio.wait_for(client.push(calls), TIMEOUT * 2)
        await asyncio.wait_for(client.all_answered.wait(), TIMEOUT)
        seconds = loop.time() - started
        rss = proxy.peak_rss_mb()
        await proxy.close_stdin()
        await asyncio.wait_for(reader, TIMEOUT)
        status = await proxy.wait()
    finally:
        await proxy.kill()
    no_crash_in(proxy.stderr())
    return {"client": client, "proxy": proxy, "status": status, "seconds": seconds, "rss": rss}


@pytest.mark.slow
def test_ten_thousand_calls_hundred_in_flight_nothing_lost(tmp_path: Path) -> None:
    run = asyncio.run(run_load(tmp_path, CALLS))
    client: LoadClient = run["client"]
    proxy: ProxyProcess = run["proxy"]
    assert run["status"] == 0

    # Exactly what the server wrote, in its order: nothing lost, doubled or reordered.
    assert client.seen == proxy.server_wrote()
    duplicates = [k for k, count in client.responses.items() if count > 1]
    assert not duplicates
    answered = set(client.responses)
    assert answered >= set(range(1, CALLS + 1)) - client.cancelled
    assert answered <= set(range(1, CALLS + 1))
    notes = [key for kind, key in client.seen if kind == "notification"]
    assert notes == list(range(1, len(notes) + 1)) and notes

    # And the client's side reached the server whole.
    received = next(e for e in proxy.server_entries() if e["k"] == "received")
    assert received["calls"] == CALLS
    assert received["cancelled"] == CALLS // CANCEL_EVERY
    assert received["notifications"] == CALLS // NOTIFY_EVERY + 1  # + notifications/initialized

    dropped = len(client.cancelled - answered)
    print(
        f"\n{CALLS} calls, {IN_FLIGHT} in flight: {run['seconds']:.1f} s, "
        f"{len(answered)} answered, {dropped} cancelled before an answer, "
        f"{len(notes)} server notifications; formats {dict(client.formats)}; "
        f"proxy peak RSS {run['rss']:.1f} MB"
    )
    # The rewrite path was under load too, not only pass-through (late cancelled answers are JSON).
    assert client.formats["gcx"] + client.formats["dcp"] >= len(answered) - len(client.cancelled)
    assert run["rss"] < RSS_BOUND_MB


@pytest.mark.slow
def test_ten_thousand_calls_through_the_gateway_to_two_servers(tmp_path: Path) -> None:
    aliases = ("srvA", "srvB")
    run = asyncio.run(run_load(tmp_path, CALLS, aliases))
    client: LoadClient = run["client"]
    proxy: ProxyProcess = run["proxy"]
    assert run["status"] == 0

    duplicates = [k for k, count in client.responses.items() if count > 1]
    assert not duplicates
    answered = set(client.responses)
    assert answered >= set(range(1, CALLS + 1)) - client.cancelled
    assert answered <= set(range(1, CALLS + 1))

    cancels = 0
    server_answered: set[int] = set()
    for index, alias in enumerate(aliases):
        # What this server wrote, in its order (ids are the gateway's; ``n`` is ours) ...
        entries = proxy.server_entries(alias)
        wrote: list[tuple[str, Any]] = [
            ("response", e["n"]) if e["k"] == "response" else ("notification", (alias, e["seq"]))
            for e in entries
            if (e["k"] == "response" and e["n"] is not None) or e["k"] == "notification"
        ]
        # ... is what the client got from it, in the same order. The one exception: the
        # gateway drops a late answer to a call the client cancelled (the client must
        # ignore it anyway, says MCP), where the single-server proxy relays it.
        late = {("response", n) for n in client.cancelled}
        got = [
            (kind, key)
            for kind, key in client.seen
            if (kind == "response" and key != "init" and key % len(aliases) == index)
            or (kind == "notification" and key[0] == alias)
        ]
        assert [m for m in got if m not in late] == [m for m in wrote if m not in late], alias
        received = next(e for e in entries if e["k"] == "received")
        assert received["calls"] == CALLS // len(aliases)
        assert received["notifications"] == CALLS // NOTIFY_EVERY + 1  # sent to every server
        cancels += received["cancelled"]
        server_answered |= {int(n) for kind, n in wrote if kind == "response"}
    # A cancellation reaches the server running that call: one never answered was cancelled.
    assert len(client.cancelled - server_answered) <= cancels <= CALLS // CANCEL_EVERY
    dropped = len(client.cancelled & server_answered)

    notes = [key for kind, key in client.seen if kind == "notification"]
    print(
        f"\ngateway, {CALLS} calls to 2 servers, {IN_FLIGHT} in flight: {run['seconds']:.1f} s, "
        f"{len(answered)} answered, {len(client.cancelled - server_answered)} cancelled before an "
        f"answer, {dropped} late answers to cancelled calls dropped, "
        f"{len(notes)} server notifications; formats {dict(client.formats)}; "
        f"gateway peak RSS {run['rss']:.1f} MB"
    )
    assert client.formats["gcx"] + client.formats["dcp"] >= len(answered) - len(client.cancelled)
    assert run["rss"] < RSS_BOUND_MB
