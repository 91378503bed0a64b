"""The proxy's DCP schemas, readable by the client as MCP resources.

``gcxwire://schemas`` is the whole registry: one row per tool schema (learned or
preset, with its version and lifecycle state), DCP-encoded with the
schema-of-schemas ``gcxwire.dcp.REGISTRY_SCHEMA``; ``gcxwire://schemas/<tool>``
is the one row of that tool. An agent that meets a ``["$S","search:v3",...]``
header can read what the proxy knows of it, and decode both with ``gcxwire.dcp``.

:class:`SchemaResources` lists and reads them for any set of tools (one server's,
or every server's of a gateway). :class:`ServedRegistry` puts them next to one
server's own resources in the single-server relay:

- the ``initialize``/``server/discover`` answer gets a ``resources`` capability
  if the server has none; the proxy then answers ``resources/list``,
  ``resources/templates/list`` and ``resources/read`` of its own URIs itself;
- a server's ``resources/list`` gets the registry's items after its last page
  (the one without ``nextCursor``), so every page the server gave stays as it
  was and the registry is listed once per walk; a URI the server lists is never
  listed or answered by the proxy (its reads go to the server);
- every other ``resources/read`` goes to the server untouched.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import quote

import orjson

from . import codecs
from .jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND, JsonObject, PendingRequest, error_response
from .lifecycle import SchemaLifecycle, SchemaVersion
from .link import ResponseRewriter

__all__ = ["SCHEMAS_URI", "SchemaResources", "ServedRegistry", "lifecycle_schemas", "tool_uri"]

log = logging.getLogger(__name__)

SCHEMAS_URI = "gcxwire://schemas"
MIME_TYPE = "text/plain"  # DCP is JSON lines; a client shows text/* as it is
_MODERN_VERSION = "io.modelcontextprotocol/protocolVersion"
_NO_CACHE: JsonObject = {"ttlMs": 0, "cacheScope": "private"}

# (the tool's name as the client knows it, its current schema)
Schemas = Callable[[], Iterable[tuple[str, SchemaVersion]]]


def tool_uri(tool: str) -> str:
    """The resource of one tool's schema: ``gcxwire://schemas/<tool>`` (percent-encoded)."""
    return f"{SCHEMAS_URI}/{quote(tool, safe='')}"


def lifecycle_schemas(
    lifecycle: SchemaLifecycle | None, prefix: str = ""
) -> list[tuple[str, SchemaVersion]]:
    """The schemas of one server's lifecycle, its tool names behind ``prefix``."""
    if lifecycle is None:
        return []
    return [(prefix + tool, version) for tool, version in lifecycle.schemas()]


class SchemaResources:
    """The registry's resources for the tools ``schemas()`` names, in name order."""

    def __init__(self, schemas: Schemas) -> None:
        self._schemas = schemas

    def owns(self, uri: Any) -> bool:
        """Whether ``uri`` is in the proxy's own namespace."""
        return isinstance(uri, str) and (uri == SCHEMAS_URI or uri.startswith(SCHEMAS_URI + "/"))

    def _current(self) -> list[tuple[str, SchemaVersion]]:
        found = [(tool, v) for tool, v in self._schemas() if v.schema is not None]
        return sorted(found, key=lambda item: item[0])

    def items(self, taken: Iterable[str] = ()) -> list[JsonObject]:
        """``resources/list`` items: the registry, then one per tool; none whose
        URI is in ``taken`` (a server's own)."""
        current = self._current()
        items: list[JsonObject] = [
            {
                "uri": SCHEMAS_URI,
                "name": "gcxwire-schemas",
                "description": (
                    f"The {len(current)} DCP schemas gcxwire encodes tool results with, one row "
                    "each (id, version, status, fields, types, paths), as DCP with the "
                    "schema-of-schemas dcp-schemas:v1"
                ),
                "mimeType": MIME_TYPE,
            }
        ]
        for tool, version in current:
            items.append(
                {
                    "uri": tool_uri(tool),
                    "name": f"gcxwire-schema-{tool}",
                    "description": f"The DCP schema of {tool}: {version.id} ({version.status})",
                    "mimeType": MIME_TYPE,
                }
            )
        blocked = set(taken)
        return [item for item in items if item["uri"] not in blocked]

    def read(self, uri: str) -> JsonObject | None:
        """The ``resources/read`` result for ``uri``, or ``None`` for no such resource."""
        current = self._current()
        if uri != SCHEMAS_URI:
            current = [(tool, v) for tool, v in current if tool_uri(tool) == uri]
            if not current:
                return None
        return {"contents": [{"uri": uri, "mimeType": MIME_TYPE, "text": encode(current)}]}

    def answer_read(self, request: PendingRequest) -> bytes:
        """The answer to a ``resources/read`` of one of the proxy's URIs."""
        uri = request.params.get("uri")
        result = self.read(uri) if isinstance(uri, str) else None
        if result is None:
            return error_response(request.id, INVALID_PARAMS, f"Resource not found: {uri}")
        return answer(request, result)


