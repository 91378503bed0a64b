"""JSON values, one home for each idea every codec shares.

The absent-key marker, the JSONPath spelling of a place, big-int text, the "is this plain JSON"
check, the exact compact writer and loader (one long-digit rule), and the strict comparison
every round-trip check uses. The GCX1 twins, DCP, the auto format and the proxy import these;
none keeps its own copy.
"""

from __future__ import annotations

import functools
import json
import math
import re
import sys
from collections.abc import Callable
from json.encoder import encode_basestring
from typing import Any, Final

import orjson

from .errors import EncodeTypeError, EncodeValueError

__all__ = [
    "ABSENT",
    "MAX_DEPTH",
    "NUMBER",
    "check_value",
    "difference",
    "dumps",
    "dumps_valid",
    "has_long_digits",
    "int_to_str",
    "is_plain",
    "loads",
    "path_join",
    "reject_constant",
    "same",
    "str_to_int",
    "with_default",
]


class _Absent:
    """The marker for "this record has no such key" (distinct from None, which is null)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"

    def __reduce__(self) -> str:
        return "ABSENT"


ABSENT: Final[Any] = _Absent()

#: Deepest nesting the codecs write or read; deeper input raises a clear error.
MAX_DEPTH: Final = 512

# The JSON number grammar (RFC 8259 section 6), matched against whole cells.
NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")


# --- JSONPath ----------------------------------------------------------------------------------

_IDENT: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def path_join(path: str, key: str | int) -> str:
    """Extend a JSONPath: ``$`` + ``"a"`` -> ``$.a``; + ``3`` -> ``$[3]``; + ``"é"`` -> ``$['é']``.

    Only ASCII identifiers take the dot form, so a name reads the same in every tool.
    """
    if isinstance(key, int):
        return f"{path}[{key}]"
    if _IDENT.fullmatch(key):
        return f"{path}.{key}"
    return f"{path}[{key!r}]"


# --- big integers ------------------------------------------------------------------------------

# CPython refuses int -> str past sys.get_int_max_str_digits() (4300 digits by default;
# 0: no limit), and so do gcxwire's encoders: the default decoders keep the same limit.
# Reading may be allowed more (Limits.max_int_digits), so str_to_int converts in halves.
_SAFE_DIGITS: Final = 4000
_SAFE_BITS: Final = 13000  # fewer than 4000 decimal digits


def _digits_error() -> EncodeValueError:
    return EncodeValueError(
        f"Int has more than {sys.get_int_max_str_digits()} digits, the interpreter's limit "
        "(sys.set_int_max_str_digits raises it for writing and reading)"
    )


@functools.lru_cache(maxsize=4)
def _power_of_ten(digits: int) -> int:
    return int(10**digits)


def too_many_digits(n: int) -> bool:
    """Whether ``n`` has more digits than the interpreter lets ``str()`` write."""
    if n.bit_length() < _SAFE_BITS:
        return False
    limit = sys.get_int_max_str_digits()
    return limit > 0 and abs(n) >= _power_of_ten(limit)


def int_to_str(n: int) -> str:
    """Decimal text of ``n``; EncodeValueError past the interpreter's digit limit."""
    try:
        return str(n)
    except ValueError:  # only the digit limit: str() of an int has no other failure
        raise _digits_error() from None


def str_to_int(text: str) -> int:
    """Parse the decimal text of an int of any size (``text`` matches the int grammar)."""
    if len(text) <= _SAFE_DIGITS:
        return int(text)
    if text[0] == "-":
        return -str_to_int(text[1:])
    half = len(text) // 2
    scale: int = 10 ** (len(text) - half)
    return str_to_int(text[:half]) * scale + str_to_int(text[half:])


# --- is it JSON --------------------------------------------------------------------------------

# orjson writes ints in [-2**63, 2**64) and nests at most this deep.
_ORJSON_DEPTH: Final = 250


def is_plain(value: Any, depth: int = 0) -> bool:
    """True when ``value`` is plain JSON orjson writes exactly: exact ``dict``/``list``/``str``/
    ``bool``/``None``, 64-bit ints, finite floats, string keys, not too deep.

    The fast check: it builds no paths. False says "ask :func:`check_value`", which either
    raises with the JSONPath or accepts what this refuses (big ints, subclasses).
    """
    cls = type(value)
    if cls is str or cls is bool or value is None:
        return True
    if cls is int:
        return bool(-(2**63) <= value < 2**64)
    if cls is float:
        return math.isfinite(value)
    if depth >= _ORJSON_DEPTH:
        return False
    if cls is list:
        for item in value:
            if not is_plain(item, depth + 1):
                return False
        return True
    if cls is dict:
        for key, item in value.items():
            if type(key) is not str or not is_plain(item, depth + 1):
                return False
        return True
    return False


