"""The ``--servers FILE`` configuration: which servers one gateway fronts.

Two shapes are read:

- the gateway's own, ``{"servers": [{"alias", "command", "args", "env", "cwd", "restart"}]}``;
- the ``mcpServers`` object of Claude Desktop / Claude Code / Cursor
  (``{"mcpServers": {"github": {"command", "args", "env"}}}``), and VS Code's
  ``{"servers": {...}}`` object of the same entries. The key is the alias.

``${VAR}`` and ``${VAR:-default}`` are expanded in ``command``, ``args``, ``env``
values and ``cwd``, as Claude Code does. Errors name the file, the key and what
is wrong: ``gateway.json: servers[1].command: expected a non-empty string``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

__all__ = ["ALIAS", "GatewayConfigError", "ServerSpec", "load_gateway_config"]

# An alias becomes the tool-name prefix "alias__": the tool-name charset, no "__".
ALIAS = re.compile(r"^(?!.*__)[A-Za-z0-9][A-Za-z0-9_-]*$")
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_ENTRY_KEYS = frozenset(
    {"alias", "command", "args", "env", "cwd", "restart", "type", "disabled", "description"}
)


class GatewayConfigError(ValueError):
    """The configuration file is unreadable or malformed."""


@dataclass(frozen=True)
class ServerSpec:
    alias: str
    command: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    restart: bool = False


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
        kind = entry.get("type", "stdio")
        if kind != "stdio" or "url" in entry:
            raise self.fail(key, "only stdio servers (command + args) can be fronted")
        if not isinstance(alias, str) or not ALIAS.match(alias):
            where = f"{key}.alias" if key.startswith("servers[") else key  # list form: a member
            problem = "missing" if alias is None else f"alias {alias!r} must be letters, digits"
            raise self.fail(where, problem if alias is None else problem + ", '-' or '_', no '__'")
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
        )


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
