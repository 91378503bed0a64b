"""``gcxwire proxy [options] -- <server command> [args...]``, or ``--servers FILE``."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import signal
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from . import later
from .codecs import DcpCodec, optional_codec
from .framing import BROKEN_PIPE_STATUS, LineWriter, open_stdio
from .gateway import Gateway, Member
from .gateway_config import GatewayConfigError, ServerSpec, load_gateway_config
from .http_upstream import HttpUnavailable, HttpUpstream, require_httpx
from .interceptor import HintSession, ResponseInterceptor
from .jsonrpc import PendingRequest
from .lifecycle import SchemaLifecycle, SchemaVersion
from .link import ResponseRewriter
from .options import ProxyOptions, parse_options
from .pipes import FdWriter, PipeUpstream
from .presets import FieldFilter, PresetError, load_filters, load_layouts, load_schema_defs
from .registry import SchemaResources, ServedRegistry, lifecycle_schemas
from .relay import Relay
from .stats import ProxyStats, write_gateway_stats
from .stdio_relay import ThreadRelay
from .upstream import server_env

__all__ = ["build_interceptor", "build_members", "main"]

log = logging.getLogger(__name__)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the proxy until the client (or, with one server, the server) goes away.

    The exit status is the server's (128 + N when a signal N killed it), 0 for a
    gateway, 2 for bad usage, 1 when the proxy itself cannot start, and 141 (as
    for SIGPIPE) when the client stopped reading before every answer reached it.
    """
    try:
        options = parse_options(sys.argv[1:] if argv is None else argv)
    except SystemExit as exc:  # argparse has printed usage or help
        return exc.code if isinstance(exc.code, int) else 2
    try:
        _setup_logging(options)
    except OSError as exc:
        _fatal(options, f"cannot log to {options.log_file!r}: {exc.strerror}")
        return 1
    try:
        remote = options.url is not None
        if options.servers is not None:
            members = build_members(options, load_gateway_config(options.servers))
            all_stats = [member.interceptor.stats for member in members]
            remote = any(member.spec.url is not None for member in members)
        else:
            interceptor = build_interceptor(options, ProxyStats(options.server_name))
            all_stats = [interceptor.stats]
        if remote:
            require_httpx()  # say it now, before any server starts
    except (PresetError, GatewayConfigError, HttpUnavailable) as exc:
        _fatal(options, str(exc))
        return 1
    # Protocol output gets its own descriptor; fd 1 then points at stderr, so a
    # stray print() from any library cannot corrupt the wire.
    wire_fd = os.dup(1)
    os.dup2(2, 1)

    async def serve() -> int:
        core: Relay | Gateway | ThreadRelay
        client_out: LineWriter | FdWriter
        if options.servers is None and options.url is None:  # one stdio server: threads
            env = server_env(os.environ, options.env, () if options.isolate_env else None)
            pipes = PipeUpstream(
                options.command, name=options.server_name, full_env=env, cwd=options.cwd
            )
            rewriter, local = _rewriter(options, interceptor)
            core = ThreadRelay(0, wire_fd, pipes, rewriter, local=local)
            client_out = core.client_out
        elif options.servers is not None:
            client_in, client_out = await open_stdio(0, wire_fd)
            core = Gateway(
                client_in,
                client_out,
                members,
                answer_timeout=options.answer_timeout,
                isolate_env=options.isolate_env,
                registry=options.registry,
            )
        else:
            assert options.url is not None
            client_in, client_out = await open_stdio(0, wire_fd)
            upstream = HttpUpstream(
                options.url,
                name=options.server_name,
                headers=options.headers,
                timeout=options.http_timeout,
            )
            rewriter, local = _rewriter(options, interceptor)
            core = Relay(client_in, client_out, upstream, rewriter, local=local)
        loop = asyncio.get_running_loop()
        for name in ("SIGTERM", "SIGINT", "SIGHUP"):
            _on_signal(loop, name, core.request_stop)
        _on_signal(loop, "SIGUSR1", lambda: _report(options, all_stats))
        try:
            status = await core.run()
        finally:
            await client_out.close()  # every line written reaches the client
        if client_out.broken.is_set():
            log.warning("the client stopped reading before every answer reached it")
            return status or BROKEN_PIPE_STATUS
        return status

    try:
        return asyncio.run(serve())
    except OSError as exc:  # e.g. the server command does not exist
        _fatal(options, f"cannot run {options.command[0]!r}: {exc}")
        return 1
    finally:
        _report(options, all_stats)
        os.close(wire_fd)


