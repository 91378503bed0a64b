"""The reference profile's JSON: Go ``json.Marshal`` emulation and literal-keeping loads.

The exact JSON every codec writes and reads lives in :mod:`._values`; this is what only the
reference (gortex bench) profile needs: number literals kept as Go's ``UseNumber`` keeps them,
and Go's sorted, HTML-escaped ``json.Marshal`` text.
"""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal
from json.encoder import encode_basestring
from typing import Any, Final

from ._values import MAX_DEPTH, int_to_str, path_join, reject_constant, str_to_int
from .errors import DecodeError, EncodeTypeError, EncodeValueError

__all__ = ["RawNumber", "go_marshal", "go_scalar", "go_sprint", "loads_exact"]


class RawNumber:
    """A JSON number kept as its literal text, as Go's ``UseNumber`` keeps it.

    The reference profile writes ``1.0`` as ``1.0`` and ``0.80`` as ``0.80``;
    a Python float would have become ``1`` and ``0.8``.
    """

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"RawNumber({self.text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RawNumber) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def value(self) -> int | float:
        """The number as a Python int or float."""
        if any(c in self.text for c in ".eE"):
            return float(self.text)
        return str_to_int(self.text)


def loads_exact(text: str | bytes, /) -> Any:
    """Parse JSON keeping every number's literal text as a :class:`RawNumber`."""
    try:
        return json.loads(
            text,
            parse_int=RawNumber,
            parse_float=RawNumber,
            parse_constant=reject_constant,
        )
    except RecursionError:
        raise DecodeError("JSON is nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise DecodeError(exc.msg, exc.doc, exc.pos, exc.lineno, exc.colno) from None


# ---------------------------------------------------------------- Go json.Marshal

_GO_HTML: Final = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)
_GO_EXP: Final = re.compile(r"e-0([0-9])$")


def _go_string(s: str) -> str:
    # Python's escaper writes \b \f \n \r \t and lowercase \u00XX, as Go >= 1.22 does;
    # Go additionally HTML-escapes. Lone surrogates stand where Go sees invalid UTF-8.
    text = encode_basestring(s).translate(_GO_HTML)
    if any("\ud800" <= c <= "\udfff" for c in s):
        text = "".join("\\ufffd" if "\ud800" <= c <= "\udfff" else c for c in text)
    return text


def _go_float(f: float) -> str:
    # Go: 'f' format for 1e-6 <= |f| < 1e21 (or zero), else 'e' with e-07 -> e-7.
    if not math.isfinite(f):
        raise EncodeValueError(f"Float {f!r} is not valid JSON")
    a = abs(f)
    if a == 0 or 1e-6 <= a < 1e21:
        return format(Decimal(repr(f)).normalize(), "f")
    return _GO_EXP.sub(r"e-\1", repr(f))


def go_scalar(value: object) -> str | None:
    """Go's text for a scalar inside the reference encoder (``fmt.Sprint`` of UseNumber values).

    Returns None for arrays and objects.
    """
    if value is None:
        return ""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return value
    if isinstance(value, RawNumber):
        return value.text
    if isinstance(value, int):
        return int_to_str(value)
    if isinstance(value, float):
        return _go_float(value)
    return None


def go_sprint(value: Any) -> str:
    """Go ``fmt.Sprint`` of a decoded JSON value: how the bench writes a non-object row item.

    ``nil`` is ``<nil>``, a list ``[a b]`` and an object ``map[k:v]`` (keys sorted), with
    every item spelled the same way; scalars as :func:`go_scalar`.
    """
    parts: list[str] = []
    _go_sprint(value, parts, "$", 0)
    return "".join(parts)


def _go_sprint(value: Any, out: list[str], path: str, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise EncodeValueError(f"Nesting deeper than {MAX_DEPTH} levels", path)
    if value is None:
        out.append("<nil>")
    elif isinstance(value, dict):
        out.append("map[")
        for i, key in enumerate(sorted(value)):
            if not isinstance(key, str):
                raise EncodeTypeError(f"Object key {key!r} is not a string", path)
            out.append(f" {key}:" if i else f"{key}:")
            _go_sprint(value[key], out, path_join(path, key), depth + 1)
        out.append("]")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(" ")
            _go_sprint(item, out, path_join(path, i), depth + 1)
        out.append("]")
    else:
        try:
            text = go_scalar(value)
        except EncodeValueError as exc:
            raise exc.relocated(path) from None
        if text is None:
            raise EncodeTypeError(
                f"Encoding objects of type `{type(value).__name__}` is unsupported", path
            )
        out.append(text)


def go_marshal(value: Any) -> str:
    """Go ``json.Marshal`` of a decoded JSON value: sorted keys, HTML escaping, literals kept."""
    parts: list[str] = []
    _go_write(value, parts, "$", 0)
    return "".join(parts)


def _go_write(value: Any, out: list[str], path: str, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise EncodeValueError(f"Nesting deeper than {MAX_DEPTH} levels", path)
    if isinstance(value, str):
        out.append(_go_string(value))
    elif value is None:
        out.append("null")
    elif value is True or value is False:
        out.append("true" if value else "false")
    elif isinstance(value, RawNumber):
        out.append(value.text)
    elif isinstance(value, int):
        out.append(int_to_str(value))
    elif isinstance(value, float):
        try:
            out.append(_go_float(value))
        except EncodeValueError as exc:
            raise exc.relocated(path) from None
    elif isinstance(value, dict):
        out.append("{")
        for i, key in enumerate(sorted(value)):
            if not isinstance(key, str):
                raise EncodeTypeError(f"Object key {key!r} is not a string", path)
            if i:
                out.append(",")
            out.append(_go_string(key))
            out.append(":")
            _go_write(value[key], out, path_join(path, key), depth + 1)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _go_write(item, out, path_join(path, i), depth + 1)
        out.append("]")
    else:
        raise EncodeTypeError(
            f"Encoding objects of type `{type(value).__name__}` is unsupported", path
        )
