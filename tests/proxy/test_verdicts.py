"""Remembered races: a tool's clear winner is the only format written for
results of the same shape, and what goes out is what a race would send."""

from __future__ import annotations

import json
from typing import Any

import pytest

import gcxwire
from gcxwire.proxy import codecs
from gcxwire.proxy import interceptor as interceptor_module
from gcxwire.proxy.cli import build_interceptor
from gcxwire.proxy.codecs import DcpCodec
from gcxwire.proxy.interceptor import Encoding, ResponseInterceptor, _clear_winner
from gcxwire.proxy.lifecycle import SchemaVersion
from gcxwire.proxy.options import parse_options
from gcxwire.proxy.stats import ProxyStats
from gcxwire.proxy.tabular import Table


class CountingDcp(DcpCodec):
    """The proxy's DCP codec, counting the texts it writes."""

    def __init__(self, codec: DcpCodec) -> None:
        super().__init__(codec._dcp)
        self.written = 0

    def encode(self, table: Table, schema: SchemaVersion) -> str:
        self.written += 1
        return super().encode(table, schema)


def counted() -> tuple[ResponseInterceptor, CountingDcp]:
    parsed = parse_options(["--", "server"])
    ic = build_interceptor(parsed, ProxyStats("server"))
    assert ic.dcp is not None
    ic.dcp = CountingDcp(ic.dcp)
    return ic, ic.dcp


def rows(n: int, start: int) -> list[dict[str, Any]]:  # GCX1 wins clearly from ~10 rows
    return [
        {"id": i, "name": f"user{i}", "score": i * 1.5, "note": None if i % 3 else "x"}
        for i in range(start, start + n)
    ]


def result(value: Any) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": json.dumps(value, indent=2)}]}


def sent(ic: ResponseInterceptor, value: Any) -> str:
    new = ic.rewrite_tool_result("t", result(value))
    assert new is not None, "expected a rewrite"
    text = str(new["content"][-1]["text"])
    assert gcxwire.decode(text) == value
    return text


def test_a_clear_winner_is_the_only_format_written_for_the_same_shape() -> None:
    ic, dcp = counted()
    for call in range(2):  # the first tells the hint; the second races without it
        sent(ic, rows(40, 40 * call))
    raced = dcp.written
    assert raced == 2
    texts = [sent(ic, rows(40, 40 * call)) for call in range(2, 8)]
    assert dcp.written == raced  # decided by the remembered verdict: no DCP written
    assert all(text.startswith("GCX1 ") for text in texts)


def test_a_remembered_verdict_sends_what_a_race_sends(monkeypatch: pytest.MonkeyPatch) -> None:
    values = [rows(32 + call % 30, 100 * call) for call in range(40)]  # one octave of sizes
    remembering, _ = counted()
    got = [sent(remembering, value) for value in values]
    monkeypatch.setattr(interceptor_module, "VERDICT_USES", 1)  # every result races
    racing, _ = counted()
    assert got == [sent(racing, value) for value in values]


def test_a_close_race_is_not_remembered() -> None:
    best = Encoding("a", "gcx", 100)
    assert not _clear_winner(best, [best, Encoding("b", "json", 105)])
    assert not _clear_winner(best, [best, Encoding("b", "json", 120, spread=3.0)])
    assert _clear_winner(best, [best, Encoding("b", "json", 120)])
    assert not _clear_winner(best, [best])  # nothing beaten


def test_one_short_row_goes_out_as_compact_json_with_no_race() -> None:
    ic, dcp = counted()
    for call in range(3):
        text = sent(ic, rows(1, call))
        assert text == json.dumps(rows(1, call), separators=(",", ":"))
    assert dcp.written == 0


def test_one_short_row_is_not_counted_for_dcp() -> None:
    ic, _ = counted()
    for call in range(3):
        sent(ic, rows(1, call))
    assert ic.lifecycle is not None and "t" not in ic.lifecycle  # no schema bookkeeping
    sent(ic, rows(40, 0))  # a table that races is counted as before
    assert samples(ic) == 40


def test_several_short_rows_still_race() -> None:
    ic, dcp = counted()
    assert len(json.dumps(rows(4, 0), separators=(",", ":"))) < 200
    for call in range(3):
        sent(ic, rows(4, 4 * call))
    # A race each: GCX1 wins only by its hint, which hands the result to compact JSON.
    assert dcp.written == 3


def test_a_remembered_verdict_races_again_now_and_then() -> None:
    ic, dcp = counted()
    calls = 2 * interceptor_module.VERDICT_USES + 2
    for call in range(calls):
        sent(ic, rows(40, 40 * call))
    assert 3 <= dcp.written < calls // 4


def test_a_remembered_format_that_does_not_read_back_is_not_sent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ic, dcp = counted()
    for call in range(3):
        sent(ic, rows(40, 40 * call))
    written = dcp.written
    real_same, real_reads_back = codecs.same, codecs.reads_back

    def same_wrong(value: Any, decoded: Any, value_json: bytes | None = None) -> bool:
        if decoded == value and isinstance(value, list):
            return False
        return real_same(value, decoded, value_json)

    def reads_back_wrong(value: Any, decoded: Any, value_json: bytes | None) -> bool:
        if decoded == value and isinstance(value, list):
            return False
        return real_reads_back(value, decoded, value_json)

    # Every read-back "fails": GCX1's (reads_back) and DCP's (same).
    monkeypatch.setattr(codecs, "same", same_wrong)
    monkeypatch.setattr(codecs, "reads_back", reads_back_wrong)
    new = ic.rewrite_tool_result("t", result(rows(40, 500)))
    monkeypatch.undo()
    # The verdict's GCX1 "failed" its check, so the result went to a race (its
    # DCP failed too; gcxwire.encode's own checked pick went out).
    assert dcp.written == written + 1
    assert new is not None and gcxwire.decode(new["content"][-1]["text"]) == rows(40, 500)


def samples(ic: ResponseInterceptor) -> int:
    """Rows the lifecycle has counted for tool ``t``."""
    assert ic.lifecycle is not None
    return ic.lifecycle._entries["t"].validator.samples


def test_rows_decided_by_a_gcx1_verdict_are_not_counted_for_dcp() -> None:
    ic, _ = counted()
    for call in range(3):  # hint, race (remembered), verdict
        sent(ic, rows(40, 40 * call))
    counted_rows = samples(ic)
    assert counted_rows == 80  # the two races
    for call in range(3, 8):
        sent(ic, rows(40, 40 * call))
    assert samples(ic) == counted_rows


def nested(n: int, start: int) -> list[dict[str, Any]]:  # DCP wins: GCX1 writes JSON cells
    return [{"n": {"x": i, "y": [i]}, "m": [i, {"z": None}]} for i in range(start, start + n)]


def test_a_dcp_verdict_keeps_the_lifecycle_counting() -> None:
    ic, dcp = counted()
    texts = [sent(ic, nested(40, 40 * call)) for call in range(6)]
    assert all(text.startswith('["$S"') for text in texts[1:])
    assert samples(ic) >= 5 * 40  # every result's rows, verdict or race
    assert dcp.written == 6
