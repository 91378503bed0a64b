"""JSON helpers: nested-cell text, Go ``json.Marshal`` emulation, literal-keeping loads.

Nested arrays and objects inside GCX1 cells are compact JSON. orjson writes them
fast but refuses ints beyond 64 bits and reads such ints back as floats, so both
directions fall back to the standard library where orjson would lose a value.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from decimal import Decimal
from json.encoder import encode_basestring
from typing import Any, Final

import orjson

from ._common import int_to_str, path_join, str_to_int
from .errors import DecodeError, EncodeTypeError, EncodeValueError

__all__ = [
    "MAX_DEPTH",
    "RawNumber",
    "loads_exact",
    "go_marshal",
    "go_scalar",
    "dumps_cell",
    "loads_cell",
    "check_value",
    "is_plain_json",
    "with_default",
]

#: Deepest nesting the codecs write or read; deeper input raises a clear error.
MAX_DEPTH: Final = 512

# orjson handles 64-bit ints only; any run of 17+ digits sends a text to the stdlib.
_LONG_DIGITS: Final = re.compile(r"[0-9]{17}")
_ORJSON_DEPTH: Final = 250


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


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def loads_exact(text: str | bytes, /) -> Any:
    """Parse JSON keeping every number's literal text as a :class:`RawNumber`."""
    try:
        return json.loads(
            text,
            parse_int=RawNumber,
            parse_float=RawNumber,
            parse_constant=_reject_constant,
        )
    except RecursionError:
        raise DecodeError("JSON is nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise DecodeError(exc.msg, exc.doc, exc.pos, exc.lineno, exc.colno) from None


def _unsupported(value: object, path: str) -> EncodeTypeError:
    return EncodeTypeError(
        f"Encoding objects of type `{type(value).__name__}` is unsupported", path
    )


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


# ------------------------------------------------------------------ nested cells


def is_plain_json(value: Any, depth: int = 0) -> bool:
    """Whether orjson writes ``value`` exactly: exact JSON types, 64-bit ints, finite floats.

    The fast path of :func:`check_value`: no paths built, no error raised; a
    value it turns down goes to ``check_value`` for the verdict and the path.
    """
    cls = type(value)
    if cls is str or value is None or cls is bool:
        return True
    if cls is int:
        return bool(-(2**63) <= value < 2**64)
    if cls is float:
        return math.isfinite(value)
    if depth >= _ORJSON_DEPTH:
        return False
    if cls is dict:
        for key, item in value.items():
            if type(key) is not str or not is_plain_json(item, depth + 1):
                return False
        return True
    if cls is list:
        for item in value:
            if not is_plain_json(item, depth + 1):
                return False
        return True
    return False


def check_value(value: Any, path: str = "$") -> bool:
    """Raise :class:`EncodeError` unless ``value`` is a JSON value; say if orjson can write it.

    Refuses NaN and infinities, non-str keys, unsupported types (datetime, UUID,
    Enum, sets...), cycles (the error says so, at the first repeat) and nesting
    deeper than :data:`MAX_DEPTH`.
    """
    return _check(value, path, 0, set())


def _check(value: Any, path: str, depth: int, open_ids: set[int]) -> bool:
    # open_ids: the containers between the root and here; meeting one again is a cycle.
    if isinstance(value, str) or value is None or value is True or value is False:
        return True
    if isinstance(value, int):
        return -(2**63) <= value < 2**64
    if isinstance(value, float):
        if not math.isfinite(value):
            raise EncodeValueError(f"Float {value!r} is not valid JSON", path)
        return True
    if not isinstance(value, (dict, list, tuple)):
        raise _unsupported(value, path)
    if id(value) in open_ids:
        raise EncodeValueError("Cycle: the value contains itself", path)
    if depth >= MAX_DEPTH:
        raise EncodeValueError(f"Nesting deeper than {MAX_DEPTH} levels", _short(path))
    open_ids.add(id(value))
    fast = depth < _ORJSON_DEPTH
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise EncodeTypeError(f"Object key {key!r} is not a string", path)
            fast = _check(item, path_join(path, key), depth + 1, open_ids) and fast
        fast = fast and type(value) is dict
    else:
        for i, item in enumerate(value):
            fast = _check(item, path_join(path, i), depth + 1, open_ids) and fast
        fast = fast and type(value) is list
    open_ids.discard(id(value))
    return fast


def _short(path: str, keep: int = 80) -> str:
    """A JSONPath cut to its first ``keep`` characters, so an error stays one short line."""
    return path if len(path) <= keep else path[:keep] + "..."


def with_default(value: Any, default: Callable[[Any], Any], path: str = "$", depth: int = 0) -> Any:
    """``value`` with each object JSON has no form for replaced by ``default(obj)``.

    As ``json.dumps(default=...)``: the hook is called for types, not values (NaN
    stays refused), and what it returns is walked again. A copy is made only of
    the containers that change.
    """
    if depth > MAX_DEPTH:
        raise EncodeValueError(f"Nesting deeper than {MAX_DEPTH} levels (or a cycle)", _short(path))
    if isinstance(value, (str, int, float)) or value is None:
        return value
    if isinstance(value, dict):
        out = {
            k: with_default(v, default, path_join(path, str(k)), depth + 1)
            for k, v in value.items()
        }
        return value if all(out[k] is value[k] for k in value) else out
    if isinstance(value, (list, tuple)):
        items = [
            with_default(v, default, path_join(path, i), depth + 1) for i, v in enumerate(value)
        ]
        return value if all(a is b for a, b in zip(items, value)) else items
    return with_default(default(value), default, path, depth + 1)


_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def _json_string(s: str) -> str:
    # A lone surrogate cannot be written as UTF-8; JSON's \uXXXX escape carries it.
    text = encode_basestring(s)
    if _LONE_SURROGATE.search(text):
        text = _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text


def _plain_write(value: Any, out: list[str]) -> None:
    # Only reached after check_value(), so every value here is valid JSON.
    if isinstance(value, str):
        out.append(_json_string(value))
    elif value is None:
        out.append("null")
    elif value is True or value is False:
        out.append("true" if value else "false")
    elif isinstance(value, int):
        out.append(int_to_str(value))
    elif isinstance(value, float):
        out.append(repr(value))
    elif isinstance(value, dict):
        out.append("{")
        for i, (key, item) in enumerate(value.items()):
            if i:
                out.append(",")
            out.append(_json_string(key))
            out.append(":")
            _plain_write(item, out)
        out.append("}")
    else:
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _plain_write(item, out)
        out.append("]")


def dumps_cell(value: Any) -> str:
    """Compact JSON text of a value, exactly: key order kept, ints of any size.

    Raises EncodeError (paths start at ``$``) for what JSON cannot carry.
    """
    if is_plain_json(value) or check_value(value):
        try:
            return orjson.dumps(value).decode()
        except orjson.JSONEncodeError:  # e.g. lone surrogates; the stdlib writes them
            pass
    parts: list[str] = []
    _plain_write(value, parts)
    return "".join(parts)


def loads_cell(text: str) -> Any:
    """Parse JSON text exactly (ints of any size); ValueError on bad or too deep text."""
    if not _LONG_DIGITS.search(text):
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass  # let the stdlib give the verdict (it also reads lone surrogates)
    try:
        return json.loads(text, parse_int=_parse_int, parse_constant=_reject_constant)
    except RecursionError:
        raise ValueError("JSON literal is nested too deeply") from None


def _parse_int(text: str) -> int:
    return str_to_int(text)