def check_value(value: Any, path: str = "$") -> None:
    """Raise :class:`EncodeError` naming the JSONPath unless ``value`` is a JSON value.

    Refuses NaN and infinities, non-str keys, unsupported types (datetime, UUID, Enum, sets,
    tuples, which would read back as lists...), cycles (the error says so, at the first repeat)
    and nesting deeper than :data:`MAX_DEPTH`. Accepts subclasses of the JSON types and ints
    of any size.
    """
    _check(value, path, 0, set())


def _check(value: Any, path: str, depth: int, open_ids: set[int]) -> None:
    # open_ids: the containers between the root and here; meeting one again is a cycle.
    if isinstance(value, str) or value is None:
        return
    if isinstance(value, int):
        if too_many_digits(value):
            raise _digits_error().relocated(path)
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise EncodeValueError(f"Float {value!r} is not valid JSON", path)
        return
    if not isinstance(value, (dict, list)):
        raise EncodeTypeError(
            f"Encoding objects of type `{type(value).__name__}` is unsupported", path
        )
    if id(value) in open_ids:
        raise EncodeValueError("Cycle: the value contains itself", path)
    if depth >= MAX_DEPTH:
        raise EncodeValueError(f"Nesting deeper than {MAX_DEPTH} levels", _short(path))
    open_ids.add(id(value))
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise EncodeTypeError(f"Object key {key!r} is not a string", path)
            _check(item, path_join(path, key), depth + 1, open_ids)
    else:
        for i, item in enumerate(value):
            _check(item, path_join(path, i), depth + 1, open_ids)
    open_ids.discard(id(value))


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


# --- exact compact JSON ------------------------------------------------------------------------

_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def _json_string(s: str) -> str:
    # A lone surrogate cannot be written as UTF-8; JSON's \uXXXX escape carries it.
    text = encode_basestring(s)
    if _LONE_SURROGATE.search(text):
        text = _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text


def _plain_write(value: Any, out: list[str]) -> None:
    # Only reached for checked values, so every value here is valid JSON.
    if isinstance(value, str):
        out.append(_json_string(value))
    elif value is None:
        out.append("null")
    elif value is True or value is False:
        out.append("true" if value else "false")
    elif isinstance(value, int):
        out.append(int_to_str(value))
    elif isinstance(value, float):
        out.append(repr(float(value)))
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


def dumps(value: Any) -> str:
    """Compact JSON text of a value, exactly: key order kept, ints of any size, raw UTF-8.

    Raises :class:`EncodeError` (paths start at ``$``) for what JSON cannot carry.
    """
    if is_plain(value):
        try:
            return orjson.dumps(value).decode()
        except orjson.JSONEncodeError:  # lone surrogates; the stdlib escaper writes them
            pass
    else:
        check_value(value)
    parts: list[str] = []
    _plain_write(value, parts)
    return "".join(parts)


def dumps_valid(value: Any) -> str:
    """:func:`dumps` of a value the caller has already checked: orjson first, no second walk."""
    try:
        return orjson.dumps(value).decode()
    except (TypeError, orjson.JSONEncodeError):  # big ints, lone surrogates; or not JSON after all
        return dumps(value)


# orjson reads an integer outside [-2**63, 2**64) as a float; the shortest such literal is a
# run of 19 digits (-9223372036854775809), so any text holding one goes to the stdlib.
_DIGITS_TO_ZERO: Final = bytes.maketrans(b"123456789", b"000000000")
_LONG_RUN: Final = b"0" * 19


