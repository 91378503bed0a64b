"""Streaming decode of a large GCX1 payload through ``gcx.Decoder.feed``.

The payload is generated chunk by chunk (a header, then the same block of
search_symbols rows again and again), so the only thing that can grow while
tracemalloc watches is the decoder itself.
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Iterator
from dataclasses import dataclass

from workloads import symbols

from gcxwire import gcx


def payload(total: int, chunk: int) -> Iterator[bytes]:
    """About ``total`` bytes of GCX1 in ``chunk``-byte pieces (cut anywhere, even mid-row)."""
    text = gcx.encode(symbols(500), tool="search_symbols") + "\n"
    header, body = text.split("\n", 1)
    block = body.encode()
    yield (header + "\n").encode()
    sent = len(header) + 1
    buf = b""
    while sent < total:
        buf += block
        sent += len(block)
        while len(buf) >= chunk:
            yield buf[:chunk]
            buf = buf[chunk:]
    if buf:
        yield buf


@dataclass
class StreamResult:
    size: int
    rows: int
    seconds: float
    peak: int  # bytes, tracemalloc peak while feeding


def stream_decode(total: int, chunk: int = 1 << 16, *, trace: bool = True) -> StreamResult:
    """Feed ``total`` bytes and drop each row once decoded, as a consumer would."""
    decoder = gcx.Decoder()
    rows = size = 0
    if trace:
        tracemalloc.start()
    start = time.perf_counter()
    for piece in payload(total, chunk):
        size += len(piece)
        rows += len(decoder.feed(piece))
    rows += len(decoder.close())
    seconds = time.perf_counter() - start
    peak = 0
    if trace:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return StreamResult(size, rows, seconds, peak)
