"""The decoder entry points every fuzzer and property test drives, one function each.

A target takes raw bytes, hands them to one decoder, and lets ``DecodeError`` go: that
is the only exception a decoder may raise on bad input. Anything else escapes to the
caller, which reports it as a bug. No assertion here can pass vacuously: each target
runs the decoder on every input it gets.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from functools import cache
from pathlib import Path

import gcxwire
from gcxwire import dcp, gcx
from gcxwire.errors import DecodeError, EncodeError

__all__ = ["TARGETS", "Target", "dcp_registry"]

Target = Callable[[bytes], None]

_DCP_INPUTS = Path(__file__).resolve().parents[1] / "data" / "dcp" / "inputs"


@cache
def dcp_registry() -> dcp.SchemaRegistry:
    """Schemas inferred from the DCP golden inputs, plus one with ``$R`` sub-rows.

    With these, ``dcp.decode(text, schema=...)`` also walks the mapping paths and
    sub-row expansion that a decode without a schema never reaches.
    """
    registry = dcp.SchemaRegistry()
    samples = {
        p.stem: json.loads(p.read_text(encoding="utf-8")) for p in _DCP_INPUTS.glob("*.json")
    }
    samples["nested"] = [
        {"id": i, "tags": [{"k": "a", "v": j} for j in range(3)]} for i in range(5)
    ]
    for name, records in sorted(samples.items()):
        try:
            registry.add(dcp.infer_schema(records, domain=name))
        except EncodeError:  # the dirty fixture holds a null record: no schema to infer
            continue
    return registry


def _text(data: bytes) -> str:
    # Invalid UTF-8 becomes lone surrogates: a str decoders must handle too.
    return data.decode("utf-8", "surrogateescape")


def _gcx(call: Callable[[str | bytes], object], data: bytes) -> None:
    # bytes in: the decoder's own UTF-8 check; when that refuses, the same text as str.
    try:
        call(data)
        return
    except DecodeError:
        pass
    try:
        call(_text(data))
    except DecodeError:
        pass


def gcx_decode(data: bytes) -> None:
    _gcx(gcx.decode, data)


def gcx_parse(data: bytes) -> None:
    _gcx(gcx.parse, data)


def gcx_stream(data: bytes) -> None:
    """The streaming Decoder, fed in chunks whose size (1..97 bytes) comes from the input."""
    mix = zlib.crc32(data)
    size = 1 + mix % 97
    decoder = gcx.Decoder(typed=bool(mix & 0x100))
    try:
        for start in range(0, len(data), size):
            decoder.feed(data[start : start + size])
        decoder.close()
    except DecodeError:
        pass


def dcp_decode(data: bytes) -> None:
    text = _text(data)
    try:
        dcp.decode(text)
    except DecodeError:
        pass
    try:
        dcp.decode(text, schema=dcp_registry())
    except DecodeError:
        pass


def any_decode(data: bytes) -> None:
    try:
        gcxwire.decode(_text(data))
    except DecodeError:
        pass


TARGETS: dict[str, Target] = {
    "gcx.decode": gcx_decode,
    "gcx.parse": gcx_parse,
    "gcx.Decoder": gcx_stream,
    "dcp.decode": dcp_decode,
    "gcxwire.decode": any_decode,
}
