"""Decoder caps: every limit raises DecodeError where it is crossed, never earlier."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gcxwire import gcx
from gcxwire.errors import DecodeError
from gcxwire.limits import DEFAULT_LIMITS, Limits, depth_exceeds, digit_run, long_number


def test_defaults_are_generous() -> None:
    assert DEFAULT_LIMITS.max_line == 64 * 1024 * 1024
    assert DEFAULT_LIMITS.max_depth == 512


def test_max_size() -> None:
    text = gcx.encode([{"a": "x" * 50}], tool="t")
    assert gcx.decode(text, limits=Limits(max_size=len(text))) == [{"a": "x" * 50}]
    with pytest.raises(DecodeError, match="longer than 40 characters"):
        gcx.decode(text, limits=Limits(max_size=40))
    with pytest.raises(DecodeError, match="longer than 40 characters"):
        gcx.parse(text, limits=Limits(max_size=40))


def test_max_line() -> None:
    text = "GCX1 tool=t fields=a\nshort\n" + "y" * 100
    with pytest.raises(DecodeError, match="Line is longer than 50") as info:
        gcx.decode(text, limits=Limits(max_line=50))
    assert (info.value.lineno, info.value.colno) == (3, 1)
    assert gcx.decode(text, limits=Limits(max_line=100))[1] == {"a": "y" * 100}


def test_max_cells() -> None:
    header = "GCX1 tool=t fields=" + ",".join(f"f{i}" for i in range(10))
    assert len(gcx.parse(header, limits=Limits(max_cells=10))[0].fields) == 10
    with pytest.raises(DecodeError, match="more than 9 fields"):
        gcx.parse(header, limits=Limits(max_cells=9))


@pytest.mark.parametrize("typed", [True, False])
def test_max_depth_of_literal_cells(typed: bool) -> None:
    deep = "[" * 30 + "]" * 30
    text = f"GCX1 tool=t fields=a,b\nx\t{deep}"
    if not typed:  # untyped cells are strings: no literal is parsed
        assert gcx.parse(text, limits=Limits(max_depth=10))[0].rows[0]["b"] == deep
        return
    value = gcx.decode(text, limits=Limits(max_depth=30))[0]["b"]
    depth = 0
    while value:
        value, depth = value[0], depth + 1
    assert depth == 29 and value == []
    with pytest.raises(DecodeError, match="deeper than 29 levels") as info:
        gcx.decode(text, limits=Limits(max_depth=29))
    assert (info.value.lineno, info.value.colno) == (2, 3)


def test_brackets_inside_strings_do_not_count() -> None:
    text = '["' + "[" * 40 + '"]'
    assert not depth_exceeds(text, 5)
    assert depth_exceeds("[" * 6 + "]" * 6, 5)
    assert not depth_exceeds('[["\\"[[[[[[["]]', 3)


def test_stream_buffer_is_bounded() -> None:
    dec = gcx.Decoder(limits=Limits(max_line=100))
    dec.feed("GCX1 tool=t fields=a\n")
    dec.feed("z" * 60)
    with pytest.raises(DecodeError, match="Line is longer than 100"):
        dec.feed("z" * 60)


def test_stream_of_many_small_chunks_joins_lines_once() -> None:
    dec = gcx.Decoder()
    dec.feed("GCX1 tool=t fields=a\n")
    for _ in range(10_000):
        assert dec.feed("ab") == []
    [(_, row)] = dec.feed("\n")
    assert row == {"a": "ab" * 10_000}


# DCP and gcxwire.decode (which also reads JSON) honour the same caps.


def test_dcp_limits() -> None:
    from gcxwire import dcp

    text = dcp.encode([{"a": 1, "b": [[[[1]]]]}, {"a": 2, "b": []}])
    assert dcp.decode(text) == [{"a": 1, "b": [[[[1]]]]}, {"a": 2, "b": []}]
    with pytest.raises(DecodeError, match="deeper than 3 levels") as info:
        dcp.decode(text, limits=Limits(max_depth=3))
    assert info.value.lineno == 2
    with pytest.raises(DecodeError, match="Line is longer than 10"):
        dcp.decode(text, limits=Limits(max_line=10))
    with pytest.raises(DecodeError, match="Input is longer than 20"):
        dcp.decode(text, limits=Limits(max_size=20))


def test_auto_decode_limits_on_json() -> None:
    import gcxwire

    text = '{"a": [[[[1]]]]}'
    assert gcxwire.decode(text) == {"a": [[[[1]]]]}
    with pytest.raises(DecodeError, match="deeper than 4 levels"):
        gcxwire.decode(text, limits=Limits(max_depth=4))
    with pytest.raises(DecodeError, match="longer than 5 characters"):
        gcxwire.decode(text, limits=Limits(max_size=5))
    gcx_text = gcxwire.gcx.encode([{"a": "x" * 30}], tool="t")
    with pytest.raises(DecodeError, match="Line is longer"):
        gcxwire.decode(gcx_text, limits=Limits(max_line=20))


def _depth_by_hand(text: str) -> int:
    # The deepest nesting, one character at a time: brackets inside a string
    # do not count, a backslash in a string takes the next character (not a
    # line end, as the regex's `.`), an unclosed string runs to its last valid part.
    depth = deepest = i = 0
    while i < len(text):
        c = text[i]
        if c == '"':
            i += 1
            while i < len(text) and text[i] != '"':
                if text[i] == "\\":
                    if i + 1 >= len(text) or text[i + 1] == "\n":
                        i -= 1  # the string ends before this backslash
                        break
                    i += 1
                i += 1
        elif c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth -= 1
        i += 1
    return deepest


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet='[]{}"\\\na,', max_size=40), st.integers(0, 6))
def test_depth_exceeds_matches_a_character_loop(text: str, limit: int) -> None:
    assert depth_exceeds(text, limit) == (_depth_by_hand(text) > limit)


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet='0123456789\\"a', max_size=40), st.integers(-1, 6))
def test_long_number_finds_what_the_digit_run_regex_finds(text: str, limit: int) -> None:
    found = digit_run(limit).search(text) if limit > 0 else None
    assert long_number(text, limit) == (-1 if found is None else found.start())
