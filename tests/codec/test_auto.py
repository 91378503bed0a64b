"""format="auto": never worse than compact JSON, never lossy; format recognition."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import strategies as st

import gcxwire
from gcxwire import _auto, tokens
from gcxwire._gcx_encode import lines_fit_go
from gcxwire._values import difference
from gcxwire.errors import DecodeError, EncodeValueError

from ..tiers import prove, tiers

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=6), inner, max_size=5)
    ),
    max_leaves=25,
)
# Tool results are mostly lists of records: give the table formats a fair chance.
records = st.lists(
    st.fixed_dictionaries(
        {"id": st.integers(0, 10**6), "name": st.text(max_size=10)},
        optional={"score": st.floats(allow_nan=False, allow_infinity=False), "tag": st.none()},
    ),
    max_size=8,
)
VALUES = json_values | records


@tiers(fast=30, many=150)
def test_auto_is_never_worse_than_compact_json(examples: int) -> None:
    prove(examples, never_worse_than_compact_json, VALUES)


def never_worse_than_compact_json(value: Any) -> None:
    baseline = _auto.compact_json(value)
    chosen = _auto.encode(value, tool="t", format="auto")
    assert tokens.count(chosen) <= tokens.count(baseline)
    if tokens.count(chosen) == tokens.count(baseline):
        assert chosen == baseline  # a tie keeps plain JSON


@tiers(fast=30, many=150)
def test_auto_round_trips_exactly(examples: int) -> None:
    prove(examples, round_trips_exactly, VALUES)


def round_trips_exactly(value: Any) -> None:
    text = _auto.encode(value, tool="search", format="auto")
    assert difference(value, _auto.decode(text)) is None


@pytest.fixture
def fake_gcx(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Stand a scripted codec in for gcx, to pin the selection rule itself.

    The real codecs are exercised by the property tests above.
    """
    script: dict[str, Any] = {}

    def encode(value: Any, *, tool: str) -> str:
        if isinstance(script["text"], Exception):
            raise script["text"]
        return str(script["text"])

    def decode(text: str, limits: Any = None) -> Any:
        return script["decoded"]

    monkeypatch.setitem(_auto._ENCODERS, "gcx", lambda value, tool: encode(value, tool=tool))
    monkeypatch.setitem(_auto._DECODERS, "gcx", decode)
    monkeypatch.delitem(_auto._ENCODERS, "dcp")
    return script


VALUE = [{"id": 1, "name": "a long enough name to cost some tokens"}] * 3


def test_auto_takes_a_cheaper_lossless_candidate(fake_gcx: dict[str, Any]) -> None:
    fake_gcx.update(text="GCX1 cheap", decoded=[dict(row) for row in VALUE])
    assert _auto.encode(VALUE, tool="t") == "GCX1 cheap"


def test_auto_skips_a_cheaper_candidate_that_loses_data(fake_gcx: dict[str, Any]) -> None:
    fake_gcx.update(text="GCX1 cheap", decoded=[{"id": 1.0, "name": row["name"]} for row in VALUE])
    assert _auto.encode(VALUE, tool="t") == _auto.compact_json(VALUE)


def test_auto_keeps_json_on_a_tie(fake_gcx: dict[str, Any]) -> None:
    baseline = _auto.compact_json(VALUE)
    same_cost = "GCX1" + "x" * 2  # pad to exactly the baseline's token count
    while tokens.count(same_cost) < tokens.count(baseline):
        same_cost += " x"
    assert tokens.count(same_cost) == tokens.count(baseline)
    fake_gcx.update(text=same_cost, decoded=VALUE)
    assert _auto.encode(VALUE, tool="t") == baseline


def test_auto_skips_a_candidate_that_cannot_encode(fake_gcx: dict[str, Any]) -> None:
    fake_gcx.update(text=EncodeValueError("cannot carry this", "$[0]"), decoded=None)
    assert _auto.encode(VALUE, tool="t") == _auto.compact_json(VALUE)


def test_forced_formats() -> None:
    assert _auto.encode({"b": 1, "a": None}, tool="t", format="json") == '{"b":1,"a":null}'
    with pytest.raises(ValueError, match="Unknown format"):
        _auto.encode(1, tool="t", format="yaml")  # type: ignore[arg-type]


