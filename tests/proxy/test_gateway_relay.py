"""The gateway at the byte level: two scripted line servers behind one proxy."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from gcxwire.proxy.jsonrpc import UPSTREAM_EXITED

from .helpers import LINE_SERVER, RawProxy


def req(rid: Any, method: str, params: Any = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": params or {}}


def call(rid: Any, tool: str, **arguments: Any) -> dict[str, Any]:
    return req(rid, "tools/call", {"name": tool, "arguments": arguments})


def config(tmp_path: Path) -> str:
    servers = [{"alias": a, "command": LINE_SERVER[0], "args": LINE_SERVER[1:]} for a in "ab"]
    path = tmp_path / "gateway.json"
    path.write_text(json.dumps({"servers": servers}))
    return str(path)


def test_ids_routing_cancellation_and_a_crash(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with RawProxy([], "--servers", config(tmp_path)) as proxy:
            proxy.argv.remove("--")  # no server command in gateway mode
            await proxy.start()
            await proxy.send(req("x1", "echo", {"n": 1}))  # a broadcast: first success wins
            assert await proxy.recv() == {"jsonrpc": "2.0", "id": "x1", "result": {"n": 1}}
            await proxy.send(call(7, "b__t", text="hello"))
            answer = await proxy.recv()
            assert answer["id"] == 7 and answer["result"]["content"][0]["text"] == "hello"

            await proxy.send(call("held-1", "a__t", hold=True))
            await proxy.send(call("held-2", "a__t", hold=True))
            cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled"}
            await proxy.send({**cancel, "params": {"requestId": "held-1"}})
            await proxy.send(call(9, "a__t", exit=4))
            errors = [await proxy.recv(), await proxy.recv()]
            assert sorted(str(e["id"]) for e in errors) == ["9", "held-2"]  # not held-1
            for error in errors:
                assert error["error"]["code"] == UPSTREAM_EXITED
                assert "'a' exited with status 4" in error["error"]["message"]
            # A handshake-era client (no _meta seen) is told the tool list changed.
            changed = await proxy.recv()
            assert changed == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
            await proxy.send(call(10, "b__t", text="still here"))
            answer = await proxy.recv()
            assert answer["id"] == 10
            await proxy.send(call(11, "a__t", text="gone"))
            assert (await proxy.recv())["error"]["code"] == -32601
            status, _, _ = await proxy.finish()
            assert status == 0

    asyncio.run(scenario())


def test_server_requests_with_the_same_id_are_told_apart(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with RawProxy([], "--servers", config(tmp_path)) as proxy:
            proxy.argv.remove("--")
            await proxy.start()
            await proxy.send(req("q", "ask_client"))  # each server asks roots/list with id 0
            asks = [await proxy.recv(), await proxy.recv()]
            assert {a["method"] for a in asks} == {"roots/list"}
            assert len({a["id"] for a in asks}) == 2  # remapped: no longer both 0
            for ask in asks:
                await proxy.send({"jsonrpc": "2.0", "id": ask["id"], "result": {"roots": []}})
            answer = await proxy.recv()
            assert answer["id"] == "q"
            # The server got the client's answer back under its own id 0.
            assert answer["result"]["client"] == {
                "jsonrpc": "2.0",
                "id": 0,
                "result": {"roots": []},
            }

    asyncio.run(scenario())
