"""Encoder and Decoder: reuse, and row-at-a-time streaming over arbitrary chunks."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gcxwire import gcx
from gcxwire.errors import DecodeError, EncodeValueError

from .. import reference_model
from ..strategies import same, tables
from ..tiers import prove, tiers
from . import contract

PAYLOAD = gcx.encode(
    {"total": 3, "items": [{"id": 1, "s": "a\tb"}, {"id": 2, "s": "é😀"}, {"id": 3}], "x": []},
    tool="stream",
)


def _feed_all(decoder: gcx.Decoder, chunks: list[Any]) -> list[tuple[gcx.Header, dict[str, Any]]]:
    rows = []
    for chunk in chunks:
        rows.extend(decoder.feed(chunk))
    rows.extend(decoder.close())
    return rows


@given(st.lists(st.integers(0, len(PAYLOAD.encode())), max_size=8), st.booleans())
def test_any_chunking_yields_the_same_rows(cuts: list[int], as_bytes: bool) -> None:
    data: Any = PAYLOAD.encode() if as_bytes else PAYLOAD
    bounds = sorted({0, len(data), *(min(c, len(data)) for c in cuts)})
    chunks = [data[a:b] for a, b in zip(bounds, bounds[1:])]
    rows = _feed_all(gcx.Decoder(), chunks)
    assert [r for _, r in rows] == gcx.decode(PAYLOAD)["items"]
    assert {h.tool for h, _ in rows} == {"stream"}


def test_rows_arrive_as_their_lines_complete() -> None:
    dec = gcx.Decoder()
    assert dec.feed("GCX1 tool=t fields=a,b\n1\t") == []
    assert dec.headers[0].fields == ("a", "b")
    [(header, row)] = dec.feed("x\n2")
    assert row == {"a": 1, "b": "x"} and header.tool == "t"
    # A short row is padded with empty cells: absent keys unless the header says empty=null.
    assert dec.close() == [(header, {"a": 2})]


def test_untyped_streaming_gives_strings() -> None:
    rows = _feed_all(gcx.Decoder(typed=False), ["GCX1 tool=t fields=a\n", "42\n"])
    assert [r for _, r in rows] == [{"a": "42"}]


def test_stream_error_has_stream_line_and_column() -> None:
    dec = gcx.Decoder()
    dec.feed("GCX1 tool=t fields=a\n1\n")
    with pytest.raises(DecodeError) as info:
        dec.feed("2\t3\n")
    assert (info.value.lineno, info.value.colno) == (3, 2)


def test_stream_without_header() -> None:
    with pytest.raises(DecodeError, match="no `GCX1` header"):
        gcx.Decoder().close()


def test_stream_ending_inside_utf8_sequence() -> None:
    dec = gcx.Decoder()
    dec.feed(b"GCX1 tool=t fields=a\n\xc2")
    with pytest.raises(DecodeError, match="not UTF-8"):
        dec.close()


def test_stream_split_inside_utf8_sequence() -> None:
    data = "GCX1 tool=t fields=s\né😀\n".encode()
    rows = _feed_all(gcx.Decoder(), [data[i : i + 1] for i in range(len(data))])
    assert rows[0][1] == {"s": "é😀"}


@tiers(fast=25, many=200)
def test_streamed_encoder_matches_one_shot(examples: int) -> None:
    prove(examples, streamed_matches_one_shot, tables())


def streamed_matches_one_shot(rows: list[dict[str, Any]]) -> None:
    text = gcx.encode(rows, tool="t")
    fields = text.split("\n", 1)[0].split("fields=", 1)[1]
    if " " in fields:  # a shape with markers is not a plain table
        return
    enc = gcx.Encoder()
    reader = gcx.Decoder()
    reader.feed(text)
    reader.close()
    header = reader.headers[0]
    streamed = enc.header("t", header.columns) + "".join(enc.row(r) for r in rows)
    if not header.constants:  # a streamed table cannot know its constant columns in advance
        # A streamed header says `quoted=json` before its rows are known; a one-shot
        # header only where a cell is a JSON string literal, and the text has no final LF.
        head, _, body = text.partition("\n")
        marked = head if head.endswith(" quoted=json") else head + " quoted=json"
        assert streamed == marked + "\n" + body + ("\n" if body else "")
    assert same(gcx.Decoder().decode(streamed), rows)
    contract.holds(rows, streamed)


def test_a_streamed_empty_string_reads_as_marked_json_text() -> None:
    # The reference reads `""` as two quote characters: the streamed header says so in advance.
    enc = gcx.Encoder()
    text = enc.header("t", ["a", "b"]) + enc.row({"a": "", "b": 1})
    assert text == 'GCX1 tool=t fields=a,b quoted=json\n""\t1\n'
    assert reference_model.decode(text)["sections"][0]["meta"]["quoted"] == "json"


def test_encoder_row_checks() -> None:
    enc = gcx.Encoder()
    with pytest.raises(EncodeValueError, match="header"):
        enc.row({"a": 1})
    enc.header("t", ["a"])
    with pytest.raises(EncodeValueError, match="not a field"):
        enc.row({"b": 1})
    with pytest.raises(EncodeValueError):
        enc.header("t", ["a,b"])


def test_encoder_reuse_and_profiles() -> None:
    ref = gcx.Encoder(profile="reference")
    assert ref.encode([{"b": 1, "a": None}], tool="t") == "GCX1 tool=t fields=a,b rows=1\n\t1\n"
    with pytest.raises(ValueError):
        gcx.Encoder(profile="nope")  # type: ignore[arg-type]
