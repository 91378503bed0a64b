"""literal_scan, the proxy's check of an answer line's number literals, finds
what the regexes it stands for find (both twins: the extension scans the bytes
once, the pure twin runs the regexes and substring searches)."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from .gcx_checks import leaves

# Each part is a way a literal can change in a parse and re-write.
_SUSPECT = re.compile(rb"[0-9][eE]|-0(?![.0-9])|\.[0-9]*[0-9]0(?![0-9])|[0-9]{16}|[0-9.]{17}")
# A \u escape writing a digit, "-", ".", "e" or "E" (or another of U+0020-003F).
_ESCAPE = re.compile(rb"\\u00(?:[23][0-9a-fA-F]|[46]5)")


def _expected(data: bytes) -> int:
    if _SUSPECT.search(data):
        return 1
    return 2 if _ESCAPE.search(data) else 0


_ALPHABET = b'0123456789.eE-+ ,x\\u"fFa'
_LINES = st.binary(max_size=80).map(lambda raw: bytes(_ALPHABET[b % len(_ALPHABET)] for b in raw))
_FRAGMENTS = [
    b"0", b"1", b"9", b"12", b"0.5", b"1.50", b".0", b".00", b"-0", b"-", b".", b"e", b"E",
    b"\\u0030", b"\\u002d", b"\\u002E", b"\\u0045", b"\\u0065", b"\\u0066", b"\\u00", b"\\",
    b"\\u003", b'"', b",", b" ", b"1234567890", b"12345678", b"...",
]  # fmt: skip
_PIECES = st.lists(st.sampled_from(_FRAGMENTS), max_size=30).map(b"".join)


@settings(max_examples=400, deadline=None)
@given(st.one_of(_LINES, _PIECES, st.binary(max_size=60)))
@example(b"-0")  # at the very end: the look-ahead finds nothing
@example(b"1.10")
@example(b"1.0")  # one digit after the dot: not a trailing zero
@example(b"123456789012345")  # 15 digits
@example(b"1234567890123456")  # 16
@example(b"1.345678901234567")  # 17 of [0-9.]
@example(b"\\u0030")
@example(b"\\u004")  # cut short
@example(b"\\u0065 1e")
def test_finds_what_the_regexes_find(twin: str, data: bytes) -> None:
    assert leaves(twin).literal_scan(data) == _expected(data)


def test_a_pretty_answer_line_is_plain(twin: str) -> None:
    line = b'{"id": 7, "text": "[\\n  {\\n    \\"score\\": 10.5,\\n    \\"x\\": -1\\n  }\\n]"}'
    assert leaves(twin).literal_scan(line) == 0
    assert leaves(twin).literal_scan(line + b"\\u0031") == 2
    assert leaves(twin).literal_scan(line + b"\\u0031 1E5") == 1


def test_takes_bytes_only(twin: str) -> None:
    with pytest.raises(TypeError, match="literal_scan takes bytes"):
        leaves(twin).literal_scan("1e5")
