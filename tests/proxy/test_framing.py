"""Line framing: arbitrary chunking, split UTF-8, no length limit."""

from __future__ import annotations

import asyncio
import random

from gcxwire.proxy.framing import LineReader


def read_all(data: bytes, chunk_sizes: list[int]) -> list[bytes]:
    async def scenario() -> list[bytes]:
        chunks = []
        pos = 0
        sizes = iter(chunk_sizes)
        while pos < len(data):
            size = next(sizes, 7)
            chunks.append(data[pos : pos + size])
            pos += size
        feed = iter(chunks)

        async def source() -> bytes:
            return next(feed, b"")

        reader = LineReader(source)
        lines = []
        while (line := await reader.readline()) is not None:
            lines.append(line)
        return lines

    return asyncio.run(scenario())


def test_lines_survive_any_chunking() -> None:
    lines = [b'{"a":1}', "é€😀".encode() * 50, b"", b"x" * 1000, b'{"b":"\\n"}']
    data = b"\n".join(lines) + b"\n"
    rng = random.Random(7)
    for _ in range(50):
        sizes = [rng.randint(1, 40) for _ in range(len(data))]
        assert read_all(data, sizes) == lines


def test_last_line_without_newline_and_crlf() -> None:
    assert read_all(b'{"a":1}\r\n{"b":2}', [3]) == [b'{"a":1}\r', b'{"b":2}']


def test_a_line_far_over_asyncio_default_limit() -> None:
    big = b"y" * (8 * 1024 * 1024)
    assert read_all(big + b"\nz\n", [1 << 16] * 200) == [big, b"z"]


def test_empty_stream() -> None:
    assert read_all(b"", []) == []
