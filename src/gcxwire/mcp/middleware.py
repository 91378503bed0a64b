"""``EncodingMiddleware``: gcxwire encoding for every tool of a ``fastmcp`` server.

``tools/list``: each encoded tool loses its ``outputSchema`` (its results no
longer carry the ``structuredContent`` that schema promises) and gains the
optional ``format`` argument, unless it has a ``format`` argument of its own.
``tools/call``: the argument is taken out before the tool runs, and a tabular
result (or any list or object, when a format is asked for) becomes one encoded
text block; errors and other results pass as fastmcp wrote them.
``initialize`` / ``server/discover``: the reading hint joins the server's
``instructions``.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

import fastmcp.server.middleware as fm
import mcp_types
from fastmcp.exceptions import ToolError
from fastmcp.tools.base import Tool, ToolResult

from .mcpserver import server_instructions
from .read import read_result
from .result import FORMAT_ARG, Format, HintMode, check_format, encode_return, format_property

__all__ = ["EncodingMiddleware"]


class EncodingMiddleware(fm.Middleware):
    """Encode the results of a fastmcp server's tools with gcxwire.

    ``tools`` names the tools to encode (default: all). ``format`` is the
    encoding when the caller does not choose one; ``format_arg=False`` leaves
    the ``format`` argument out. ``hint`` is ``"instructions"`` (the reading
    hint once per session, in the server's instructions), ``"result"`` (before
    each encoded result) or ``"none"``.
    """

    def __init__(
        self,
        *,
        tools: Collection[str] | None = None,
        format: Format = "auto",
        format_arg: bool = True,
        hint: HintMode = "instructions",
    ) -> None:
        self.tools = None if tools is None else frozenset(tools)
        self.format = check_format(format)
        self.format_arg = format_arg
        self.hint = hint

    def encodes(self, tool: str) -> bool:
        return self.tools is None or tool in self.tools

    async def on_initialize(
        self,
        context: fm.MiddlewareContext[mcp_types.InitializeRequest],
        call_next: fm.CallNext[mcp_types.InitializeRequest, mcp_types.InitializeResult | None],
    ) -> mcp_types.InitializeResult | None:
        result = await call_next(context)
        if result is not None and self.hint == "instructions":
            result.instructions = self._instructions(result.instructions)
        return result

    async def on_discover(
        self,
        context: fm.MiddlewareContext[mcp_types.DiscoverRequest],
        call_next: fm.CallNext[
            mcp_types.DiscoverRequest, mcp_types.DiscoverResult | dict[str, Any]
        ],
    ) -> mcp_types.DiscoverResult | dict[str, Any]:
        result = await call_next(context)
        if self.hint == "instructions":
            if isinstance(result, dict):
                result = {**result, "instructions": self._instructions(result.get("instructions"))}
            else:
                result.instructions = self._instructions(result.instructions)
        return result

    def _instructions(self, own: str | None) -> str:
        return server_instructions(own, "auto" if self.format_arg else self.format)

    async def on_list_tools(
        self,
        context: fm.MiddlewareContext[mcp_types.ListToolsRequest],
        call_next: fm.CallNext[mcp_types.ListToolsRequest, Sequence[Tool]],
    ) -> Sequence[Tool]:
        listed = await call_next(context)
        return [self._listed(tool) if self.encodes(tool.name) else tool for tool in listed]

    def _listed(self, tool: Tool) -> Tool:
        update: dict[str, Any] = {"output_schema": None}
        if self.format_arg:
            schema = dict(tool.parameters)
            properties = dict(schema.get("properties") or {})
            if FORMAT_ARG not in properties:  # a tool's own `format` stays its own
                properties[FORMAT_ARG] = format_property(self.format)
                update["parameters"] = {**schema, "properties": properties}
        return tool.model_copy(update=update)

    async def on_call_tool(
        self,
        context: fm.MiddlewareContext[mcp_types.CallToolRequestParams],
        call_next: fm.CallNext[mcp_types.CallToolRequestParams, ToolResult],
    ) -> ToolResult:
        params = context.message
        if not self.encodes(params.name):
            return await call_next(context)
        format: Format = self.format
        asked = self.format_arg and FORMAT_ARG in (params.arguments or {})
        if asked and not await _has_own_format(context):
            arguments = dict(params.arguments or {})
            try:
                format = check_format(arguments.pop(FORMAT_ARG))
            except ValueError as exc:
                raise ToolError(str(exc)) from None
            message = params.model_copy(update={"arguments": arguments})
            context = context.copy(message=message)
        result = await call_next(context)
        if result.is_error or type(result) is not ToolResult:
            return result  # errors, input requests and task handles pass as they are
        encoded = encode_return(
            _returned(result), tool=params.name, format=format, hint=self.hint == "result"
        )
        if encoded is None:
            return result
        meta = {**(result.meta or {}), **encoded["_meta"]}
        if meta.get("fastmcp") == {"wrap_result": True}:
            del meta["fastmcp"]  # it told clients to unwrap the structuredContent that is gone
        blocks = [mcp_types.TextContent(type="text", text=b["text"]) for b in encoded["content"]]
        return ToolResult(content=blocks, meta=meta)


async def _has_own_format(
    context: fm.MiddlewareContext[mcp_types.CallToolRequestParams],
) -> bool:
    """Does the called tool take a ``format`` argument of its own (then it keeps it)?"""
    if context.fastmcp_context is None:
        return False
    tool = await context.fastmcp_context.fastmcp.get_tool(context.message.name)
    return tool is not None and FORMAT_ARG in (tool.parameters.get("properties") or {})


def _returned(result: ToolResult) -> Any:
    """What the tool function returned, from fastmcp's rendering of it."""
    structured = result.structured_content
    fastmcp_meta = (result.meta or {}).get("fastmcp")
    if isinstance(structured, dict) and isinstance(fastmcp_meta, dict):
        if fastmcp_meta.get("wrap_result") is True:
            return structured.get("result")
    if structured is not None:
        return structured
    if any(block.type != "text" for block in result.content):
        return None  # images, resources: not a JSON value
    value = read_result({"content": [block.model_dump() for block in result.content]})
    return None if isinstance(value, str) else value
