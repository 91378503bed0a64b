"""Find the table in a tool result: which JSON values are worth re-encoding.

Shapes taken (everything else passes through):

- a list of objects: the rows;
- a wrapper object with exactly one member that is a non-empty list of objects,
  such as ``{"total_count": 4939, "items": [...]}``: the rows are that member and
  the other members travel beside them (the dcp-gateway's "wrapper unwrap");
- an object with more than :data:`SMALL_OBJECT_FIELDS` members and no list of
  objects: one record. Smaller objects are not worth a header.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["SMALL_OBJECT_FIELDS", "Table", "find_table", "parse_text_blocks"]

# An object with at most this many members passes through: a header would cost
# about as much as the keys it saves (dcp-gateway design: "encode only if > 5 fields").
SMALL_OBJECT_FIELDS = 5


@dataclass(frozen=True)
class Table:
    """Rows found in a value, and how to put the value back together."""

    rows: list[dict[str, Any]]
    wrapper_key: str | None = None  # the member of ``value`` that holds the rows
    single: bool = False  # ``value`` is one object, not a list
    value: Any = None  # the whole value, as parsed

    @property
    def wrapper_meta(self) -> dict[str, Any] | None:
        """The wrapper's other members, in order, or ``None`` without a wrapper."""
        if self.wrapper_key is None:
            return None
        return {k: v for k, v in self.value.items() if k != self.wrapper_key}


def _is_rows(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(row, dict) for row in value)


def find_table(value: Any) -> Table | None:
    if _is_rows(value):
        return Table(rows=value, value=value)
    if not isinstance(value, dict):
        return None
    row_members = [key for key, member in value.items() if _is_rows(member)]
    if len(row_members) == 1:
        key = row_members[0]
        return Table(rows=value[key], wrapper_key=key, value=value)
    if not row_members and len(value) > SMALL_OBJECT_FIELDS:
        return Table(rows=[value], single=True, value=value)
    return None


def parse_text_blocks(texts: list[str], loads: Any) -> Any:
    """The JSON value carried by a result's text blocks, or ``None``.

    One block holds the value. Several blocks that each hold one JSON object are
    one row each (what Python ``MCPServer`` writes for a ``list[...]`` return).
    ``loads`` is the JSON parser; it raises ``ValueError`` on bad input.
    """
    if not texts or not all(t.lstrip()[:1] in ("{", "[") for t in texts):
        return None
    try:
        values = [loads(text) for text in texts]
    except ValueError:
        return None
    if len(values) == 1:
        return values[0]
    return values if all(isinstance(v, dict) for v in values) else None
