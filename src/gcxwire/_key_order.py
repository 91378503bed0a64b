"""One column order that every row's own key order agrees with.

The pure key-order leaf and the encoder's general path (dict subclasses,
non-str keys) both fall back to this merge when rows disagree on key order.
"""

from __future__ import annotations

import heapq
from collections.abc import Collection


def merge_key_orders(
    shapes: Collection[tuple[str, ...]], first: dict[str, int]
) -> list[str] | None:
    """A topological merge of the rows' key tuples ``shapes``; ``first`` is each
    key's first appearance, which breaks ties. None when the rows' orders clash."""
    after: dict[str, set[str]] = {k: set() for k in first}
    pending = dict.fromkeys(first, 0)
    for keys in shapes:
        for a, b in zip(keys, keys[1:], strict=False):
            if b not in after[a]:
                after[a].add(b)
                pending[b] += 1
    ready = [(first[k], k) for k, n in pending.items() if n == 0]
    heapq.heapify(ready)
    order: list[str] = []
    while ready:
        _, key = heapq.heappop(ready)
        order.append(key)
        for nxt in after[key]:
            pending[nxt] -= 1
            if pending[nxt] == 0:
                heapq.heappush(ready, (first[nxt], nxt))
    return order if len(order) == len(first) else None
