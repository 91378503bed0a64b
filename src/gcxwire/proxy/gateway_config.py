"""The ``--servers FILE`` configuration: which servers one gateway fronts.

Two shapes are read:

- the gateway's own, ``{"servers": [{"alias", "command", "args", "env", "passEnv", "cwd",
  "restart"}]}``, or ``{"alias", "url", "headers"}`` for a remote server over Streamable HTTP;
- the ``mcpServers`` object of Claude Desktop / Claude Code / Cursor
  (``{"mcpServers": {"github": {"command", "args", "env"}}}``), and VS Code's
  ``{"servers": {...}}`` object of the same entries. The key is the alias.

``${VAR}`` and ``${VAR:-default}`` are expanded in ``command``, ``args``, ``env``
values, ``cwd``, ``url`` and ``headers`` values, as Claude Code does. Errors name
the file, the key and what is wrong:
``gateway.json: servers[1].command: expected a non-empty string``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..errors import GatewayConfigError

__all__ = ["ALIAS", "GatewayConfigError", "ServerSpec", "expand_variables", "load_gateway_config"]

# An alias becomes the tool-name prefix "alias__": the tool-name charset, no "__",
# and no "_" at either end, so the first "__" of "alias__tool" always ends the
# alias ("srv_" would make "srv___echo" read as srv + "_echo").
ALIAS = re.compile(r"^(?!.*__)[A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9-])?$")
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_ENTRY_KEYS = frozenset(
    {
        "alias",
        "command",
        "args",
        "env",
        "passEnv",
        "cwd",
        "restart",
        "type",
        "disabled",
        "description",
    }
)


@dataclass(frozen=True)
class ServerSpec:
    alias: str
    command: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    restart: bool = False
    url: str | None = None  # a remote server over Streamable HTTP (then no command)
    headers: dict[str, str] = field(default_factory=dict)
    # None: the gateway's whole environment; else only these names (a trailing
    # "*" matches a prefix) on top of a base of PATH, HOME, locale, temp, TLS
    pass_env: tuple[str, ...] | None = None


def expand_variables(text: str, where: str, environ: Mapping[str, str]) -> str:
    """``${VAR}`` and ``${VAR:-default}`` in ``text``; an unset ``${VAR}`` is an error."""
    return _expand(text, where, environ)


def _expand(text: str, where: str, environ: Mapping[str, str]) -> str:
    def replace(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        value = environ.get(name)
        if value is None or (value == "" and default is not None):
            if default is None:
                raise GatewayConfigError(
                    f"{where}: ${{{name}}} is not set (use ${{{name}:-default}})"
                )
            return default
        return value

    return _VARIABLE.sub(replace, text)


class _Reader:
    def __init__(self, path: str, environ: Mapping[str, str]) -> None:
        self.path = path
        self.environ = environ

    def fail(self, key: str, problem: str) -> GatewayConfigError:
        return GatewayConfigError(f"{self.path}: {key}: {problem}")

    def string(self, value: Any, key: str) -> str:
        if not isinstance(value, str) or not value:
            raise self.fail(key, "expected a non-empty string")
        return _expand(value, f"{self.path}: {key}", self.environ)

    def entry(self, alias: Any, entry: Any, key: str) -> ServerSpec:
        if not isinstance(entry, dict):
            raise self.fail(key, "expected an object with command, args, env")
        unknown = sorted(set(entry) - _ENTRY_KEYS - {"url", "headers"})
        if unknown:
            raise self.fail(key, f"unknown key(s) {', '.join(unknown)}")
        kind = entry.get("type", "http" if "url" in entry else "stdio")
        if not isinstance(alias, str) or not ALIAS.match(alias):
            where = f"{key}.alias" if key.startswith("servers[") else key  # list form: a member
            problem = "missing" if alias is None else f"alias {alias!r} must be letters, digits"
            detail = ", '-' or '_', no '__' and no '_' at either end"
            raise self.fail(where, problem if alias is None else problem + detail)
        if kind in ("http", "streamable-http", "streamableHttp") or "url" in entry:
            return self.remote(alias, entry, key, kind)
        if kind != "stdio":
            raise self.fail(f"{key}.type", f"{kind!r}: expected stdio or http")
        if "headers" in entry:
            raise self.fail(f"{key}.headers", "headers belong to a server with a url")
        command = self.string(entry.get("command"), f"{key}.command")
        args = entry.get("args", [])
        if not isinstance(args, list):
            raise self.fail(f"{key}.args", "expected a list of strings")
        expanded_args = []
        for i, arg in enumerate(args):
            if not isinstance(arg, str):
                raise self.fail(f"{key}.args[{i}]", "expected a string")
            expanded_args.append(_expand(arg, f"{self.path}: {key}.args[{i}]", self.environ))
        env = entry.get("env", {})
        if not isinstance(env, dict):
            raise self.fail(f"{key}.env", "expected an object of strings")
        expanded_env = {}
        for name, value in env.items():
            if not isinstance(value, str):
                raise self.fail(f"{key}.env.{name}", "expected a string")
            expanded_env[name] = _expand(value, f"{self.path}: {key}.env.{name}", self.environ)
        pass_env = entry.get("passEnv")
        if pass_env is not None and (
            not isinstance(pass_env, list)
            or not all(isinstance(name, str) and name for name in pass_env)
        ):
            raise self.fail(f"{key}.passEnv", "expected a list of variable names")
        cwd = entry.get("cwd")
        restart = entry.get("restart", False)
        if not isinstance(restart, bool):
            raise self.fail(f"{key}.restart", "expected true or false")
        return ServerSpec(
            alias=alias,
            command=(command, *expanded_args),
            env=expanded_env,
            cwd=None if cwd is None else self.string(cwd, f"{key}.cwd"),
            restart=restart,
            pass_env=None if pass_env is None else tuple(pass_env),
        )

    def remote(self, alias: str, entry: dict[str, Any], key: str, kind: Any) -> ServerSpec:
        """An entry with a ``url``: a remote server over Streamable HTTP."""
        if kind == "sse":
            raise self.fail(f"{key}.type", "the old HTTP+SSE transport is not supported: use http")
        if kind not in ("http", "streamable-http", "streamableHttp"):
            raise self.fail(f"{key}.type", f"{kind!r}: a server with a url is of type http")
        extra = sorted({"command", "args", "env", "cwd"} & set(entry))
        if extra:
            raise self.fail(key, f"a server with a url takes no {', '.join(extra)}")
        url = self.string(entry.get("url"), f"{key}.url")
        if not url.startswith(("http://", "https://")):
            raise self.fail(f"{key}.url", f"expected an http:// or https:// URL, got {url!r}")
        headers = entry.get("headers", {})
        if not isinstance(headers, dict):
            raise self.fail(f"{key}.headers", "expected an object of strings")
        expanded = {}
        for name, value in headers.items():
            if not isinstance(value, str):
                raise self.fail(f"{key}.headers.{name}", "expected a string")
            expanded[name] = _expand(value, f"{self.path}: {key}.headers.{name}", self.environ)
        restart = entry.get("restart", False)
        if not isinstance(restart, bool):
            raise self.fail(f"{key}.restart", "expected true or false")
        return ServerSpec(alias=alias, command=(), url=url, headers=expanded, restart=restart)


def load_gateway_config(path: str, environ: Mapping[str, str] | None = None) -> list[ServerSpec]:
    """The servers of ``path``, in file order; raises :class:`GatewayConfigError`."""
    try:
        with open(path, "rb") as file:
            data = orjson.loads(file.read())
    except OSError as exc:
        raise GatewayConfigError(f"{path}: cannot read: {exc.strerror}") from None
    except orjson.JSONDecodeError as exc:
        raise GatewayConfigError(f"{path}: not JSON: {exc}") from None
    reader = _Reader(path, os.environ if environ is None else environ)
    if not isinstance(data, dict):
        raise GatewayConfigError(f'{path}: expected an object with "servers" or "mcpServers"')
    specs: list[ServerSpec] = []
    if isinstance(data.get("servers"), list):
        for i, entry in enumerate(data["servers"]):
            alias = entry.get("alias") if isinstance(entry, dict) else None
            specs.append(reader.entry(alias, entry, f"servers[{i}]"))
    else:
        top = "mcpServers" if "mcpServers" in data else "servers"
        entries = data.get(top)
        if not isinstance(entries, dict):
            raise GatewayConfigError(
                f'{path}: expected "servers" (a list or an object) or "mcpServers" (an object)'
            )
        for alias, entry in entries.items():
            if isinstance(entry, dict) and entry.get("disabled") is True:
                continue
            specs.append(reader.entry(alias, entry, f"{top}.{alias}"))
    if not specs:
        raise GatewayConfigError(f"{path}: no servers")
    seen: set[str] = set()
    for spec in specs:
        if spec.alias in seen:
            raise GatewayConfigError(f"{path}: alias {spec.alias!r} is used twice")
        seen.add(spec.alias)
    return specs
