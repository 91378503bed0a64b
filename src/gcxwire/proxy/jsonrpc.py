"""Just enough JSON-RPC 2.0 to relay MCP: classify messages, track requests, build errors.

Messages are plain dicts parsed by orjson. The relay forwards the original bytes of
every message it does not rewrite, so ids, key order and unknown fields survive as
they were sent; where a member must change (a gateway renames ids), :func:`set_member`
splices the new value into the original text, so every other byte stays.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import orjson

from .._impl import literal_scan
from .._json import RawNumber, loads_exact
from ..errors import DecodeError

__all__ = [
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "NO_UPSTREAM",
    "PARSE_ERROR",
    "UNREADABLE_ANSWER",
    "UPSTREAM_BUSY",
    "UPSTREAM_EXITED",
    "LineNumbers",
    "PendingRequest",
    "PendingTable",
    "batch_refusal",
    "error_response",
    "id_key",
    "line_numbers",
    "numbers_of",
    "numbers_survive",
    "parse_lenient",
    "parse_line",
    "request_of",
    "response_id",
    "set_member",
]

# JSON-RPC's own codes.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602  # also MCP's code for an unknown tool or prompt name
INTERNAL_ERROR = -32603
# Our own codes. The spec keeps -32768..-32000 for JSON-RPC and implementations,
# so they lie just outside.
UPSTREAM_EXITED = -31000  # the server exited before answering
NO_UPSTREAM = -31001  # no running server answered (gateway)
UPSTREAM_BUSY = -31002  # the server stopped reading its input (gateway)
UNREADABLE_ANSWER = -31003  # the server's answer is not JSON a client can read (gateway)

JsonObject = dict[str, Any]


def parse_line(line: bytes) -> Any:
    """The parsed message, or ``None`` when the line is not strict JSON."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return None


def parse_lenient(line: bytes) -> Any:
    """What a lenient reader makes of a line strict JSON refuses (``NaN``,
    ``1e400``, ints past 64 bits), or ``None``; only to find out whom it answers."""
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return None


def id_key(request_id: Any) -> Hashable | None:
    """A dict key for a JSON-RPC id; ``None`` for what is no id (arrays, objects,
    ``null``, booleans), which no request of ours can carry."""
    # 1 and "1" are different ids.
    if isinstance(request_id, bool) or not isinstance(request_id, (str, int, float)):
        return None
    return (type(request_id).__name__, request_id)


@dataclass(frozen=True)
class PendingRequest:
    """A client request the server has not answered yet."""

    id: Any
    method: str
    params: JsonObject

    @property
    def tool(self) -> str | None:
        """The tool name of a ``tools/call``."""
        name = self.params.get("name")
        return name if self.method == "tools/call" and isinstance(name, str) else None


def request_of(message: Any) -> PendingRequest | None:
    """The request in ``message`` (a dict with ``method`` and a valid ``id``), else ``None``."""
    if not isinstance(message, dict):
        return None
    method = message.get("method")
    if not isinstance(method, str) or "id" not in message or id_key(message["id"]) is None:
        return None
    params = message.get("params")
    return PendingRequest(message["id"], method, params if isinstance(params, dict) else {})


def response_id(message: Any) -> tuple[bool, Any]:
    """``(True, id)`` when ``message`` is a response (result or error), else ``(False, None)``."""
    if (
        isinstance(message, dict)
        and "method" not in message
        and "id" in message
        and ("result" in message or "error" in message)
    ):
        return True, message["id"]
    return False, None


class PendingTable:
    """In-flight client requests by id, so responses can be matched and, if the
    server dies, every one of them still gets an answer."""

    def __init__(self) -> None:
        self._by_id: dict[Hashable, PendingRequest] = {}

    def __len__(self) -> int:
        return len(self._by_id)

    def add(self, request: PendingRequest) -> None:
        key = id_key(request.id)
        if key is not None:
            self._by_id[key] = request

    def pop(self, request_id: Any) -> PendingRequest | None:
        key = id_key(request_id)
        return None if key is None else self._by_id.pop(key, None)

    def drain(self) -> Iterator[PendingRequest]:
        """Remove and yield every pending request, oldest first."""
        while self._by_id:
            key = next(iter(self._by_id))
            yield self._by_id.pop(key)


def error_response(request_id: Any, code: int, message: str, data: Any = None) -> bytes:
    error: JsonObject = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return orjson.dumps({"jsonrpc": "2.0", "id": request_id, "error": error})


def batch_refusal(batch: list[Any]) -> bytes | None:
    """The answer to a JSON-RPC batch: an error per request in it (``None`` if it
    holds requests only without ids). Only 2025-03-26 had batches, and servers of
    every SDK drop them silently, which would leave the client waiting forever.
    An empty batch is itself an invalid request, as JSON-RPC says."""
    if not batch:
        return error_response(None, INVALID_REQUEST, "Invalid Request: an empty batch")
    answers = [
        {
            "jsonrpc": "2.0",
            "id": request.id,
            "error": {
                "code": INVALID_REQUEST,
                "message": "JSON-RPC batches are not supported by MCP",
            },
        }
        for request in map(request_of, batch)
        if request is not None
    ]
    return orjson.dumps(answers) if answers else None


# -- literal text -------------------------------------------------------------------

# Number literals a parse and re-write may change: exponents, -0, trailing zeros
# in a fraction, 16 digits or more (a float of up to 15 reads back as written).
# Digits inside strings match too; that only sends the text to the exact check.
# The scan is the extension's literal_scan (one pass over the bytes; its pure
# twin runs the regexes and substring searches it stands for).


