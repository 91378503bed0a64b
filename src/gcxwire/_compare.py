"""Strict comparison of JSON values, the yardstick of every round-trip check."""

from __future__ import annotations

import math
from typing import Any

import orjson

from ._common import path_join

__all__ = ["difference", "same"]


def same(want: Any, got: Any, want_json: bytes | None = None) -> bool:
    """Whether ``difference(want, got)`` finds nothing, judged in C where it can be.

    Two JSON values that orjson writes as the same bytes have the same types
    (``1``, ``1.0`` and ``true`` differ in text), key order and float signs; the
    one thing the text cannot tell apart is NaN or infinity from ``null``, so a
    text holding ``null`` also needs ``==``. Where orjson cannot write a value
    (ints beyond 64 bits, non-string keys) the Python walk decides. ``want_json``
    is ``orjson.dumps(want)`` when the caller has it already. Containers are
    judged as JSON: a tuple is the same as a list with the same items.
    """
    try:
        if want_json is None:
            want_json = orjson.dumps(want)
        got_json = orjson.dumps(got)
    except (orjson.JSONEncodeError, TypeError):
        return difference(want, got) is None
    if got_json != want_json:
        return False
    if b"null" not in want_json or want == got:
        return True
    return difference(want, got) is None  # NaN, which == never finds equal


def difference(want: Any, got: Any, path: str = "$") -> tuple[str, str] | None:
    """Where and how ``got`` differs from ``want``: ``(JSONPath, reason)``, or None.

    Stricter than ``==``: ``1``, ``1.0`` and ``True`` differ, ``-0.0`` differs
    from ``0.0``, and objects must list their keys in the same order (a
    key-order-only difference has the path ``<path> (key order)``).
    """
    if type(got) is not type(want):
        return path, f"{type(want).__name__} reads back as {type(got).__name__}"
    if isinstance(want, dict):
        if list(got) != list(want):
            missing = [k for k in want if k not in got] + [k for k in got if k not in want]
            if missing:
                return path_join(path, missing[0]), f"key {missing[0]!r} is lost or added"
            return f"{path} (key order)", f"keys {list(want)} read back as {list(got)}"
        for key, item in want.items():
            found = difference(item, got[key], path_join(path, key))
            if found is not None:
                return found
        return None
    if isinstance(want, list):
        for index, (left, right) in enumerate(zip(want, got)):
            found = difference(left, right, path_join(path, index))
            if found is not None:
                return found
        if len(got) != len(want):
            where = path_join(path, min(len(got), len(want)))
            return where, f"{len(want)} items read back as {len(got)}"
        return None
    if isinstance(want, float):
        same = got == want and math.copysign(1.0, got) == math.copysign(1.0, want)
        if same or (math.isnan(got) and math.isnan(want)):
            return None
    elif got == want:
        return None
    return path, f"{want!r} reads back as {got!r}"
