"""Property tests in two tiers: a few examples in the default ``pytest``, many under ``-m slow``.

The default tier must stay within minutes on a 2-core machine while running every
property; CI's slow step runs the same properties on many more examples::

    @tiers(fast=25, many=200)
    def test_tables_round_trip(examples: int) -> None:
        prove(examples, roundtrip, tables())
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy


def tiers(*, fast: int, many: int) -> pytest.MarkDecorator:
    """Parametrize ``examples``: ``fast`` in the default tier, ``many`` in the slow one."""
    return pytest.mark.parametrize(
        "examples",
        [pytest.param(fast, id="fast"), pytest.param(many, id="many", marks=pytest.mark.slow)],
    )


def prove(examples: int, check: Callable[..., object], *strategies: SearchStrategy[Any]) -> None:
    """Call ``check(*values)`` on ``examples`` examples, one value drawn from each strategy."""

    def run(values: tuple[Any, ...]) -> None:
        check(*values)

    # Hypothesis keys its example database by the test's source, the same for every `run`:
    # the name of the check tells the properties apart (as its pytest plugin does per case).
    setattr(run, "_hypothesis_internal_add_digest", check.__qualname__.encode())  # noqa: B010
    tuned = settings(
        max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )
    tuned(given(st.tuples(*strategies))(run))()
