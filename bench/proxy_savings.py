"""Print what `gcxwire proxy` saves on real MCP servers, against both baselines (markdown).

Each server runs behind the proxy (default options, ``--stats-file``) and is driven by
the Python SDK ``Client`` in ``legacy`` mode, so the reading hint travels once, in the
``initialize`` instructions, and is counted in the totals. The figures are the proxy's
own stats: cl100k tokens of the text blocks, before (the server's text as sent), as
compact JSON (the same values, compacted), and after. Servers: npm server-memory,
server-filesystem and server-everything (over Streamable HTTP, ``--url``) from
``tests/node`` (``npm ci --prefix tests/node``), PyPI mcp-server-time and mcp-server-git,
and the table servers of tests/proxy. Extra arguments are proxy options for every run::

    python bench/proxy_savings.py
    python bench/proxy_savings.py --hint first-use
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mcp import Client, StdioServerParameters  # noqa: E402

from tests.node_deps import NODE_DIR, node_missing  # noqa: E402
from tests.proxy.helpers import TABLE_SERVER  # noqa: E402
from tests.proxy.http_servers import everything_server, python_server  # noqa: E402

BIN = NODE_DIR / "node_modules" / ".bin"
OPTIONS = sys.argv[1:]  # proxy options for every run
Calls = list[tuple[str, dict[str, Any]]]


def memory_calls() -> Calls:
    names = [f"person{i}" for i in range(15)]
    entities = [
        {
            "name": n,
            "entityType": "person",
            "observations": [f"works on project {i % 4}", "likes tea"],
        }
        for i, n in enumerate(names)
    ]
    relations = [{"from": names[i], "to": names[i + 1], "relationType": "knows"} for i in range(14)]
    return [
        ("create_entities", {"entities": entities}),
        ("create_relations", {"relations": relations}),
        ("read_graph", {}),
        ("search_nodes", {"query": "project 1"}),
        ("open_nodes", {"names": names[:6]}),
    ]


def servers(tmp: Path) -> list[tuple[str, list[str], dict[str, str], Calls]]:
    repo = str(ROOT)
    return [
        (
            "@modelcontextprotocol/server-memory 2026.8.31",
            [str(BIN / "mcp-server-memory")],
            {"MEMORY_FILE_PATH": str(tmp / "memory.jsonl")},
            memory_calls(),
        ),
        (
            "@modelcontextprotocol/server-filesystem 2026.8.31",
            [str(BIN / "mcp-server-filesystem"), repo],
            {},
            [
                ("directory_tree", {"path": f"{repo}/src/gcxwire/proxy"}),
                ("list_directory", {"path": f"{repo}/src/gcxwire"}),
            ],
        ),
        (
            "mcp-server-time 2026.10.19",
            [sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"],
            {},
            [
                ("get_current_time", {"timezone": "Europe/Warsaw"}),
                (
                    "convert_time",
                    {"source_timezone": "UTC", "time": "08:00", "target_timezone": "Asia/Tokyo"},
                ),
            ],
        ),
        (
            "mcp-server-git 2026.10.19",
            [sys.executable, "-m", "mcp_server_git", "--repository", repo],
            {},
            [("git_log", {"repo_path": repo, "max_count": 5}), ("git_status", {"repo_path": repo})],
        ),
        (
            "tests/proxy/servers/table_server.py",
            TABLE_SERVER,
            {},
            [("rows", {"n": 30}), ("search", {"n": 30})],
        ),
    ]


async def drive(proxy_args: Sequence[str], env: dict[str, str], calls: Calls) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        stats = Path(tmp) / "stats.json"
        args = ["-m", "gcxwire.proxy", "--stats-file", str(stats), *OPTIONS, *proxy_args]
        params = StdioServerParameters(
            command=sys.executable, args=args, env={**os.environ, **env}, cwd=str(ROOT)
        )
        async with Client(params, mode="legacy") as client:
            await client.list_tools()
            for name, arguments in calls:
                await client.call_tool(name, arguments)
        for _ in range(100):  # written when the proxy exits
            if stats.exists():
                break
            await asyncio.sleep(0.05)
        return dict(json.loads(stats.read_text()))


def pct(before: int, after: int) -> str:
    return f"{100 * (before - after) / before:.1f} %" if before else "–"


def report(rows: list[tuple[str, dict[str, Any]]]) -> str:
    out = [
        "| server | tool | calls | as sent | compact JSON | after | vs as sent | vs compact |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for server, stats in rows:
        for tool, s in stats["tools"].items():
            out.append(
                f"| {server} | `{tool}` | {s['calls']} | {s['tokens_before']} | "
                f"{s['tokens_compact']} | {s['tokens_after']} | "
                f"{pct(s['tokens_before'], s['tokens_after'])} | "
                f"{pct(s['tokens_compact'], s['tokens_after'])} |"
            )
        t = stats["totals"]
        out.append(
            f"| {server} | **all** (+{stats['instructions_hint_tokens']} in instructions) | "
            f"{t['calls']} | {t['tokens_before']} | {t['tokens_compact']} | {t['tokens_after']} | "
            f"{pct(t['tokens_before'], t['tokens_after'])} | "
            f"{pct(t['tokens_compact'], t['tokens_after'])} |"
        )
    lists = ["", "| server | tools | tools/list before → after | saved |", "|---|---|---|---|"]
    for server, stats in rows:
        tl = stats["tools_list"]
        lists.append(
            f"| {server} | {tl['tools']} | {tl['tokens_before']} → {tl['tokens_after']} | "
            f"{pct(tl['tokens_before'], tl['tokens_after'])} |"
        )
    return "\n".join(out + lists)


async def main() -> None:
    rows: list[tuple[str, dict[str, Any]]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, command, env, calls in servers(Path(tmp)):
            rows.append((label, await drive(["--", *command], env, calls)))
    with everything_server() as url:
        http_calls: Calls = [
            ("get-structured-content", {"location": "New York"}),
            ("echo", {"message": "hello"}),
        ]
        rows.append(
            ("server-everything over HTTP (--url)", await drive(["--url", url], {}, http_calls))
        )
    with python_server() as url:
        http_calls = [("rows", {"n": 30}), ("clock", {})]
        rows.append(
            (
                "tests/proxy/servers/http_server.py (--url)",
                await drive(["--url", url], {}, http_calls),
            )
        )
    print(report(rows))


if __name__ == "__main__":
    if (missing := node_missing()) is not None:
        raise SystemExit(f"{missing}: the npm MCP servers need them")
    asyncio.run(main())
