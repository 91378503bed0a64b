"""What a result re-encoding proxy adds to a tool call, gcxwire beside mcp-compressor.

Starts the same real MCP server (tests/proxy/servers/table_server.py, its
``rows_text`` tool: pretty JSON text of n rows) five ways: bare, behind
``gcxwire proxy``, behind ``bench/stdio_floor.py`` (a pass-through relay on
asyncio streams: one process hop each way), behind ``stdio_floor.py --threads``
(the same hop with a thread per direction blocked in ``os.read``, as gcxwire's
stdio relay is built) and behind ``mcp-compressor --toonify`` (PyPI, the
``bench`` dependency group).
Each is driven over stdio by one plain JSON-RPC client, so the client's cost
is the same for all. Reports, per row count:

- added p50: the median, over rounds, of a call's time behind the proxy minus
  the bare server's call in the same round (the sessions run side by
  side and take turns call by call, the order rotating, so a burst of load on
  a shared machine lands on all of them alike);
- proxy CPU per call: CPU time of the proxy's processes (not the server's),
  read from /proc, divided by the calls;
- the result's cl100k tokens (what the model would read).

Every call asks for different rows (its own ``offset``), as real calls do: no
cache of the last texts makes a repeated answer cheaper than a new one.

    python bench/proxy_latency.py            # 1, 50 and 5,000 rows, 3 runs
    python bench/proxy_latency.py --quick    # fewer calls, one run
    python bench/proxy_latency.py --before ../old/src   # and an older gcxwire beside it
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from gcxwire import tokens

ROOT = Path(__file__).resolve().parent.parent
SERVER = [sys.executable, str(ROOT / "tests" / "proxy" / "servers" / "table_server.py")]
SIZES = (1, 50, 5000)
TICK = os.sysconf("SC_CLK_TCK")


def setups(before: str | None = None) -> dict[str, list[str]]:
    out = {
        "bare": SERVER,
        "gcxwire": [sys.executable, "-m", "gcxwire.proxy", "--", *SERVER],
        # a pass-through relay on asyncio streams: one more process hop
        "asyncio floor": [sys.executable, str(ROOT / "bench" / "stdio_floor.py"), "--", *SERVER],
        # the same hop with a thread per direction in blocking reads, as gcxwire's
        "thread floor": [
            *(sys.executable, str(ROOT / "bench" / "stdio_floor.py"), "--threads", "--"),
            *SERVER,
        ],
    }
    if before is not None:  # another checkout's gcxwire, for a before/after in one run
        env = ["env", f"PYTHONPATH={before}"]
        out["gcxwire before"] = [*env, sys.executable, "-m", "gcxwire.proxy", "--", *SERVER]
    compressor = shutil.which("mcp-compressor")
    if compressor:
        out["mcp-compressor"] = [compressor, "--toonify", "--", *SERVER]
    else:
        print("mcp-compressor is not installed (pip install mcp-compressor): left out")
    return out


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as file:
        fields = file.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime + stime


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as file:
                    parent = int(file.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            if parent == pid:
                found.append(int(entry))
    return found


def _tree(pid: int) -> list[int]:
    out = [pid]
    for child in _children(pid):
        out.extend(_tree(child))
    return out


def _is_server(pid: int) -> bool:
    """The table server itself: its script is its first argument (a proxy names it later)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            argv = file.read().split(b"\0")
    except OSError:
        return False
    return len(argv) > 1 and argv[1].endswith(b"table_server.py")


class Session:
    """One MCP session over stdio: a process tree, a JSON-RPC line client."""

    def __init__(self, argv: list[str]) -> None:
        self.process = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.next_id = 0
        self.calls = 0
        self.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "proxy-latency", "version": "0"},
            },
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        names = [tool["name"] for tool in self.request("tools/list", {})["tools"]]
        self.via_compressor = "rows_text" not in names
        if self.via_compressor and not any(name.endswith("_invoke_tool") for name in names):
            raise RuntimeError(f"no rows_text tool and no invoke tool in {names}")
        self.invoke = next((name for name in names if name.endswith("_invoke_tool")), "")

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> Any:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        assert self.process.stdout is not None
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError(f"{method}: the server closed its output")
            message = json.loads(line)
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]

    def rows(self, n: int, offset: int = 0) -> str:
        arguments = {"n": n, "offset": offset}
        if self.via_compressor:
            params = {
                "name": self.invoke,
                "arguments": {"tool_name": "rows_text", "tool_input": arguments},
            }
        else:
            params = {"name": "rows_text", "arguments": arguments}
        result = self.request("tools/call", params)
        return "\n".join(block.get("text", "") for block in result["content"])

    def proxy_cpu(self) -> float:
        """CPU seconds of every process in the tree except the server's."""
        total = 0.0
        for pid in _tree(self.process.pid):
            if not _is_server(pid):
                try:
                    total += _cpu_seconds(pid)
                except OSError:
                    pass
        return total

    def server_cpu(self) -> float:
        return sum(_cpu_seconds(pid) for pid in _tree(self.process.pid) if _is_server(pid))

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        assert self.process.stdout is not None
        self.process.stdout.close()


