"""Command-line options of ``gcxwire proxy`` and the settings they produce."""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit

from .gateway_config import expand_variables

__all__ = ["ProxyOptions", "build_parser", "default_server_name", "parse_options"]

Format = Literal["auto", "gcx", "dcp"]
Structured = Literal["keep", "drop"]
Hint = Literal["session", "first-use", "per-result", "off"]

USAGE = (
    "gcxwire proxy [options] -- <server command> [args...]\n"
    "       gcxwire proxy [options] --url https://host/mcp [--header 'K: V']\n"
    "       gcxwire proxy [options] --servers gateway.json"
)

EPILOG = """\
examples:
  gcxwire proxy -- uvx mcp-server-git --repository /path/to/repo
  gcxwire proxy --format dcp --stats-file stats.json -- npx -y @modelcontextprotocol/server-memory
  gcxwire proxy --presets ~/.config/gcxwire/presets --name github -- github-mcp-server stdio
  gcxwire proxy --url https://mcp.example.com/mcp --header 'Authorization: Bearer ${TOKEN}'
  gcxwire proxy --servers ~/.config/gcxwire/gateway.json

The proxy speaks MCP on its own stdin/stdout; logs go to stderr (or --log-file).
See docs/proxy.md for what each option changes on the wire.
"""


@dataclass(frozen=True)
class ProxyOptions:
    """Everything that changes what the proxy does; defaults match the CLI's."""

    command: tuple[str, ...] = ()
    servers: str | None = None  # --servers FILE: a gateway in front of several servers
    url: str | None = None  # --url: a remote server over Streamable HTTP
    headers: dict[str, str] = field(default_factory=dict)  # --header, ${VAR} expanded
    http_timeout: float = 300.0
    answer_timeout: float = 10.0
    name: str = ""
    env: dict[str, str] = field(default_factory=dict)
    isolate_env: bool = False  # servers get only a base environment (see upstream.BASE_ENV)
    cwd: str | None = None
    format: Format = "auto"
    structured: Structured = "drop"
    hint: Hint = "session"
    slim_tools: bool = True
    confirm_after: int = 10
    cache_size: int = 128
    presets: str | None = None
    registry: bool = True  # the schema registry as gcxwire://schemas resources
    max_fields: int | None = None
    log_level: str = "warning"
    log_file: str | None = None
    stats_file: str | None = None

    @property
    def server_name(self) -> str:
        """``--name``, else the command's file name (``mcp-server-git``), used in
        messages, stats and to find ``<name>.filter.json`` presets."""
        if self.name:
            return self.name
        if self.url is not None:
            return urlsplit(self.url).hostname or "server"
        return default_server_name(self.command)


# Commands that launch the real server named by a later argument.
_LAUNCHERS = re.compile(r"^(python[\d.]*|pypy[\d.]*|node|bun|deno|uvx|npx|pipx|uv|pnpm|yarn)$")
_LAUNCHER_WORDS = frozenset({"run", "exec", "dlx", "x", "tool"})


def default_server_name(command: Sequence[str]) -> str:
    """A readable name for a server command: ``mcp-server-git`` for ``uvx
    mcp-server-git ...``, ``server-memory`` for ``npx -y @modelcontextprotocol/server-memory``,
    ``table_server`` for ``python table_server.py``."""
    if not command:
        return "server"
    args = list(command)
    name = os.path.basename(args[0])
    if _LAUNCHERS.match(name):
        for arg in args[1:]:
            if arg.startswith("-") or arg in _LAUNCHER_WORDS:
                continue
            name = os.path.basename(arg.rstrip("/"))
            break
    stem, ext = os.path.splitext(name)
    return stem if ext in (".py", ".js", ".mjs", ".cjs", ".ts", ".exe") else name


