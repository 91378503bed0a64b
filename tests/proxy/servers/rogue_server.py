"""A stdio JSON-RPC server that misbehaves on purpose, one fault per tool.

A real process speaking MCP lines, for the proxy's fault tests. It answers
``initialize`` and ``tools/list``; ``tools/call`` picks the fault by tool name:

- ``echo``: the arguments back, as a text block of their JSON;
- ``raw``: the exact line it received, as text;
- ``nan`` / ``inf``: a result holding ``NaN`` / ``1e400`` (not strict JSON);
- ``pretty``: the answer (a JSON table as text) printed over many lines;
- ``batch``: the answer inside a JSON array;
- ``array_id`` / ``object_id``: the answer under the id ``[id]`` / ``{"id": id}``;
- ``numbers``: a JSON table whose numbers a parse and re-write would change
  (``arguments.plain``: the same table with plain numbers);
- ``spawn_exit``: starts a grandchild that keeps stdout open (its pid written to
  ``arguments.pidfile``), then exits with status 5 without answering;
- ``wedge``: answers, then never reads stdin again;
- ``progress``: a ``notifications/progress`` for ``arguments.token``, then the answer;
- ``cancel_own``: a request to the client (id 0), then its own
  ``notifications/cancelled`` for it, then the answer;
- ``cancel_other``: a ``notifications/cancelled`` for ``arguments.id``, then the answer;
- ``big``: ``arguments.size`` bytes of text.

``--cursor=same`` makes every ``tools/list`` page carry the same ``nextCursor``,
``--cursor=fresh`` a new one each time. ``--pidfile=F`` writes its pid to F at
start. ``--ignore-eof`` keeps running after stdin closes and ignores SIGTERM.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from typing import Any

TABLE = [{"id": i, "name": f"row {i}", "score": i / 4, "ok": i % 2 == 0} for i in range(12)]
_ROWS = ", ".join(
    f'{{"id": {i}, "big": {i}.5, "e": {i}, "z": {i % 3}, "name": "row {i}"}}' for i in range(2, 40)
)
NUMBERS = (
    '[{"id": 1, "big": 123456789012345678901234567890.5, "e": 1E+2, "z": -0, "name": "a"}, '
    + _ROWS
    + "]"
)
PLAIN = '[{"id": 1, "big": 1.5, "e": 2, "z": 7, "name": "a"}, ' + _ROWS + "]"


def option(name: str) -> str:
    return next((a.split("=", 1)[1] for a in sys.argv if a.startswith(f"--{name}=")), "")


def write_raw(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def write(message: object) -> None:
    write_raw(json.dumps(message, separators=(",", ":")))


def text_result(rid: object, text: str) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": text}]}}


def tools_page(params: dict[str, object]) -> dict[str, object]:
    cursor = str(params.get("cursor", ""))
    page: dict[str, object] = {"tools": [{"name": f"t{cursor}", "inputSchema": {"type": "object"}}]}
    mode = option("cursor")
    if mode == "same":
        page["nextCursor"] = "again"
    elif mode == "fresh":
        page["nextCursor"] = f"{cursor}x"
    return page


def call(rid: object, tool: str, args: dict[str, object], raw: str) -> None:
    if tool == "echo":
        write(text_result(rid, json.dumps(args)))
    elif tool == "raw":
        write(text_result(rid, raw))
    elif tool in ("nan", "inf"):
        literal = "NaN" if tool == "nan" else "1e400"
        content = '[{"type":"text","text":"secret-payload"}]'
        write_raw(
            f'{{"jsonrpc":"2.0","id":{json.dumps(rid)},"result":'
            f'{{"content":{content},"score":{literal}}}}}'
        )
    elif tool == "pretty":
        write_raw(json.dumps(text_result(rid, json.dumps(TABLE)), indent=2))
    elif tool == "batch":
        write([text_result(rid, "in a batch")])
    elif tool in ("array_id", "object_id"):
        write(text_result([rid] if tool == "array_id" else {"id": rid}, "odd id"))
    elif tool == "numbers":
        write(text_result(rid, PLAIN if args.get("plain") else NUMBERS))
    elif tool == "spawn_exit":
        child = subprocess.Popen(  # inherits our stdout and keeps it open
            [sys.executable, "-c", "import time; time.sleep(120)"], stdin=subprocess.DEVNULL
        )
        with open(str(args["pidfile"]), "w") as file:
            file.write(str(child.pid))
        os._exit(5)
    elif tool == "wedge":
        write(text_result(rid, "wedged from now on"))
        while True:
            time.sleep(1)
    elif tool == "progress":
        note = {"progressToken": args.get("token"), "progress": 1, "total": 2}
        write({"jsonrpc": "2.0", "method": "notifications/progress", "params": note})
        write(text_result(rid, "progressed"))
    elif tool == "cancel_own":
        write({"jsonrpc": "2.0", "id": 0, "method": "roots/list"})
        write({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 0}})
        write(text_result(rid, "cancelled my own"))
    elif tool == "cancel_other":
        cancel = {"requestId": args.get("id")}
        write({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel})
        write(text_result(rid, "tried"))
    elif tool == "big":
        write(text_result(rid, "x" * int(str(args.get("size", 1000)))))


def main() -> None:
    if "--ignore-eof" in sys.argv:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if option("pidfile"):
        with open(option("pidfile"), "w") as file:
            file.write(str(os.getpid()))
    for raw in sys.stdin:
        try:
            message = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(message, dict) or "method" not in message:
            continue
        method, rid = message["method"], message.get("id")
        params = message.get("params") or {}
        if method == "initialize":
            hello: dict[str, Any] = {
                "protocolVersion": params.get("protocolVersion"),
                "capabilities": {"tools": {}},
            }
            write(
                {"jsonrpc": "2.0", "id": rid, "result": {**hello, "serverInfo": {"name": "rogue"}}}
            )
        elif method == "tools/list":
            write({"jsonrpc": "2.0", "id": rid, "result": tools_page(params)})
        elif method == "tools/call":
            call(rid, str(params.get("name")), params.get("arguments") or {}, raw.rstrip("\n"))
        elif rid is not None:
            write({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": method}})
    if "--ignore-eof" in sys.argv:
        while True:
            time.sleep(0.1)


if __name__ == "__main__":
    main()
