"""Seeded, realistic tables for the speed suite, and the codecs measured on them.

Seven shapes, each at 5 / 50 / 500 / 5,000 rows:

- ``symbols``: the gortex ``search_symbols`` result shape (id, kind, name,
  file_path, start_line, signature), a flat table of short strings and ints.
- ``issues``: a GitHub ``list_issues`` shape: a nested ``user`` object, a list of
  ``labels`` objects, nulls, and a long markdown ``body`` with CRLF line ends.
- ``quotes``: symbols with float and bool columns (a price, a change, a flag).
- ``sparse``: a wide sparse table, 60 columns with 70 % of the cells absent.
- ``varying``: rows whose key sets and key orders vary from row to row.
- ``nested``: one big nested object (a tree of objects and lists, not a table).
- ``unicode``: rows of non-Latin-1 text (CJK, Cyrillic, emoji).

Every codec is a pair ``(encode, decode)``; ``TWINS`` swaps the speedup leaves
inside gcx.py so both twins are measured in one process.
"""

from __future__ import annotations

import contextlib
import gc
import random
import time
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


def quotes(n: int, seed: int = 11) -> list[dict[str, Any]]:
    """``n`` market quotes: a symbol table with float and bool columns."""
    rnd = random.Random(seed)
    rows = []
    for i in range(n):
        price = round(rnd.uniform(1, 900), 2)
        rows.append(
            {
                "symbol": (rnd.choice(_WORDS) + rnd.choice(_WORDS)).upper()[:5] + str(i % 97),
                "price": price,
                "change": round(rnd.gauss(0, 2), 4),
                "volume": rnd.randrange(100, 10_000_000),
                "ratio": rnd.random(),
                "halted": rnd.random() < 0.05,
                "open": rnd.random() < 0.8,
            }
        )
    return rows


_SPARSE_COLUMNS = 60


def sparse(n: int, seed: int = 13) -> list[dict[str, Any]]:
    """``n`` rows of a 60-column table, each cell present with probability 0.3."""
    rnd = random.Random(seed)
    names = [f"{rnd.choice(_WORDS).lower()}_{c}" for c in range(_SPARSE_COLUMNS)]
    rows = []
    for i in range(n):
        row: dict[str, Any] = {"id": i}
        for c, name in enumerate(names):
            if rnd.random() < 0.3:
                kind = c % 3
                row[name] = (
                    rnd.randrange(10_000) if kind == 0
                    else rnd.choice(_WORDS) if kind == 1
                    else rnd.random() < 0.5
                )  # fmt: skip
        rows.append(row)
    return rows


def varying(n: int, seed: int = 17) -> list[dict[str, Any]]:
    """``n`` search hits whose key sets differ row to row, so key orders interleave.

    Optional keys come and go (and a ``score`` sits after ``name``), so a key
    first seen late belongs before keys seen earlier: a table only after the
    key orders are merged.
    """
    rnd = random.Random(seed)
    rows = []
    for row in symbols(n, seed):
        out = {}
        for key, value in row.items():
            if key in ("kind", "start_line", "signature") and rnd.random() < 0.3:
                continue
            out[key] = value
            if key == "name" and rnd.random() < 0.2:
                out["score"] = rnd.randrange(100)
        rows.append(out)
    return rows


def _tree(rnd: random.Random, budget: int, depth: int) -> Any:
    # A JSON value of about ``budget`` leaves, nesting objects and lists.
    if budget <= 1 or depth > 6:
        return rnd.choice([rnd.randrange(1000), rnd.choice(_WORDS), True, None, 0.5])
    parts = rnd.randrange(2, 6)
    if rnd.random() < 0.5:
        return [_tree(rnd, budget // parts, depth + 1) for _ in range(parts)]
    return {
        f"{rnd.choice(_WORDS).lower()}{k}": _tree(rnd, budget // parts, depth + 1)
        for k in range(parts)
    }


def nested(n: int, seed: int = 19) -> dict[str, Any]:
    """One big nested object: ``n`` subtrees of about 12 leaves each (a parse tree)."""
    rnd = random.Random(seed)
    return {
        "name": "workspace",
        "version": 3,
        "root": {"kind": "module", "body": [_tree(rnd, 12, 0) for _ in range(n)]},
        "settings": {f"opt{k}": _tree(rnd, 6, 0) for k in range(4)},
    }


_CJK = "数据库连接失败请稍后重试服务器返回错误代码用户权限不足文件已保存"
_CYRILLIC = "Сервер вернул ошибку подключения попробуйте позже".split()
_EMOJI = ["✅", "🚀", "⚠️", "🔥", "📦"]


def unicode(n: int, seed: int = 23) -> list[dict[str, Any]]:
    """``n`` log entries of non-Latin-1 text: CJK, Cyrillic and emoji."""
    rnd = random.Random(seed)
    rows = []
    for i in range(n):
        start = rnd.randrange(len(_CJK) - 8)
        rows.append(
            {
                "id": i,
                "level": rnd.choice(["info", "warn", "error"]),
                "title": _CJK[start : start + rnd.randrange(4, 9)],
                "message": " ".join(rnd.choice(_CYRILLIC) for _ in range(rnd.randrange(4, 12))),
                "tag": rnd.choice(_EMOJI) + " " + rnd.choice(_WORDS),
            }
        )
    return rows


SHAPES: dict[str, Callable[[int], Any]] = {
    "symbols": symbols,
    "issues": issues,
    "quotes": quotes,
    "sparse": sparse,
    "varying": varying,
    "nested": nested,
    "unicode": unicode,
}
TOOL = {
    "symbols": "search_symbols",
    "issues": "list_issues",
    "quotes": "get_quotes",
    "sparse": "list_records",
    "varying": "search_symbols",
    "nested": "get_workspace",
    "unicode": "read_logs",
}


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


def carries(codec: str, shape: str) -> bool:
    """Whether the codec takes the shape at all: DCP encodes lists of records only."""
    return not (codec == "dcp" and shape == "nested")


# Codecs whose speed depends on the gcxwire speedup twin.
ON_TWIN = ("gcx-typed", "gcx-reference")


# -- the scaling sweep's tables and timer (bench/scaling.py, test_scaling.py) --------


def cpu(fn: Callable[[Any], Any], arg: Any, budget: float = 0.2) -> float:
    """CPU seconds per call: the best of 3 loops of about ``budget / 3`` each."""
    gc.disable()
    try:
        number, best = 1, float("inf")
        while True:
            start = time.process_time()
            for _ in range(number):
                fn(arg)
            took = time.process_time() - start
            if took * 3 >= budget or number >= 1 << 16:
                break
            number *= 2
        for _ in range(3):
            start = time.process_time()
            for _ in range(number):
                fn(arg)
            best = min(best, (time.process_time() - start) / number)
        return best
    finally:
        gc.enable()


def wide(rows: int, columns: int, present: float, seed: int = 3) -> list[dict[str, Any]]:
    """``rows`` rows of ``columns`` int/str/float columns, each cell present with ``present``."""
    rnd = random.Random(seed)
    out = []
    for i in range(rows):
        row: dict[str, Any] = {"id": i}
        for c in range(columns - 1):
            if present >= 1 or rnd.random() < present:
                row[f"c{c}"] = (i * c, f"v{c}x{i}", c + 0.25)[c % 3]
        out.append(row)
    return out
