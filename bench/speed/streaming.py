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
    """About ``total`` bytes of GCX1 in ``chunk``-byte pieces (cut anywhere, even mid-row).

    The repeated block is built here, before the caller starts tracing memory.
    """
    text = gcx.encode(symbols(2000), tool="search_symbols") + "\n"  # a block > any chunk
    header, body = text.split("\n", 1)
    return _pieces((header + "\n").encode(), body.encode(), total, chunk)


def _pieces(head: bytes, block: bytes, total: int, chunk: int) -> Iterator[bytes]:
    yield head
    sent = len(head)
    view = memoryview(block)
    at = 0  # the next piece starts at view[at], wrapping around the block
    while sent < total:
        piece = bytes(view[at : at + chunk])
        if len(piece) < chunk:  # wrap: the rest of the block, then its start again
            piece += bytes(view[: chunk - len(piece)])
        at = (at + chunk) % len(block)
        sent += len(piece)
        yield piece


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
    pieces = payload(total, chunk)
    if trace:
        tracemalloc.start()
    start = time.perf_counter()
    for piece in pieces:
        size += len(piece)
        rows += len(decoder.feed(piece))
    rows += len(decoder.close())
    seconds = time.perf_counter() - start
    peak = 0
    if trace:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return StreamResult(size, rows, seconds, peak)
