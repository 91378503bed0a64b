"""Which item a gateway request names, and how merged lists keep their caching hints."""

from __future__ import annotations

from typing import Any

import pytest

from gcxwire.proxy.catalog import (
    PROMPTS,
    RESOURCES,
    TEMPLATES,
    TOOLS,
    Address,
    addressed,
    cache_hints,
    split_name,
    with_inner_name,
)


@pytest.mark.parametrize(
    ("method", "params", "expected"),
    [
        ("tools/call", {"name": "a__t"}, Address((TOOLS,), "a__t")),
        ("prompts/get", {"name": "a__p"}, Address((PROMPTS,), "a__p")),
        ("prompts/get", {}, Address((PROMPTS,), "")),  # no name: unknown, never broadcast
        ("resources/read", {"uri": "file:///x"}, Address((RESOURCES,), "file:///x")),
        ("resources/subscribe", {"uri": "u"}, Address((RESOURCES,), "u")),
        ("resources/unsubscribe", {"uri": "u"}, Address((RESOURCES,), "u")),
        ("resources/read", {}, None),  # no URI: every server is asked
        (
            "completion/complete",
            {"ref": {"type": "ref/prompt", "name": "a__p"}},
            Address((PROMPTS,), "a__p"),
        ),
        (
            "completion/complete",
            {"ref": {"type": "ref/resource", "uri": "db://{t}"}},
            Address((TEMPLATES, RESOURCES), "db://{t}"),
        ),
        ("completion/complete", {"ref": "nonsense"}, None),
        ("ping", {}, None),
        ("resources/list", {}, None),
    ],
)
def test_addressed(method: str, params: dict[str, Any], expected: Address | None) -> None:
    assert addressed(method, params) == expected


def test_names_split_at_the_first_separator_and_go_back_unprefixed() -> None:
    assert split_name("git__review__code") == ("git", "review__code")
    assert split_name("plain") is None
    assert with_inner_name("prompts/get", {"name": "a__p", "arguments": {}}, "p") == {
        "name": "p",
        "arguments": {},
    }
    completion = {"ref": {"type": "ref/prompt", "name": "a__p"}, "argument": {"name": "x"}}
    assert with_inner_name("completion/complete", completion, "p") == {
        "ref": {"type": "ref/prompt", "name": "p"},
        "argument": {"name": "x"},
    }


@pytest.mark.parametrize(
    ("pages", "expected"),
    [
        ([{"tools": []}, {"tools": []}], {}),  # handshake era: no hints at all
        (
            [{"ttlMs": 60000, "cacheScope": "public"}, {"ttlMs": 5000, "cacheScope": "public"}],
            {"ttlMs": 5000, "cacheScope": "public"},
        ),
        (
            [{"ttlMs": 60000, "cacheScope": "public"}, {"ttlMs": 90000, "cacheScope": "private"}],
            {"ttlMs": 60000, "cacheScope": "private"},
        ),
        # A page without hints counts as immediately stale and private.
        ([{"ttlMs": 60000, "cacheScope": "public"}, {}], {"ttlMs": 0, "cacheScope": "private"}),
        (
            [{"ttlMs": -3, "cacheScope": "public", "resultType": "complete"}],
            {
                "ttlMs": 0,
                "cacheScope": "public",
                "resultType": "complete",
            },
        ),
    ],
)
def test_cache_hints_of_a_merged_list(pages: list[dict[str, Any]], expected: Any) -> None:
    assert cache_hints(pages) == expected
