"""The gateway against servers that misbehave on purpose (real processes:
tests/proxy/servers/rogue_server.py and line_server.py), checked at the byte level."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from gcxwire.proxy.gateway_config import GatewayConfigError, load_gateway_config
from gcxwire.proxy.jsonrpc import INVALID_REQUEST, UPSTREAM_BUSY

from .helpers import LINE_SERVER, ROGUE_SERVER, TIMEOUT, RawProxy


def call(rid: Any, tool: str, meta: dict[str, Any] | None = None, **arguments: Any) -> Any:
    params: dict[str, Any] = {"name": tool, "arguments": arguments}
    if meta is not None:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}


def gateway(tmp_path: Path, servers: dict[str, list[str]], **extra: Any) -> str:
    entries = [
        {"alias": alias, "command": argv[0], "args": argv[1:], **extra.get(alias, {})}
        for alias, argv in servers.items()
    ]
    path = tmp_path / "gateway.json"
    path.write_text(json.dumps({"servers": entries}))
    return str(path)


def gateway_proxy(config: str, *options: str, env: dict[str, str] | None = None) -> RawProxy:
    """The gateway in front of ``config``; ``async with`` starts it."""
    proxy = RawProxy([], *options, "--servers", config, env=env)
    proxy.argv.remove("--")
    return proxy


def text_of(answer: dict[str, Any]) -> str:
    return str(answer["result"]["content"][0]["text"])


def test_every_answer_reaches_the_client_when_it_closes_its_end_at_once(tmp_path: Path) -> None:
    async def scenario() -> None:
        config = gateway(tmp_path, {"a": LINE_SERVER})
        proxy = gateway_proxy(config)
        await proxy.start()
        assert proxy.process is not None and proxy.process.stdin is not None
        for i in range(101):  # broadcasts: each answer waits on its server
            await proxy.send({"jsonrpc": "2.0", "id": i, "method": "echo", "params": {"i": i}})
        status, out, _ = await proxy.finish()
        assert status == 0
        assert sorted(orjson.loads(line)["id"] for line in out.splitlines()) == list(range(101))

    run_async(scenario())


def test_a_server_that_stops_reading_holds_up_nobody_else(tmp_path: Path) -> None:
    async def scenario() -> None:
        config = gateway(tmp_path, {"a": ROGUE_SERVER, "b": LINE_SERVER})
        async with gateway_proxy(config) as proxy:
            await proxy.send(call(1, "a__wedge"))
            assert text_of(await proxy.recv()) == "wedged from now on"
            pad = "x" * (64 << 10)
            for i in range(100):  # 6.4 MB for a server that reads nothing
                await proxy.send(call(f"w{i}", "a__echo", pad=pad))
            await proxy.send(call("b1", "b__t", text="still served"))
            busy = 0
            while True:
                answer = await proxy.recv()
                if answer["id"] == "b1":
                    break
                assert answer["error"]["code"] == UPSTREAM_BUSY
                busy += 1
            assert text_of(answer) == "still served"
            assert busy > 0

    run_async(scenario())


@pytest.mark.parametrize("tool", ["array_id", "object_id"])
def test_an_answer_with_an_array_or_object_id_leaves_its_server_serving(
    tmp_path: Path, tool: str
) -> None:
    async def scenario() -> None:
        config = gateway(tmp_path, {"a": ROGUE_SERVER})
        async with gateway_proxy(config) as proxy:
            await proxy.send(call(1, f"a__{tool}"))  # answered under an id nobody sent
            await proxy.send(call(2, "a__echo", n=2))
            answer = await proxy.recv()
            assert answer["id"] == 2 and json.loads(text_of(answer)) == {"n": 2}

    run_async(scenario())


@pytest.mark.parametrize("cursor", ["same", "fresh"])
def test_a_list_whose_cursor_never_ends_is_cut(tmp_path: Path, cursor: str) -> None:
    async def scenario() -> None:
        config = gateway(tmp_path, {"a": [*ROGUE_SERVER, f"--cursor={cursor}"]})
        async with gateway_proxy(config) as proxy:
            await proxy.send({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})
            answer = await proxy.recv()
            names = [tool["name"] for tool in answer["result"]["tools"]]
            assert names and len(names) <= 100 and "nextCursor" not in answer["result"]

    run_async(scenario())


@pytest.mark.parametrize("tool", ["nan", "inf", "pretty", "batch"])
def test_answers_strict_json_refuses_are_answered_once(tmp_path: Path, tool: str) -> None:
    async def scenario() -> None:
        config = gateway(tmp_path, {"a": ROGUE_SERVER})
        async with gateway_proxy(config) as proxy:
            await proxy.send(call("c-1", f"a__{tool}"))
            line = await proxy.recv_line()
            assert b'"id":"c-1"' in line
            if tool in ("nan", "inf"):
                assert (b"NaN" if tool == "nan" else b"1e400") in line
            status, rest, err = await proxy.finish()
            assert status == 0 and rest == b""  # exactly one answer
            assert b"secret-payload" not in err

    run_async(scenario())


def test_numbers_keep_their_literal_text_both_ways(tmp_path: Path) -> None:
    async def scenario() -> None:
        config = gateway(tmp_path, {"a": ROGUE_SERVER})
        async with gateway_proxy(config) as proxy:
            await proxy.send(call(1, "a__numbers"))
            line = await proxy.recv_line()
            for literal in (b"123456789012345678901234567890.5", b"1E+2", b'\\"z\\": -0'):
                assert literal in line
            raw = b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a__raw",'
            raw += b'"arguments":{"n":123456789012345678901234567890,"e":1E+2,"z":-0}}}'
            await proxy.send(raw)
            got = text_of(await proxy.recv())
            assert '"arguments":{"n":123456789012345678901234567890,"e":1E+2,"z":-0}' in got

    run_async(scenario())


def test_a_servers_own_cancellation_comes_under_the_gateway_id(tmp_path: Path) -> None:
    async def scenario() -> None:
        config = gateway(tmp_path, {"a": ROGUE_SERVER, "b": ROGUE_SERVER})
        async with gateway_proxy(config) as proxy:
            await proxy.send(call(1, "b__cancel_own"))
            request, cancelled, answer = [await proxy.recv() for _ in range(3)]
            assert request["method"] == "roots/list" and request["id"] == "b-1"
            assert cancelled["params"]["requestId"] == "b-1"
            assert answer["id"] == 1

    run_async(scenario())


def test_a_server_cannot_cancel_or_fake_progress_for_anothers_request(tmp_path: Path) -> None:
    async def scenario() -> None:
        config = gateway(tmp_path, {"a": ROGUE_SERVER, "b": LINE_SERVER})
        async with gateway_proxy(config) as proxy:
            # b's request to the client is in flight under gateway id "b-1" ...
            await proxy.send({"jsonrpc": "2.0", "id": 1, "method": "ask_client", "params": {}})
            asked = await proxy.recv()
            assert asked["id"] == "b-1"
            # ... and a client call to b that asked for progress on token "tok".
            await proxy.send(call(2, "b__t", meta={"progressToken": "tok"}, hold=True))
            await proxy.send(call(3, "a__cancel_other", id="b-1"))
            await proxy.send(call(4, "a__progress", token="tok"))
            first, second = await proxy.recv(), await proxy.recv()
            assert [first["id"], second["id"]] == [3, 4]  # nothing from a in between
            await proxy.send(call(5, "a__progress", meta={"progressToken": "mine"}, token="mine"))
            progress, answer = await proxy.recv(), await proxy.recv()
            assert progress["params"]["progressToken"] == "mine" and answer["id"] == 5

    run_async(scenario())


@pytest.mark.parametrize("alias", ["srv_", "_srv", "a__b"])
def test_an_alias_that_makes_prefixed_names_ambiguous_is_refused(
    tmp_path: Path, alias: str
) -> None:
    path = tmp_path / "gateway.json"
    path.write_text(json.dumps({"mcpServers": {alias: {"command": "x"}}}))
    with pytest.raises(GatewayConfigError, match="no '_' at either end"):
        load_gateway_config(str(path))


def test_pass_env_and_isolate_env_keep_secrets_from_servers(tmp_path: Path) -> None:
    async def scenario(isolate: bool) -> list[Any]:
        extra = {"a": {"passEnv": ["GCXWIRE_TEST_KEEP*"], "env": {"OWN": "1"}}}
        config = gateway(tmp_path, {"a": LINE_SERVER, "b": LINE_SERVER}, **extra)
        env = {"GCXWIRE_TEST_SECRET": "s3cret", "GCXWIRE_TEST_KEEP_ME": "kept"}
        options = ("--isolate-env",) if isolate else ()
        values = []
        async with gateway_proxy(config, *options, env=env) as proxy:
            names = ["GCXWIRE_TEST_SECRET", "GCXWIRE_TEST_KEEP_ME", "OWN", "PATH"]
            for i, name in enumerate(names):
                # "env" is a broadcast; a (first in order) answers it
                message = {"jsonrpc": "2.0", "id": i, "method": "env", "params": {"name": name}}
                await proxy.send(message)
                values.append((await proxy.recv())["result"]["value"])
        return values

    assert asyncio.run(scenario(False))[:3] == [None, "kept", "1"]
    assert asyncio.run(scenario(True))[:3] == [None, "kept", "1"]


def test_an_isolated_server_without_pass_env_sees_no_secret(tmp_path: Path) -> None:
    async def scenario(*options: str) -> Any:
        config = gateway(tmp_path, {"b": LINE_SERVER})
        async with gateway_proxy(config, *options, env={"GCXWIRE_TEST_SECRET": "s"}) as proxy:
            message = {"jsonrpc": "2.0", "id": 1, "method": "env"}
            await proxy.send({**message, "params": {"name": "GCXWIRE_TEST_SECRET"}})
            return (await proxy.recv())["result"]["value"]

    assert asyncio.run(scenario()) == "s"  # the documented default: everything inherited
    assert asyncio.run(scenario("--isolate-env")) is None


def test_an_empty_batch_or_an_array_id_gets_invalid_request(tmp_path: Path) -> None:
    async def scenario() -> None:
        config = gateway(tmp_path, {"a": LINE_SERVER})
        async with gateway_proxy(config) as proxy:
            await proxy.send(b"[]")
            answer = await proxy.recv()
            assert answer["id"] is None and answer["error"]["code"] == INVALID_REQUEST
            await proxy.send({"jsonrpc": "2.0", "id": [1], "method": "echo", "params": {}})
            answer = await proxy.recv()
            assert answer["id"] is None and answer["error"]["code"] == INVALID_REQUEST

    run_async(scenario())


def test_stdin_from_dev_null_ends_the_gateway(tmp_path: Path) -> None:
    config = gateway(tmp_path, {"a": LINE_SERVER})
    argv = [sys.executable, "-m", "gcxwire.proxy", "--servers", config]
    done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=TIMEOUT)
    assert done.returncode == 0 and done.stdout == b""


def run_async(coro: Any) -> None:
    asyncio.run(coro)
