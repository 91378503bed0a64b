"""Seeded, realistic tables for the speed suite, and the codecs measured on them.

Two shapes, each at 5 / 50 / 500 / 5,000 rows:

- ``symbols``: the gortex ``search_symbols`` result shape (id, kind, name,
  file_path, start_line, signature), a flat table of short strings and ints.
- ``issues``: a GitHub ``list_issues`` shape: a nested ``user`` object, a list of
  ``labels`` objects, nulls, and a long markdown ``body`` with CRLF line ends.

Every codec is a pair ``(encode, decode)``; ``TWINS`` swaps the speedup leaves
inside gcx.py so both twins are measured in one process.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable
from typing import Any

import orjson

from gcxwire import _impl, dcp, gcx

SIZES = (5, 50, 500, 5000)
QUICK_SIZES = (5, 50)

_PACKAGES = [
    "internal/mcp", "internal/indexer", "internal/parser", "internal/graph", "internal/query",
    "internal/wire", "cmd/gortex", "pkg/resolver", "internal/lsp", "internal/storage/sqlite",
]  # fmt: skip
_WORDS = [
    "Server", "Index", "Graph", "Symbol", "Parse", "Resolve", "Query", "Cache", "Node", "Edge",
    "Walk", "Load", "Store", "Watch", "Handle", "Register", "Build", "File", "Scope", "Ref",
]  # fmt: skip
_KINDS = ["function", "method", "type", "interface", "variable"]
_TYPES = ["string", "int", "error", "[]string", "map[string]any", "*Graph", "context.Context"]


def symbols(n: int, seed: int = 5) -> list[dict[str, Any]]:
    """``n`` search_symbols hits, as gortex returns them."""
    rnd = random.Random(seed)
    rows = []
    for _ in range(n):
        pkg = rnd.choice(_PACKAGES)
        name = rnd.choice(_WORDS) + rnd.choice(_WORDS)
        kind = rnd.choice(_KINDS)
        recv = rnd.choice(_WORDS)
        file_path = f"{pkg}/{rnd.choice(_WORDS).lower()}.go"
        ident = f"{recv}.{name}" if kind == "method" else name
        args = ", ".join(f"{w.lower()} {rnd.choice(_TYPES)}" for w in rnd.sample(_WORDS, 2))
        sig = f"func ({recv[0].lower()} *{recv}) {name}({args}) error"
        rows.append(
            {
                "id": f"{file_path}::{ident}",
                "kind": kind,
                "name": name,
                "file_path": file_path,
                "start_line": rnd.randrange(1, 2000),
                "signature": sig if kind in ("function", "method") else f"type {name} struct",
            }
        )
    return rows


_LOGINS = ["octocat", "dependabot[bot]", "zandereins", "mhutchinson", "kn0wbot", "s-ravindra"]
_LABELS = [("bug", "d73a4a"), ("enhancement", "a2eeef"), ("dependencies", "0366d6"),
           ("good first issue", "7057ff"), ("python:uv", "2b67c6")]  # fmt: skip
_PROSE = (
    "The server drops the connection when a tool result is larger than the frame limit. "
    "Steps to reproduce are below; the log shows the relay waiting on a closed pipe. "
    "We expected the proxy to pass the original message through unchanged. "
    "Setting `GCXWIRE_NO_EXTENSIONS=1` does not change the outcome.\t(tab-indented note) "
).split(" ")


def _body(rnd: random.Random) -> str:
    paragraphs = []
    for _ in range(rnd.randrange(2, 8)):
        words = [rnd.choice(_PROSE) for _ in range(rnd.randrange(15, 60))]
        paragraphs.append(" ".join(words))
    if rnd.random() < 0.5:
        paragraphs.insert(1, "```\r\n$ gcxwire proxy -- mcp-server-git\r\nTraceback ...\r\n```")
    return "\r\n\r\n".join(paragraphs)


def issues(n: int, seed: int = 7) -> list[dict[str, Any]]:
    """``n`` GitHub issues: nested user, labels, nulls and long CRLF markdown bodies."""
    rnd = random.Random(seed)
    rows = []
    for i in range(n):
        number = 4000 - i
        login = rnd.choice(_LOGINS)
        labels = [{"name": k, "color": c} for k, c in rnd.sample(_LABELS, rnd.randrange(0, 3))]
        rows.append(
            {
                "url": f"https://api.github.com/repos/modelcontextprotocol/servers/issues/{number}",
                "number": number,
                "title": " ".join(rnd.choice(_PROSE) for _ in range(rnd.randrange(4, 12))),
                "user": {
                    "login": login,
                    "id": 1000 + _LOGINS.index(login),
                    "type": "Bot" if "[bot]" in login else "User",
                    "site_admin": False,
                },
                "labels": labels,
                "state": rnd.choice(["open", "open", "closed"]),
                "comments": rnd.randrange(0, 30),
                "created_at": f"2026-{rnd.randrange(1, 12):02}-{rnd.randrange(1, 28):02}T13:38:33Z",
                "milestone": None,
                "body": _body(rnd) if rnd.random() < 0.9 else None,
            }
        )
    return rows


SHAPES: dict[str, Callable[[int], list[dict[str, Any]]]] = {"symbols": symbols, "issues": issues}
TOOL = {"symbols": "search_symbols", "issues": "list_issues"}


# --------------------------------------------------------------------- twins


def twin(name: str) -> contextlib.AbstractContextManager[None]:
    """Run the codec on the ``ext`` (Cython) or ``py`` (pure) leaves: ``_impl.use_twin``."""
    return _impl.use_twin("c" if name == "ext" else name)


TWINS = ("ext", "py") if _impl.USE_EXTENSIONS else ("py",)


# -------------------------------------------------------------------- codecs

Codec = tuple[Callable[[Any], Any], Callable[[Any], Any]]


def codecs(tool: str) -> dict[str, Codec]:
    """Each measured codec as (encode, decode) on the same rows."""
    out: dict[str, Codec] = {
        "gcx-typed": (lambda v: gcx.encode(v, tool=tool), gcx.decode),
        "gcx-reference": (
            lambda v: gcx.encode(v, tool=tool, profile="reference"),
            lambda t: gcx.decode(t, typed=False),
        ),
        "dcp": (dcp.encode, dcp.decode),
        "orjson": (orjson.dumps, orjson.loads),
    }
    with contextlib.suppress(ImportError):
        import toons

        out["toons"] = (toons.dumps, toons.loads)
    with contextlib.suppress(ImportError):
        import toon_format

        out["toon-format"] = (toon_format.encode, toon_format.decode)
    return out


# Codecs whose speed depends on the gcxwire speedup twin.
ON_TWIN = ("gcx-typed", "gcx-reference")
