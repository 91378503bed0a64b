"""docs/mcp.md: its examples run as written, and its token table is what the script prints."""

from __future__ import annotations

import asyncio
import dataclasses
import re
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from gcxwire.mcp import read_result

ROOT = Path(__file__).parents[2]
DOC = (ROOT / "docs" / "mcp.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", DOC, re.S)
MCPSERVER_EXAMPLE, FASTMCP_EXAMPLE, _, AGENT_EXAMPLE, _ = BLOCKS


def load(example: str) -> dict[str, Any]:
    # A module of its own: dataclasses and pydantic look their module up in sys.modules.
    module = types.ModuleType(f"docs_mcp_example_{len(sys.modules)}")
    sys.modules[module.__name__] = module
    exec(compile(example, "docs/mcp.md", "exec"), module.__dict__)
    return module.__dict__


def call(server: Any, tool: str, arguments: dict[str, Any]) -> tuple[Any, Any]:
    async def main() -> tuple[Any, Any]:
        async with Client(server) as client:
            [listed] = [t for t in (await client.list_tools()).tools if t.name == tool]
            return listed, await client.call_tool(tool, arguments)

    return asyncio.run(main())


def test_the_server_examples_are_short_and_send_their_encoding_once() -> None:
    assert max(len(MCPSERVER_EXAMPLE.splitlines()), len(FASTMCP_EXAMPLE.splitlines())) <= 20
    users = load(MCPSERVER_EXAMPLE)
    tool, result = call(users["server"], "list_users", {"limit": 5})
    assert tool.output_schema is None and result.structured_content is None
    assert read_result(result) == [u.model_dump() for u in users["list_users"](5)]
    orders = load(FASTMCP_EXAMPLE)
    tool, result = call(orders["server"]._mcp_server, "recent_orders", {"n": 5})
    assert tool.output_schema is None and result.structured_content is None
    assert read_result(result) == [dataclasses.asdict(o) for o in orders["recent_orders"](5)]


@pytest.mark.slow
def test_the_agent_example_prints_what_it_shows(tmp_path: Path) -> None:
    (tmp_path / "users_server.py").write_text(MCPSERVER_EXAMPLE, encoding="utf-8")
    (tmp_path / "agent.py").write_text(AGENT_EXAMPLE, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "agent.py"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    shown = [line[2:] for line in AGENT_EXAMPLE.splitlines() if line.startswith("# ")]
    assert done.stdout.splitlines() == shown


@pytest.mark.slow
def test_the_token_table_is_what_the_script_prints() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "mcp_tokens.py")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    table = [line for line in done.stdout.splitlines() if line.startswith("|")]
    assert table and all(line in DOC.splitlines() for line in table)
    hint_tokens = re.search(r"once per session: (\d+) tokens", done.stdout)
    assert hint_tokens is not None
    assert f"costs {hint_tokens.group(1)} tokens once per session" in DOC
