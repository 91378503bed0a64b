"""The proxy counts long candidates from samples, and exactly where they are close."""

from __future__ import annotations

from gcxwire.proxy import codecs
from gcxwire.proxy.interceptor import Encoding, cheapest, no_more


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
