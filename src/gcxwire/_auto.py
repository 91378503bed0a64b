"""The top-level API: pick the cheapest wire format for a value, read back any of them.

``format="auto"`` encodes every candidate (compact JSON, typed GCX1, DCP in the
gateway dialect), keeps only those that decode back to exactly the same value,
and returns the one with the fewest cl100k tokens. Compact JSON wins ties and
is the fallback, so no response ever grows and nothing is ever lost.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Literal

import orjson

from . import dcp, gcx, tokens
from ._compare import difference
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

    best = compact_json(value)
    best_tokens = tokens.count(best)
    for encoder in _ENCODERS.values():
        try:
            text = encoder(value, tool)
        except EncodeError:
            continue  # this format cannot carry the value; another one will
        cost = tokens.count(text)
        if cost < best_tokens and _decodes_to(text, value):
            best, best_tokens = text, cost
    return best


def _decodes_to(text: str, value: Any) -> bool:
    try:
        return first_difference(decode(text), value) is None
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
    found = difference(want, got, path)
    return None if found is None else found[0]
