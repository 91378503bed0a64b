"""A streamed decode holds one chunk and its rows, never the payload."""

from __future__ import annotations

from typing import Any

import pytest
from streaming import stream_decode


@pytest.mark.parametrize("chunk", [4 << 10, 64 << 10], ids=["4KiB", "64KiB"])
def test_streaming_memory_stays_flat(
    request: pytest.FixtureRequest, benchmark: Any, chunk: int
) -> None:
    total = (2 if request.config.getoption("quick") else 50) << 20
    result = benchmark.pedantic(stream_decode, args=(total, chunk), rounds=1, iterations=1)
    benchmark.extra_info.update(
        mb=result.size / 2**20, rows=result.rows, peak_kib=result.peak / 1024
    )
    assert result.size >= total
    assert result.rows > result.size // 200  # the rows were really decoded
    # The peak follows the chunk (the rows it completes), not the payload size.
    assert result.peak < 16 * chunk, result
