"""An answer line whose numbers are plain spares the rewriter a scan per text
block; a line where an escape could hide a changing literal does not."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest

from gcxwire.proxy import interceptor as interceptor_module
from gcxwire.proxy import jsonrpc
from gcxwire.proxy.cli import build_interceptor
from gcxwire.proxy.jsonrpc import LineNumbers, PendingRequest, numbers_survive
from gcxwire.proxy.link import UpstreamLink
from gcxwire.proxy.options import parse_options
from gcxwire.proxy.stats import ProxyStats


class _NoUpstream:
    """``UpstreamLink.answer`` reads only the name; nothing is sent anywhere."""

    name = "server"


def link() -> UpstreamLink:
    options = parse_options(["--", "server"])
    rewriter = build_interceptor(options, ProxyStats(options.server_name))
    return UpstreamLink(_NoUpstream(), rewriter, None)  # type: ignore[arg-type]


def answer(text_json: str) -> bytes:
    """A tools/call answer line whose text block is ``text_json`` as written
    (a JSON string literal, escapes and all)."""
    return b'{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":%s}]}}' % (
        text_json.encode()
    )


def call(answer_link: UpstreamLink, line: bytes) -> bytes:
    answer_link.pending.add(PendingRequest(7, "tools/call", {"name": "t"}))
    return answer_link.answer(line)


TABLE = [{"id": i, "price": i + 0.5, "name": f"item {i}"} for i in range(30)]


@pytest.mark.parametrize(
    ("text_json", "plain"),
    [
        (json.dumps(json.dumps(TABLE, indent=2)), True),
        # "1.50" only once the \u0030 escape is read: the line does not show it
        (json.dumps(json.dumps(TABLE, indent=2)).replace("0.5", "0.5\\u0030", 1), False),
        (json.dumps('{"a": 2e3}'), False),
        (json.dumps('{"a": "\u00fcber"}'), True),  # an escaped letter hides no number
    ],
)
def test_a_line_is_plain_only_where_no_text_of_it_can_hide_a_changing_literal(
    text_json: str, plain: bool
) -> None:
    line = answer(text_json)
    assert LineNumbers(line).plain() is plain
    if plain:  # what plain promises, for the text the client's parser reads
        text = orjson.loads(line)["result"]["content"][0]["text"]
        assert numbers_survive(text.encode(), long_ints=True)


def test_an_escaped_trailing_zero_still_passes_the_answer_through() -> None:
    text_json = json.dumps(json.dumps(TABLE, indent=2)).replace("0.5", "0.5\\u0030", 1)
    line = answer(text_json)
    text = orjson.loads(line)["result"]["content"][0]["text"]
    assert b"0.50" not in line and "0.50" in text
    assert call(link(), line) == line


def test_the_texts_of_a_plain_line_are_not_scanned_again(monkeypatch: pytest.MonkeyPatch) -> None:
    scanned: list[bytes] = []

    def counting(text: bytes, *, long_ints: bool = False) -> bool:
        scanned.append(text)
        return jsonrpc.numbers_survive(text, long_ints=long_ints)

    monkeypatch.setattr(interceptor_module, "numbers_survive", counting)
    line = answer(json.dumps(json.dumps(TABLE, indent=2)))
    out = call(link(), line)
    assert out != line and scanned == []  # rewritten, with no scan of its text
    # Called with no line (as tests and tools do), each text is still checked.
    rewriter = build_interceptor(parse_options(["--", "server"]), ProxyStats("server"))
    result: Any = orjson.loads(line)["result"]
    assert rewriter.rewrite_tool_result("t", result) is not None
    assert len(scanned) == 1