def _rewriter(
    options: ProxyOptions, interceptor: ResponseInterceptor
) -> tuple[ResponseRewriter, Callable[[PendingRequest], bytes | None] | None]:
    """The single server's rewriter, and the schema registry's own answers where there is one."""
    lifecycle = interceptor.lifecycle
    if not options.registry or lifecycle is None:
        return interceptor, None
    served = ServedRegistry(interceptor, SchemaResources(lambda: lifecycle_schemas(lifecycle)))
    return served, served.answer_locally


def build_members(options: ProxyOptions, specs: Sequence[ServerSpec]) -> list[Member]:
    """One member per configured server, each with its own interceptor; ``--env``
    applies to every server, under its own ``env``."""
    members = []
    hints = HintSession(options.hint)  # one client, one session: the hint is said once
    for spec in specs:
        env = {**options.env, **spec.env}
        spec = dataclasses.replace(spec, env=env)
        own = dataclasses.replace(options, name=spec.alias, command=spec.command)
        interceptor = build_interceptor(own, ProxyStats(spec.alias), hints=hints)
        members.append(Member(spec, interceptor))
    return members


def build_interceptor(
    options: ProxyOptions, stats: ProxyStats, *, hints: HintSession | None = None
) -> ResponseInterceptor:
    """The interceptor for one upstream, with its own lifecycle, presets and filters.

    A shared ``hints`` session (a gateway's) leaves the instructions to the gateway,
    which adds the hint once to its merged answer.
    """
    dcp_module = optional_codec("dcp")
    dcp = DcpCodec(dcp_module) if dcp_module is not None else None
    filters: dict[str, FieldFilter] = {}
    presets: dict[str, SchemaVersion] = {}
    if options.presets is not None:
        filters = load_filters(options.presets, options.server_name, options.max_fields)
        if dcp is not None:
            for tool, definition in load_schema_defs(options.presets).items():
                presets[tool] = dcp.from_def(definition)
            for tool, layout in load_layouts(options.presets).items():
                if tool in presets:
                    log.warning("%s: its declared layout %s replaces its preset", tool, layout.id)
                presets[tool] = dcp.from_layout(layout)
    elif options.max_fields is not None:
        filters = {"*": FieldFilter(max_fields=options.max_fields)}
    lifecycle = None
    if dcp is not None:
        lifecycle = SchemaLifecycle(
            dcp.build,
            confirm_after=options.confirm_after,
            cache_size=options.cache_size,
            presets=presets,
        )
    return ResponseInterceptor(
        stats=stats,
        format=options.format,
        structured=options.structured,
        hint=options.hint,
        hints=hints,
        instructions=hints is None,
        slim_tools=options.slim_tools,
        lifecycle=lifecycle,
        dcp=dcp,
        filters=filters,
    )


def _on_signal(loop: asyncio.AbstractEventLoop, name: str, handler: Callable[[], None]) -> None:
    """Install ``handler`` where the platform has the signal (Windows lacks most)."""
    sig = getattr(signal, name, None)
    if sig is None:
        return
    try:
        loop.add_signal_handler(sig, handler)
    except NotImplementedError:
        log.debug("no handler for %s on this platform", name)


def _fatal(options: ProxyOptions, message: str) -> None:
    """Why the proxy cannot run: always on stderr, and in the --log-file too."""
    print(f"gcxwire proxy: {message}", file=sys.stderr, flush=True)
    if options.log_file:
        log.error("%s", message)


def _setup_logging(options: ProxyOptions) -> None:
    handler: logging.Handler
    if options.log_file:
        handler = logging.StreamHandler(_open_log(options.log_file))
    else:
        handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s gcxwire proxy %(levelname)s %(message)s"))
    package = logging.getLogger(__package__)  # every module of the proxy logs below it
    package.addHandler(handler)
    package.setLevel(options.log_level.upper())
    package.propagate = False


def _open_log(path: str) -> TextIO:
    """``path`` for appending, refusing a symlink: a log in a shared directory
    must not become a write into whatever file a link points at."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, 0o600)
    return open(fd, "a", encoding="utf-8", errors="replace")  # noqa: SIM115 (lives as long as we do)


def _report(options: ProxyOptions, all_stats: Sequence[ProxyStats]) -> None:
    """Stats to stderr and, with --stats-file, to that file; no answer half counted."""
    with later.LOCK:
        later.run_queued()
        _write_report(options, all_stats)


def _write_report(options: ProxyOptions, all_stats: Sequence[ProxyStats]) -> None:
    for stats in all_stats:
        print(stats.summary(), file=sys.stderr, flush=True)
    if options.stats_file:
        try:
            if options.servers is None:
                all_stats[0].write_json(options.stats_file)
            else:
                write_gateway_stats(options.stats_file, all_stats)
        except OSError as exc:
            log.error("cannot write stats to %s: %s", options.stats_file, exc)
