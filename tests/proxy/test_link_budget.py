"""A rewrite that takes too long must not hold up the server's output: past its
budget the original goes out, and answers pass through until it has finished.
The server is a real process (line_server); only the rewriter is slow on purpose."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import orjson
import pytest

from gcxwire.proxy import link as link_module
from gcxwire.proxy.jsonrpc import JsonObject, PendingRequest
from gcxwire.proxy.link import UpstreamLink
from gcxwire.proxy.upstream import Upstream

from .helpers import LINE_SERVER


class StuckRewriter:
    """Rewrites every answer to an empty result, but only once released."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.calls = 0

    def rewrite(self, request: PendingRequest, response: JsonObject) -> JsonObject | None:
        self.calls += 1
        self.release.wait(60)
        return {**response, "result": {"content": []}}


def call(rid: int, text: str) -> tuple[bytes, PendingRequest]:
    params = {"name": "t", "arguments": {"text": text}}
    message = {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}
    return orjson.dumps(message), PendingRequest(rid, "tools/call", params)


def test_a_rewrite_over_its_budget_lets_the_originals_through(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(link_module, "REWRITE_BUDGET", 0.2)
    rewriter = StuckRewriter()
    delivered: list[Any] = []

    async def deliver(line: bytes) -> None:
        delivered.append(orjson.loads(line))

    async def scenario() -> None:
        upstream = Upstream(LINE_SERVER, name="line")
        link = UpstreamLink(upstream, rewriter, deliver)
        await upstream.start()
        pump = asyncio.ensure_future(link.pump())
        big = "x" * ((1 << 20) + 10)  # over the offload size, before and after
        for rid in (1, 2):
            await link.send(*call(rid, big))

        async def both() -> None:
            while len(delivered) < 2:
                await asyncio.sleep(0.01)

        try:
            await asyncio.wait_for(both(), 20)
        finally:
            rewriter.release.set()
        upstream.close_stdin()
        await pump
        assert [answer["id"] for answer in delivered] == [1, 2]
        assert all(answer["result"]["content"][0]["text"] == big for answer in delivered)
        assert rewriter.calls == 1  # the second passed while the first still ran

    asyncio.run(scenario())
