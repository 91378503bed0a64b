"""gcxwire for MCP servers and agents: encode tool results, read them back.

Nothing here needs the ``mcp`` SDK or ``fastmcp`` at import time; the pieces
that build SDK objects import them when called, and plain JSON dicts work too.

- Servers: :func:`tool_result` (one result), :func:`encoded_tool` (an ``mcp``
  ``MCPServer`` tool), :class:`EncodingMiddleware` (``fastmcp``; loaded on first use).
- Models: :func:`reading_hint`, for ``instructions`` or a result.
- Agents: :func:`read_result`.
"""

from __future__ import annotations

from typing import Any

from .hint import HINT_OPENING, MARKERS, hint_markers, is_hint, reading_hint
from .mcpserver import encoded_tool, server_instructions
from .read import read_result
from .result import (
    ENCODING_META,
    FORMAT_ARG,
    Format,
    HintMode,
    encode_result,
    format_property,
    json_value,
    tool_result,
)

__all__ = [
    "ENCODING_META",
    "FORMAT_ARG",
    "HINT_OPENING",
    "MARKERS",
    "EncodingMiddleware",
    "Format",
    "HintMode",
    "encode_result",
    "encoded_tool",
    "format_property",
    "hint_markers",
    "is_hint",
    "json_value",
    "read_result",
    "reading_hint",
    "server_instructions",
    "tool_result",
]


def __getattr__(name: str) -> Any:
    # The fastmcp middleware subclasses fastmcp's class: import fastmcp only when asked.
    if name == "EncodingMiddleware":
        from .middleware import EncodingMiddleware

        return EncodingMiddleware
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
