"""What the test servers' tools return: pure functions of their arguments, so a
test can compute the value a tool meant without asking the server."""

from __future__ import annotations

import dataclasses
from typing import Any

from pydantic import BaseModel


class User(BaseModel):
    id: int
    name: str
    email: str | None
    score: float
    active: bool


@dataclasses.dataclass
class Point:
    x: int
    y: float
    label: str


def users(n: int) -> list[User]:
    return [
        User(
            id=i,
            name=f"user{i}",
            email=None if i % 3 == 0 else f"user{i}@example.org",
            score=i * 1.5,
            active=i % 2 == 0,
        )
        for i in range(n)
    ]


def points(n: int) -> list[Point]:
    return [Point(x=i, y=i / 4, label=f"p{i}") for i in range(n)]


def search(n: int) -> dict[str, Any]:
    """A GitHub-style wrapper: counters around one list of nested items."""
    items = [
        {
            "id": 1000 + i,
            "full_name": f"octo/repo{i}",
            "owner": {"login": f"octo{i % 3}", "id": i % 3, "site_admin": False},
            "topics": ["mcp", "proxy"][: i % 3],
            "stargazers_count": i * 7,
            "description": None if i % 4 == 0 else f"Repository number {i} — ünïcode",
        }
        for i in range(n)
    ]
    return {"total_count": n * 10, "incomplete_results": False, "items": items}


def tricky(n: int) -> list[dict[str, Any]]:
    """Rows that test an exact round trip: text that looks like other types,
    control characters, absent keys, big and negative numbers."""
    texts = [
        "62",
        "true",
        "null",
        "",
        "-1",
        "[x",
        "#c",
        "GCX1 x",
        "a\tb",
        "l1\nl2",
        "ü €",
        "t\\rue",
    ]
    rows: list[dict[str, Any]] = []
    for i in range(n):
        row: dict[str, Any] = {"id": i, "text": texts[i % len(texts)]}
        if i % 2:
            row["big"] = 10**30 + i
        if i % 3:
            row["neg"] = -0.0 if i % 5 == 0 else -i / 3
        row["flag"] = None if i % 4 == 0 else bool(i % 2)
        rows.append(row)
    return rows


def status() -> dict[str, Any]:
    return {"ok": True, "version": "1.0"}


def received(a: int, b: str) -> list[dict[str, Any]]:
    return [{"arg": "a", "value": a}, {"arg": "b", "value": b}]


def as_json(value: Any) -> Any:
    """The JSON value of a tool's return, as MCP SDKs serialise it (aliases, key order)."""
    if isinstance(value, list):
        return [as_json(item) for item in value]
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    return value


# The encoded tools, each with arguments and the JSON value it returns.
CALLS: dict[str, tuple[dict[str, Any], Any]] = {
    "users": ({"n": 25}, as_json(users(25))),
    "points": ({"n": 12}, as_json(points(12))),
    "search": ({"n": 10}, search(10)),
    "tricky": ({"n": 30}, tricky(30)),
}
