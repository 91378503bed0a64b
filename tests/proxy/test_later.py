"""A rewrite's stats (byte sizes, the compact JSON baseline's tokens) are
counted once the answer is written, not before: the client does not wait."""

from __future__ import annotations

import orjson

from gcxwire.proxy import later
from gcxwire.proxy.cli import build_interceptor
from gcxwire.proxy.jsonrpc import PendingRequest, parse_line
from gcxwire.proxy.link import UpstreamLink
from gcxwire.proxy.options import parse_options
from gcxwire.proxy.stats import ProxyStats


class _NoUpstream:
    name = "server"


def _link() -> tuple[UpstreamLink, ProxyStats]:
    options = parse_options(["--", "server"])
    stats = ProxyStats(options.server_name)
    link = UpstreamLink(_NoUpstream(), build_interceptor(options, stats), None)  # type: ignore[arg-type]
    return link, stats


def _answer(rid: int, value: object) -> bytes:
    text = orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    result = {"content": [{"type": "text", "text": text}]}
    return orjson.dumps({"jsonrpc": "2.0", "id": rid, "result": result})


ROWS = [{"id": i, "name": f"user{i}", "ok": i % 2 == 0} for i in range(30)]


def test_a_rewritten_answer_is_counted_once_it_is_written() -> None:
    link, stats = _link()
    link.pending.add(PendingRequest(1, "tools/call", {"name": "rows"}))
    line = _answer(1, ROWS)
    out = link.answer_blocking(line, parse_line(line))
    assert out != line  # rewritten
    counters = stats.tool("rows")
    assert counters.rewritten == 1
    assert (counters.bytes_before, counters.bytes_after, counters.tokens_compact) == (0, 0, 0)
    link.settle()
    assert counters.bytes_before == len(orjson.dumps(orjson.loads(line)["result"]))
    assert counters.bytes_after == len(orjson.dumps(orjson.loads(out)["result"]))
    assert counters.tokens_compact > 0
    link.settle()  # nothing left: counted once
    assert counters.bytes_before == len(orjson.dumps(orjson.loads(line)["result"]))


def test_a_passed_answer_is_counted_once_it_is_written_and_a_plain_answer_at_once() -> None:
    link, stats = _link()
    link.pending.add(PendingRequest(2, "tools/call", {"name": "note"}))
    result = {"content": [{"type": "text", "text": "not json at all"}]}
    line = orjson.dumps({"jsonrpc": "2.0", "id": 2, "result": result})
    assert link.answer_blocking(line, parse_line(line)) == line
    assert stats.tool("note").tokens_before == 0
    link.settle()
    assert stats.tool("note").tokens_before > 0
    link.pending.add(PendingRequest(3, "tools/call", {"name": "rows"}))
    link.answer(_answer(3, ROWS))  # no relay writes after it: counted at once
    assert stats.tool("rows").bytes_after > 0


def test_stats_work_that_fails_is_logged_and_the_rest_still_runs() -> None:
    done: list[int] = []

    def fails() -> None:
        raise RuntimeError("boom")

    with later.deferring():
        later.later(fails)
        later.later(lambda: done.append(1))
    assert done == []
    later.settle()
    assert done == [1]
