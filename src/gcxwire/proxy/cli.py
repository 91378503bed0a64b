"""``gcxwire proxy [options] -- <server command> [args...]``."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
from collections.abc import Callable, Sequence

from .codecs import DcpCodec, optional_codec
from .framing import open_stdio
from .interceptor import ResponseInterceptor
from .lifecycle import SchemaLifecycle, SchemaVersion
from .options import ProxyOptions, parse_options
from .presets import FieldFilter, PresetError, load_filters, load_schema_defs
from .relay import Relay
from .stats import ProxyStats
from .upstream import Upstream

__all__ = ["main", "build_interceptor"]

log = logging.getLogger("gcxwire.proxy")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the proxy until the client or the server goes away; the exit status.

    The status is the server's (128 + N when a signal N killed it), 2 for bad
    usage and 1 when the proxy itself cannot start.
    """
    try:
        options = parse_options(sys.argv[1:] if argv is None else argv)
    except SystemExit as exc:  # argparse has printed usage or help
        return exc.code if isinstance(exc.code, int) else 2
    _setup_logging(options)
    stats = ProxyStats(options.server_name)
    try:
        interceptor = build_interceptor(options, stats)
    except PresetError as exc:
        log.error("%s", exc)
        print(f"gcxwire proxy: {exc}", file=sys.stderr)
        return 1
    # Protocol output gets its own descriptor; fd 1 then points at stderr, so a
    # stray print() from any library cannot corrupt the wire.
    wire_fd = os.dup(1)
    os.dup2(2, 1)
    try:
        return asyncio.run(_serve(options, interceptor, stats, wire_fd))
    except OSError as exc:  # e.g. the server command does not exist
        log.error("cannot run %s: %s", " ".join(options.command), exc)
        print(f"gcxwire proxy: cannot run {options.command[0]!r}: {exc}", file=sys.stderr)
        return 1
    finally:
        _report(options, stats)
        os.close(wire_fd)


def build_interceptor(options: ProxyOptions, stats: ProxyStats) -> ResponseInterceptor:
    """The interceptor for one upstream, with its own lifecycle, presets and filters."""
    dcp_module = optional_codec("dcp")
    dcp = DcpCodec(dcp_module) if dcp_module is not None else None
    filters: dict[str, FieldFilter] = {}
    presets: dict[str, SchemaVersion] = {}
    if options.presets is not None:
        filters = load_filters(options.presets, options.server_name, options.max_fields)
        if dcp is not None:
            for tool, definition in load_schema_defs(options.presets).items():
                presets[tool] = dcp.from_def(definition)
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
        slim_tools=options.slim_tools,
        lifecycle=lifecycle,
        dcp=dcp,
        filters=filters,
    )


async def _serve(
    options: ProxyOptions, interceptor: ResponseInterceptor, stats: ProxyStats, wire_fd: int
) -> int:
    client_in, client_out = await open_stdio(0, wire_fd)
    upstream = Upstream(options.command, name=options.server_name, env=options.env, cwd=options.cwd)
    relay = Relay(client_in, client_out, upstream, interceptor)
    loop = asyncio.get_running_loop()
    for name in ("SIGTERM", "SIGINT", "SIGHUP"):
        _on_signal(loop, name, relay.request_stop)
    _on_signal(loop, "SIGUSR1", lambda: _report(options, stats))
    return await relay.run()


def _on_signal(loop: asyncio.AbstractEventLoop, name: str, handler: Callable[[], None]) -> None:
    """Install ``handler`` where the platform has the signal (Windows lacks most)."""
    sig = getattr(signal, name, None)
    if sig is None:
        return
    try:
        loop.add_signal_handler(sig, handler)
    except NotImplementedError:
        log.debug("no handler for %s on this platform", name)


def _setup_logging(options: ProxyOptions) -> None:
    handler: logging.Handler
    if options.log_file:
        handler = logging.FileHandler(options.log_file, encoding="utf-8")
    else:
        handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s gcxwire proxy %(levelname)s %(message)s"))
    log.addHandler(handler)
    log.setLevel(options.log_level.upper())
    log.propagate = False


def _report(options: ProxyOptions, stats: ProxyStats) -> None:
    """Stats to stderr and, with --stats-file, to that file."""
    print(stats.summary(), file=sys.stderr, flush=True)
    if options.stats_file:
        try:
            stats.write_json(options.stats_file)
        except OSError as exc:
            log.error("cannot write stats to %s: %s", options.stats_file, exc)