def _suspect(text: bytes) -> bool:
    """Whether ``text`` may hold a number literal that a parse and re-write change."""
    return literal_scan(text) == 1


def numbers_survive(text: bytes, *, long_ints: bool = False) -> bool:
    """Whether every number in the JSON ``text`` reads back as the same literal
    after a parse and a write (``1.5`` does; ``1E+2``, ``-0``, ``1.50`` and
    ``123456789012345678901234567890.5`` do not). Ints past 64 bits survive
    only with ``long_ints`` (a parser that keeps them, not orjson). ``False``
    for text that is not JSON."""
    return not _suspect(text) or _literals_survive(text, long_ints)


def _literals_survive(text: bytes, long_ints: bool) -> bool:
    """The exact check of :func:`numbers_survive`, for a text ``_suspect`` flagged."""
    try:
        value = loads_exact(text)
    except DecodeError:
        return False
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, RawNumber):
            if not _canonical(item.text, long_ints):
                return False
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return True


class LineNumbers:
    """What one answer line's number literals allow, each scan done at most once.

    ``plain()``: no literal in the line, nor in any JSON text held in one of its
    strings, may change in a parse and re-write. An escape gives one character
    in place of two or six bytes, so a pattern ``_suspect`` looks for (runs of
    digits, dots, ``e``, ``-``) is in a string's text only where it is in the
    line too, unless a ``\\u`` escape wrote one of those characters. The rewriter
    of a plain line then needs no scan of its own per text block.
    """

    def __init__(self, line: bytes) -> None:
        self.line = line
        self._suspect: bool | None = None
        self._escapes: bool | None = None

    def _scan(self) -> None:
        found = literal_scan(self.line)  # 1: suspect; 2: a number escape, not suspect
        self._suspect, self._escapes = found == 1, found == 2

    def suspect(self) -> bool:
        if self._suspect is None:
            self._scan()
        return bool(self._suspect)

    def plain(self) -> bool:
        if self._suspect is None:
            self._scan()
        return not (self._suspect or self._escapes)

    def survive(self) -> bool:
        """``numbers_survive(line)``."""
        return not self.suspect() or _literals_survive(self.line, False)


_LINE: ContextVar[LineNumbers | None] = ContextVar("gcxwire_line_numbers", default=None)


def line_numbers() -> LineNumbers | None:
    """The numbers of the line whose answer is being rewritten (``None``: not
    known, e.g. a rewriter called with no line)."""
    return _LINE.get()


@contextmanager
def numbers_of(line: bytes) -> Iterator[LineNumbers]:
    """While the answer on ``line`` is rewritten: its :class:`LineNumbers`,
    which :func:`line_numbers` returns meanwhile (in this thread)."""
    numbers = LineNumbers(line)
    token = _LINE.set(numbers)
    try:
        yield numbers
    finally:
        _LINE.reset(token)


def _canonical(literal: str, long_ints: bool) -> bool:
    if "e" in literal or "E" in literal:  # 1e16 is written 1e+16 or 1e16 by different writers
        return False
    if "." not in literal:  # ints past 64 bits come back from orjson as floats
        return literal != "-0" and (long_ints or len(literal.lstrip("-")) < 19)
    number = float(literal)
    return math.isfinite(number) and repr(number) == literal


_WS = re.compile(r"[ \t\n\r]*")
# The stdlib's scanners (C-accelerated): where a string or a value ends.
_SCANSTRING: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]
_SCAN: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def _member_spans(text: str, start: int) -> tuple[dict[str, tuple[int, int]], int] | None:
    """The members of the object at ``text[start]``: key -> (start, end) of its
    value's text, and where the object ends; ``None`` if no object starts there."""
    i = _WS.match(text, start).end()  # type: ignore[union-attr]
    if text[i : i + 1] != "{":
        return None
    i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]
    spans: dict[str, tuple[int, int]] = {}
    if text[i : i + 1] == "}":
        return spans, i + 1
    try:
        while True:
            if text[i : i + 1] != '"':
                return None
            key, i = _SCANSTRING(text, i + 1)
            i = _WS.match(text, i).end()  # type: ignore[union-attr]
            if text[i : i + 1] != ":":
                return None
            i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]
            _, end = _SCAN(text, i)
            spans[key] = (i, end)
            i = _WS.match(text, end).end()  # type: ignore[union-attr]
            if text[i : i + 1] == "}":
                return spans, i + 1
            if text[i : i + 1] != ",":
                return None
            i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]
    except (StopIteration, ValueError, RecursionError):
        return None


def set_member(line: bytes, path: tuple[str, ...], value: Any) -> bytes | None:
    """``line`` (one JSON object) with the member at ``path`` set to ``value``,
    every other byte as it was: numbers keep their literal text, whatever a
    parser would make of them. A missing last member is added first in its
    object. ``None`` when ``line`` has no object at ``path[:-1]``."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return None
    start = 0
    for depth, key in enumerate(path):
        found = _member_spans(text, start)
        if found is None:
            return None
        spans, end = found
        if key in spans:
            start, stop = spans[key]
            if depth == len(path) - 1:
                new = orjson.dumps(value).decode()
                return (text[:start] + new + text[stop:]).encode()
            continue
        if depth != len(path) - 1:
            return None
        brace = text.index("{", start)
        member = orjson.dumps(key).decode() + ":" + orjson.dumps(value).decode()
        rest = text[brace + 1 : end - 1].strip()
        return (text[: brace + 1] + member + ("," if rest else "") + text[brace + 1 :]).encode()
    return None
