"""Just enough JSON-RPC 2.0 to relay MCP: classify messages, track requests, build errors.

Messages are plain dicts parsed by orjson. The relay forwards the original bytes of
every message it does not rewrite, so ids, key order and unknown fields survive as
they were sent.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from dataclasses import dataclass
from typing import Any

import orjson

__all__ = [
    "INVALID_REQUEST",
    "batch_refusal",
    "UPSTREAM_EXITED",
    "PendingRequest",
    "PendingTable",
    "error_response",
    "parse_line",
    "request_of",
    "response_id",
]

# Our own error code for "the server exited before answering". The spec keeps
# -32768..-32000 for JSON-RPC and implementations, so it lies just outside.
UPSTREAM_EXITED = -31000
# JSON-RPC's own code for a message that is not a valid request.
INVALID_REQUEST = -32600

JsonObject = dict[str, Any]


def parse_line(line: bytes) -> Any:
    """The parsed message, or ``None`` when the line is not JSON."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        return None


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
    """The request in ``message`` (a dict with ``method`` and ``id``), else ``None``."""
    if not isinstance(message, dict):
        return None
    method = message.get("method")
    if not isinstance(method, str) or "id" not in message or _id_key(message["id"]) is None:
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


def _id_key(request_id: Any) -> Hashable | None:
    # 1 and "1" are different ids; JSON-RPC allows only strings and numbers.
    if isinstance(request_id, bool) or not isinstance(request_id, (str, int, float)):
        return None
    return (type(request_id).__name__, request_id)


class PendingTable:
    """In-flight client requests by id, so responses can be matched and, if the
    server dies, every one of them still gets an answer."""

    def __init__(self) -> None:
        self._by_id: dict[Hashable, PendingRequest] = {}

    def __len__(self) -> int:
        return len(self._by_id)

    def add(self, request: PendingRequest) -> None:
        key = _id_key(request.id)
        if key is not None:
            self._by_id[key] = request

    def pop(self, request_id: Any) -> PendingRequest | None:
        key = _id_key(request_id)
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
    holds no request). Only 2025-03-26 had batches, and servers of every SDK drop
    them silently, which would leave the client waiting forever."""
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
