"""The proxy counts long candidates from samples, and exactly where they are close."""

from __future__ import annotations

import json
from typing import Any

import gcxwire
from gcxwire import tokens
from gcxwire.proxy import codecs
from gcxwire.proxy.cli import build_interceptor
from gcxwire.proxy.interceptor import Encoding, cheapest, no_more
from gcxwire.proxy.options import parse_options
from gcxwire.proxy.stats import ProxyStats


def _long(cell: str, rows: int = 8000) -> str:
    """A table longer than EXACT_STATS whose rows differ (windows then disagree a little)."""
    return "".join(f"{cell}{i * 7919 % 100003}\t{'ab' * (i % 5)}\n" for i in range(rows))


def test_long_texts_carry_an_estimate_short_ones_an_exact_count() -> None:
    assert Encoding.of("[1,2,3]", "json").spread == 0
    long = Encoding.of(_long("x\tWalk\t"), "gcx")
    assert len(long.text) > codecs.EXACT_STATS
    assert long.spread > 0
    assert long.exactly().tokens == codecs.count_tokens(long.text)


def test_close_estimates_are_settled_by_exact_counts() -> None:
    # Same text twice: estimates equal, so only exact counts can pick; the first wins ties.
    text = _long("a\tWalkGraph\t")
    first, second = Encoding.of(text, "dcp"), Encoding.of(text, "gcx")
    assert cheapest([first, second]).format == "dcp"
    assert cheapest([first, second]).spread == 0  # counted, not estimated
    assert no_more(second, first)


def test_far_apart_estimates_decide_alone() -> None:
    small = Encoding.of(_long("a\t"), "gcx")
    big = Encoding.of(_long("a\t") * 3, "json")
    chosen = cheapest([big, small])
    assert chosen is small and chosen.spread > 0


def test_a_sixty_row_result_is_estimated_not_tokenized_in_full(monkeypatch: Any) -> None:
    # Its texts (as sent, compact, GCX1, DCP, the hint) are a few thousand characters
    # each: counting them all took more CPU than the rest of the rewrite.
    value = [
        {"id": i, "name": f"user{i}", "active": i % 2 == 0, "note": None if i % 3 else f"n {i}\tt"}
        for i in range(60)
    ]
    text = json.dumps(value, indent=2)
    counted: list[str] = []
    real = tokens.count

    def spy(part: str, encoding: str = "cl100k_base") -> int:
        counted.append(part)
        return real(part, encoding)

    monkeypatch.setattr(tokens, "count", spy)
    interceptor = build_interceptor(parse_options(["--", "server"]), ProxyStats("s"))
    new = interceptor.rewrite_tool_result("t", {"content": [{"type": "text", "text": text}]})
    assert new is not None and gcxwire.decode(new["content"][-1]["text"]) == value
    assert text not in counted and json.dumps(value, separators=(",", ":")) not in counted
    assert sum(map(len, counted)) < 2 * len(text)