def encode(schemas: list[tuple[str, SchemaVersion]]) -> str:
    """The rows of ``schemas`` as DCP with the schema-of-schemas."""
    return codecs.registry_table(
        [version.schema.to_entry(version.status) for _, version in schemas]
    )


def complete(request: PendingRequest, result: JsonObject) -> JsonObject:
    """The response to ``request`` with ``result``, and what a 2026-07-28 request
    needs: ``resultType``, and a list's cache hints (``ttlMs`` 0: the registry
    grows as tools are called; ``private``: it is this session's)."""
    meta = request.params.get("_meta")
    if isinstance(meta, dict) and _MODERN_VERSION in meta:
        result = {**result, "resultType": "complete"}
        if request.method.endswith("/list"):
            result = {**result, **_NO_CACHE}
    return {"jsonrpc": "2.0", "id": request.id, "result": result}


def answer(request: PendingRequest, result: JsonObject) -> bytes:
    """:func:`complete`, as the line to write."""
    return orjson.dumps(complete(request, result))


class ServedRegistry:
    """One server's rewriter, with the registry's resources beside the server's own."""

    def __init__(self, inner: ResponseRewriter, resources: SchemaResources) -> None:
        self.inner = inner
        self.resources = resources
        # None until the initialize/discover answer says whether the server has resources
        self.server_resources: bool | None = None
        self.server_uris: set[str] = set()  # every URI the server listed

    def answer_locally(self, request: PendingRequest) -> bytes | None:
        """The proxy's own answer to ``request``, or ``None`` to send it to the server."""
        method = request.method
        if method == "resources/read":
            uri = request.params.get("uri")
            if self.resources.owns(uri) and uri not in self.server_uris:
                return self.resources.answer_read(request)
            return None
        if self.server_resources is not False:
            return None
        if method == "resources/list":
            if request.params.get("cursor") is not None:  # the proxy gives one page: no cursor
                return error_response(request.id, INVALID_PARAMS, "Invalid cursor")
            return answer(request, {"resources": self.resources.items()})
        if method == "resources/templates/list":
            return answer(request, {"resourceTemplates": []})
        return None

    def rewrite(self, request: PendingRequest, response: JsonObject) -> JsonObject | None:
        new = self.inner.rewrite(request, response)
        method = request.method
        if method in ("initialize", "server/discover"):
            return self._with_capability(new or response) or new
        if method == "resources/list":
            return self._listed(request, response)
        if method == "resources/templates/list" and _not_found(response):
            return complete(request, {"resourceTemplates": []})
        return new

    def _with_capability(self, response: JsonObject) -> JsonObject | None:
        result = response.get("result")
        if not isinstance(result, dict):
            return None
        capabilities = result.get("capabilities")
        if not isinstance(capabilities, dict):
            if result.get("resultType", "complete") != "complete" or "capabilities" in result:
                return None  # not a hello the proxy can add to
            capabilities = {}
        self.server_resources = "resources" in capabilities
        if self.server_resources:
            return None
        log.info("the server has no resources: the proxy lists and reads its schema registry")
        new_caps = {**capabilities, "resources": {}}
        return {**response, "result": {**result, "capabilities": new_caps}}

    def _listed(self, request: PendingRequest, response: JsonObject) -> JsonObject | None:
        result = response.get("result")
        if isinstance(result, dict) and isinstance(result.get("resources"), list):
            own = result["resources"]
            self.server_uris.update(
                item["uri"]
                for item in own
                if isinstance(item, dict) and isinstance(item.get("uri"), str)
            )
            if result.get("nextCursor"):
                return None  # the registry follows the last page
            ours = self.resources.items(self.server_uris)
            new = {**result, "resources": [*own, *ours]}
            if (
                "ttlMs" in result or "cacheScope" in result
            ):  # 2026-07-28: what was said held for the server's items only
                new.update(_NO_CACHE)
            return {**response, "result": new}
        if _not_found(response) and request.params.get("cursor") is None:
            self.server_resources = False
            return complete(request, {"resources": self.resources.items()})
        return None


def _not_found(response: JsonObject) -> bool:
    error = response.get("error")
    return isinstance(error, dict) and error.get("code") == METHOD_NOT_FOUND
