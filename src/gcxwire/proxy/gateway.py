"""One stdio endpoint in front of several MCP servers (``gcxwire proxy --servers FILE``).

Each upstream keeps its own :class:`~.link.UpstreamLink` (process, requests in
flight, crash answers) and its own interceptor (schema lifecycle, filters,
stats); only the routing here is shared. What is listed and how a request
names an item is in :mod:`.catalog`.

- ``tools/list``, ``prompts/list``, ``resources/list`` and
  ``resources/templates/list``: every running upstream's list, all pages
  drained, merged in config order and answered in one page (with the
  shortest ``ttlMs`` and the narrowest ``cacheScope``). Tool and prompt
  names are prefixed ``alias__`` (a prefixed tool name over 64 characters is
  left out with a warning); URIs and URI templates are kept as they are, and a
  URI two servers list is kept once, for the first.
- ``tools/call alias__tool`` and ``prompts/get alias__prompt`` are sent to that
  upstream under its own name; an unknown alias, tool or prompt gets -32602
  (invalid params, the spec's code for an unknown tool or prompt name).
- ``resources/read``, ``resources/subscribe``, ``resources/unsubscribe`` go to
  the upstream whose last ``resources/list`` named the URI;
  ``completion/complete`` follows its ``ref``: a prefixed prompt name, or a
  template (or resource) URI. A URI no list named goes to every upstream.
- Any other request (``initialize``, ``server/discover``, ``ping``,
  ``logging/setLevel``...) goes to every running upstream, and the first server in
  config order that answers successfully wins. For ``initialize`` and
  ``server/discover`` the capabilities of all successful answers are merged
  (:func:`merge_capabilities`).
- Notifications from the client go to every upstream, except
  ``notifications/cancelled``, which goes to the one that owns the request, and
  ``notifications/progress``, which goes to the server whose request named its
  token. Notifications from an upstream (list_changed, resources/updated, log
  lines) go to the client as they are; its ``notifications/cancelled`` only
  for its own requests to the client (under their gateway ids), its
  ``notifications/progress`` only for a token of a request sent to it: one
  server can neither cancel nor fake progress for another's request.
- Every request gets a fresh id per upstream, and server-to-client requests get
  gateway ids, so two servers' ids never collide; answers go back under the
  ids their sender used. Ids are spliced into the original text, so numbers
  and everything else keep the bytes their sender wrote.
- Each upstream has its own input queue: one that stops reading holds up no
  other; past :data:`BUSY_LIMIT` queued bytes its requests get an error at once.
- Protocol eras are per server. When the client speaks 2026-07-28 and a server
  only the handshake era, the gateway initializes that server itself, sends it
  requests without the 2026-07-28 ``_meta`` keys, and adds ``resultType`` to
  its results.

An upstream that fails to start, crashes, or does not answer ``initialize``,
``server/discover`` or ``tools/list`` in time is taken out: its in-flight calls
get errors, its tools, prompts and resources disappear (handshake-era clients
get ``notifications/tools/list_changed``, and the prompts and resources ones if
it ever listed any), and with ``"restart": true`` it starts again after 1, 2, 4
... 30 s, with the client's ``initialize`` replayed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections.abc import Awaitable, Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeGuard

import orjson

from .._version import __version__
from ..errors import ClientGone
from .catalog import (
    LIST_KINDS,
    PROMPTS,
    RESOURCES,
    SEPARATOR,
    TEMPLATES,
    Address,
    ListKind,
    addressed,
    cache_hints,
    name_path,
    split_name,
    with_inner_name,
)
from .framing import LineReader, LineWriter
from .gateway_config import ServerSpec
from .http_upstream import HttpUpstream
from .interceptor import ResponseInterceptor
from .jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    NO_UPSTREAM,
    PARSE_ERROR,
    JsonObject,
    PendingRequest,
    batch_refusal,
    error_response,
    id_key,
    parse_lenient,
    parse_line,
    request_of,
    response_id,
    set_member,
)
from .lifecycle import SchemaVersion
from .link import UpstreamLink
from .options import DEFAULTS
from .registry import SchemaResources, lifecycle_schemas
from .upstream import Upstream, server_env

__all__ = ["Gateway", "Member", "merge_capabilities"]

log = logging.getLogger(__name__)

# A server that has not answered initialize, server/discover or a tools/list
# page within the answer timeout (--answer-timeout) is taken out.
_MUST_ANSWER = frozenset({"initialize", "server/discover", "tools/list"})
# Seconds before each restart of a crashed upstream; the last one repeats.
RESTART_BACKOFF = (1.0, 2.0, 4.0, 8.0, 16.0, 30.0)
# A stream per server cannot be merged into one answer.
_UNSUPPORTED = frozenset({"subscriptions/listen"})
# Bytes queued for one server that stopped reading before its requests are refused.
BUSY_LIMIT = 4 << 20
# Pages of one list drained from one server; a server that keeps giving a
# nextCursor (or gives one twice) gets its list cut there.
MAX_LIST_PAGES = 100
# The handshake revision the gateway speaks to a server of that era.
LEGACY_VERSION = "2025-11-25"
_MODERN_META = "io.modelcontextprotocol/"

Answers = dict[str, JsonObject]
Waiting = dict[str, "asyncio.Future[JsonObject]"]


@dataclass
class Member:
    """One upstream of the gateway, with the interceptor that is its alone."""

    spec: ServerSpec
    interceptor: ResponseInterceptor
    link: UpstreamLink = field(init=False)
    running: bool = False
    # list key ("tools", "prompts", "resources", "resourceTemplates") -> the
    # unprefixed names or URIs of its last answer to that list; no key: never listed
    listed: dict[str, set[str]] = field(default_factory=dict)
    # list keys in which it ever showed an item: what to announce when it comes or goes
    offered: set[str] = field(default_factory=set)
    restarts: int = 0
    # "legacy" or "modern" once known; only asked when the client speaks 2026-07-28
    era: str | None = None
    _last_id: int = 0

    @property
    def alias(self) -> str:
        return self.spec.alias

    def new_id(self) -> int:
        self._last_id += 1
        return self._last_id


def merge_capabilities(all_caps: Iterable[Any]) -> JsonObject:
    """The union of capability objects: objects merged member by member, ``true``
    if any server says ``true``, otherwise the first server's value."""
    merged: JsonObject = {}
    for caps in all_caps:
        if isinstance(caps, dict):
            _merge_into(merged, caps)
    return merged


