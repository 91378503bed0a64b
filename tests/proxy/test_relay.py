"""The relay at the byte level: a scripted line server behind the real proxy process."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

import gcxwire
from gcxwire.proxy.jsonrpc import UPSTREAM_EXITED

from .helpers import LINE_SERVER, RawProxy


def run(coro: object) -> None:
    asyncio.run(coro)  # type: ignore[arg-type]


def req(rid: object, method: str, params: object = None) -> dict[str, object]:
    message: dict[str, object] = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        message["params"] = params
    return message


def call(rid: object, text: str) -> dict[str, object]:
    """A tools/call the line server answers with ``text`` as its result."""
    return req(rid, "tools/call", {"name": "t", "arguments": {"text": text}})


def text_result(rid: object, text: str) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": text}]}}


def test_ids_keep_their_type_and_answers_come_in_server_order() -> None:
    async def scenario() -> None:
        async with RawProxy(LINE_SERVER) as proxy:
            ids = [1, "1", "s-3", 0, -7, 2**53, "ünï"]
            for i, rid in enumerate(ids):
                await proxy.send(
                    {"jsonrpc": "2.0", "id": rid, "method": "echo", "params": {"n": i}}
                )
            answers = [await proxy.recv() for _ in ids]
            assert [a["id"] for a in answers] == ids
            assert [type(a["id"]) for a in answers] == [type(rid) for rid in ids]
            assert [a["result"] for a in answers] == [{"n": i} for i in range(len(ids))]
            status, rest, _ = await proxy.finish()
            assert status == 0 and rest == b""

    run(scenario())


def test_untouched_lines_pass_byte_for_byte() -> None:
    # Key order, spacing and escapes of a line the proxy does not rewrite survive.
    line = b'{"params":{"z":1,"a":"\\u00e9\\t"},  "method":"echo","id":"k","jsonrpc":"2.0"}'

    async def scenario() -> None:
        async with RawProxy(LINE_SERVER) as proxy:
            await proxy.send(line)
            answer = await proxy.recv_line()
            assert answer == b'{"jsonrpc":"2.0","id":"k","result":{"z":1,"a":"\xc3\xa9\\t"}}'

    run(scenario())


def test_notifications_are_relayed_in_order_before_the_answer() -> None:
    async def scenario() -> None:
        async with RawProxy(LINE_SERVER) as proxy:
            await proxy.send(
                {"jsonrpc": "2.0", "id": 5, "method": "burst", "params": {"count": 50}}
            )
            lines = [await proxy.recv() for _ in range(51)]
            assert [m["params"]["i"] for m in lines[:50]] == list(range(50))
            assert lines[50] == {"jsonrpc": "2.0", "id": 5, "result": {"sent": 50}}

    run(scenario())


def test_server_to_client_requests_and_their_answers_pass_through() -> None:
    async def scenario() -> None:
        async with RawProxy(LINE_SERVER) as proxy:
            await proxy.send(req("c1", "ask_client"))
            request = await proxy.recv()
            assert request == {"jsonrpc": "2.0", "id": 0, "method": "roots/list"}
            await proxy.send({"jsonrpc": "2.0", "id": 0, "result": {"roots": []}})
            answer = await proxy.recv()
            assert answer["id"] == "c1"
            assert answer["result"]["client"] == {
                "jsonrpc": "2.0",
                "id": 0,
                "result": {"roots": []},
            }

    run(scenario())


def test_malformed_lines_are_forwarded_both_ways() -> None:
    async def scenario() -> None:
        async with RawProxy(LINE_SERVER, "--log-level", "warning") as proxy:
            await proxy.send(b"{not json")  # the server ignores it; the relay must not die
            await proxy.send(req(1, "stray"))
            assert await proxy.recv_line() == b"line_server: this line is not JSON"
            assert await proxy.recv() == {"jsonrpc": "2.0", "id": 1, "result": {}}
            await proxy.send(req(2, "echo", {}))
            assert (await proxy.recv())["id"] == 2
            status, _, err = await proxy.finish()
            assert status == 0
            assert b"client sent a 9-byte line that is not JSON" in err
            assert b"{not json" not in err  # payloads are logged at debug only
            assert b"line_server wrote a 34-byte line that is not JSON" in err
            assert b"this line is not JSON" not in err

    run(scenario())


def test_crash_answers_every_request_in_flight_and_exits_with_its_status() -> None:
    async def scenario() -> None:
        async with RawProxy(LINE_SERVER) as proxy:
            await proxy.send(req("a", "hold"))
            await proxy.send(req(7, "hold"))
            await proxy.send(
                {"jsonrpc": "2.0", "id": 8, "method": "crash", "params": {"status": 9}}
            )
            errors = [await proxy.recv() for _ in range(3)]
            assert [e["id"] for e in errors] == ["a", 7, 8]
            for error in errors:
                assert error["error"]["code"] == UPSTREAM_EXITED
                assert not -32768 <= error["error"]["code"] <= -32000
                assert error["error"]["message"] == (
                    "MCP server 'line_server' exited with status 9 before answering"
                )
            status, rest, _ = await proxy.wait()
            assert status == 9
            assert rest == b""

    run(scenario())


@pytest.mark.slow  # a few seconds of real servers; the default tier stays under 5 minutes
def test_client_eof_stops_a_server_that_ignores_eof_and_sigterm() -> None:
    async def scenario() -> None:
        async with RawProxy([*LINE_SERVER, "--ignore-term"]) as proxy:
            await proxy.send(req(1, "echo", {}))
            await proxy.recv()
            started = time.monotonic()
            status, _, err = await proxy.finish()
            elapsed = time.monotonic() - started
            # stdin EOF (2 s), then SIGTERM (ignored, 2 s), then SIGKILL.
            assert 3.5 < elapsed < 15, elapsed
            assert status == 128 + 9
            assert b"ignored SIGTERM" in err

    run(scenario())


def test_env_option_and_inherited_environment_reach_the_server() -> None:
    async def scenario() -> None:
        options = ("--env", "GCXWIRE_TEST_A=from-option")
        async with RawProxy(LINE_SERVER, *options, env={"GCXWIRE_TEST_B": "inherited"}) as proxy:
            for rid, name in enumerate(["GCXWIRE_TEST_A", "GCXWIRE_TEST_B"]):
                params = {"name": name}
                await proxy.send(req(rid, "env", params))
            values = [(await proxy.recv())["result"]["value"] for _ in range(2)]
            assert values == ["from-option", "inherited"]
            _, _, err = await proxy.finish()
            assert b"line_server: ready" in err  # the server's stderr is forwarded

    run(scenario())


def test_a_tool_result_not_json_or_compact_already_passes_unchanged() -> None:
    async def scenario() -> None:
        async with RawProxy(LINE_SERVER) as proxy:
            for rid, text in enumerate(['{"ok":true}', "plain words", "[1,2,3]"]):
                params = {"name": "t", "arguments": {"text": text}}
                await proxy.send(
                    {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params}
                )
                answer = await proxy.recv_line()
                expected = {
                    "jsonrpc": "2.0",
                    "id": rid,
                    "result": {"content": [{"type": "text", "text": text}]},
                }
                assert answer == orjson.dumps(expected, option=orjson.OPT_NON_STR_KEYS)

    run(scenario())


def test_a_tabular_tool_result_is_rewritten_and_reads_back() -> None:
    rows = [{"id": i, "name": f"n{i}", "ok": i % 2 == 0} for i in range(20)]
    text = orjson.dumps(rows, option=orjson.OPT_INDENT_2).decode()

    async def scenario() -> None:
        async with RawProxy(LINE_SERVER) as proxy:
            params = {"name": "t", "arguments": {"text": text}}
            await proxy.send(
                {"jsonrpc": "2.0", "id": "x", "method": "tools/call", "params": params}
            )
            answer = await proxy.recv()
            assert answer["id"] == "x"
            blocks = answer["result"]["content"]
            assert len(blocks) == 2  # the hint, then the encoding
            assert gcxwire.decode(blocks[1]["text"]) == rows
            assert len(blocks[1]["text"]) < len(text)

    run(scenario())


@pytest.mark.slow
def test_a_64_mb_line_goes_through_both_ways() -> None:
    size = 64 * 1024 * 1024
    text = "é" * (size // 2)  # two UTF-8 bytes each, so chunks split characters

    async def scenario() -> float:
        async with RawProxy(LINE_SERVER) as proxy:
            started = time.monotonic()
            await proxy.send(call(1, text))
            answer = await proxy.recv(timeout=120)
            elapsed = time.monotonic() - started
            assert answer["result"]["content"] == [{"type": "text", "text": text}]
            return elapsed

    elapsed = asyncio.run(scenario())
    print(f"64 MiB request and 64 MiB answer through the proxy: {elapsed:.2f} s")


def test_a_batch_gets_an_error_per_request_instead_of_silence() -> None:
    async def scenario() -> None:
        async with RawProxy(LINE_SERVER) as proxy:
            batch = [req(1, "echo", {}), {"jsonrpc": "2.0", "method": "n"}, req("b", "echo", {})]
            await proxy.send(batch)
            answers = await proxy.recv()
            assert [a["id"] for a in answers] == [1, "b"]
            assert {a["error"]["code"] for a in answers} == {-32600}
            await proxy.send(req(2, "echo", {"still": "alive"}))
            assert (await proxy.recv())["result"] == {"still": "alive"}

    run(scenario())


def test_a_missing_server_command_fails_with_status_1() -> None:
    async def scenario() -> None:
        async with RawProxy(["/nonexistent/mcp-server"]) as proxy:
            status, out, err = await proxy.wait()
            assert status == 1 and out == b""
            assert b"cannot run '/nonexistent/mcp-server'" in err

    run(scenario())


def test_stats_on_sigusr1_and_exit_and_logs_to_a_file(tmp_path: Path) -> None:
    stats_file, log_file = tmp_path / "stats.json", tmp_path / "proxy.log"
    rows = [{"id": i, "name": f"n{i}", "ok": True} for i in range(20)]
    text = orjson.dumps(rows, option=orjson.OPT_INDENT_2).decode()
    options = ("--stats-file", str(stats_file), "--log-file", str(log_file), "--log-level", "info")

    async def scenario() -> None:
        async with RawProxy(LINE_SERVER, *options) as proxy:
            await proxy.send(call(1, text))
            await proxy.recv()
            assert proxy.process is not None
            proxy.process.send_signal(signal.SIGUSR1)
            for _ in range(100):  # the handler runs on the proxy's event loop
                if stats_file.exists():
                    break
                await asyncio.sleep(0.05)
            stats = orjson.loads(stats_file.read_bytes())
            assert stats["server"] == "line_server"
            tool = stats["tools"]["t"]
            assert (tool["calls"], tool["rewritten"]) == (1, 1)
            assert tool["tokens_after"] < tool["tokens_before"]
            assert tool["bytes_after"] < tool["bytes_before"]
            await proxy.send(call(2, text))
            await proxy.recv()
            status, _, err = await proxy.finish()
            assert status == 0
            assert err.count(b"gcxwire proxy stats for line_server") == 2  # SIGUSR1 and exit
            assert orjson.loads(stats_file.read_bytes())["tools"]["t"]["calls"] == 2
            assert b"gcxwire proxy INFO" not in err  # logs went to the file
            assert "started line_server" in log_file.read_text()

    run(scenario())


def test_the_gcxwire_command_runs_the_proxy() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "gcxwire", "proxy", "--help"], capture_output=True, text=True
    )
    assert done.returncode == 0 and "--structured {keep,drop}" in done.stdout


def test_a_large_table_is_rewritten_off_the_event_loop_and_in_order() -> None:
    rows = [{"id": i, "name": f"user{i}", "score": i / 8, "ok": i % 3 == 0} for i in range(16000)]
    text = orjson.dumps(rows, option=orjson.OPT_INDENT_2).decode()
    assert len(text) > 1 << 20  # over link.OFFLOAD_BYTES: encoded in a worker thread

    async def scenario() -> None:
        async with RawProxy(LINE_SERVER) as proxy:
            await proxy.send(call(1, text))
            await proxy.send(req(2, "echo", {"after": "the table"}))
            first, second = await proxy.recv(), await proxy.recv()
            assert first["id"] == 1 and second["id"] == 2
            assert gcxwire.decode(first["result"]["content"][-1]["text"]) == rows

    run(scenario())


def test_a_cancelled_request_is_forwarded_and_no_longer_answered_by_the_proxy() -> None:
    async def scenario() -> None:
        async with RawProxy(LINE_SERVER) as proxy:
            await proxy.send(req(1, "hold"))
            await proxy.send(req(2, "hold"))
            cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled"}
            await proxy.send({**cancel, "params": {"requestId": 1, "reason": "user"}})
            await proxy.send(req(3, "crash", {"status": 0}))
            errors = [await proxy.recv(), await proxy.recv()]
            assert [e["id"] for e in errors] == [2, 3]  # not 1: it was cancelled
            status, rest, _ = await proxy.wait()
            assert status == 0 and rest == b""

    run(scenario())


def test_cwd_option_sets_the_server_working_directory(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with RawProxy(LINE_SERVER, "--cwd", str(tmp_path)) as proxy:
            await proxy.send(req(1, "cwd"))
            assert (await proxy.recv())["result"]["cwd"] == str(tmp_path.resolve())

    run(scenario())


def test_sigterm_stops_the_server_like_client_eof() -> None:
    async def scenario() -> None:
        async with RawProxy(LINE_SERVER, "--log-level", "info") as proxy:
            await proxy.send(req(1, "echo", {}))
            await proxy.recv()
            assert proxy.process is not None
            proxy.process.send_signal(signal.SIGTERM)
            status, rest, err = await proxy.wait()
            assert status == 0 and rest == b""  # the server exited on stdin EOF
            assert b"line_server exited with status 0" in err

    run(scenario())
