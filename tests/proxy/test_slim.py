"""tools/list slimming keeps every tool callable."""

from __future__ import annotations

from typing import Any

from gcxwire.proxy.slim import slim_tool, slim_tools_list

PYDANTIC_TOOL: dict[str, Any] = {
    "name": "search",
    "title": "Search",
    "description": "Search users.",
    "inputSchema": {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "searchArguments",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "user_id": {"title": "User Id", "type": "integer", "description": "The user ID."},
            "title": {"title": "Title", "type": "string", "description": "Words in the title"},
            "filters": {"$ref": "#/$defs/Filters"},
            "tags": {"type": "object", "additionalProperties": {"type": "string"}},
            "mode": {
                "anyOf": [{"type": "string", "title": "Mode"}, {"type": "null"}],
                "default": None,
            },
        },
        "required": ["user_id", "title"],
        "$defs": {
            "Filters": {
                "title": "Filters",
                "type": "object",
                "properties": {"since": {"type": "string", "format": "date"}},
                "additionalProperties": True,
            }
        },
    },
    "outputSchema": {"type": "object", "properties": {"result": {"type": "array"}}},
    "annotations": {"readOnlyHint": True},
}


def test_meta_fields_go_and_everything_needed_stays() -> None:
    slim = slim_tool(PYDANTIC_TOOL, drop_output_schema=False)
    assert slim["inputSchema"] == {
        "type": "object",
        # A constraint strict tool calling relies on: kept. (true, the default, goes.)
        "additionalProperties": False,
        "properties": {
            "user_id": {"type": "integer"},
            # A property called "title" is a property, not a keyword.
            "title": {"type": "string", "description": "Words in the title"},
            "filters": {"$ref": "#/$defs/Filters"},
            "tags": {"type": "object", "additionalProperties": {"type": "string"}},
            "mode": {
                "anyOf": [{"type": "string", "title": "Mode"}, {"type": "null"}],
                "default": None,
            },
        },
        "required": ["user_id", "title"],
        "$defs": {
            "Filters": {
                "type": "object",
                "properties": {"since": {"type": "string", "format": "date"}},
            }
        },
    }
    assert slim["outputSchema"] == PYDANTIC_TOOL["outputSchema"]  # validated by clients: as is
    for key in ("name", "title", "description", "annotations"):
        assert slim[key] == PYDANTIC_TOOL[key]


def test_output_schema_dropped_on_request() -> None:
    assert "outputSchema" not in slim_tool(PYDANTIC_TOOL, drop_output_schema=True)


def test_list_members_are_kept() -> None:
    result = {
        "tools": [PYDANTIC_TOOL],
        "nextCursor": "n",
        "ttlMs": 0,
        "cacheScope": "private",
        "_meta": {"a": 1},
    }
    slim = slim_tools_list(result, drop_output_schema=True)
    assert {k: v for k, v in slim.items() if k != "tools"} == {
        "nextCursor": "n",
        "ttlMs": 0,
        "cacheScope": "private",
        "_meta": {"a": 1},
    }
    assert PYDANTIC_TOOL["inputSchema"]["$schema"]  # the input is not modified


def test_odd_shapes_pass() -> None:
    assert slim_tools_list({"tools": "nope"}, drop_output_schema=True) == {"tools": "nope"}
    assert slim_tool("x", drop_output_schema=True) == "x"
    assert slim_tool({"name": "t"}, drop_output_schema=True) == {"name": "t"}
