"""The server-side core the adapters share: which returns are encoded, and how."""

from __future__ import annotations

import dataclasses
from typing import Any

import mcp.types as types
import pytest
from pydantic import BaseModel, Field

from gcxwire import EncodeError
from gcxwire._values import difference
from gcxwire.mcp import ENCODING_META, encode_result, json_value, read_result, tool_result
from gcxwire.mcp.result import encode_return, format_property

ROWS = [{"id": i, "name": f"n{i}"} for i in range(4)]


class Aliased(BaseModel):
    user_id: int = Field(alias="userId")
    tags: tuple[str, ...] = ()


@dataclasses.dataclass
class Point:
    y: float
    x: int


def test_json_value_uses_aliases_keeps_key_order_and_lists_tuples() -> None:
    value = [Aliased(userId=1, tags=("a",)), Point(y=0.5, x=2), {"z": (1, 2), "a": None}]
    assert json_value(value) == [
        {"userId": 1, "tags": ["a"]},
        {"y": 0.5, "x": 2},
        {"z": [1, 2], "a": None},
    ]
    assert list(json_value(Point(y=1.0, x=1))) == ["y", "x"]


@pytest.mark.parametrize(
    "value",
    [
        "text",
        5,
        None,
        {"a": 1},  # a small object: the framework writes it
        [1, 2, 3],  # scalars: no table
        types.TextContent(type="text", text="mine"),
        [types.TextContent(type="text", text="mine")],
        types.CallToolResult(content=[]),
        [{"a": object()}] * 3,  # not JSON: the framework says so its own way
    ],
)
def test_auto_leaves_what_is_no_table_to_the_framework(value: Any) -> None:
    assert encode_return(value, tool="t", format="auto") is None


def test_auto_encodes_tables_and_an_asked_format_any_list_or_object() -> None:
    result = encode_return(ROWS, tool="t", format="auto")
    assert result is not None and result["_meta"] == {ENCODING_META: "gcx"}
    for value in ({"a": 1}, [1, 2, 3]):
        asked = encode_return(value, tool="t", format="gcx")
        assert asked is not None and asked["_meta"] == {ENCODING_META: "gcx"}
        assert read_result(asked) == value
    # Content blocks and text stay the tool's own even when a format is asked for.
    assert encode_return("text", tool="t", format="gcx") is None
    assert encode_return([types.TextContent(type="text", text="x")], tool="t", format="gcx") is None


def test_an_asked_format_that_cannot_carry_the_value_gives_exact_json() -> None:
    sparse = [{"a": 1}, {"a": 2, "b": None}, {"b": 3}]
    with pytest.raises(EncodeError):
        encode_result(sparse, tool="t", format="dcp")
    result = encode_return(sparse, tool="t", format="dcp")
    assert result is not None and result["_meta"] == {ENCODING_META: "json"}
    assert difference(sparse, read_result(result)) is None


def test_the_format_property() -> None:
    assert format_property("gcx") == {
        "type": "string",
        "enum": ["auto", "gcx", "dcp", "json"],
        "default": "gcx",
        "description": format_property()["description"],
    }


def test_a_plain_mcpserver_tool_returning_tool_result_sends_it_as_is() -> None:
    import asyncio

    from mcp import Client
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("by-hand")

    @server.tool()
    def rows(n: int) -> types.CallToolResult:
        result: types.CallToolResult = tool_result(ROWS[:n], tool="rows")
        return result

    async def main() -> None:
        async with Client(server) as client:
            [tool] = (await client.list_tools()).tools
            result = await client.call_tool("rows", {"n": 3})
            assert tool.output_schema is None and result.structured_content is None
            assert len(result.content) == 1 and read_result(result) == ROWS[:3]

    asyncio.run(main())
