"""The threaded stdio relay's raw pipe pieces: line splitting on bytes, the
client writer's buffer and EPIPE, the server's pipes and the reaper's cut."""

from __future__ import annotations

import asyncio
import os
import random
import sys
import threading

import pytest

from gcxwire.errors import ClientGone, UpstreamGone
from gcxwire.proxy import pipes
from gcxwire.proxy.pipes import FdWriter, PipeUpstream, split_lines


def split(data: bytes, sizes: list[int]) -> list[bytes]:
    chunks, pos = [], 0
    for size in sizes:
        if pos >= len(data):
            break
        chunks.append(data[pos : pos + size])
        pos += size
    if pos < len(data):
        chunks.append(data[pos:])
    feed = iter(chunks)
    return list(split_lines(lambda: next(feed, b"")))


def test_lines_survive_any_chunking() -> None:
    lines = [b'{"a":1}', "é€😀".encode() * 50, b"", b"x" * 1000, b'{"b":"\\n"}']
    data = b"\n".join(lines) + b"\n"
    rng = random.Random(7)
    for _ in range(50):
        assert split(data, [rng.randint(1, 40) for _ in range(len(data))]) == lines
    assert split(data, [len(data)]) == lines  # all in one chunk
    assert split(b"one\n", [4]) == [b"one"]  # a chunk that is one whole line


def test_a_last_line_without_newline_and_an_empty_stream() -> None:
    assert split(b'{"a":1}\r\n{"b":2}', [3]) == [b'{"a":1}\r', b'{"b":2}']
    assert split(b"", []) == []
    big = b"y" * (8 << 20)
    assert split(big + b"\nz\n", [1 << 16] * 200) == [big, b"z"]


def test_the_writer_keeps_what_a_full_pipe_does_not_take_and_delivers_it_in_order(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pipes, "HIGH_WATER", 1 << 20)  # room for all: no writer waits

    async def scenario() -> bytes:
        read_end, write_end = os.pipe()
        writer = FdWriter(write_end, asyncio.get_running_loop())
        lines = [str(i).encode() * 4000 for i in range(40)]  # 160 KB: over a pipe's 64 KB
        for line in lines:  # from a thread, as the relay writes
            await asyncio.to_thread(writer.write_line, line)
        received = bytearray()
        while len(received) < sum(len(line) + 1 for line in lines):
            received += await asyncio.to_thread(os.read, read_end, 1 << 16)
        await writer.close()
        os.close(read_end)
        os.close(write_end)
        assert bytes(received) == b"".join(line + b"\n" for line in lines)
        return bytes(received)

    asyncio.run(scenario())


def test_a_writer_over_its_high_water_mark_waits_for_the_client() -> None:
    async def scenario() -> None:
        read_end, write_end = os.pipe()
        writer = FdWriter(write_end, asyncio.get_running_loop())
        line = b"x" * (200 << 10)  # fills the pipe and the buffer's room
        done = threading.Event()

        def write() -> None:
            writer.write_line(line)
            done.set()

        threading.Thread(target=write, daemon=True).start()
        await asyncio.sleep(0.2)
        assert not done.is_set()  # waits: the client has read nothing
        received = bytearray()
        while len(received) < len(line) + 1:
            received += await asyncio.to_thread(os.read, read_end, 1 << 16)
        assert await asyncio.to_thread(done.wait, 10)
        assert bytes(received) == line + b"\n"
        os.close(read_end)
        os.close(write_end)

    asyncio.run(scenario())


def test_a_client_gone_breaks_the_writer_once_and_for_all() -> None:
    async def scenario() -> None:
        read_end, write_end = os.pipe()
        writer = FdWriter(write_end, asyncio.get_running_loop())
        told = asyncio.Event()
        writer.on_broken = told.set
        os.close(read_end)
        with pytest.raises(ClientGone):
            writer.write_line(b"{}")
        await asyncio.wait_for(told.wait(), 5)
        assert writer.broken.is_set()
        with pytest.raises(ClientGone):
            writer.write_line(b"{}", wait=False)
        os.close(write_end)

    asyncio.run(scenario())


def test_the_server_pipes_carry_lines_and_end_at_its_exit() -> None:
    echo = [sys.executable, "-c", "import sys\nfor line in sys.stdin: print(line, end='')"]

    async def scenario() -> None:
        upstream = PipeUpstream(echo, name="echo")
        await upstream.start()
        await asyncio.to_thread(upstream.write_line, b'{"a":1}')
        lines = split_lines(upstream.read_chunk)
        assert await asyncio.to_thread(next, lines) == b'{"a":1}'
        assert await upstream.stop() == 0
        assert await asyncio.to_thread(list, lines) == []
        with pytest.raises(UpstreamGone):
            upstream.write_line(b"{}")

    asyncio.run(scenario())


def test_the_reaper_cut_ends_a_read_that_a_grandchild_holds_open(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from gcxwire.proxy import upstream as upstream_module

    monkeypatch.setattr(upstream_module, "DRAIN_AFTER_EXIT_TIMEOUT", 0.1)
    monkeypatch.setattr(upstream_module, "EXIT_AFTER_SIGTERM_TIMEOUT", 0.1)
    # The server exits at once; its grandchild keeps stdout open, in a group
    # of its own so that the group's signals do not end it.
    holder = "import os, time; os.setsid(); time.sleep(15)"
    code = f"import subprocess, sys; subprocess.Popen([sys.executable, '-c', {holder!r}])"

    async def scenario() -> None:
        upstream = PipeUpstream([sys.executable, "-c", code], name="exits")
        await upstream.start()
        reading = asyncio.ensure_future(asyncio.to_thread(upstream.read_chunk))
        assert await asyncio.wait_for(reading, 5) == b""  # long before the holder ends
        await upstream.reaped()

    asyncio.run(scenario())
