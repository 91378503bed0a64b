"""A minimal MCP server over stdio for load and fault tests, with a log of what it wrote.

It speaks just enough MCP (``initialize``, ``tools/list``, ``tools/call``, notifications)
and answers in batches, shuffled, so the order it writes differs from the order asked.
Every message it writes is also logged, one JSON line each (flushed), to ``--log FILE``:
``{"k": "response", "id": 7, "n": 7}`` (``n``: the call's argument, which a gateway does
not rename), ``{"k": "notification", "seq": 3}``, ``{"k": "garbage"}``.
At EOF it logs what it received: ``{"k": "received", "calls": n, "notifications": m,
"cancelled": c}``.

``tools/call`` arguments:
- ``n``, ``rows``: answer with the JSON table ``table(n, rows)`` as text;
- ``big``: answer with that many bytes of plain (non-JSON) text;
- ``slow``: answer after that many seconds (other calls are answered meanwhile);
- ``half``: write the first half of the answer line, no newline, then exit with status 0.

Options: ``--garbage`` writes a non-JSON line (invalid UTF-8 included) after every 7th
answer; ``--notify K`` writes a ``notifications/message`` after every K-th answer.
A cancelled call still waiting in a batch is dropped, never answered.
"""

from __future__ import annotations

import json
import os
import queue
import random
import sys
import threading
from typing import Any

WINDOW = 16  # answers are written in shuffled batches of up to this many
IDLE = 0.005  # seconds without input after which a partial batch is answered


def table(n: int, rows: int) -> list[dict[str, Any]]:
    """The rows call ``n`` returns: deterministic, no nulls (a confirmed DCP schema
    would drop always-null fields), a mix of types the codecs care about."""
    return [
        {
            "id": n * 1000 + i,
            "name": f"item {n}-{i}\tx" if i % 3 == 0 else f"item-{n}-{i}",
            "score": (n * 7 + i) / 4,
            "ok": (n + i) % 2 == 0,
            "tags": [f"t{j}" for j in range(i % 3)],
            "owner": {"login": f"user{n % 17}", "id": n % 17},
        }
        for i in range(rows)
    ]


class Server:
    def __init__(self, log_path: str, garbage: bool, notify: int, name: str) -> None:
        self.name = name
        self.out = sys.stdout.buffer
        self.log = open(log_path, "a", encoding="utf-8")  # noqa: SIM115 (lives as long as we do)
        self.lock = threading.Lock()
        self.garbage = garbage
        self.notify = notify
        self.answers = 0
        self.seq = 0

    def write(self, line: bytes, entry: dict[str, Any]) -> None:
        with self.lock:
            self.out.write(line + b"\n")
            self.out.flush()
            self.log.write(json.dumps(entry) + "\n")
            self.log.flush()

    def answer(self, rid: Any, result: dict[str, Any], n: Any = None) -> None:
        message = {"jsonrpc": "2.0", "id": rid, "result": result}
        self.write(json.dumps(message).encode(), {"k": "response", "id": rid, "n": n})
        with self.lock:
            self.answers += 1
            count = self.answers
        if self.notify and count % self.notify == 0:
            self.seq += 1
            params: dict[str, Any] = {"level": "info", "data": f"answered {count}", "seq": self.seq}
            if self.name:  # behind a gateway, the client tells the servers' notes apart by this
                params["server"] = self.name
            note = {"jsonrpc": "2.0", "method": "notifications/message", "params": params}
            self.write(json.dumps(note).encode(), {"k": "notification", "seq": self.seq})
        if self.garbage and count % 7 == 0:
            self.write(b"\xffnot json \xc3( {" + str(count).encode(), {"k": "garbage"})


def call_result(arguments: dict[str, Any]) -> dict[str, Any]:
    if "big" in arguments:
        text = "x" * int(arguments["big"])
    else:
        text = json.dumps(table(int(arguments.get("n", 0)), int(arguments.get("rows", 3))))
    return {"content": [{"type": "text", "text": text}], "isError": False}


def main() -> None:
    log_path = sys.argv[sys.argv.index("--log") + 1]
    notify = int(sys.argv[sys.argv.index("--notify") + 1]) if "--notify" in sys.argv else 0
    name = sys.argv[sys.argv.index("--name") + 1] if "--name" in sys.argv else ""
    server = Server(log_path, "--garbage" in sys.argv, notify, name)
    server.log.write(json.dumps({"k": "pid", "pid": os.getpid()}) + "\n")
    server.log.flush()
    inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
    received = {"calls": 0, "notifications": 0, "cancelled": 0}

    def read() -> None:
        for raw in sys.stdin.buffer:
            try:
                message = json.loads(raw)
            except ValueError:
                continue
            if isinstance(message, dict):
                inbox.put(message)
        inbox.put(None)

    threading.Thread(target=read, daemon=True).start()
    shuffle = random.Random(8)
    batch: dict[Any, dict[str, Any]] = {}  # id -> the call's arguments
    timers: list[threading.Timer] = []

    def handle(message: dict[str, Any]) -> None:
        method, rid = message.get("method"), message.get("id")
        params = message.get("params") or {}
        if method == "initialize":
            version = params.get("protocolVersion", "2025-06-18")
            info = {"name": "load_server", "version": "1"}
            server.answer(
                rid, {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info}
            )
        elif method == "tools/list":
            server.answer(rid, {"tools": [{"name": "rows", "inputSchema": {"type": "object"}}]})
        elif method == "tools/call":
            received["calls"] += 1
            arguments = params.get("arguments") or {}
            if "slow" in arguments:
                result = call_result(arguments)
                answer = (rid, result, arguments.get("n"))
                timer = threading.Timer(float(arguments["slow"]), server.answer, answer)
                timer.start()
                timers.append(timer)
            elif "half" in arguments:
                line = json.dumps({"jsonrpc": "2.0", "id": rid, "result": call_result(arguments)})
                with server.lock:  # half a line, no newline, and gone
                    server.out.write(line.encode()[: len(line) // 2])
                    server.out.flush()
                    server.log.write(json.dumps({"k": "half", "id": rid}) + "\n")
                    server.log.flush()
                os._exit(0)
            else:
                batch[rid] = arguments
        elif method == "notifications/cancelled":
            received["cancelled"] += 1
            batch.pop(params.get("requestId"), None)
        elif method is not None and rid is None:
            received["notifications"] += 1

    done = False
    while not done or batch:
        message = None
        if not done:
            try:
                message = inbox.get(timeout=IDLE)
            except queue.Empty:
                pass
            else:
                done = message is None
        if message is not None:
            handle(message)
        # A full batch, or a pause in the input: answer what waits, shuffled.
        if batch and (len(batch) >= WINDOW or message is None):
            ids = list(batch)
            shuffle.shuffle(ids)
            for rid in ids:
                arguments = batch.pop(rid)
                server.answer(rid, call_result(arguments), arguments.get("n"))
    for timer in timers:
        timer.join()
    server.log.write(json.dumps({"k": "received", **received}) + "\n")
    server.log.close()


if __name__ == "__main__":
    main()
