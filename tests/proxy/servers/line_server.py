"""A scripted JSON-RPC line server for relay tests that need exact bytes and timing.

It is not an MCP implementation: each request's method picks a scripted answer,
so a test knows byte for byte what the server wrote and in which order.

- ``initialize``: a minimal answer with the client's protocol version.
- ``echo``: answers ``{"result": params}``; the id is echoed as it came.
- ``burst``: ``params.count`` notifications, then the answer.
- ``ask_client``: a server-to-client request (id 0), answered once the client replies.
- ``tools/call``: the text of ``arguments.text`` as a tool result; no answer with
  ``arguments.hold``; exits at once with ``arguments.exit``.
- ``stray``: a line that is not JSON, then the answer.
- ``hold``: no answer (stays in flight).
- ``crash``: exits at once with ``params.status``.
- ``env``: the value of the variable ``params.name``; ``cwd``: the working directory.
Anything else, and a line that is not JSON, gets no answer.
``--tools=a,b,c`` answers ``tools/list`` with those names, two per page; so do
``--prompts=``, ``--resources=`` (URIs) and ``--templates=`` (URI templates) for
their lists. ``prompts/get``, ``resources/read``, ``resources/subscribe``,
``resources/unsubscribe`` and ``completion/complete`` of a listed item (or a URI
a template matches) answer ``{"by": LABEL, "method", "params"}``, where LABEL is
``--label=`` (default ``line``); an unknown item gets -32602. A subscribe is
followed by ``notifications/resources/updated`` for its URI. A list it was
given no names for gets -32601, as from a server without that capability.
``--advertise-resources`` puts ``resources`` in the initialize answer's capabilities.
``--ttl=N`` and ``--scope=S`` put ``ttlMs`` and ``cacheScope`` on every list page.
``--mute`` answers nothing at all (a hung server).
``--ignore-eof`` keeps it running after stdin closes (a server that needs SIGTERM);
``--ignore-term`` also ignores SIGTERM (one that needs SIGKILL).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from typing import Any


def write(message: object) -> None:
    sys.stdout.write(json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def option(name: str, default: str = "") -> str:
    return next((a.split("=", 1)[1] for a in sys.argv if a.startswith(f"--{name}=")), default)


def names(option_name: str) -> list[str]:
    value = option(option_name)
    return value.split(",") if value else []


LABEL = option("label", "line")
# list method -> (result member, item member, the names it lists, two per page)
LISTS = {
    "tools/list": ("tools", "name", names("tools")),
    "prompts/list": ("prompts", "name", names("prompts")),
    "resources/list": ("resources", "uri", names("resources")),
    "resources/templates/list": ("resourceTemplates", "uriTemplate", names("templates")),
}
ADDRESSED = {
    "prompts/get",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "completion/complete",
}


def page(method: str, params: dict[str, object]) -> dict[str, object]:
    key, member, listed = LISTS[method]
    start = int(str(params.get("cursor", "0")))
    result: dict[str, object] = {key: [{member: n} for n in listed[start : start + 2]]}
    if start + 2 < len(listed):
        result["nextCursor"] = str(start + 2)
    if option("ttl"):
        result["ttlMs"] = int(option("ttl"))
    if option("scope"):
        result["cacheScope"] = option("scope")
    return result


def knows(method: str, params: dict[str, object]) -> bool:
    ref = params.get("ref")
    if isinstance(ref, dict):
        params = ref
    if "name" in params:
        return params["name"] in LISTS["prompts/list"][2]
    uri = str(params.get("uri"))
    templates = LISTS["resources/templates/list"][2]
    return uri in LISTS["resources/list"][2] + templates or any(
        uri.startswith(t.split("{")[0]) for t in templates
    )


def main() -> None:
    if "--ignore-term" in sys.argv:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    print("line_server: ready", file=sys.stderr, flush=True)
    waiting: dict[object, object] = {}  # our request id -> the client request it serves
    for raw in sys.stdin:
        try:
            message = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(message, dict) or "--mute" in sys.argv:
            continue
        method = message.get("method")
        params = message.get("params") or {}
        rid = message.get("id")
        if method is None and rid in waiting:  # the client's answer to our request
            write({"jsonrpc": "2.0", "id": waiting.pop(rid), "result": {"client": message}})
        elif method == "initialize":
            hello: dict[str, Any] = {
                "protocolVersion": params.get("protocolVersion"),
                "capabilities": {"tools": {}},
            }
            if "--advertise-resources" in sys.argv:
                hello["capabilities"]["resources"] = {}
            write(
                {"jsonrpc": "2.0", "id": rid, "result": {**hello, "serverInfo": {"name": "line"}}}
            )
        elif method == "echo":
            write({"jsonrpc": "2.0", "id": rid, "result": params})
        elif method == "burst":
            for i in range(params.get("count", 3)):
                write({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"i": i}})
            write({"jsonrpc": "2.0", "id": rid, "result": {"sent": params.get("count", 3)}})
        elif method == "ask_client":
            waiting[0] = rid
            write({"jsonrpc": "2.0", "id": 0, "method": "roots/list"})
        elif method in LISTS and LISTS[method][2]:
            write({"jsonrpc": "2.0", "id": rid, "result": page(method, params)})
        elif method in ADDRESSED and knows(method, params):
            answer = {"by": LABEL, "method": method, "params": params}
            write({"jsonrpc": "2.0", "id": rid, "result": answer})
            if method == "resources/subscribe":
                updated = {"uri": params["uri"]}
                write(
                    {
                        "jsonrpc": "2.0",
                        "method": "notifications/resources/updated",
                        "params": updated,
                    }
                )
        elif method in LISTS:  # nothing of that kind: as a server without the capability
            error = {"code": -32601, "message": f"Method not found: {method}"}
            write({"jsonrpc": "2.0", "id": rid, "error": error})
        elif method in ADDRESSED:
            error = {"code": -32602, "message": f"{LABEL} does not know {method} {params}"}
            write({"jsonrpc": "2.0", "id": rid, "error": error})
        elif method == "tools/call":
            arguments = params.get("arguments", {})
            if "exit" in arguments:
                os._exit(arguments["exit"])
            if arguments.get("hold"):
                continue
            content = [{"type": "text", "text": arguments.get("text", "")}]
            write({"jsonrpc": "2.0", "id": rid, "result": {"content": content}})
        elif method == "stray":
            sys.stdout.write("line_server: this line is not JSON\n")
            write({"jsonrpc": "2.0", "id": rid, "result": {}})
        elif method == "crash":
            sys.stdout.flush()
            os._exit(params.get("status", 3))
        elif method == "cwd":
            write({"jsonrpc": "2.0", "id": rid, "result": {"cwd": os.getcwd()}})
        elif method == "env":
            write(
                {"jsonrpc": "2.0", "id": rid, "result": {"value": os.environ.get(params["name"])}}
            )
    if "--ignore-eof" in sys.argv or "--ignore-term" in sys.argv:
        while True:
            time.sleep(0.1)


if __name__ == "__main__":
    main()
