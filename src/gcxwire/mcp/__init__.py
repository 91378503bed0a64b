"""gcxwire for MCP servers and agents: encode tool results, read them back.

Nothing here needs the ``mcp`` SDK or ``fastmcp`` at import time; the pieces
that build SDK objects import them when called, and plain JSON dicts work too.

- :func:`reading_hint`: how a model reads a payload (for ``instructions`` or a result).
"""

from __future__ import annotations

from .hint import HINT_OPENING, MARKERS, hint_markers, is_hint, reading_hint

__all__ = ["HINT_OPENING", "MARKERS", "hint_markers", "is_hint", "reading_hint"]