def _merge_into(target: JsonObject, source: JsonObject) -> None:
    for key, value in source.items():
        if isinstance(value, dict):
            existing = target.setdefault(key, {})
            if isinstance(existing, dict):
                _merge_into(existing, value)
        elif key not in target:
            target[key] = value
        elif target[key] is False and value is True:
            target[key] = True


class Gateway:
    """Relay one client and several upstreams until the client goes away."""

    def __init__(
        self,
        client_in: LineReader,
        client_out: LineWriter,
        members: list[Member],
        *,
        answer_timeout: float = DEFAULTS.answer_timeout,
        isolate_env: bool = False,
        registry: bool = DEFAULTS.registry,
    ) -> None:
        self._answer_timeout = answer_timeout
        # Every server's DCP schemas as gcxwire://schemas resources, under the
        # tool names the client sees (alias__tool).
        self._registry = SchemaResources(self._schemas) if registry else None
        self._client_in = client_in
        self._client_out = client_out
        self._members = {member.alias: member for member in members}
        self._order = [member.alias for member in members]
        # (alias, upstream id) -> the client's id, or a future for our own use
        # (keys are id_key()s; None, for what is no id, is never stored)
        self._client_ids: dict[tuple[str, Hashable | None], Any] = {}
        self._futures: dict[tuple[str, Hashable | None], asyncio.Future[JsonObject]] = {}
        # the client's id -> (alias, upstream id), to route a cancellation
        self._routes: dict[Hashable | None, tuple[str, int]] = {}
        # our id for a server-to-client request -> (alias, the server's own id), and back
        self._server_requests: dict[Hashable | None, tuple[str, Any]] = {}
        self._server_ids: dict[tuple[str, Hashable | None], str] = {}
        self._server_request_count = 0
        # progress tokens of the client's requests in flight -> the servers asked,
        # and the client's id -> its token; tokens of servers' requests -> the server
        self._tokens: dict[Hashable | None, set[str]] = {}
        self._token_of: dict[Hashable | None, Hashable | None] = {}
        self._server_tokens: dict[Hashable | None, str] = {}
        self._handshake: JsonObject | None = None  # the client's initialize params
        self._era: str | None = None  # "legacy" or "modern", from the first request
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closing = asyncio.Event()
        for member in members:
            spec = member.spec
            upstream: Upstream | HttpUpstream
            if spec.url is not None:  # a remote server over Streamable HTTP
                upstream = HttpUpstream(spec.url, name=member.alias, headers=spec.headers)
            else:
                pass_env = spec.pass_env
                if isolate_env and pass_env is None:
                    pass_env = ()
                env = server_env(os.environ, spec.env, pass_env)
                upstream = Upstream(spec.command, name=member.alias, full_env=env, cwd=spec.cwd)
            member.link = UpstreamLink(
                upstream, member.interceptor, self._deliverer(member), busy_limit=BUSY_LIMIT
            )

    def request_stop(self) -> None:
        """Shut down as if the client had closed its end (SIGTERM/SIGINT)."""
        self._closing.set()

    def _schemas(self) -> list[tuple[str, SchemaVersion]]:
        schemas = []
        for member in self._running():
            prefix = member.alias + SEPARATOR
            schemas.extend(lifecycle_schemas(member.interceptor.lifecycle, prefix))
        return schemas

    # -- lifetime -------------------------------------------------------------------

    async def run(self) -> int:
        await asyncio.gather(*(self._start(member) for member in self._members.values()))
        from_client = asyncio.create_task(self._pump_from_client(), name="from-client")
        closing = asyncio.create_task(self._closing.wait(), name="closing")
        broken = asyncio.create_task(self._client_out.broken.wait(), name="client-gone")
        done, _ = await asyncio.wait(
            {from_client, closing, broken}, return_when=asyncio.FIRST_COMPLETED
        )
        if from_client in done and from_client.exception() is not None:
            if not isinstance(from_client.exception(), ClientGone):
                log.error("relaying the client failed: %r", from_client.exception())
        self._closing.set()
        from_client.cancel()
        closing.cancel()
        broken.cancel()
        for task in list(self._tasks):
            if task.get_name().startswith("restart-"):
                task.cancel()
        # What the client sent still reaches its server, and every answer the
        # servers write on their way out still reaches the client.
        running = [m for m in self._members.values() if m.link.upstream.running]
        await asyncio.gather(*(m.link.flush(self._answer_timeout) for m in running))
        log.info("stopping %d servers", len(running))
        await asyncio.gather(*(m.link.upstream.stop() for m in running))
        left = [t for t in self._tasks if not t.get_name().startswith("restart-")]
        if left:
            await asyncio.wait(left, timeout=self._answer_timeout)
        return 0

    def _spawn(self, coro: Awaitable[Any], name: str) -> None:
        task = asyncio.ensure_future(coro)
        task.set_name(name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _start(self, member: Member) -> bool:
        try:
            await member.link.upstream.start()
        except OSError as exc:
            log.error("%s cannot start: %s", member.alias, exc)
            self._schedule_restart(member)
            return False
        member.running = True
        self._spawn(self._watch(member), f"watch-{member.alias}")
        return True

    async def _watch(self, member: Member) -> None:
        """Relay one member's output until it exits, then take it out."""
        try:
            status = await member.link.pump()
        except ClientGone:  # nobody to relay to: the gateway is stopping
            member.running = False
            return
        member.running = False
        member.listed.clear()  # its URIs are no longer routed to it
        if self._closing.is_set():
            return
        log.warning("%s stopped (status %d): its items leave the lists", member.alias, status)
        await self._lists_changed(member)
        self._schedule_restart(member)

    def _schedule_restart(self, member: Member) -> None:
        if member.spec.restart and not self._closing.is_set():
            self._spawn(self._restart(member), f"restart-{member.alias}")

    async def _restart(self, member: Member) -> None:
        delay = RESTART_BACKOFF[min(member.restarts, len(RESTART_BACKOFF) - 1)]
        member.restarts += 1
        log.info("restarting %s in %.0f s", member.alias, delay)
        await asyncio.sleep(delay)
        if not await self._start(member):
            return
        if self._era == "legacy" and self._handshake is not None:
            # A handshake-era server must see the client's initialize again.
            if await self._initialize(member, self._handshake) is None:
                return
        elif self._era == "modern" and member.era == "legacy" and self._handshake is not None:
            if await self._initialize(member, self._handshake) is None:
                return
        await self._lists_changed(member)

    async def _initialize(self, member: Member, params: JsonObject) -> JsonObject | None:
        """The handshake with one server: its initialize result, or ``None``."""
        waiting = await self._send_all([member], "initialize", params)
        answer = (await self._collect("initialize", waiting)).get(member.alias, {})
        result = answer.get("result")
        if not isinstance(result, dict):
            log.error("%s refused initialize: %r", member.alias, answer.get("error"))
            return None
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        await member.link.send(orjson.dumps(note))
        return result

    async def _lists_changed(self, member: Member) -> None:
        """Tell the client that ``member``'s items came or went."""
        # Only handshake-era clients take an unsolicited list_changed: in
        # 2026-07-28 it belongs to a subscriptions/listen stream.
        if self._era != "legacy":
            return
        changed = ["tools"]  # for every server; prompts and resources if it ever had some
        if PROMPTS.key in member.offered:
            changed.append("prompts")
        if member.offered & {RESOURCES.key, TEMPLATES.key}:
            changed.append("resources")
        for what in changed:
            note = {"jsonrpc": "2.0", "method": f"notifications/{what}/list_changed"}
            await self._client_out.write_line(orjson.dumps(note))

    def _running(self) -> list[Member]:
        return [self._members[alias] for alias in self._order if self._members[alias].running]

    # -- from the client ------------------------------------------------------------------

    async def _pump_from_client(self) -> None:
        # Requests are *sent* here, in the client's order (so initialize reaches
        # every server before notifications/initialized); the answers are
        # awaited in tasks.
        while (line := await self._client_in.readline()) is not None:
            if not line.strip():
                continue
            message = parse_line(line)
            if isinstance(message, list):
                refusal = batch_refusal(message)
                if refusal is not None:
                    await self._client_out.write_line(refusal)
            elif not isinstance(message, dict):
                log.warning("client sent a %d-byte line that is not a JSON-RPC message", len(line))
                log.debug("the client's line is %.200r", line)
                await self._client_out.write_line(error_response(None, PARSE_ERROR, "Parse error"))
            elif (request := request_of(message)) is not None:
                await self._request(request, message, line)
            elif "method" in message and "id" in message:  # an id that is no JSON-RPC id
                text = "Invalid Request: an id must be a string or a number"
                await self._client_out.write_line(error_response(None, INVALID_REQUEST, text))
            elif "method" in message:
                await self._notify(message, line)
            else:
                await self._answer_server(message, line)
        log.info("client closed its input")

    async def _request(self, request: PendingRequest, message: JsonObject, line: bytes) -> None:
        self._note_era(request)
        if self._era == "modern" and request.method != "server/discover":
            unknown = [m for m in self._running() if m.era is None]
            if unknown:  # a client pinned to 2026-07-28 sent no discover of its own
                await self._settle_eras(unknown, request.params)
        if request.method in _UNSUPPORTED:
            text = f"{request.method} is not supported by the gcxwire gateway"
            await self._client_out.write_line(error_response(request.id, METHOD_NOT_FOUND, text))
            return
        address = addressed(request.method, request.params)
        if self._registry is not None and request.method == "resources/read":
            uri = request.params.get("uri")
            if (
                isinstance(uri, str)
                and self._registry.owns(uri)
                and not self._owner((RESOURCES,), uri)
            ):
                await self._client_out.write_line(self._registry.answer_read(request))
                return
        if address is not None:
            target = self._target(request, address)
            if isinstance(target, bytes):  # an unknown tool or prompt
                await self._client_out.write_line(target)
                return
            if target is not None:
                member, params = target
                await self._forward(member, request, line, params)
                return
            # A URI no list named (a template's, say): every server is asked.
        members = self._running()
        self._own_token(request, [m.alias for m in members])
        kind = LIST_KINDS.get(request.method)
        if kind is not None:
            # One merged answer holds every page: the client's cursor is not passed on.
            params = {k: v for k, v in request.params.items() if k != "cursor"}
            waiting = await self._send_all(members, kind.method, params)
            finish = self._merged_list(kind, request.id, members, params, waiting)
        else:
            waiting = await self._send_all(members, request.method, request.params)
            finish = self._broadcast(request, waiting)
        self._spawn(self._answer_client(request.id, finish), f"answer-{request.method}")

    def _note_era(self, request: PendingRequest) -> None:
        if self._era is None:
            meta = request.params.get("_meta")
            modern = request.method == "server/discover" or (
                isinstance(meta, dict) and "io.modelcontextprotocol/protocolVersion" in meta
            )
            self._era = "modern" if modern else "legacy"
        if request.method == "initialize":  # also after a discover nobody answered
            self._era = "legacy"
            self._handshake = request.params
        elif self._era == "modern" and self._handshake is None:
            self._handshake = _handshake_from(request.params)

    async def _answer_client(self, client_id: Any, finish: Awaitable[bytes]) -> None:
        try:
            answer = await finish
        except Exception:  # a bug here must not leave the client waiting forever
            log.exception("answering request %r failed", client_id)
            answer = error_response(client_id, INTERNAL_ERROR, "gcxwire gateway: internal error")
        self._release_token(client_id)
        with contextlib.suppress(ClientGone):
            await self._client_out.write_line(answer)

    def _own_token(self, request: PendingRequest, aliases: list[str]) -> None:
        """Remember which servers may report progress on ``request``."""
        meta = request.params.get("_meta")
        token = id_key(meta.get("progressToken")) if isinstance(meta, dict) else None
        client = id_key(request.id)
        if token is not None and client is not None and aliases:
            self._tokens[token] = set(aliases)
            self._token_of[client] = token

    def _release_token(self, client_id: Any) -> None:
        client = id_key(client_id)
        token = self._token_of.pop(client, None) if client is not None else None
        if token is not None:
            self._tokens.pop(token, None)

    async def _notify(self, message: JsonObject, line: bytes) -> None:
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        method = message.get("method")
        if method == "notifications/cancelled":
            client = id_key(params.get("requestId"))
            target = self._routes.pop(client, None) if client is not None else None
            if target is not None:
                alias, upstream_id = target
                member = self._members[alias]
                member.link.forget(upstream_id)
                self._client_ids.pop((alias, id_key(upstream_id)), None)
                self._release_token(params.get("requestId"))
                moved = set_member(line, ("params", "requestId"), upstream_id)
                await member.link.send(moved or line)
            return
        if method == "notifications/progress":  # about a server's request to the client
            token = id_key(params.get("progressToken"))
            owner = self._server_tokens.get(token) if token is not None else None
            if owner is not None and self._members[owner].running:
                await self._members[owner].link.send(line)
            else:
                log.info("client progress for a token no server gave: dropped")
            return
        for member in self._running():
            await member.link.send(line)

    async def _answer_server(self, message: JsonObject, line: bytes) -> None:
        """The client's answer to a server-to-client request: back to its server."""
        key = id_key(message.get("id"))
        target = self._server_requests.pop(key, None) if key is not None else None
        if target is None:
            log.warning("client answered a request nobody asked: %r", message.get("id"))
            return
        alias, server_id = target
        self._server_ids.pop((alias, id_key(server_id)), None)
        moved = set_member(line, ("id",), server_id)
        await self._members[alias].link.send(moved or orjson.dumps({**message, "id": server_id}))

    # -- requests -----------------------------------------------------------------------

    def _target(
        self, request: PendingRequest, address: Address
    ) -> tuple[Member, JsonObject] | bytes | None:
        """Where a request naming one item goes, with the params that server
        expects; an error answer for an unknown tool or prompt; ``None`` for a
        URI no list named (the caller then asks every server)."""
        kind = address.kinds[0]
        if not kind.prefixed:
            owner = self._owner(address.kinds, address.name)
            return None if owner is None else (owner, request.params)
        split = split_name(address.name)
        member = self._members.get(split[0]) if split is not None else None
        if split is None or member is None or not member.running:
            return self._unknown(request, kind, address.name)
        known = member.listed.get(kind.key)
        if known is not None and split[1] not in known:
            return self._unknown(request, kind, address.name)
        return member, with_inner_name(request.method, request.params, split[1])

    @staticmethod
    def _unknown(request: PendingRequest, kind: ListKind, name: str) -> bytes:
        return error_response(request.id, INVALID_PARAMS, f"Unknown {kind.noun}: {name}")

    def _owner(self, kinds: tuple[ListKind, ...], uri: str) -> Member | None:
        """The first running server, in config order, whose last list named ``uri``."""
        for kind in kinds:
            for member in self._running():
                if uri in member.listed.get(kind.key, ()):
                    return member
        return None

    async def _forward(
        self, member: Member, request: PendingRequest, line: bytes, params: JsonObject
    ) -> None:
        """Send one client request to one server; its answer comes back through
        the member's deliverer, under the client's id. The server's id (and its
        own name for the item) is spliced into the client's text."""
        upstream_id = member.new_id()
        self._client_ids[(member.alias, id_key(upstream_id))] = request.id
        self._routes[id_key(request.id)] = (member.alias, upstream_id)
        self._own_token(request, [member.alias])
        out = set_member(line, ("id",), upstream_id)
        if out is not None and params is not request.params:
            path = name_path(request.method)
            out = set_member(out, path, _get(params, path[1:]))
        meta = params.get("_meta")
        if out is not None and member.era == "legacy" and _has_modern_meta(meta):
            out = set_member(out, ("params", "_meta"), _legacy_meta(meta))
        if out is None:  # not an object we can splice into: written anew
            message = {"jsonrpc": "2.0", "id": upstream_id, "method": request.method}
            out = orjson.dumps({**message, "params": self._params_for(member, params)})
        await member.link.send(out, PendingRequest(upstream_id, request.method, params))

    async def _merged_list(
        self,
        kind: ListKind,
        client_id: Any,
        members: list[Member],
        params: JsonObject,
        first_pages: Waiting,
    ) -> bytes:
        """Every member's items of one list, all pages, in config order."""
        first_answers = await self._collect(kind.method, first_pages)
        lists = await asyncio.gather(
            *(self._drain_list(kind, m, params, first_answers.get(m.alias)) for m in members)
        )
        items: list[JsonObject] = []
        pages: list[JsonObject] = []
        seen: set[str] = set()  # URIs already listed by an earlier server
        for member, (member_items, member_pages) in zip(members, lists):
            pages.extend(member_pages)
            for item in member_items:
                name = item[kind.identity]
                if kind.prefixed:
                    items.append({**item, kind.identity: member.alias + SEPARATOR + name})
                elif name in seen:
                    log.info("%s also lists %s: the first server keeps it", member.alias, name)
                else:
                    seen.add(name)
                    items.append(item)
        result = {**cache_hints(pages), kind.key: items}
        if kind is RESOURCES and self._registry is not None:
            items.extend(self._registry.items(seen))  # the servers' own URIs first
            if "ttlMs" in result:  # the registry grows as tools are called
                result.update(ttlMs=0, cacheScope="private")
        if self._era == "modern" and "ttlMs" not in result:
            # No server gave a page (none has this list): 2026-07-28 still needs the hints.
            result.update(ttlMs=0, cacheScope="private", resultType="complete")
        return orjson.dumps({"jsonrpc": "2.0", "id": client_id, "result": result})

    async def _drain_list(
        self, kind: ListKind, member: Member, params: JsonObject, answer: JsonObject | None
    ) -> tuple[list[JsonObject], list[JsonObject]]:
        """All of one member's items of one list, and the results of its pages."""
        items: dict[str, JsonObject] = {}
        pages: list[JsonObject] = []
        cursors: set[bytes] = set()
        while True:
            result = answer.get("result") if answer is not None else None
            if not isinstance(result, dict) or not isinstance(result.get(kind.key), list):
                error = answer.get("error") if answer is not None else None
                if isinstance(error, dict) and error.get("code") == METHOD_NOT_FOUND:
                    log.info("%s has no %s", member.alias, kind.method)  # not its capability
                else:
                    log.warning("%s gave no %s", member.alias, kind.method)
                    log.debug("%s answered %s with %.200r", member.alias, kind.method, answer)
                break
            pages.append(result)
            for item in result[kind.key]:
                name = item.get(kind.identity) if isinstance(item, dict) else None
                if not isinstance(name, str) or name in items:
                    continue
                if kind.max_length is not None and (
                    len(member.alias) + len(SEPARATOR) + len(name) > kind.max_length
                ):
                    log.warning(
                        "%s%s%s has more than %d characters: left out of %s",
                        member.alias,
                        SEPARATOR,
                        name,
                        kind.max_length,
                        kind.method,
                    )
                    continue
                items[name] = item
            cursor = result.get("nextCursor")
            if not cursor or not member.running:
                break
            seen = orjson.dumps(cursor, option=orjson.OPT_SORT_KEYS)
            if seen in cursors or len(pages) >= MAX_LIST_PAGES:
                why = "repeats a cursor" if seen in cursors else f"has over {MAX_LIST_PAGES} pages"
                log.warning("%s: its %s %s; the list ends there", member.alias, kind.method, why)
                break
            cursors.add(seen)
            waiting = await self._send_all([member], kind.method, {**params, "cursor": cursor})
            answer = (await self._collect(kind.method, waiting)).get(member.alias)
        if pages and member.running:  # route by what the client now sees
            member.listed[kind.key] = set(items)
            if items:
                member.offered.add(kind.key)
        return list(items.values()), pages

    async def _broadcast(self, request: PendingRequest, waiting: Waiting) -> bytes:
        answers = await self._collect(request.method, waiting)
        successes = [
            (alias, answers[alias]["result"])
            for alias in self._order
            if isinstance(answers.get(alias, {}).get("result"), dict)
        ]
        if request.method == "server/discover" and successes:
            successes = await self._discovered(request, successes)
        if successes:
            result = dict(successes[0][1])
            if request.method in ("initialize", "server/discover"):
                result = _merged_hello(result, successes)
                if self._registry is not None:  # the gateway serves its schema registry
                    result["capabilities"].setdefault("resources", {})
                # The reading hint, once for all servers (they share one session).
                first = self._members[self._order[0]].interceptor
                result = first.rewrite_hello(result) or result
            if self._era == "modern":
                result.setdefault("resultType", "complete")
            return orjson.dumps({"jsonrpc": "2.0", "id": request.id, "result": result})
        for alias in self._order:  # nobody succeeded: the first error, as its server said it
            if "error" in answers.get(alias, {}):
                return orjson.dumps({**answers[alias], "id": request.id})
        text = f"gcxwire gateway: no MCP server answered {request.method}"
        return error_response(request.id, NO_UPSTREAM, text)

    async def _discovered(
        self, request: PendingRequest, successes: list[tuple[str, JsonObject]]
    ) -> list[tuple[str, JsonObject]]:
        """After a discover some servers answered: the others are of the handshake
        era, and get the gateway's own initialize; their results join the answer
        (capabilities, instructions), the modern ones' versions lead."""
        modern = {alias for alias, _ in successes}
        for member in self._running():
            if member.alias in modern:
                member.era = "modern"
        legacy = [m for m in self._running() if m.alias not in modern]
        hello = _handshake_from(request.params)
        results = await asyncio.gather(*(self._make_legacy(m, hello) for m in legacy))
        joined = [(m.alias, r) for m, r in zip(legacy, results) if r is not None]
        return successes + joined

    async def _make_legacy(self, member: Member, hello: JsonObject) -> JsonObject | None:
        member.era = "legacy"
        log.info("%s speaks only the handshake era: the gateway initializes it", member.alias)
        return await self._initialize(member, hello)

    async def _settle_eras(self, members: list[Member], params: JsonObject) -> None:
        """The era of each server the 2026-07-28 client has not asked about yet:
        a discover, and the handshake for those that do not know it."""
        meta = params.get("_meta")
        probe = {"_meta": meta} if isinstance(meta, dict) else {}
        waiting = await self._send_all(members, "server/discover", probe)
        answers = await self._collect("server/discover", waiting)
        for member in members:
            if isinstance(answers.get(member.alias, {}).get("result"), dict):
                member.era = "modern"
            elif member.running:
                await self._make_legacy(member, _handshake_from(params))

    async def _send_all(self, members: list[Member], method: str, params: JsonObject) -> Waiting:
        """Send one request to each member; a future for each one's answer."""
        loop = asyncio.get_running_loop()
        waiting: Waiting = {}
        for member in members:
            upstream_id = member.new_id()
            future: asyncio.Future[JsonObject] = loop.create_future()
            self._futures[(member.alias, id_key(upstream_id))] = future
            waiting[member.alias] = future
            own = self._params_for(member, params)
            message = {"jsonrpc": "2.0", "id": upstream_id, "method": method, "params": own}
            request = PendingRequest(upstream_id, method, own)
            await member.link.send(orjson.dumps(message), request)
        return waiting

    @staticmethod
    def _params_for(member: Member, params: JsonObject) -> JsonObject:
        """``params`` as ``member``'s era expects them."""
        meta = params.get("_meta")
        if member.era == "legacy" and _has_modern_meta(meta):
            return {**params, "_meta": _legacy_meta(meta)}
        return params

    async def _collect(self, method: str, waiting: Waiting) -> Answers:
        """The answers that came within the answer timeout, by alias."""
        if waiting:
            await asyncio.wait(waiting.values(), timeout=self._answer_timeout)
        answers: Answers = {}
        for alias, future in waiting.items():
            if future.done():
                answers[alias] = future.result()
                continue
            future.cancel()
            if method in _MUST_ANSWER:
                log.error("%s did not answer %s in time: taking it out", alias, method)
                member = self._members[alias]
                member.running = False  # no new calls; _watch cleans up once it has exited
                self._spawn(member.link.upstream.stop(), f"stop-{alias}")
        return answers

    # -- from the upstreams --------------------------------------------------------------

    def _deliverer(self, member: Member) -> Callable[[bytes], Awaitable[None]]:
        async def deliver(line: bytes) -> None:
            await self._from_upstream(member, line)

        return deliver

    async def _from_upstream(self, member: Member, line: bytes) -> None:
        message = parse_line(line)
        strict = message is not None
        if message is None:
            message = parse_lenient(line)  # NaN, 1e400: still an answer to route
        if isinstance(message, list):  # a batch: each message in it on its own
            for item in message:
                await self._route(member, _dumps_item(item, strict), item)
        elif isinstance(message, dict):
            await self._route(member, line, message)
        else:
            log.warning("%s wrote a %d-byte line that is not JSON-RPC", member.alias, len(line))
            log.debug("%s: the line is %.200r", member.alias, line)

    async def _route(self, member: Member, line: bytes, message: Any) -> None:
        """One message from ``member`` to where it belongs, under the right ids."""
        if not isinstance(message, dict):
            log.warning("%s wrote a batch item that is not a message: dropped", member.alias)
            return
        is_response, upstream_id = response_id(message)
        if is_response:
            slot = (member.alias, id_key(upstream_id))
            future = self._futures.pop(slot, None) if slot[1] is not None else None
            if future is not None:
                if not future.done():
                    future.set_result(message)
                return
            client_id = self._client_ids.pop(slot, None) if slot[1] is not None else None
            if client_id is None:  # a late answer to a cancelled request, or a bogus id
                log.info("%s answered an id nobody waits for: dropped", member.alias)
                return
            self._routes.pop(id_key(client_id), None)
            self._release_token(client_id)
            out = set_member(line, ("id",), client_id) or orjson.dumps({**message, "id": client_id})
            result = message.get("result")
            # A handshake-era server's result, for a 2026-07-28 client: the
            # resultType that revision requires (absent means complete).
            if self._era == "modern" and isinstance(result, dict) and "resultType" not in result:
                out = set_member(out, ("result", "resultType"), "complete") or out
            await self._client_out.write_line(out)
        elif "method" in message and "id" in message:
            server_key = id_key(message["id"])
            if server_key is None:
                log.warning("%s sent a request whose id is no JSON-RPC id: dropped", member.alias)
                return
            self._server_request_count += 1
            gateway_id = f"{member.alias}-{self._server_request_count}"
            self._server_requests[id_key(gateway_id)] = (member.alias, message["id"])
            self._server_ids[(member.alias, server_key)] = gateway_id
            params = message.get("params")
            meta = params.get("_meta") if isinstance(params, dict) else None
            token = id_key(meta.get("progressToken")) if isinstance(meta, dict) else None
            if token is not None:
                self._server_tokens[token] = member.alias
            moved = set_member(line, ("id",), gateway_id)
            await self._client_out.write_line(moved or orjson.dumps({**message, "id": gateway_id}))
        else:
            await self._server_notification(member, line, message)

    async def _server_notification(self, member: Member, line: bytes, message: JsonObject) -> None:
        """A notification from ``member``: about its own requests only."""
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        method = message.get("method")
        if method == "notifications/cancelled":  # it gives up a request it sent the client
            key = id_key(params.get("requestId"))
            gateway_id = self._server_ids.pop((member.alias, key), None) if key else None
            if gateway_id is None:
                log.warning("%s cancelled a request that is not its own: dropped", member.alias)
                return
            self._server_requests.pop(id_key(gateway_id), None)
            line = set_member(line, ("params", "requestId"), gateway_id) or line
        elif method == "notifications/progress":
            token = id_key(params.get("progressToken"))
            if token is None or member.alias not in self._tokens.get(token, ()):
                log.warning("%s sent progress for a request it was not sent: dropped", member.alias)
                return
        await self._client_out.write_line(line)


def _merged_hello(result: JsonObject, successes: list[tuple[str, JsonObject]]) -> JsonObject:
    """An ``initialize``/``server/discover`` result standing for all the servers."""
    result["capabilities"] = merge_capabilities(r.get("capabilities") for _, r in successes)
    instructions = [
        f"{alias}: {r['instructions']}"
        for alias, r in successes
        if isinstance(r.get("instructions"), str) and r["instructions"]
    ]
    if instructions:
        result["instructions"] = "\n".join(instructions)
    gateway_info = {"name": "gcxwire-gateway", "version": __version__}
    if "serverInfo" in result:
        result["serverInfo"] = gateway_info
    meta = result.get("_meta")
    if isinstance(meta, dict) and "io.modelcontextprotocol/serverInfo" in meta:
        result["_meta"] = {**meta, "io.modelcontextprotocol/serverInfo": gateway_info}
    # the versions every modern server supports (handshake-era ones have none)
    lists: list[list[Any]] = [
        r["supportedVersions"] for _, r in successes if isinstance(r.get("supportedVersions"), list)
    ]
    if lists:
        common = [v for v in lists[0] if all(v in other for other in lists[1:])]
        result["supportedVersions"] = common or lists[0]
    return result


def _handshake_from(params: JsonObject) -> JsonObject:
    """The initialize params a handshake-era server gets for a 2026-07-28
    client: who the client is and what it can do, from its ``_meta``."""
    meta = params.get("_meta")
    meta = meta if isinstance(meta, dict) else {}
    info = meta.get(_MODERN_META + "clientInfo")
    caps = meta.get(_MODERN_META + "clientCapabilities")
    return {
        "protocolVersion": LEGACY_VERSION,
        "capabilities": caps if isinstance(caps, dict) else {},
        "clientInfo": info
        if isinstance(info, dict)
        else {"name": "gcxwire-gateway", "version": __version__},
    }


def _has_modern_meta(meta: Any) -> TypeGuard[JsonObject]:
    return isinstance(meta, dict) and any(k.startswith(_MODERN_META) for k in meta)


def _legacy_meta(meta: JsonObject) -> JsonObject:
    """``_meta`` without the 2026-07-28 envelope (progress tokens and trace context stay)."""
    return {k: v for k, v in meta.items() if not k.startswith(_MODERN_META)}


def _get(value: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


def _dumps_item(value: Any, strict: bool) -> bytes:
    """One message of a batch on its own line; from a batch strict JSON refused
    (NaN), written as the lenient reader read it."""
    if strict:
        return orjson.dumps(value)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
