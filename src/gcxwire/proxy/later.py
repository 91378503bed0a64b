"""Work that may wait until an answer is on its way to the client: its stats.

A rewriter calls :func:`later` for what the rewritten line does not need (byte
sizes, the compact JSON baseline's tokens). While a link rewrites an answer
(:func:`deferring`) that work is queued, and :func:`settle` runs it once the
line is written, so the client does not wait for it; elsewhere it runs at once.

``LOCK`` is held while a deferring rewrite and while queued work runs, and a
stats report takes it and settles first: a report never sees an answer half
counted, whichever thread relays it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["LOCK", "Work", "deferring", "later", "run_queued", "settle"]

log = logging.getLogger(__name__)

Work = Callable[[], None]

LOCK = threading.Lock()
_QUEUE: list[Work] = []
_DEFER: ContextVar[bool] = ContextVar("gcxwire_later", default=False)


def later(work: Work) -> None:
    """Run ``work`` once the answer being rewritten is written (now, if none is)."""
    if _DEFER.get():
        _QUEUE.append(work)
    else:
        work()


@contextmanager
def deferring() -> Iterator[None]:
    """While a rewrite runs (``LOCK`` held): :func:`later` queues its work."""
    token = _DEFER.set(True)
    try:
        yield
    finally:
        _DEFER.reset(token)


def settle() -> None:
    """Run the queued work (taking ``LOCK``)."""
    if _QUEUE:
        with LOCK:
            run_queued()


def run_queued() -> None:
    """Run the queued work, ``LOCK`` held; a failure there is logged, never raised."""
    while _QUEUE:
        work = _QUEUE.pop(0)
        try:
            work()
        except Exception:  # stats must never break the relay
            log.exception("updating the stats failed")