# The one home of every default: the dataclass; the CLI reads them from here.
DEFAULTS = ProxyOptions()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gcxwire proxy",
        usage=USAGE,
        description=(
            "Run an MCP server behind a stdio relay that re-encodes tabular tool results "
            "(GCX1 or DCP, fewest tokens) and slims tool definitions."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    server = parser.add_argument_group("server")
    server.add_argument(
        "--servers",
        metavar="FILE",
        help="front several servers (a gateway.json or an mcpServers file) instead of one",
    )
    server.add_argument(
        "--url",
        metavar="URL",
        help="front a remote server over Streamable HTTP (needs gcxwire[http])",
    )
    server.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="'K: V'",
        help="with --url: an HTTP header for every request, ${VAR} taken from the "
        "environment (repeatable)",
    )
    server.add_argument(
        "--http-timeout",
        type=_positive_float,
        default=300.0,
        metavar="SECONDS",
        help="with --url: how long the server may stay silent while answering (default: 300)",
    )
    server.add_argument("--name", default="", help="server name for logs, stats and presets")
    server.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="K=V",
        help="add or override one variable in the server's environment (repeatable)",
    )
    server.add_argument(
        "--isolate-env",
        action="store_true",
        help="give servers only PATH, HOME, locale, temp and TLS variables of this "
        "environment, plus --env and their own env (default: the whole environment)",
    )
    server.add_argument("--cwd", help="working directory of the server")
    server.add_argument(
        "--answer-timeout",
        type=_positive_float,
        default=DEFAULTS.answer_timeout,
        metavar="SECONDS",
        help="with --servers: how long to wait for each server's initialize, discover and "
        f"tools/list before taking it out (default: {DEFAULTS.answer_timeout:g})",
    )

    encoding = parser.add_argument_group("encoding")
    encoding.add_argument(
        "--format",
        choices=("auto", "gcx", "dcp"),
        default=DEFAULTS.format,
        help="encoding of tabular results; auto picks the fewest tokens "
        f"(default: {DEFAULTS.format})",
    )
    encoding.add_argument(
        "--structured",
        choices=("keep", "drop"),
        default=DEFAULTS.structured,
        help="drop: remove structuredContent from rewritten results and outputSchema from "
        f"tools/list; keep: leave both and rewrite only the text (default: {DEFAULTS.structured})",
    )
    encoding.add_argument(
        "--hint",
        choices=("session", "first-use", "per-result", "off"),
        default="session",
        help="the how-to-read hint: once per session, in the initialize instructions "
        "(results carry only what the session was not told); first-use: each part with "
        "the first result that needs it, none in the instructions; per-result: before "
        "every rewritten result; off (default: session)",
    )
    encoding.add_argument(
        "--no-hint",
        dest="hint",
        action="store_const",
        const="off",
        help="the same as --hint off",
    )
    encoding.add_argument(
        "--no-slim",
        dest="slim_tools",
        action="store_false",
        help="relay tools/list unchanged",
    )

    schemas = parser.add_argument_group("DCP schemas")
    schemas.add_argument(
        "--confirm-after",
        type=_positive_int,
        default=DEFAULTS.confirm_after,
        metavar="N",
        help="rows seen before a provisional schema is confirmed "
        f"(default: {DEFAULTS.confirm_after})",
    )
    schemas.add_argument(
        "--cache-size",
        type=_positive_int,
        default=DEFAULTS.cache_size,
        metavar="N",
        help="tools whose schemas are kept, least recently used dropped first "
        f"(default: {DEFAULTS.cache_size})",
    )
    schemas.add_argument(
        "--presets",
        metavar="DIR",
        help="directory of preset schemas (*.json), declared layouts (*.layout.json, "
        "*.layouts.json) and field filters (<name>.filter.json)",
    )
    schemas.add_argument(
        "--no-registry",
        dest="registry",
        action="store_false",
        help="do not list or serve the DCP schemas as gcxwire://schemas resources",
    )
    schemas.add_argument(
        "--max-fields",
        type=_positive_int,
        metavar="N",
        help="keep at most N fields per row (a hard cap after presets' filters)",
    )

    ops = parser.add_argument_group("logging and stats")
    ops.add_argument(
        "--log-level",
        choices=("debug", "info", "warning", "error"),
        default=DEFAULTS.log_level,
        help=f"stderr log level (default: {DEFAULTS.log_level})",
    )
    ops.add_argument("--log-file", metavar="FILE", help="write logs to FILE instead of stderr")
    ops.add_argument(
        "--stats-file",
        metavar="FILE",
        help="write per-tool stats as JSON to FILE on exit and on SIGUSR1",
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    return parser


def parse_options(argv: Sequence[str]) -> ProxyOptions:
    """Parse ``[options] -- command [args...]``; exits with status 2 on bad usage."""
    parser = build_parser()
    argv = list(argv)
    if "--" in argv:
        split = argv.index("--")
        args = parser.parse_args(argv[:split])
        command = argv[split + 1 :]
    else:
        args = parser.parse_args(argv)
        command = list(args.command)
    given = [what for what, on in (("--servers", args.servers), ("--url", args.url)) if on]
    if command:
        given.append("a server command")
    if len(given) > 1:
        parser.error(f"give one of --servers FILE, --url URL or a command after --, not {given}")
    if args.header and args.url is None:
        parser.error('--header needs --url (gateway entries take "headers")')
    headers: dict[str, str] = {}
    for item in args.header:
        key, sep, value = item.partition(":")
        if not sep or not key.strip():
            parser.error(f"--header expects 'K: V', got {item!r}")
        try:
            headers[key.strip()] = expand_variables(value.strip(), "--header", os.environ)
        except ValueError as exc:
            parser.error(str(exc))
    if args.url is not None and urlsplit(args.url).scheme not in ("http", "https"):
        parser.error(f"--url expects an http:// or https:// URL, got {args.url!r}")
    if args.servers is None and args.url is None and not command:
        parser.error(
            "no server command: put it after --, e.g. gcxwire proxy -- uvx mcp-server-time"
        )
    env: dict[str, str] = {}
    for item in args.env:
        key, sep, value = item.partition("=")
        if not sep or not key:
            parser.error(f"--env expects K=V, got {item!r}")
        env[key] = value
    if args.presets is not None and not os.path.isdir(args.presets):
        parser.error(f"--presets: {args.presets!r} is not a directory")
    return ProxyOptions(
        command=tuple(command),
        servers=args.servers,
        url=args.url,
        headers=headers,
        http_timeout=args.http_timeout,
        answer_timeout=args.answer_timeout,
        name=args.name,
        env=env,
        isolate_env=args.isolate_env,
        cwd=args.cwd,
        format=args.format,
        structured=args.structured,
        hint=args.hint,
        slim_tools=args.slim_tools,
        confirm_after=args.confirm_after,
        cache_size=args.cache_size,
        presets=args.presets,
        registry=args.registry,
        max_fields=args.max_fields,
        log_level=args.log_level,
        log_file=args.log_file,
        stats_file=args.stats_file,
    )


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {value}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {text}")
    return value
