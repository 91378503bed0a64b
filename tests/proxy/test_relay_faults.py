"""The single-server relay against servers and clients that misbehave on purpose.

Every server here is a real process (tests/proxy/servers/rogue_server.py and
line_server.py); every check is on the bytes the real proxy process wrote.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from gcxwire.proxy.framing import BROKEN_PIPE_STATUS
from gcxwire.proxy.jsonrpc import INVALID_REQUEST, UPSTREAM_EXITED

from .helpers import LINE_SERVER, ROGUE_SERVER, TIMEOUT, RawProxy, proxy_argv


def run(coro: Any) -> None:
    asyncio.run(coro)


def call(rid: Any, tool: str, **arguments: Any) -> dict[str, Any]:
    params = {"name": tool, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}


def echo(rid: Any, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": "echo", "params": params}


async def pid_gone(pid: int, timeout: float = TIMEOUT) -> bool:
    for _ in range(int(timeout / 0.05)):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        await asyncio.sleep(0.05)
    return False


async def read_pid(path: Path) -> int:
    for _ in range(int(TIMEOUT / 0.05)):
        if path.exists() and path.read_text():
            return int(path.read_text())
        await asyncio.sleep(0.05)
    raise AssertionError(f"no pid in {path}")


async def send_all_then_close(stdin: asyncio.StreamWriter, messages: list[Any]) -> None:
    for message in messages:
        stdin.write(orjson.dumps(message) + b"\n")
        await stdin.drain()
    stdin.close()


def test_every_line_written_reaches_a_client_that_reads_once_the_server_is_gone() -> None:
    # 21 answers of 4 KB: more than a pipe holds, so the last ones wait in the
    # proxy's output buffer until the client reads, which it does only after
    # the server has exited (a plain pipe nobody reads meanwhile).
    argv = proxy_argv(LINE_SERVER, "--log-level", "info")
    proxy = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proxy.stdin is not None and proxy.stdout is not None and proxy.stderr is not None
    for i in range(21):
        proxy.stdin.write(orjson.dumps(echo(i, pad="p" * 4000)) + b"\n")
    proxy.stdin.close()
    while b"line_server exited with status" not in proxy.stderr.readline():
        pass
    time.sleep(0.5)  # time enough for a proxy that does not flush to be gone
    with proxy.stdout, proxy.stderr:
        out = proxy.stdout.read()
        proxy.stderr.read()
    assert proxy.wait(TIMEOUT) == 0
    assert [orjson.loads(line)["id"] for line in out.splitlines()] == list(range(21))


@pytest.mark.slow  # the 2 s drain, then the group's SIGTERM
def test_a_server_that_exits_while_a_grandchild_holds_its_stdout(tmp_path: Path) -> None:
    async def scenario() -> None:
        pidfile = tmp_path / "grandchild.pid"
        async with RawProxy(ROGUE_SERVER) as proxy:
            await proxy.send(call(1, "echo"))
            await proxy.recv()
            await proxy.send(call(2, "spawn_exit", pidfile=str(pidfile)))
            error = await proxy.recv()  # the exit is seen though stdout stays open
            assert error["id"] == 2 and error["error"]["code"] == UPSTREAM_EXITED
            assert "exited with status 5" in error["error"]["message"]
            status, rest, _ = await proxy.wait()
            assert status == 5 and rest == b""
            grandchild = await read_pid(pidfile)
            assert await pid_gone(grandchild), "the server's helper outlived the proxy"

    run(scenario())


def test_a_server_ignoring_eof_and_sigterm_dies_with_a_killed_proxy(tmp_path: Path) -> None:
    async def scenario() -> None:
        pidfile = tmp_path / "server.pid"
        server = [*ROGUE_SERVER, "--ignore-eof", f"--pidfile={pidfile}"]
        async with RawProxy(server) as proxy:
            await proxy.send(call(1, "echo"))
            await proxy.recv()
            server_pid = await read_pid(pidfile)
            assert proxy.process is not None
            proxy.process.send_signal(signal.SIGKILL)  # no cleanup can run in the proxy
            await proxy.process.wait()
            assert await pid_gone(server_pid), "the server outlived the proxy"

    if not sys.platform.startswith("linux"):
        pytest.skip("PR_SET_PDEATHSIG is Linux's")
    run(scenario())


@pytest.mark.parametrize("tool", ["nan", "inf", "batch"])
def test_an_answer_strict_json_refuses_is_forwarded_once_and_never_answered_again(
    tool: str,
) -> None:
    async def scenario() -> None:
        async with RawProxy(ROGUE_SERVER) as proxy:
            await proxy.send(call(7, tool))
            line = await proxy.recv_line()
            assert b'"id":7' in line  # the server's own bytes
            if tool != "batch":
                assert (b"NaN" if tool == "nan" else b"1e400") in line
            status, rest, err = await proxy.finish()
            assert status == 0 and rest == b""  # no second answer for id 7 at exit
            assert b"secret-payload" not in err  # no payload logged above debug

    run(scenario())


def test_an_answer_printed_over_many_lines_arrives_once_as_one_message() -> None:
    async def scenario() -> None:
        async with RawProxy(ROGUE_SERVER, "--no-hint") as proxy:
            await proxy.send(call(3, "pretty"))
            answer = await proxy.recv()
            assert answer["id"] == 3 and "result" in answer
            await proxy.send(call(4, "echo", n=1))
            assert (await proxy.recv())["id"] == 4
            status, rest, _ = await proxy.finish()
            assert status == 0 and rest == b""

    run(scenario())


def test_numbers_a_rewrite_would_change_pass_through_as_written() -> None:
    async def scenario() -> None:
        async with RawProxy(ROGUE_SERVER, "--format", "gcx") as proxy:
            await proxy.send(call(1, "numbers", plain=True))
            plain = await proxy.recv()  # the control: a plain table is rewritten
            assert plain["result"]["content"][-1]["text"].startswith("GCX1")
            await proxy.send(call(2, "numbers"))
            text = (await proxy.recv())["result"]["content"][-1]["text"]
            for literal in ("123456789012345678901234567890.5", "1E+2", '"z": -0'):
                assert literal in text

    run(scenario())


def test_a_log_file_that_is_a_symlink_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "precious.txt"
    target.write_text("keep me\n")
    link = tmp_path / "proxy.log"
    link.symlink_to(target)
    argv = proxy_argv(LINE_SERVER, "--log-file", str(link), "--log-level", "info")
    done = subprocess.run(argv, input=b"", capture_output=True, timeout=TIMEOUT)
    assert done.returncode == 1
    assert b"cannot log to" in done.stderr
    assert target.read_text() == "keep me\n"


def test_an_empty_client_batch_is_an_invalid_request() -> None:
    async def scenario() -> None:
        async with RawProxy(LINE_SERVER) as proxy:
            await proxy.send(b"[]")
            answer = await proxy.recv()
            assert answer["id"] is None and answer["error"]["code"] == INVALID_REQUEST

    run(scenario())


@pytest.mark.slow
def test_a_client_that_stops_reading_makes_the_exit_status_non_zero() -> None:
    read_end, write_end = os.pipe()
    proxy = subprocess.Popen(
        proxy_argv(LINE_SERVER), stdin=subprocess.PIPE, stdout=write_end, stderr=subprocess.PIPE
    )
    os.close(write_end)
    os.close(read_end)  # nobody will ever read the answer
    assert proxy.stdin is not None
    proxy.stdin.write(orjson.dumps(echo(1, pad="x" * 100)) + b"\n")
    proxy.stdin.close()
    assert proxy.stderr is not None
    with proxy.stderr:
        err = proxy.stderr.read()
    assert proxy.wait(TIMEOUT) == BROKEN_PIPE_STATUS
    assert b"Traceback" not in err


def test_stdin_from_dev_null_ends_the_proxy() -> None:
    done = subprocess.run(
        proxy_argv(LINE_SERVER), stdin=subprocess.DEVNULL, capture_output=True, timeout=TIMEOUT
    )
    assert done.returncode == 0 and done.stdout == b""


def test_isolate_env_keeps_secrets_from_the_server() -> None:
    async def scenario() -> None:
        env = {"GCXWIRE_TEST_SECRET": "s3cret"}
        async with RawProxy(LINE_SERVER, "--isolate-env", "--env", "MINE=1", env=env) as proxy:
            for i, name in enumerate(("GCXWIRE_TEST_SECRET", "MINE", "PATH")):
                await proxy.send(
                    {"jsonrpc": "2.0", "id": i, "method": "env", "params": {"name": name}}
                )
            values = [(await proxy.recv())["result"]["value"] for _ in range(3)]
            assert values[0] is None and values[1] == "1" and values[2]

    run(scenario())
