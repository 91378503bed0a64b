"""Faults on either side of the proxy: it never hangs, never loses a message that
completed, answers every request exactly once, and exits cleanly (the documented
status, no traceback, the server gone).

Messages the server wrote are known from its log (written after each stdout write),
so "nothing lost" is checked against what really went out, not against a guess.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import signal
from pathlib import Path
from typing import Any

import orjson
import pytest

from gcxwire.proxy.jsonrpc import UPSTREAM_EXITED
from tests.reliability.harness import (
    INITIALIZE,
    INITIALIZED,
    ProxyProcess,
    call,
    check_table,
    kind_of,
    no_crash_in,
    rows,
    wait_pid_gone,
)

pytestmark = pytest.mark.slow

BIG = 64 << 20  # the 64 MiB answer


async def started(folder: Path, *server_options: str) -> ProxyProcess:
    proxy = ProxyProcess(folder, *server_options)
    await proxy.start()
    await proxy.send(INITIALIZE)
    first = await proxy.line()
    assert first is not None and kind_of(first) == ("response", "init")
    await proxy.send(INITIALIZED)
    return proxy


async def read_all(proxy: ProxyProcess) -> list[bytes]:
    """Every line until the proxy closes its stdout."""
    lines = []
    while (line := await proxy.line()) is not None:
        lines.append(line)
    return lines


def wrote(proxy: ProxyProcess) -> list[tuple[str, Any]]:
    """What the server wrote after its initialize answer (``started`` read that one)."""
    everything = proxy.server_wrote()
    assert everything[0] == ("response", "init")
    return everything[1:]


def answers(lines: list[bytes]) -> dict[Any, dict[str, Any]]:
    """Responses by id; a second response to one id fails the test."""
    out: dict[Any, dict[str, Any]] = {}
    for line in lines:
        kind, key = kind_of(line)
        if kind == "response":
            assert key not in out, f"two responses to {key!r}"
            out[key] = orjson.loads(line)
    return out


def completed_all_delivered(proxy: ProxyProcess, lines: list[bytes]) -> None:
    """The server's log, in order, is what the client got (minus the proxy's own errors)."""
    server = wrote(proxy)
    got = [
        kind_of(line)
        for line in lines
        if b'"code":%d' % UPSTREAM_EXITED not in line  # the proxy's own answers
    ]
    server = [w for w in server if w[0] != "half"]
    if got and got[-1][0] == "garbage" and (not server or server[-1][0] != "garbage"):
        got = got[:-1]  # the half line: forwarded as is, checked by its own test
    assert got[: len(server)] == server
    # A kill can land between the server's stdout write and its log line: one extra at most.
    assert len(got) - len(server) <= 1


def gone_error(response: dict[str, Any], server: str = "load_server") -> str:
    error = response["error"]
    assert error["code"] == UPSTREAM_EXITED
    assert error["data"]["server"] == server
    return str(error["message"])


def test_upstream_killed_mid_stream(tmp_path: Path) -> None:
    async def scenario() -> tuple[ProxyProcess, list[bytes], int]:
        proxy = await started(tmp_path)
        try:
            await proxy.send(call(1000, slow=60))  # still in flight when the server dies
            for n in range(1, 101):
                await proxy.send(call(n))
            lines: list[bytes] = []
            while sum(kind_of(line)[0] == "response" for line in lines) < 100:
                line = await proxy.line()
                assert line is not None
                lines.append(line)
            os.kill(proxy.server_pid(), signal.SIGKILL)
            lines += await read_all(proxy)
            status = await proxy.wait()
            await wait_pid_gone(proxy.server_pid())
        finally:
            await proxy.kill()
        return proxy, lines, status

    proxy, lines, status = asyncio.run(scenario())
    assert status == 128 + signal.SIGKILL
    got = answers(lines)
    assert set(got) == set(range(1, 101)) | {1000}
    for n in range(1, 101):
        check_table(got[n])
    assert "killed by SIGKILL" in gone_error(got[1000])
    completed_all_delivered(proxy, lines)
    no_crash_in(proxy.stderr())


def test_upstream_writes_half_a_line_then_exits(tmp_path: Path) -> None:
    async def scenario() -> tuple[ProxyProcess, list[bytes], int]:
        proxy = await started(tmp_path)
        try:
            for n in range(1, 51):
                await proxy.send(call(n))
            lines = [await proxy.line() or b"" for _ in range(50)]
            await proxy.send(call(501))  # waits in the server's batch: never answered
            await proxy.send(call(500, half=True))
            lines += await read_all(proxy)
            status = await proxy.wait()
        finally:
            await proxy.kill()
        return proxy, lines, status

    proxy, lines, status = asyncio.run(scenario())
    assert status == 0  # the server's own status
    got = answers(lines)
    for n in range(1, 51):
        check_table(got[n])
    # The unfinished line is forwarded as the bytes it is (a malformed line, logged) ...
    half = [line for line in lines if kind_of(line)[0] == "garbage"]
    assert len(half) == 1 and half[0].startswith(b'{"jsonrpc": "2.0", "id": 500, "result"')
    # ... and both calls still open get the proxy's error, once each.
    assert "exited with status 0" in gone_error(got[500])
    assert "exited with status 0" in gone_error(got[501])
    completed_all_delivered(proxy, lines)
    no_crash_in(proxy.stderr())


def test_garbage_on_upstream_stdout_is_relayed_in_place(tmp_path: Path) -> None:
    async def scenario() -> tuple[ProxyProcess, list[bytes], int]:
        proxy = await started(tmp_path, "--garbage")
        try:
            for n in range(1, 1001):
                await proxy.send(call(n))
            lines: list[bytes] = []
            while sum(kind_of(line)[0] == "response" for line in lines) < 1000:
                line = await proxy.line()
                assert line is not None
                lines.append(line)
            await proxy.close_stdin()
            lines += await read_all(proxy)
            status = await proxy.wait()
        finally:
            await proxy.kill()
        return proxy, lines, status

    proxy, lines, status = asyncio.run(scenario())
    assert status == 0
    assert [kind_of(line) for line in lines] == wrote(proxy)
    garbage = [line for line in lines if kind_of(line)[0] == "garbage"]
    assert len(garbage) == 1001 // 7  # one after every 7th answer, initialize included
    assert all(line.startswith(b"\xffnot json \xc3( {") for line in garbage)
    got = answers(lines)
    for n in range(1, 1001):
        check_table(got[n])
    no_crash_in(proxy.stderr())


def test_client_closes_stdin_mid_response(tmp_path: Path) -> None:
    size = 16 << 20

    async def scenario() -> tuple[ProxyProcess, list[bytes], int]:
        proxy = await started(tmp_path)
        try:
            for n in range(1, 21):
                await proxy.send(call(n, big=size) if n == 10 else call(n))
            await proxy.close_stdin()  # while the server is still writing its answers
            lines = await read_all(proxy)
            status = await proxy.wait()
            await wait_pid_gone(proxy.server_pid())
        finally:
            await proxy.kill()
        return proxy, lines, status

    proxy, lines, status = asyncio.run(scenario())
    assert status == 0
    assert [kind_of(line) for line in lines] == wrote(proxy)
    got = answers(lines)
    assert set(got) == set(range(1, 21))
    assert got[10]["result"]["content"][0]["text"] == "x" * size
    for n in set(range(1, 21)) - {10}:
        check_table(got[n])
    no_crash_in(proxy.stderr())


def test_64_mib_response(tmp_path: Path) -> None:
    async def scenario() -> tuple[ProxyProcess, list[bytes], int, float, float]:
        proxy = await started(tmp_path)
        try:
            loop = asyncio.get_running_loop()
            start = loop.time()
            await proxy.send(call(1, big=BIG))
            await proxy.send(call(2))
            lines = [await proxy.line() or b"" for _ in range(2)]
            seconds = loop.time() - start
            rss = proxy.peak_rss_mb()
            await proxy.close_stdin()
            lines += await read_all(proxy)
            status = await proxy.wait()
        finally:
            await proxy.kill()
        return proxy, lines, status, seconds, rss

    proxy, lines, status, seconds, rss = asyncio.run(scenario())
    assert status == 0
    assert [kind_of(line) for line in lines] == wrote(proxy)
    got = answers(lines)
    text = got[1]["result"]["content"][0]["text"]
    assert hashlib.sha256(text.encode()).digest() == hashlib.sha256(b"x" * BIG).digest()
    check_table(got[2])
    print(f"\n64 MiB answer through the proxy: {seconds:.1f} s, proxy peak RSS {rss:.0f} MB")
    no_crash_in(proxy.stderr())


def test_slow_upstream(tmp_path: Path) -> None:
    async def scenario() -> tuple[ProxyProcess, list[bytes], int, float]:
        proxy = await started(tmp_path)
        try:
            loop = asyncio.get_running_loop()
            start = loop.time()
            await proxy.send(call(1, slow=10, n=1, rows=rows(1)))
            for n in range(2, 22):
                await proxy.send(call(n))
            lines = [await proxy.line() or b"" for _ in range(21)]
            seconds = loop.time() - start
            await proxy.close_stdin()
            lines += await read_all(proxy)
            status = await proxy.wait()
        finally:
            await proxy.kill()
        return proxy, lines, status, seconds

    proxy, lines, status, seconds = asyncio.run(scenario())
    assert status == 0
    assert [kind_of(line) for line in lines] == wrote(proxy)
    # The quick answers were not held behind the slow one; the slow one still came.
    assert kind_of(lines[20]) == ("response", 1)
    assert seconds >= 10
    got = answers(lines)
    assert set(got) == set(range(1, 22))
    for n in range(1, 22):
        check_table(got[n])
    no_crash_in(proxy.stderr())