def test_compact_json_keeps_big_integers_exact() -> None:
    value = {"n": 2**70, "m": -(2**64)}
    text = _auto.compact_json(value)
    assert text == '{"n":1180591620717411303424,"m":-18446744073709551616}'
    assert difference(value, _auto.decode(text)) is None


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("GCX1 tool=t fields=a rows=1\nx", "gcx"),
        ("GCX2 tool=t fields=a", "gcx"),  # the gcx codec reports the unsupported version
        ("\n\r\nGCX1 tool=t fields=a\nx", "gcx"),  # blank lines before the header
        ('["$S", "t:v1", "a"]\n[1]', "dcp"),  # dcp-py writes spaced arrays
        ('["$S","t:v1","a","b"]\n[1,2]', "dcp"),
        ('{"total_count":2}\n["$S","t:v1","a"]\n[1]\n[2]', "dcp"),
        ('["$S","t:v1","a"]', "json"),  # one line: a JSON array starting with "$S"
        ('{"a": 1}\n', "json"),
        ('{\n  "a": ["$S", 1]\n}', "json"),
        ('{"a":\n["$S",1]}', "json"),  # first line is not an object by itself
        ("[1,2]", "json"),
        ('"GCX1"', "json"),
    ],
)
def test_detect(text: str, kind: str) -> None:
    assert _auto.detect(text) == kind


def test_decode_json_error_has_line_and_column() -> None:
    with pytest.raises(DecodeError) as info:
        _auto.decode('{"a": 1,\n "b": }')
    assert (info.value.lineno, info.value.colno) == (2, 7)


@pytest.mark.parametrize(
    ("got", "want", "where"),
    [
        ({"a": [1, 2]}, {"a": [1, 2]}, None),
        ({"a": [1, 2.0]}, {"a": [1, 2]}, "$.a[1]"),
        ([True], [1], "$[0]"),
        ([0.0], [-0.0], "$[0]"),
        ({"b": 1, "a": 2}, {"a": 2, "b": 1}, "$ (key order)"),
        ({"a": 1}, {"a": 1, "b": None}, "$.b"),
        ([1, 2], [1, 2, 3], "$[2]"),
        ({"x": {"y": "z"}}, {"x": {"y": "Z"}}, "$.x.y"),
        (float("nan"), float("nan"), None),
    ],
)
def test_difference(got: Any, want: Any, where: str | None) -> None:
    found = difference(want, got)
    assert (None if found is None else found[0]) == where


GO_LINE = 4 * 1024 * 1024  # bytes: gortex's Go decoder refuses a line this long (seen, Go 1.19)


@pytest.mark.parametrize(
    ("text", "fits"),
    [
        ("GCX1 tool=t fields=a\n" + "x" * (GO_LINE - 1), True),
        ("GCX1 tool=t fields=a\n" + "x" * GO_LINE, False),
        ("GCX1 tool=t fields=a\n" + "x" * (GO_LINE - 1) + "\r\n1", False),  # the CR counts
        ("GCX1 tool=t fields=a\n" + "é" * (GO_LINE // 2), False),  # bytes, not characters
        ("GCX1 tool=t fields=a\n" + ("x" * (GO_LINE // 2) + "\n") * 3, True),  # per line
    ],
    ids=["one-byte-short", "4MiB", "4MiB-with-CR", "4MiB-of-utf8", "long-text-short-lines"],
)
def test_lines_fit_go_at_the_go_decoders_limit(text: str, fits: bool) -> None:
    assert lines_fit_go(text) is fits


@pytest.mark.slow
def test_auto_does_not_send_gcx1_lines_the_go_decoder_refuses() -> None:
    # Each row's text is one GCX1 line; a 4 MiB cell would make the payload unreadable in Go.
    value = [{"id": 0, "a": "x y " * (GO_LINE // 4 + 10)}, {"id": 1, "a": "b"}, {"id": 2, "a": "c"}]
    text = gcxwire.encode(value, tool="t")
    assert not text.startswith("GCX1")
    assert gcxwire.decode(text) == value
