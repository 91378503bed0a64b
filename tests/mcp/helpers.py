"""What the gcxwire.mcp tests measure on a tool result."""

from __future__ import annotations

from typing import Any

from mcp.types import CallToolResult, TextContent

from gcxwire import tokens
from gcxwire._auto import compact_json


def texts(result: CallToolResult) -> list[str]:
    assert all(isinstance(block, TextContent) for block in result.content)
    return [block.text for block in result.content if isinstance(block, TextContent)]


def result_tokens(result: CallToolResult) -> int:
    """Tokens a client may show the model: every text block, plus structuredContent."""
    count = sum(tokens.count(text) for text in texts(result))
    if result.structured_content is not None:
        count += tokens.count(compact_json(result.structured_content))
    return count


def encoding(result: CallToolResult) -> Any:
    return (result.meta or {}).get("gcxwire/encoding")
