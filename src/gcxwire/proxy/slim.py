"""Slim ``tools/list`` results: drop what a client does not need to call a tool.

Tool definitions are sent to the model on every turn, so each byte counts many
times. Removed from ``inputSchema`` (recursively, only where a JSON Schema
keyword can appear, never a property that happens to be called ``title``):

- ``$schema``, ``$id``, ``$comment`` (meta-data for schema tooling);
- ``additionalProperties: true`` (the default, so it says nothing). ``false`` is
  kept: it is a constraint, and strict tool calling relies on it; a schema for
  map values is kept too;
- a ``title`` at the root, or one that only restates its property or ``$defs`` name
  (pydantic writes ``"title": "User Id"`` for ``user_id``);
- a ``description`` that only restates its property name.

Everything else is kept: names, tool descriptions, ``required``, types, enums,
defaults, ``$ref``/``$defs``, annotations, and the list's ``nextCursor``,
``ttlMs``, ``cacheScope`` and ``_meta``. ``outputSchema`` is removed entirely
when structured content is dropped (see :mod:`.interceptor`), else left as is,
because clients validate results against it.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["slim_tool", "slim_tools_list"]

_TOOLING_KEYWORDS = frozenset({"$schema", "$id", "$comment"})
# Keywords whose value is a map of name -> subschema.
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
# Keywords whose value is one subschema.
_SCHEMA_ONE = (
    "items",
    "additionalItems",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "additionalProperties",
)
# Keywords whose value is a list of subschemas.
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems", "items")

_NOT_ALNUM = re.compile(r"[^0-9a-z]+")
_ARTICLE = re.compile(r"^(the|a|an)\s+", re.IGNORECASE)


def _words(text: str) -> str:
    """``"The user ID."`` and ``"user_id"`` both become ``"userid"``."""
    return _NOT_ALNUM.sub("", _ARTICLE.sub("", text.strip()).lower())


def _restates(text: Any, name: str | None) -> bool:
    return isinstance(text, str) and name is not None and _words(text) == _words(name)


def _slim_schema(schema: Any, name: str | None, *, root: bool = False) -> Any:
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _TOOLING_KEYWORDS:
            continue
        if key == "additionalProperties" and value is True:
            continue
        if key == "title" and (root or _restates(value, name)):
            continue
        if key == "description" and _restates(value, name):
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            value = {sub: _slim_schema(subschema, sub) for sub, subschema in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            value = [_slim_schema(subschema, None) for subschema in value]
        elif key in _SCHEMA_ONE and isinstance(value, dict):
            value = _slim_schema(value, None)
        out[key] = value
    return out


def slim_tool(tool: Any, *, drop_output_schema: bool) -> Any:
    """One slimmed tool definition; anything that is not a dict is returned as is."""
    if not isinstance(tool, dict):
        return tool
    out = dict(tool)
    if isinstance(out.get("inputSchema"), dict):
        out["inputSchema"] = _slim_schema(out["inputSchema"], None, root=True)
    if drop_output_schema:
        out.pop("outputSchema", None)
    return out


def slim_tools_list(result: dict[str, Any], *, drop_output_schema: bool) -> dict[str, Any]:
    """The ``tools/list`` result with every tool slimmed and all other members kept."""
    tools = result.get("tools")
    if not isinstance(tools, list):
        return result
    slim = [slim_tool(tool, drop_output_schema=drop_output_schema) for tool in tools]
    return {**result, "tools": slim}
