"""Checks several GCX1 test files share: the lossless round trip, and the
reference model's reading of a payload next to gcxwire's own."""

from __future__ import annotations

import importlib
from typing import Any

from gcxwire import gcx
from gcxwire.gcx import Header

from .. import reference_model
from ..strategies import same


def leaves(twin: str) -> Any:
    """The speedup leaves of the twin a test runs on (its ``twin`` fixture's id)."""
    return importlib.import_module("gcxwire._speedups" if twin == "c" else "gcxwire._speedups_py")


def roundtrip(value: Any, tool: str = "t") -> str:
    """Encode ``value``; it must decode back the same and re-encode to the same text."""
    text = gcx.encode(value, tool=tool)
    back = gcx.decode(text)
    assert same(back, value), (text, back)
    assert gcx.encode(back, tool=tool) == text
    return text


def reference_sections(text: str) -> list[tuple[dict[str, Any], Header]]:
    """Each section as the reference model reads it, with gcxwire's untyped header for it.

    The model must see the same sections, rows and columns as ``gcx.parse``.
    """
    model: list[dict[str, Any]] = reference_model.decode(text)["sections"]
    assert model == [
        {"tool": s.tool, "fields": s.fields, "meta": s.meta, "rows": s.rows}
        for s in gcx.parse(text)
    ]
    decoder = gcx.Decoder(typed=False)
    decoder.feed(text)
    decoder.close()
    return list(zip(model, decoder.headers, strict=True))
