"""The gateway at the byte level: two scripted line servers behind one proxy."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from gcxwire.proxy.jsonrpc import UPSTREAM_EXITED
from gcxwire.proxy.registry import SCHEMAS_URI

from .helpers import LINE_SERVER, RawProxy


def req(rid: Any, method: str, params: Any = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": params or {}}


def call(rid: Any, tool: str, **arguments: Any) -> dict[str, Any]:
    return req(rid, "tools/call", {"name": tool, "arguments": arguments})


def config(tmp_path: Path, *extra_args: list[str]) -> str:
    servers = [
        {"alias": alias, "command": LINE_SERVER[0], "args": [*LINE_SERVER[1:], *args]}
        for alias, args in zip("abc", extra_args or ([], []))
    ]
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
            assert (await proxy.recv())["error"]["code"] == -32602
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


def test_tools_list_drains_pages_and_leaves_out_names_over_64(tmp_path: Path) -> None:
    long_name = "x" * 62  # "a__" + 62 characters = 65
    tools_a = ["t1", "t2", "t3", "t2", long_name, "t4"]
    path = config(tmp_path, [f"--tools={','.join(tools_a)}"], ["--tools=only"])

    async def scenario() -> None:
        async with RawProxy([], "--servers", path) as proxy:
            proxy.argv.remove("--")
            await proxy.start()
            await proxy.send(req(1, "tools/list"))
            answer = await proxy.recv()
            names = [tool["name"] for tool in answer["result"]["tools"]]
            assert names == ["a__t1", "a__t2", "a__t3", "a__t4", "b__only"]
            assert "nextCursor" not in answer["result"]
            _, _, err = await proxy.finish()
            assert f"a__{long_name} has more than 64 characters".encode() in err

    asyncio.run(scenario())


def test_a_server_that_never_answers_is_taken_out(tmp_path: Path) -> None:
    path = config(tmp_path, [], ["--mute"])

    async def scenario() -> None:
        async with RawProxy([], "--servers", path, "--answer-timeout", "1") as proxy:
            proxy.argv.remove("--")
            await proxy.start()
            notes: list[Any] = []

            async def answer() -> Any:
                while "id" not in (message := await proxy.recv()):
                    notes.append(message)  # e.g. tools/list_changed once b is gone
                return message

            hello = {"protocolVersion": "2025-11-25", "capabilities": {}}
            await proxy.send(req(1, "initialize", {**hello, "clientInfo": {"name": "t"}}))
            started = await answer()  # a answered; b did not within 1 s
            assert started["id"] == 1 and started["result"]["protocolVersion"] == "2025-11-25"
            assert started["result"]["serverInfo"]["name"] == "gcxwire-gateway"
            await proxy.send(call(3, "b__t", text="x"))
            assert (await answer())["error"]["code"] == -32602  # b was taken out
            await proxy.send(call(4, "a__t", text="still serving"))
            served = await answer()
            assert served["id"] == 4
            assert served["result"]["content"][0]["text"] == "still serving"
            changed = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
            while changed not in notes:  # sent once b's process is seen to exit
                notes.append(await proxy.recv())
            _, _, err = await proxy.finish()
            assert b"b did not answer initialize in time: taking it out" in err

    asyncio.run(scenario())


def test_prompts_and_resources_are_merged_and_routed_at_the_byte_level(tmp_path: Path) -> None:
    path = config(
        tmp_path,
        [
            "--label=a",
            "--prompts=p1,p2,p3",
            "--resources=file:///a1,file:///a2,file:///both",
            "--ttl=60000",
            "--scope=public",
        ],
        [
            "--label=b",
            "--ttl=5000",
            "--scope=private",
            "--prompts=p1",
            "--resources=file:///both,file:///b1",
            "--templates=db://b/{t}",
        ],
    )

    async def scenario() -> None:
        async with RawProxy([], "--servers", path) as proxy:
            proxy.argv.remove("--")
            await proxy.start()
            # Three pages from a, one from b, answered in one page; the client's cursor is dropped.
            await proxy.send(req(1, "prompts/list", {"cursor": "2"}))
            listed = await proxy.recv()
            assert listed["id"] == 1 and "nextCursor" not in listed["result"]
            names = [prompt["name"] for prompt in listed["result"]["prompts"]]
            assert names == ["a__p1", "a__p2", "a__p3", "b__p1"]
            # Fresh only as long as the shortest-lived page; private if one page is.
            assert listed["result"]["ttlMs"] == 5000
            assert listed["result"]["cacheScope"] == "private"
            await proxy.send(req(2, "resources/list"))
            uris = [r["uri"] for r in (await proxy.recv())["result"]["resources"]]
            # ... then the gateway's own schema registry (no tool called yet: the whole one only).
            assert uris == ["file:///a1", "file:///a2", "file:///both", "file:///b1", SCHEMAS_URI]
            await proxy.send(req(3, "resources/templates/list"))
            templates = (await proxy.recv())["result"]["resourceTemplates"]
            assert templates == [{"uriTemplate": "db://b/{t}"}]  # a has none: -32601, left out

            async def served(rid: Any, method: str, params: Any) -> Any:
                await proxy.send(req(rid, method, params))
                answer = await proxy.recv()
                assert answer["id"] == rid, answer
                return answer["result"]

            got = await served("g", "prompts/get", {"name": "b__p1", "arguments": {"x": "1"}})
            assert got == {
                "by": "b",
                "method": "prompts/get",
                "params": {"name": "p1", "arguments": {"x": "1"}},
            }
            assert (await served(4, "resources/read", {"uri": "file:///b1"}))["by"] == "b"
            assert (await served(5, "resources/read", {"uri": "file:///both"}))["by"] == "a"
            completion = {
                "ref": {"type": "ref/prompt", "name": "a__p3"},
                "argument": {"name": "n", "value": ""},
            }
            got = await served(6, "completion/complete", completion)
            assert got["by"] == "a" and got["params"]["ref"] == {"type": "ref/prompt", "name": "p3"}
            template_ref = {"type": "ref/resource", "uri": "db://b/{t}"}
            got = await served(7, "completion/complete", {**completion, "ref": template_ref})
            assert got["by"] == "b"
            # No list named this URI: both servers are asked and b, the one that succeeds, answers.
            assert (await served(8, "resources/read", {"uri": "db://b/users"}))["by"] == "b"

            await proxy.send(req(9, "resources/subscribe", {"uri": "file:///a2"}))
            assert (await proxy.recv())["result"]["by"] == "a"
            assert await proxy.recv() == {
                "jsonrpc": "2.0",
                "method": "notifications/resources/updated",
                "params": {"uri": "file:///a2"},
            }
            assert (await served(10, "resources/unsubscribe", {"uri": "file:///a2"}))["by"] == "a"

            await proxy.send(req(11, "prompts/get", {"name": "a__zz"}))
            refused = await proxy.recv()
            assert refused == {
                "jsonrpc": "2.0",
                "id": 11,
                "error": {"code": -32602, "message": "Unknown prompt: a__zz"},
            }
            # A URI nobody has: every server says so, and the first error goes back.
            await proxy.send(req(12, "resources/read", {"uri": "file:///nowhere"}))
            missing = await proxy.recv()
            assert missing["id"] == 12 and missing["error"]["code"] == -32602
            assert missing["error"]["message"].startswith("a does not know")
            status, _, _ = await proxy.finish()
            assert status == 0

    asyncio.run(scenario())
