"""The --servers file: both shapes, ${VAR} expansion, and errors naming file and key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gcxwire.proxy.gateway_config import GatewayConfigError, ServerSpec, load_gateway_config


def write(tmp_path: Path, data: object) -> str:
    path = tmp_path / "gateway.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def test_gateway_shape(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        {
            "servers": [
                {"alias": "github", "command": "node", "args": ["gh.js"], "env": {"T": "x"}},
                {
                    "alias": "git",
                    "command": "uvx",
                    "args": ["mcp-server-git"],
                    "restart": True,
                    "cwd": "/r",
                },
            ]
        },
    )
    assert load_gateway_config(path) == [
        ServerSpec("github", ("node", "gh.js"), {"T": "x"}),
        ServerSpec("git", ("uvx", "mcp-server-git"), {}, "/r", True),
    ]


def test_mcp_servers_shape_with_variables(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        {
            "mcpServers": {
                "github": {
                    "command": "${HOME_BIN}/gh-mcp",
                    "args": ["--token", "${TOKEN}", "--mode=${MODE:-read}"],
                    "env": {"LEVEL": "${LEVEL:-info}"},
                },
                "off": {"command": "x", "disabled": True},
            }
        },
    )
    specs = load_gateway_config(path, {"HOME_BIN": "/opt/bin", "TOKEN": "t0k"})
    assert specs == [
        ServerSpec(
            "github", ("/opt/bin/gh-mcp", "--token", "t0k", "--mode=read"), {"LEVEL": "info"}
        )
    ]


def test_vscode_servers_object(tmp_path: Path) -> None:
    path = write(tmp_path, {"servers": {"mem": {"type": "stdio", "command": "npx", "args": ["m"]}}})
    assert load_gateway_config(path) == [ServerSpec("mem", ("npx", "m"))]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("{", "gateway.json: not JSON"),
        ([], "expected an object"),
        ({"servers": []}, "no servers"),
        ({"other": 1}, 'expected "servers"'),
        ({"servers": [{"alias": "a"}]}, "servers[0].command: expected a non-empty string"),
        ({"servers": [{"alias": "a__b", "command": "x"}]}, "servers[0].alias: alias 'a__b' must"),
        ({"servers": [{"command": "x"}]}, "servers[0].alias: missing"),
        (
            {"mcpServers": {"a": {"command": "x", "args": "y"}}},
            "mcpServers.a.args: expected a list",
        ),
        (
            {"mcpServers": {"a": {"command": "x", "args": [1]}}},
            "mcpServers.a.args[0]: expected a string",
        ),
        ({"mcpServers": {"a": {"command": "x", "env": {"K": 1}}}}, "mcpServers.a.env.K"),
        ({"mcpServers": {"a": {"command": "x", "restart": "yes"}}}, "mcpServers.a.restart"),
        ({"mcpServers": {"a": {"type": "sse", "url": "http://x"}}}, "mcpServers.a.type"),
        ({"mcpServers": {"a": {"command": "x", "colour": 1}}}, "unknown key(s) colour"),
        ({"mcpServers": {"a": {"command": "${NOPE}"}}}, "${NOPE} is not set"),
        (
            {"servers": [{"alias": "a", "command": "x"}, {"alias": "a", "command": "y"}]},
            "used twice",
        ),
    ],
)
def test_errors_name_the_file_and_the_key(tmp_path: Path, data: object, message: str) -> None:
    with pytest.raises(GatewayConfigError) as caught:
        load_gateway_config(write(tmp_path, data), {})
    assert str(caught.value).startswith(str(tmp_path / "gateway.json"))
    assert message in str(caught.value)


def test_missing_file() -> None:
    with pytest.raises(GatewayConfigError, match="nope.json: cannot read"):
        load_gateway_config("/nonexistent/nope.json")
