"""What the gateway lists and routes by name: tools, prompts, resources, templates.

Each list a client can ask for is a :class:`ListKind`: the method, the result
member holding the items, the member naming one item, and whether that name
gets the ``alias__`` prefix. Tool and prompt names are prefixed, so two servers'
``search`` never collide; resource URIs and URI templates are not, because a
URI is the resource's identity and clients pass it back verbatim (from a
``resource_link``, an embedded resource, a ``resources/updated`` notification).

:func:`addressed` tells which item a request names, so the gateway can send it
to the one server that listed that item.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .jsonrpc import JsonObject

__all__ = [
    "LIST_KINDS",
    "MAX_TOOL_NAME",
    "PROMPTS",
    "RESOURCES",
    "SEPARATOR",
    "TEMPLATES",
    "TOOLS",
    "Address",
    "ListKind",
    "addressed",
    "cache_hints",
    "name_path",
    "split_name",
    "with_inner_name",
]

SEPARATOR = "__"
# Claude's API caps tool names at 64 characters. Prompts are not sent to the
# model as tool names (clients show them as slash commands), so no cap there.
MAX_TOOL_NAME = 64


@dataclass(frozen=True)
class ListKind:
    """One kind of list the gateway merges across servers."""

    method: str  # "prompts/list"
    key: str  # the result member holding the items: "prompts"
    identity: str  # the member that names one item: "name", "uri", "uriTemplate"
    prefixed: bool  # names become alias__name; URIs stay as they are
    noun: str = ""  # for "Unknown prompt: x"
    max_length: int | None = None


# An unknown tool or prompt name is a protocol error with the spec's code
# -32602 (invalid params), as MCP servers answer it themselves.
TOOLS = ListKind("tools/list", "tools", "name", True, "tool", MAX_TOOL_NAME)
PROMPTS = ListKind("prompts/list", "prompts", "name", True, "prompt")
RESOURCES = ListKind("resources/list", "resources", "uri", False)
TEMPLATES = ListKind("resources/templates/list", "resourceTemplates", "uriTemplate", False)
LIST_KINDS = {kind.method: kind for kind in (TOOLS, PROMPTS, RESOURCES, TEMPLATES)}


@dataclass(frozen=True)
class Address:
    """The item a request names, and the lists that may hold it."""

    kinds: tuple[ListKind, ...]
    name: str  # a prefixed name (tools, prompts) or a URI


def addressed(method: str, params: JsonObject) -> Address | None:
    """The item ``method`` is about, or ``None`` when it names none (a broadcast)."""
    if method == "tools/call":
        return _named((TOOLS,), params.get("name"))
    if method == "prompts/get":
        return _named((PROMPTS,), params.get("name"))
    if method in ("resources/read", "resources/subscribe", "resources/unsubscribe"):
        return _named((RESOURCES,), params.get("uri"))
    if method == "completion/complete":
        ref = params.get("ref")
        if not isinstance(ref, dict):
            return None
        if ref.get("type") == "ref/prompt":
            return _named((PROMPTS,), ref.get("name"))
        if ref.get("type") == "ref/resource":  # a template's URI, or a resource's
            return _named((TEMPLATES, RESOURCES), ref.get("uri"))
    return None


def _named(kinds: tuple[ListKind, ...], name: Any) -> Address | None:
    if kinds[0].prefixed and not isinstance(name, str):
        return Address(kinds, "")  # no name at all: unknown, never broadcast
    return Address(kinds, name) if isinstance(name, str) else None


def split_name(name: str) -> tuple[str, str] | None:
    """``(alias, name)`` of ``alias__name``, split at the first ``__`` (aliases
    never hold ``__``, names may); ``None`` without a separator."""
    alias, sep, inner = name.partition(SEPARATOR)
    return (alias, inner) if sep else None


def with_inner_name(method: str, params: JsonObject, inner: str) -> JsonObject:
    """``params`` naming the server's own ``inner`` name instead of the prefixed one."""
    if method == "completion/complete":
        return {**params, "ref": {**params["ref"], "name": inner}}
    return {**params, "name": inner}


def name_path(method: str) -> tuple[str, ...]:
    """Where the name :func:`with_inner_name` changes sits in a request message."""
    return ("params", "ref", "name") if method == "completion/complete" else ("params", "name")


def cache_hints(pages: list[JsonObject]) -> JsonObject:
    """The 2026-07-28 members of a list merged from ``pages`` (every page of every
    server): the shortest ``ttlMs`` (an absent one counts as 0, as the spec
    says), ``cacheScope`` ``"public"`` only if every page is public, and the
    first ``resultType``. Handshake-era pages carry none of them: nothing."""
    hints: JsonObject = {}
    if any("ttlMs" in page or "cacheScope" in page for page in pages):
        hints["ttlMs"] = min(_ttl(page.get("ttlMs")) for page in pages)
        public = all(page.get("cacheScope") == "public" for page in pages)
        hints["cacheScope"] = "public" if public else "private"
    result_type = next((page["resultType"] for page in pages if "resultType" in page), None)
    if result_type is not None:
        hints["resultType"] = result_type
    return hints


def _ttl(value: Any) -> int:
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    return value if ok else 0