def reject_constant(name: str) -> Any:
    """``parse_constant`` for the stdlib parser: NaN and Infinity are not JSON."""
    raise ValueError(f"{name} is not valid JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"Number {text} is out of range")
    return value


def loads(text: str, *, scan: bool = True) -> Any:
    """Parse JSON text exactly: ints of any size, lone surrogates kept, no NaN or ``1e400``.

    Raises ``ValueError`` (``json.JSONDecodeError`` with a position for bad syntax).
    ``scan=False`` says the caller knows ``text`` holds no run of 19 digits (it searched the
    whole document once), so orjson may read it without a search per line.
    """
    if not (scan and has_long_digits(text)):
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass  # let the stdlib parser accept what orjson refuses, or explain why
    try:
        return json.loads(
            text, parse_constant=reject_constant, parse_float=_finite_float, parse_int=str_to_int
        )
    except RecursionError:
        raise ValueError("JSON is nested too deeply") from None


def has_long_digits(text: str) -> bool:
    """Whether :func:`loads` would send ``text`` to the stdlib (for ``scan=False`` callers)."""
    # every digit made "0" (a byte table), then one substring search: 10x faster than the regex
    # [0-9]{19}, which re-scans each shorter digit run (8.6 ms on a 630 KB DCP text)
    data = text.encode("utf-8", "surrogatepass")
    return _LONG_RUN in data.translate(_DIGITS_TO_ZERO)


def long_digit_lines(lines: list[str]) -> list[int]:
    """The indexes of the ``lines`` (none holding LF) :func:`has_long_digits` is true for.

    One translate and search over them all, not one per line.
    """
    data = "\n".join(lines).encode("utf-8", "surrogatepass").translate(_DIGITS_TO_ZERO)
    found: list[int] = []
    line = at = 0  # line `line` starts at byte `at`
    pos = data.find(_LONG_RUN)
    while pos >= 0:
        line += data.count(b"\n", at, pos)
        found.append(line)
        end = data.find(b"\n", pos)
        if end < 0:
            break
        line, at = line + 1, end + 1
        pos = data.find(_LONG_RUN, at)
    return found


# --- strict comparison -------------------------------------------------------------------------


def same(want: Any, got: Any, want_json: bytes | None = None) -> bool:
    """Whether :func:`difference` finds nothing, judged in C where it can be.

    Two JSON values that orjson writes as the same bytes have the same types
    (``1``, ``1.0`` and ``true`` differ in text), key order and float signs; the
    one thing the text cannot tell apart is NaN or infinity from ``null``, so a
    text holding ``null`` also needs ``==``. Where orjson cannot write a value
    (ints beyond 64 bits, non-string keys) the Python walk decides. ``want_json``
    is ``orjson.dumps(want)`` when the caller has it already.
    """
    try:
        if want_json is None:
            want_json = orjson.dumps(want)
        got_json = orjson.dumps(got)
    except (orjson.JSONEncodeError, TypeError):
        return _first_difference(want, got, "$") is None
    if got_json != want_json:
        return False
    if b"null" not in want_json or want == got:
        return True
    return _first_difference(want, got, "$") is None  # NaN, which == never finds equal


def difference(want: Any, got: Any, path: str = "$") -> tuple[str, str] | None:
    """Where and how ``got`` differs from ``want``: ``(JSONPath, reason)``, or None.

    Stricter than ``==``: ``1``, ``1.0`` and ``True`` differ, ``-0.0`` differs
    from ``0.0``, and objects must list their keys in the same order (a
    key-order-only difference has the path ``<path> (key order)``). The one
    strict comparison of the project; :func:`same` is its fast yes/no.
    """
    if same(want, got):
        return None
    return _first_difference(want, got, path)


def _first_difference(want: Any, got: Any, path: str) -> tuple[str, str] | None:
    if type(got) is not type(want):
        return path, f"{type(want).__name__} reads back as {type(got).__name__}"
    if isinstance(want, dict):
        if list(got) != list(want):
            missing = [k for k in want if k not in got] + [k for k in got if k not in want]
            if missing:
                return path_join(path, missing[0]), f"key {missing[0]!r} is lost or added"
            return f"{path} (key order)", f"keys {list(want)} read back as {list(got)}"
        for key, item in want.items():
            found = _first_difference(item, got[key], path_join(path, key))
            if found is not None:
                return found
        return None
    if isinstance(want, list):
        for index, (left, right) in enumerate(zip(want, got)):
            found = _first_difference(left, right, path_join(path, index))
            if found is not None:
                return found
        if len(got) != len(want):
            where = path_join(path, min(len(got), len(want)))
            return where, f"{len(want)} items read back as {len(got)}"
        return None
    if isinstance(want, float):
        same = got == want and math.copysign(1.0, got) == math.copysign(1.0, want)
        if same or (math.isnan(got) and math.isnan(want)):
            return None
    elif got == want:
        return None
    return path, f"{want!r} reads back as {got!r}"