def measure(configs: dict[str, list[str]], n: int, calls: int) -> dict[str, dict[str, float]]:
    """Every setup's figures at ``n`` rows. The sessions run side by side and
    take turns call by call (the order rotating), so a burst of load on this
    shared machine lands on all of them alike instead of on one block of calls;
    a proxy's added time is taken per round, against the bare call of that round."""
    sessions = {name: Session(argv) for name, argv in configs.items()}
    times: dict[str, list[float]] = {name: [] for name in sessions}
    texts: dict[str, str] = {}
    try:
        for session in sessions.values():
            for warm in range(3):  # warm up: imports, tokenizer ranks, caches
                session.rows(n, offset=warm)
        before = {name: (s.proxy_cpu(), s.server_cpu()) for name, s in sessions.items()}
        names = list(sessions)
        for call in range(calls):
            for name in names[call % len(names) :] + names[: call % len(names)]:
                start = time.perf_counter()
                texts[name] = sessions[name].rows(n, offset=3 + call)
                times[name].append(time.perf_counter() - start)
        after = {name: (s.proxy_cpu(), s.server_cpu()) for name, s in sessions.items()}
    finally:
        for session in sessions.values():
            session.close()
    bare = times.get("bare", [0.0] * calls)
    rival = times.get("mcp-compressor", [0.0] * calls)
    return {
        name: {
            "p50": statistics.median(times[name]),
            "added": statistics.median(t - b for t, b in zip(times[name], bare)),
            "vs_rival": statistics.median(t - r for t, r in zip(times[name], rival)),
            "cpu": (after[name][0] - before[name][0]) / calls,
            "server_cpu": (after[name][1] - before[name][1]) / calls,
            "tokens": tokens.count(texts[name]),
        }
        for name in sessions
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls, one run")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES), help="row counts")
    parser.add_argument("--calls", type=int, help="calls per size and run (default: by size)")
    parser.add_argument(
        "--before",
        metavar="SRC",
        help="also run the gcxwire found in SRC (another checkout's src, built), side by side",
    )
    args = parser.parse_args()
    sizes = tuple(args.sizes)
    runs = 1 if args.quick else args.runs
    configs = setups(args.before)
    results: dict[tuple[str, int], list[dict[str, float]]] = {}
    loads = [os.getloadavg()[0]]
    for _ in range(runs):
        for n in sizes:
            calls = (5 if n >= 5000 else 40) if args.quick else (30 if n >= 5000 else 300)
            calls = args.calls or calls
            for name, figures in measure(configs, n, calls).items():
                results.setdefault((name, n), []).append(figures)
            loads.append(os.getloadavg()[0])

    print(f"load average (1 min) {min(loads):.1f}-{max(loads):.1f} over the runs\n")
    print(
        "| rows | proxy | added p50 ms | proxy CPU ms / call | result tokens (cl100k) |"
        "\n|--:|---|--:|--:|--:|"
    )
    for n in sizes:
        for name in configs:
            got = results[(name, n)]
            tokens_ = got[-1]["tokens"]
            if name == "bare":
                p50s = sorted(run["p50"] * 1e3 for run in got)
                print(f"| {n:,} | bare server (p50 itself) | {_spread(p50s)} | | {tokens_:,} |")
                continue
            added = sorted(run["added"] * 1e3 for run in got)
            cpu = sorted(run["cpu"] * 1e3 for run in got)
            print(f"| {n:,} | {name} | {_spread(added)} | {_spread(cpu)} | {tokens_:,} |")
    if "mcp-compressor" in configs:
        print("\ngcxwire's call minus mcp-compressor's in the same round, median ms:")
        for n in sizes:
            ahead = sorted(run["vs_rival"] * 1e3 for run in results[("gcxwire", n)])
            print(f"- {n:,} rows: {_spread(ahead)}")


def _spread(values: list[float]) -> str:
    """One figure, or the median with the range of the runs."""
    if len(values) == 1:
        return f"{values[0]:.2f}"
    return f"{statistics.median(values):.2f} ({values[0]:.2f}-{values[-1]:.2f})"


if __name__ == "__main__":
    main()
