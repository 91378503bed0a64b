"""The top-level API: pick the cheapest wire format for a value, read back any of them.

``format="auto"`` considers compact JSON, typed GCX1 and DCP in the gateway
dialect, and returns the one with the fewest cl100k tokens among those that
decode back to exactly the same value. Compact JSON wins ties and is the
fallback, so no response ever grows and nothing is ever lost. Candidates whose
counts are far apart are told apart from a sample of each text; where they are
close (within ``_MARGIN``) every token is counted.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Literal

import orjson

from . import dcp, gcx, tokens
from ._compare import difference, same
from ._json import dumps_cell, loads_cell
from .errors import DecodeError, EncodeError
from .limits import DEFAULT_LIMITS, Limits, check_size, depth_exceeds

__all__ = ["FORMATS", "Format", "compact_json", "decode", "detect", "encode", "first_difference"]

Format = Literal["auto", "gcx", "dcp", "json"]
FORMATS: tuple[str, ...] = ("auto", "gcx", "dcp", "json")


def compact_json(value: Any, /) -> str:
    """The JSON a server would send: compact, keys in their order, UTF-8 as is.

    Ints of any size are written exactly; EncodeError names the path of what
    JSON cannot carry.
    """
    try:
        return orjson.dumps(value).decode()
    except orjson.JSONEncodeError:
        return dumps_cell(value)  # big ints, lone surrogates; or the error with its path


def _encode_gcx(value: Any, tool: str) -> str:
    return gcx.encode(value, tool=tool)


def _encode_dcp(value: Any, tool: str) -> str:
    return dcp.encode(value)  # the schema id comes from the data (wrapper key), not the tool


# The candidates besides JSON, in tie-break order.
_ENCODERS: dict[str, Callable[[Any, str], str]] = {"gcx": _encode_gcx, "dcp": _encode_dcp}


def encode(value: Any, /, *, tool: str, format: Format = "auto") -> str:
    """Encode ``value`` (a JSON value) as the result of ``tool``.

    ``format`` is ``"gcx"``, ``"dcp"`` or ``"json"`` to force one, or
    ``"auto"`` for the lossless candidate with the fewest tokens.
    """
    if format == "json":
        return compact_json(value)
    if format in _ENCODERS:
        return _ENCODERS[format](value, tool)
    if format != "auto":
        raise ValueError(f"Unknown format {format!r}: expected one of {', '.join(FORMATS)}")
    return _Auto(value, tool).choose()


# How auto avoids counting every token of every candidate (tokenizing costs
# about 100 ns a character, 30-100 times what writing GCX1 costs):
# - a text longer than twice its sample is estimated from evenly spaced windows
#   cut where the count is additive (tokens.next_cut), scaled by its length;
# - DCP of a long list is estimated from the same rows written both ways;
# - estimates decide only when they are more than _MARGIN apart; whatever is
#   within _MARGIN of the best estimate is counted exactly, so a choice closer
#   than that is always the true minimum.
_MARGIN = 0.10
_SAMPLE_SHARE = 0.01  # of a text's characters, counted in _WINDOWS windows
_SAMPLE_MIN = 1024
_WINDOWS = 16
_DCP_SAMPLE_ROWS = 16
_ORDER = ("json", "gcx", "dcp")  # the tie-break: JSON first


def _estimate(text: str) -> tuple[float, bool]:
    """``text``'s token count (exact, True) or an estimate from a sample (False)."""
    size = len(text)
    budget = max(_SAMPLE_MIN, int(size * _SAMPLE_SHARE))
    if 2 * budget >= size:
        return tokens.count(text), True
    width = budget // _WINDOWS
    counted = chars = 0
    start = 0
    for window in range(_WINDOWS):
        if window:
            start = max(start, tokens.next_cut(text, window * size // _WINDOWS))
        end = tokens.next_cut(text, start + width)
        counted += tokens.count(text[start:end])
        chars += end - start
        start = end
        if 2 * chars >= size:  # few places to cut: the sample grew to half the text
            return tokens.count(text), True
    return counted * size / chars, False


class _Auto:
    """One ``format="auto"`` choice: candidates written, estimated, counted where close."""

    def __init__(self, value: Any, tool: str) -> None:
        self.value = value
        self.tool = tool
        try:
            self.json_bytes: bytes | None = orjson.dumps(value)
            json_text = self.json_bytes.decode()
        except orjson.JSONEncodeError:
            self.json_bytes = None
            json_text = dumps_cell(value)  # big ints, lone surrogates; or the error with its path
        self.texts: dict[str, str | None] = {"json": json_text}
        self.counts: dict[str, tuple[float, bool]] = {}

    def text(self, name: str) -> str | None:
        """The candidate's text, written on first use; None if it cannot carry the value."""
        if name not in self.texts:
            try:
                self.texts[name] = _ENCODERS[name](self.value, self.tool)
            except EncodeError:
                self.texts[name] = None  # this format cannot carry the value; another one will
        return self.texts[name]

    def exact(self, name: str) -> float:
        count = self.counts.get(name)
        if count is None or not count[1]:
            text = self.text(name)
            assert text is not None
            self.counts[name] = count = (tokens.count(text), True)
        return count[0]

    def estimate_dcp(self) -> None:
        """DCP's estimate: written in full for short values, else its rows against GCX1's."""
        rows = self.value
        gcx_count = self.counts.get("gcx")
        if (
            gcx_count is not None
            and not gcx_count[1]
            and isinstance(rows, list)
            and len(rows) > 4 * _DCP_SAMPLE_ROWS
        ):
            step = len(rows) / _DCP_SAMPLE_ROWS
            sample = [rows[int(i * step)] for i in range(_DCP_SAMPLE_ROWS)]
            try:
                dcp_sample = dcp.encode(sample)
                gcx_sample = gcx.encode(sample, tool=self.tool)
            except EncodeError:
                pass  # the full encode below gives the verdict
            else:
                ratio = tokens.count(dcp_sample) / max(1, tokens.count(gcx_sample))
                self.counts["dcp"] = (gcx_count[0] * ratio, False)
                return
        text = self.text("dcp")
        if text is not None:
            self.counts["dcp"] = _estimate(text)

    def choose(self) -> str:
        json_text = self.texts["json"]
        assert json_text is not None
        self.counts["json"] = _estimate(json_text)
        for name in _ENCODERS:  # GCX1 before DCP, whose estimate may lean on GCX1's
            if name == "dcp":
                self.estimate_dcp()
            elif (text := self.text(name)) is not None:
                self.counts[name] = _estimate(text)
        while True:
            order = sorted(self.counts, key=lambda name: (self.counts[name][0], _ORDER.index(name)))
            best = order[0]
            close = [n for n in order if self.counts[n][0] <= self.counts[best][0] * (1 + _MARGIN)]
            if len(close) > 1:
                best = min(close, key=lambda name: (self.exact(name), _ORDER.index(name)))
            if best == "json":
                return json_text
            text = self.text(best)
            if text is not None and _decodes_to(text, self.value, self.json_bytes):
                return text
            del self.counts[best]  # not exact after all: choose among the others


def _decodes_to(text: str, value: Any, value_json: bytes | None = None) -> bool:
    try:
        return same(value, decode(text), value_json)
    except DecodeError:
        return False


def detect(text: str, /) -> Literal["gcx", "dcp", "json"]:
    """Which format ``text`` is in, judged from its first line or two.

    A DCP payload is a ``["$S",...]`` header line followed by rows, optionally
    after one wrapper-metadata object line. A single line is always JSON: a
    JSON array may well start with the string ``"$S"``.
    """
    # GCX1 readers skip blank lines before the header, as JSON parsers skip whitespace.
    text = text.lstrip("\r\n")
    if text.startswith("GCX"):
        return "gcx"
    first, newline, rest = text.partition("\n")
    if not newline:
        return "json"
    if first.startswith('["$S",'):
        return "dcp"
    if first.startswith("{") and rest.startswith('["$S",') and _is_json_object(first):
        return "dcp"
    return "json"


def _is_json_object(line: str) -> bool:
    try:
        return isinstance(orjson.loads(line), dict)
    except orjson.JSONDecodeError:
        return False


def decode(text: str, /, *, limits: Limits = DEFAULT_LIMITS) -> Any:
    """The JSON value carried by ``text``, whichever of the formats it is in.

    Raises DecodeError with line and column on malformed input or past ``limits``.
    """
    return _DECODERS[detect(text)](text, limits)


def _loads_json(text: str, limits: Limits = DEFAULT_LIMITS) -> Any:
    check_size(text, limits)
    if text.count("[") + text.count("{") > limits.max_depth and depth_exceeds(
        text, limits.max_depth
    ):
        raise DecodeError(f"JSON nests deeper than {limits.max_depth} levels", text)
    try:
        return loads_cell(text)
    except json.JSONDecodeError as exc:  # orjson's error is a subclass
        raise DecodeError.at(f"Invalid JSON: {exc.msg}", text, exc.pos) from None
    except ValueError as exc:  # too deeply nested, or a NaN constant
        raise DecodeError(f"Invalid JSON: {exc}", text) from None


_DECODERS: dict[str, Callable[[str, Limits], Any]] = {
    "gcx": lambda text, limits: gcx.decode(text, limits=limits),
    "dcp": lambda text, limits: dcp.decode(text, limits=limits),
    "json": _loads_json,
}


def first_difference(got: Any, want: Any, path: str = "$") -> str | None:
    """The JSONPath of the first place ``got`` differs from ``want``, or None.

    Stricter than ``==``: ``1``, ``1.0`` and ``True`` differ, ``-0.0`` differs
    from ``0.0``, and objects must list their keys in the same order.
    """
    if path == "$" and same(want, got):
        return None
    found = difference(want, got, path)
    return None if found is None else found[0]
