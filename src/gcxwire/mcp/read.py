"""Agent side: the JSON value a tool result carries, however it was written.

Takes an SDK ``CallToolResult`` (``mcp`` 1.x or 2.x pydantic models, ``fastmcp``'s
client result) or the result's JSON dict. Reads what gcxwire servers and
``gcxwire proxy`` send (GCX1, DCP or JSON after an optional hint block) and
what unencoded servers send (JSON text, one block per row, structuredContent
beside or instead of text, plain text).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from .. import _auto
from .hint import is_hint

__all__ = ["read_result"]

_NOT_DATA: Final = object()


def read_result(result: Any, /) -> Any:
    """The value the server meant by ``result``; never raises on an ordinary result.

    - Hint blocks are skipped wherever they stand.
    - One text block in GCX1, DCP or JSON: its value.
    - Several JSON blocks (one per row, as ``MCPServer`` writes a list): the list.
    - Text that is no encoding: ``structuredContent`` if the result has one,
      else the text itself (blocks joined by a newline).
    - No text: ``structuredContent``, or ``None``.

    Image, audio and resource blocks are not JSON values: read them from the result.
    """
    if isinstance(result, Mapping) and "jsonrpc" in result and "result" in result:
        result = result["result"]  # a whole JSON-RPC response
    structured = _member(result, "structured_content", "structuredContent")
    meta = _member(result, "meta", "_meta")
    fastmcp_meta = meta.get("fastmcp") if isinstance(meta, Mapping) else None
    if isinstance(fastmcp_meta, Mapping) and fastmcp_meta.get("wrap_result") is True:
        # fastmcp wraps a value that is no object as {"result": value}, and says so here.
        if isinstance(structured, Mapping) and "result" in structured:
            structured = structured["result"]
    texts = [
        text
        for block in _member(result, "content", "content") or ()
        if _member(block, "type", "type") == "text"
        and isinstance(text := _member(block, "text", "text"), str)
        and not is_hint(text)
    ]
    if not texts:
        return structured
    values = [_data(texts[0])] if len(texts) == 1 else [_json(text) for text in texts]
    if all(value is not _NOT_DATA for value in values):
        return values[0] if len(texts) == 1 else values
    return structured if structured is not None else "\n".join(texts)


def _member(obj: Any, attribute: str, key: str) -> Any:
    # SDK models name fields in snake_case (mcp 2.x) or camelCase (1.x); JSON uses camelCase.
    if isinstance(obj, Mapping):
        return obj.get(key)
    value = getattr(obj, attribute, _NOT_DATA)
    return getattr(obj, key, None) if value is _NOT_DATA else value


def _data(text: str) -> Any:
    try:
        return _auto.decode(text)
    except ValueError:  # DecodeError, or anything else that is not a payload
        return _NOT_DATA


def _json(text: str) -> Any:
    # A block among several is one row: JSON only (a GCX1 or DCP payload is one block).
    if _auto.detect(text) != "json":
        return _NOT_DATA
    return _data(text)
