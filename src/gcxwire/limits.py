"""Caps that keep decoders bounded on hostile or broken input.

Every decoder takes ``limits=`` (a :class:`Limits`); going past one raises
DecodeError with the position where it happened. The defaults are generous
enough for any real tool response.
"""

from __future__ import annotations

import functools
import re
import sys
from dataclasses import dataclass
from itertools import accumulate
from typing import Final

from .errors import DecodeError

__all__ = [
    "Limits",
    "DEFAULT_LIMITS",
    "as_text",
    "check_json_numbers",
    "check_size",
    "depth_exceeds",
    "digit_limit",
    "digit_message",
    "digit_run",
    "long_json_number",
    "long_number",
]


@dataclass(frozen=True)
class Limits:
    """Decoder caps. Each is a count of characters, cells or levels."""

    #: Characters in one whole payload given to ``decode``/``parse``.
    max_size: int = 1 << 30
    #: Characters in one line (a header or a row); also bounds a stream's buffer.
    max_line: int = 64 << 20
    #: Fields in a header, and so cells in a row.
    max_cells: int = 1 << 16
    #: Nesting of arrays and objects inside one JSON literal cell.
    max_depth: int = 512
    #: Cells filled in for short rows (untyped, or under ``empty=null``), beyond one
    #: per character of input: a short row over a wide header costs memory for every
    #: field, so rows of a few bytes cannot make gigabytes.
    max_padding: int = 1 << 20
    #: Digits in one number read as data (0: no limit). None, the default, is the
    #: interpreter's limit for int <-> text, ``sys.get_int_max_str_digits()`` (4,300
    #: unless changed; 0: none), the one ``int()`` and ``json`` keep; gcxwire's
    #: encoders keep it too, so they never write what the default decoders refuse.
    #: Reading an int costs more than linear time in its digits (12.8 M digits: 54 s).
    max_int_digits: int | None = None


DEFAULT_LIMITS: Final = Limits()

# A JSON string, skipped whole (escapes included; an unclosed one runs to the
# end of its valid part); and a run of characters that are no brackets.
_STRING: Final = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?')
_NOT_BRACKETS: Final = re.compile(r"[^\[\]{}]+")
# A bracket byte as a step of the depth: +1 opens, -1 closes.
_STEP: Final = tuple(1 if c in b"[{" else -1 if c in b"]}" else 0 for c in range(256))


def depth_exceeds(text: str, limit: int) -> bool:
    """Whether the JSON text nests arrays/objects deeper than ``limit`` levels.

    Brackets inside strings do not count. Linear, and with no Python code per
    character: the strings and everything but brackets are cut out by regex,
    and the running depth is a builtin ``accumulate`` over the brackets left.
    """
    if len(text) <= limit:  # every level needs an opening bracket
        return False
    brackets = _NOT_BRACKETS.sub("", _STRING.sub("", text)).encode("ascii")
    return (
        len(brackets) > limit
        and max(accumulate(map(_STEP.__getitem__, brackets)), default=0) > limit
    )


# Before 3.10.7 (CVE-2020-10735) the interpreter had no limit.
_interpreter_digits = getattr(sys, "get_int_max_str_digits", lambda: 0)


def digit_limit(limits: Limits) -> int:
    """The digit limit in force (0: none): ``limits.max_int_digits``, else the interpreter's."""
    if limits.max_int_digits is not None:
        return limits.max_int_digits
    return int(_interpreter_digits())


def digit_message(limit: int) -> str:
    """The error for a number past ``limit`` digits, saying how to read it."""
    return f"Number has more than {limit} digits (raise Limits.max_int_digits to read it)"


@functools.lru_cache(maxsize=8)
def digit_run(limit: int) -> re.Pattern[str]:
    """A run of more than ``limit`` digits that starts a number: not after a digit (so
    each run is tried once and a scan stays linear), a backslash (a GCX1 string cell
    ``\\123``) or a quote (a JSON string)."""
    return re.compile(rf'(?<![0-9\\"])[0-9]{{{limit + 1}}}')


def long_number(text: str, limit: int) -> int:
    """Where ``text`` holds a run of more than ``limit`` digits that may start a number
    (0: no limit), or -1: the leaves' quick look, before a line is read cell by cell.

    The first match of ``digit_run(limit)``, found without it: that regex takes
    longer per character the longer the text (a 50,000-character line took 40 ns
    a character). Only every (limit+1)-th character is looked at, as a run that
    long covers one of them, and around each digit found there its run, once.
    """
    if limit <= 0 or len(text) <= limit:
        return -1
    step = limit + 1
    samples = text[limit::step]  # text[limit + j * step] is samples[j]
    found = _DIGIT.search(samples)
    while found is not None:
        at = limit + found.start() * step
        before = text[at - limit : at]
        start = at - (len(before) - len(before.rstrip(_DIGIT_CHARS)))
        end = _DIGITS.match(text, at).end()  # type: ignore[union-attr]
        if end - start > limit and (start == 0 or text[start - 1] not in '\\"'):
            return start
        found = _DIGIT.search(samples, -(-(end - limit) // step))
    return -1


_DIGIT: Final = re.compile("[0-9]")
_DIGITS: Final = re.compile("[0-9]+")
_DIGIT_CHARS: Final = "0123456789"


def _blank(match: re.Match[str]) -> str:
    return " " * len(match.group())


def long_json_number(text: str, limit: int) -> int:
    """Where JSON ``text`` holds a number of more than ``limit`` digits, or -1.

    Digits inside strings do not count; strings are blanked out (keeping every
    offset) only when a long run of digits was found at all.
    """
    if limit <= 0 or len(text) <= limit:
        return -1
    at = long_number(text, limit)
    if at >= 0 and '"' in text:
        found = digit_run(limit).search(_STRING.sub(_blank, text), at)
        return -1 if found is None else found.start()
    return at


def check_json_numbers(text: str, limits: Limits, doc: str | None = None, at: int = 0) -> None:
    """Raise DecodeError if JSON ``text`` (at offset ``at`` of ``doc``) holds a too long number."""
    limit = digit_limit(limits)
    pos = long_json_number(text, limit)
    if pos >= 0:
        raise DecodeError.at(digit_message(limit), text if doc is None else doc, at + pos)


def check_size(doc: str, limits: Limits) -> None:
    """Raise DecodeError if a whole payload is longer than ``limits.max_size``."""
    if len(doc) > limits.max_size:
        msg = f"Input is longer than {limits.max_size} characters"
        raise DecodeError.at(msg, doc, limits.max_size)


def as_text(doc: object, /) -> str:
    """The text every decoder reads: a ``str``, or ``bytes``/``bytearray`` in UTF-8.

    The same rule as ``json.loads`` (which also guesses UTF-16/32; payloads here are
    UTF-8 only). Invalid UTF-8 raises DecodeError at the line and column of the first
    bad byte; any other type is a programming error and raises TypeError.
    """
    if isinstance(doc, str):
        return doc
    if not isinstance(doc, (bytes, bytearray)):
        raise TypeError(f"Expected str, bytes or bytearray, not {type(doc).__name__}")
    try:
        return doc.decode("utf-8")
    except UnicodeDecodeError as exc:
        good = doc[: exc.start].decode("utf-8")  # the valid prefix: positions count characters
        shown = doc.decode("utf-8", "replace")
        raise DecodeError.at(f"Input is not UTF-8: {exc.reason}", shown, len(good)) from None
