"""codecs.reads_back: the read-back comparison of a value the proxy parsed."""

from __future__ import annotations

import math
from typing import Any

import orjson
import pytest

from gcxwire.proxy import codecs

PARSED = codecs.loads('[{"id": 1, "x": null, "f": 1.5}, {"id": 2, "x": "a", "f": -0.0}]')


@pytest.mark.parametrize("value_json", [orjson.dumps(PARSED), None])
def test_the_same_value_reads_back(value_json: bytes | None) -> None:
    copy = orjson.loads(orjson.dumps(PARSED))
    assert codecs.reads_back(PARSED, copy, value_json)


@pytest.mark.parametrize(
    "changed",
    [
        [{"id": 1, "x": math.nan, "f": 1.5}, {"id": 2, "x": "a", "f": -0.0}],  # written null too
        [{"id": 1, "x": None, "f": math.inf}, {"id": 2, "x": "a", "f": -0.0}],
        [{"id": 1, "x": None, "f": 1.5}, {"id": 2, "x": "a", "f": 0.0}],
        [{"id": 1.0, "x": None, "f": 1.5}, {"id": 2, "x": "a", "f": -0.0}],
        [{"x": None, "id": 1, "f": 1.5}, {"id": 2, "x": "a", "f": -0.0}],  # key order
        [{"id": 1, "x": None, "f": 1.5}, {"id": 2, "x": "a", "f": -0.0, "g": None}],
    ],
)
def test_a_different_value_does_not(changed: Any) -> None:
    assert not codecs.reads_back(PARSED, changed, orjson.dumps(PARSED))
    assert not codecs.reads_back(PARSED, changed, None)


def test_ints_past_64_bits_take_the_exact_walk() -> None:
    big = codecs.loads('{"n": 123456789012345678901234567890, "x": null}')
    value_json = codecs.compact(big).encode()
    assert codecs.reads_back(big, {"n": 123456789012345678901234567890, "x": None}, value_json)
    assert not codecs.reads_back(big, {"n": 123456789012345678901234567891, "x": None}, value_json)
    assert not codecs.reads_back(big, {"n": 1.2345678901234568e29, "x": None}, value_json)
