"""read_result: the value a result carries, from SDK models or JSON dicts, whoever wrote it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import mcp.types as types
import pytest
from pydantic import BaseModel

from gcxwire import EncodeError, _auto, encode
from gcxwire._values import difference
from gcxwire.mcp import ENCODING_META, read_result, reading_hint, tool_result
from gcxwire.proxy.cli import build_interceptor
from gcxwire.proxy.options import parse_options
from gcxwire.proxy.stats import ProxyStats

from .servers import data

RECORDED: dict[str, Any] = json.loads(
    (Path(__file__).parents[1] / "proxy" / "data" / "recorded_results.json").read_text("utf-8")
)
RECORDED_CALLS = [
    pytest.param(server, call, id=f"{server}-{i}-{call['call']['name']}")
    for server, recorded in RECORDED.items()
    for i, call in enumerate(recorded["calls"])
]
VALUES = [data.CALLS[name][1] for name in data.CALLS] + [data.status(), [1, "2", None], "text", 5]


def text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


@pytest.mark.parametrize("fmt", ["auto", "gcx", "dcp", "json"])
@pytest.mark.parametrize("value", VALUES)
def test_what_tool_result_sends_reads_back_exactly(value: Any, fmt: Any) -> None:
    for hint in (False, True):
        try:
            result = tool_result(value, tool="t", format=fmt, hint=hint)
        except EncodeError:
            assert fmt == "dcp"  # DCP carries records only, and null for absent
            return
        assert isinstance(result, types.CallToolResult)
        assert result.structured_content is None
        text = result.content[-1].text  # type: ignore[union-attr]
        assert result.meta == {ENCODING_META: _auto.detect(text)}
        assert len(result.content) == (2 if hint and reading_hint(text) else 1)
        as_dict = result.model_dump(by_alias=True, exclude_none=True, mode="json")
        for form in (result, as_dict, {"jsonrpc": "2.0", "id": 1, "result": as_dict}):
            assert difference(value, read_result(form)) is None


@pytest.mark.parametrize("hint", ["per-result", "session"])
@pytest.mark.parametrize(("server", "call"), RECORDED_CALLS)
def test_what_the_proxy_sends_reads_as_what_the_server_sent(
    server: str, call: dict[str, Any], hint: str
) -> None:
    interceptor = build_interceptor(
        parse_options(["--hint", hint, "--", server]), ProxyStats(server)
    )
    original = call["result"]
    rewritten = interceptor.rewrite_tool_result(call["call"]["name"], original)
    meant = read_result(original)
    if rewritten is not None:
        assert difference(meant, read_result(rewritten)) is None
    # Unencoded, the value is what the text blocks carry, else structuredContent, else the text.
    texts = [block["text"] for block in original["content"] if block["type"] == "text"]
    values = []
    for text in texts:
        try:
            values.append(json.loads(text))
        except ValueError:
            values = []
            break
    if values:
        assert meant == (values[0] if len(values) == 1 else values)
    elif "structuredContent" in original:
        assert meant == original["structuredContent"]
    else:
        assert meant == "\n".join(texts)


class OldTextContent(BaseModel):
    """mcp 1.x spelled result fields in camelCase."""

    type: str
    text: str


class OldCallToolResult(BaseModel):
    content: list[OldTextContent]
    structuredContent: dict[str, Any] | None = None  # noqa: N815
    isError: bool = False  # noqa: N815


def test_mcp_1x_field_names() -> None:
    rows = data.CALLS["users"][1]
    old = OldCallToolResult(content=[OldTextContent(type="text", text=encode(rows, tool="u"))])
    assert read_result(old) == rows
    only_structured = OldCallToolResult(content=[], structuredContent={"a": 1})
    assert read_result(only_structured) == {"a": 1}


@pytest.mark.parametrize(
    ("result", "meant"),
    [
        # One block per row, as MCPServer writes a list.
        ({"content": [text_block('{"a": 1}'), text_block('{"a": 2}')]}, [{"a": 1}, {"a": 2}]),
        # A hint anywhere is skipped.
        (
            {"content": [text_block('{"a": 1}'), text_block(reading_hint("gcx"))]},
            {"a": 1},
        ),
        # structuredContent when it is the only data.
        ({"content": [], "structuredContent": {"a": 1}}, {"a": 1}),
        ({"content": [text_block("3 rows")], "structuredContent": {"n": 3}}, {"n": 3}),
        # Text that is no encoding comes back as text, errors included.
        ({"content": [text_block("Hello")]}, "Hello"),
        ({"content": [text_block("a"), text_block("b")]}, "a\nb"),
        (
            {"content": [text_block("Error executing tool boom")], "isError": True},
            "Error executing tool boom",
        ),
        (
            {"content": [text_block("GCX1 tool=t fields=a\n1\t2\t3")]},
            "GCX1 tool=t fields=a\n1\t2\t3",
        ),
        ({"content": [text_block("[1, 2")]}, "[1, 2"),
        # Images are no JSON value; nothing else: None.
        ({"content": [{"type": "image", "data": "AA==", "mimeType": "image/png"}]}, None),
        ({"content": []}, None),
        # fastmcp's {"result": value} wrapper, which it marks in _meta.
        (
            {
                "content": [text_block("Hi")],
                "structuredContent": {"result": "Hi"},
                "_meta": {"fastmcp": {"wrap_result": True}},
            },
            "Hi",
        ),
    ],
)
def test_ordinary_results_never_raise(result: dict[str, Any], meant: Any) -> None:
    assert read_result(result) == meant
    model = types.CallToolResult.model_validate(result)
    assert read_result(model) == meant
