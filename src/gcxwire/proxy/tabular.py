"""Find the tables in a tool result: which JSON values are worth re-encoding.

Shapes taken (everything else passes through):

- ``rows``: a list of objects;
- ``wrapper``: an object with exactly one member that is a non-empty list of
  objects, such as ``{"total_count": 4939, "items": [...]}``: the rows are that
  member and the other members travel beside them (the dcp-gateway's "wrapper
  unwrap");
- ``sections``: an object with several such members, such as the memory
  server's ``{"entities": [...], "relations": [...]}``;
- ``object``: an object with more than :data:`SMALL_OBJECT_FIELDS` members and
  no list of objects. Smaller objects are not worth a header.

DCP's per-tool schemas apply to ``rows`` and ``wrapper``; every shape can be
written by ``gcxwire.encode``, which keeps an encoding only if it reads back exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["SMALL_OBJECT_FIELDS", "Table", "find_table", "parse_text_blocks"]

# An object with at most this many members passes through: a header would cost
# about as much as the keys it saves (dcp-gateway design: "encode only if > 5 fields").
SMALL_OBJECT_FIELDS = 5

Row = dict[str, Any]
Kind = Literal["rows", "wrapper", "sections", "object"]


@dataclass(frozen=True)
class Table:
    """A value with a tabular shape, and where its rows are."""

    kind: Kind
    value: Any
    wrapper_key: str | None = None  # ``wrapper``: the member holding the rows

    @property
    def rows(self) -> list[Row] | None:
        """The rows a DCP schema describes (``rows`` and ``wrapper`` only)."""
        if self.kind == "rows":
            return list(self.value)
        if self.kind == "wrapper":
            return list(self.value[self.wrapper_key])
        return None

    def map_rows(self, change: Callable[[Row], Row]) -> Table:
        """The same shape with ``change`` applied to every row (or to the object)."""
        if self.kind == "rows":
            return Table("rows", [change(row) for row in self.value])
        if self.kind == "object":
            return Table("object", change(self.value))
        value = {
            key: [change(row) for row in member] if _is_rows(member) else member
            for key, member in self.value.items()
        }
        return Table(self.kind, value, self.wrapper_key)


def _is_rows(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(row, dict) for row in value)


def find_table(value: Any) -> Table | None:
    if _is_rows(value):
        return Table("rows", value)
    if not isinstance(value, dict):
        return None
    row_members = [key for key, member in value.items() if _is_rows(member)]
    if len(row_members) == 1:
        return Table("wrapper", value, row_members[0])
    if row_members:
        return Table("sections", value)
    if len(value) > SMALL_OBJECT_FIELDS:
        return Table("object", value)
    return None


def parse_text_blocks(texts: list[str], loads: Callable[[str], Any]) -> Any:
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
