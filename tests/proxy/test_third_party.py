"""Real third-party servers from PyPI (mcp-server-time, mcp-server-git) behind the proxy.

Each call is made once directly and once through the proxy; the client must see
the same data, and its schema validation must not complain.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from .helpers import carried_value, proxy_params

TIME_SERVER = [sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"]


def git_server(repo: Path) -> list[str]:
    return [sys.executable, "-m", "mcp_server_git", "--repository", str(repo)]


def direct(server: list[str]) -> StdioServerParameters:
    return StdioServerParameters(command=server[0], args=server[1:])


async def session_calls(
    params: StdioServerParameters, mode: str, calls: list[tuple[str, dict[str, Any]]]
) -> tuple[dict[str, Any], list[Any]]:
    """The tools by name, and each call's (isError, value carried, structuredContent)."""
    async with Client(params, mode=mode) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        results = []
        for name, arguments in calls:
            result = await client.call_tool(name, arguments)
            if result.is_error:
                value: Any = [block.model_dump() for block in result.content]
            else:
                value = carried_value(result) if _json_text(result) else _texts(result)
            results.append((result.is_error, value, result.structured_content))
        return tools, results


def _texts(result: Any) -> list[str]:
    return [block.text for block in result.content]


def _json_text(result: Any) -> bool:
    return all(block.text.lstrip()[:1] in ("{", "[", "G") for block in result.content)


TIME_CALLS = [
    (
        "convert_time",
        {"source_timezone": "America/New_York", "time": "16:30", "target_timezone": "Asia/Tokyo"},
    ),
    (
        "convert_time",
        {"source_timezone": "UTC", "time": "08:00", "target_timezone": "Europe/Berlin"},
    ),
    ("get_current_time", {"timezone": "Not/AZone"}),  # an isError result
]


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_mcp_server_time_reads_the_same_through_the_proxy(mode: str) -> None:
    async def scenario() -> None:
        direct_tools, direct_results = await session_calls(direct(TIME_SERVER), mode, TIME_CALLS)
        tools, results = await session_calls(proxy_params(TIME_SERVER), mode, TIME_CALLS)
        # The same values; the pretty objects became compact JSON, so (--structured drop)
        # their structuredContent went with the outputSchema.
        assert [r[:2] for r in results] == [r[:2] for r in direct_results]
        assert [r[2] for r in results] == [None, None, direct_results[2][2]]
        assert set(tools) == set(direct_tools) == {"get_current_time", "convert_time"}
        for name, tool in tools.items():
            assert tool.input_schema["required"] == direct_tools[name].input_schema["required"]
            assert tool.output_schema is None  # dropped: nothing left for a client to trip on
        assert results[2][0] is True

    asyncio.run(scenario())


@pytest.fixture(scope="module")
def git_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = tmp_path_factory.mktemp("repo")
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Ada",
        "GIT_AUTHOR_EMAIL": "ada@example.org",
        "GIT_COMMITTER_NAME": "Ada",
        "GIT_COMMITTER_EMAIL": "ada@example.org",
        "GIT_AUTHOR_DATE": "2026-01-02T03:04:05Z",
        "GIT_COMMITTER_DATE": "2026-01-02T03:04:05Z",
    }

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    for i in range(3):
        (repo / f"f{i}.txt").write_text(f"line {i}\n")
        git("add", f"f{i}.txt")
        git("commit", "-q", "-m", f"commit {i}")
    (repo / "f0.txt").write_text("changed\n")
    return repo


@pytest.mark.slow  # a few seconds of real servers; the default tier stays under 5 minutes
def test_mcp_server_git_reads_the_same_through_the_proxy(git_repo: Path) -> None:
    path = str(git_repo)
    calls: list[tuple[str, dict[str, Any]]] = [
        ("git_status", {"repo_path": path}),
        ("git_log", {"repo_path": path, "max_count": 5}),
        ("git_branch", {"repo_path": path, "branch_type": "local"}),
        ("git_diff_unstaged", {"repo_path": path}),
        ("git_show", {"repo_path": path, "revision": "no-such-revision"}),
    ]
    server = git_server(git_repo)

    async def scenario() -> None:
        direct_tools, direct_results = await session_calls(direct(server), "auto", calls)
        tools, results = await session_calls(proxy_params(server), "auto", calls)
        assert results == direct_results
        assert set(tools) == set(direct_tools)
        for name, tool in tools.items():
            assert tool.input_schema["required"] == direct_tools[name].input_schema["required"]
            assert tool.description == direct_tools[name].description

    asyncio.run(scenario())
