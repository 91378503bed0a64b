"""Broken payloads raise DecodeError, and only DecodeError, quickly.

Hypothesis takes valid payloads (the fuzz seed corpus: reference goldens and bench
cases; and fresh encodings of generated values) and breaks them the ways wires
break them: flipped, inserted and deleted bytes, lines spliced in from another
payload, moved, doubled or dropped, and truncation. Every decoder entry point then
gets the result: ``gcx.decode``, ``gcx.parse``, ``gcx.Decoder`` fed in chunks,
``dcp.decode`` (with and without schemas) and ``gcxwire.decode``. Any other
exception fails the test with its traceback; so does an input taking over 1 s.

The module runs on whichever twin is imported (CI runs it on both).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import gcxwire
from gcxwire import dcp, gcx
from gcxwire.errors import DecodeError, EncodeError
from tests.fuzz.targets import TARGETS, Target
from tests.strategies import json_values, responses, tables

CORPUS = Path(__file__).parent.parent / "fuzz" / "corpus"
CORPUS_KINDS = ("gcx", "dcp", "json")
SEEDS = {kind: sorted(p.read_bytes() for p in (CORPUS / kind).iterdir()) for kind in CORPUS_KINDS}
# One input taking more CPU time than this counts as a hang. Each takes well under
# a millisecond alone; CPU time, not the wall clock, so a busy machine cannot fail it.
HANG_SECONDS = 10.0

# Bytes that mean something to one of the grammars, or break UTF-8.
SPECIAL = [
    b"\t", b"\n", b"\r\n", b"\r", b"\\", b"\\\\", b"[", b"]", b"{", b"}", b'"', b",", b":",
    b"=", b" ", b"#", b"GCX1 ", b"GCX2 ", b"tool=", b"fields=", b"of=", b"is=list",
    b"is=value", b"is=object", b"empty=null", b"float=", b"flat=", b'["$S",', b'"$R",',
    b'"$N",', b'"-"', b"-", b"0", b"1e", b"e999", b"1234567890123456789", b"true", b"null",
    b"\x00", b"\xff", b"\xc3", b"\xe2\x80", b"\xed\xa0\x80", b"[" * 600, b"{" * 600,
]  # fmt: skip

settings.register_profile(
    "fuzz-properties",
    max_examples=200,
    deadline=None,  # CPU time is checked per input below, against HANG_SECONDS
    # Shrinking a 4 KB payload can take minutes; the unshrunk input is report enough.
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _encodings(value: Any) -> list[bytes]:
    out = []
    encoders: tuple[Callable[[Any], str], ...] = (
        lambda v: gcx.encode(v, tool="t"),
        lambda v: gcx.encode(v, tool="t", profile="reference"),
        lambda v: dcp.encode(v),
        lambda v: dcp.encode(v, dialect="v0.3"),
        lambda v: dcp.encode(v, dialect="dcp-py"),
    )
    for encode in encoders:
        try:
            out.append(encode(value).encode("utf-8", "surrogatepass"))
        except EncodeError:
            continue
    return out


FRESH = st.one_of(json_values(), tables(), tables(styled=True), responses()).map(_encodings)


def payloads(kinds: tuple[str, ...]) -> st.SearchStrategy[bytes]:
    seeds = [seed for kind in kinds for seed in SEEDS[kind]]
    fresh = FRESH.filter(bool).flatmap(st.sampled_from)
    return st.one_of(st.sampled_from(seeds), fresh)


@st.composite
def broken(draw: st.DrawFn, kinds: tuple[str, ...]) -> bytes:
    """A valid payload with one to six breakages applied in turn."""
    data = bytearray(draw(payloads(kinds)))
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["flip", "insert", "delete", "splice", "lines", "truncate"]))
        at = draw(st.integers(0, len(data)))
        if op == "flip" and data:
            at = min(at, len(data) - 1)
            data[at] ^= draw(st.sampled_from([1, 2, 4, 8, 16, 32, 64, 128, 255]))
        elif op == "insert":
            data[at:at] = draw(st.one_of(st.sampled_from(SPECIAL), st.binary(max_size=4)))
        elif op == "delete":
            del data[at : at + draw(st.integers(1, 16))]
        elif op == "splice":  # a line of another payload lands among ours
            other = draw(payloads(("gcx", "dcp", "json"))).split(b"\n")
            lines = bytes(data).split(b"\n")
            lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(other)))
            data = bytearray(b"\n".join(lines))
        elif op == "lines":  # one of our own lines moved, doubled or dropped
            lines = bytes(data).split(b"\n")
            line = lines.pop(draw(st.integers(0, len(lines) - 1)))
            how = draw(st.sampled_from(["move", "double", "drop"]))
            if how != "drop":
                lines.insert(draw(st.integers(0, len(lines))), line)
            if how == "double":
                lines.insert(draw(st.integers(0, len(lines))), line)
            data = bytearray(b"\n".join(lines))
        elif op == "truncate":
            del data[at:]
    return bytes(data)


def _run(target: Target, data: bytes) -> None:
    """The target lets DecodeError go and nothing else; anything else fails here."""
    start = time.process_time()
    target(data)
    elapsed = time.process_time() - start
    assert elapsed < HANG_SECONDS, f"{elapsed:.2f} s of CPU on one input: {data[:200]!r}"


@pytest.mark.slow  # 200 broken payloads per test and twin: the CI slow step
@settings(settings.get_profile("fuzz-properties"))
@given(broken(("gcx",)))
def test_gcx_decode_raises_only_decode_error(data: bytes) -> None:
    _run(TARGETS["gcx.decode"], data)


@pytest.mark.slow  # 200 broken payloads per test and twin: the CI slow step
@settings(settings.get_profile("fuzz-properties"))
@given(broken(("gcx",)))
def test_gcx_parse_raises_only_decode_error(data: bytes) -> None:
    _run(TARGETS["gcx.parse"], data)


@pytest.mark.slow  # 200 broken payloads per test and twin: the CI slow step
@settings(settings.get_profile("fuzz-properties"))
@given(broken(("gcx",)), st.integers(1, 64), st.booleans())
def test_gcx_stream_decoder_raises_only_decode_error(data: bytes, size: int, typed: bool) -> None:
    start = time.process_time()
    decoder = gcx.Decoder(typed=typed)
    try:
        for at in range(0, len(data), size):
            decoder.feed(data[at : at + size])
        decoder.close()
    except DecodeError:
        pass
    assert time.process_time() - start < HANG_SECONDS


@pytest.mark.slow  # 200 broken payloads per test and twin: the CI slow step
@settings(settings.get_profile("fuzz-properties"))
@given(broken(("dcp",)))
def test_dcp_decode_raises_only_decode_error(data: bytes) -> None:
    _run(TARGETS["dcp.decode"], data)


@pytest.mark.slow  # 200 broken payloads per test and twin: the CI slow step
@settings(settings.get_profile("fuzz-properties"))
@given(broken(("gcx", "dcp", "json")))
def test_gcxwire_decode_raises_only_decode_error(data: bytes) -> None:
    _run(TARGETS["gcxwire.decode"], data)


@pytest.mark.slow  # 200 broken payloads per test and twin: the CI slow step
@settings(settings.get_profile("fuzz-properties"))
@given(broken(("gcx",)))
def test_stream_agrees_with_one_shot_on_broken_input(data: bytes) -> None:
    """Fed a line at a time, the Decoder accepts exactly what parse accepts, row for row."""
    try:
        sections = gcx.parse(data)
    except DecodeError:
        sections = None
    decoder = gcx.Decoder(typed=False)
    try:
        rows = [row for line in data.splitlines(keepends=True) for _, row in decoder.feed(line)]
        rows += [row for _, row in decoder.close()]
    except DecodeError:
        rows = None
    if sections is None:
        assert rows is None
    else:
        assert rows == [row for section in sections for row in section.rows]


# Inputs the fuzzers and this module found; each must raise DecodeError, promptly.
FOUND = {
    "exponent cell (extension TypeError, fixed)": b"GCX1 tool=t fields=value is=value\n-1.5e300\n",
    "json int over 4300 digits": b"1" * 5000,
    "json int over 4300 digits in a list": b"[" + b"1" * 5000 + b"]",
    "deep json with a 19-digit run": b"[" * 5000 + b"1234567890123456789" + b"]" * 5000,
    "deep gcx literal": b"GCX1 tool=t fields=a\n" + b"[" * 50000 + b"]" * 50000,
    "deep dcp row": b'["$S","x:v1","a"]\n[' + b"[" * 50000 + b"1" * 19 + b"]" * 50001,
    "deep header meta": b"GCX1 tool=t fields=a k=" + b"[" * 50000 + b" of=x\n1",
    "stream ending inside a UTF-8 sequence": b"GCX1 tool=t fields=a\n\xc2",
}


@pytest.mark.parametrize("target", sorted(TARGETS))
@pytest.mark.parametrize("data", FOUND.values(), ids=list(FOUND))
def test_found_inputs_raise_only_decode_error(target: str, data: bytes) -> None:
    _run(TARGETS[target], data)


def test_decoders_accept_their_own_output() -> None:
    """The seeds themselves decode: the mutations above start from valid payloads."""
    for seed in SEEDS["gcx"]:
        gcx.parse(seed)
    for seed in SEEDS["json"]:
        gcxwire.decode(seed.decode("utf-8"))
