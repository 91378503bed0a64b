"""The `test` extra (the README's install command) is exactly the dependency groups together."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

tomllib = pytest.importorskip("tomllib", reason="in the standard library from Python 3.11")
PYPROJECT: dict[str, Any] = tomllib.loads(
    (Path(__file__).resolve().parent.parent / "pyproject.toml").read_text(encoding="utf-8")
)


def _group(name: str) -> set[str]:
    found: set[str] = set()
    entry: Any
    for entry in PYPROJECT["dependency-groups"][name]:
        found |= _group(entry["include-group"]) if isinstance(entry, dict) else {entry}
    return found


def test_test_extra_is_the_union_of_the_dependency_groups() -> None:
    extra = set(PYPROJECT["project"]["optional-dependencies"]["test"])
    assert extra == _group("dev")


def test_dev_group_holds_every_group() -> None:
    groups = set(PYPROJECT["dependency-groups"]) - {"dev"}
    included = {e["include-group"] for e in PYPROJECT["dependency-groups"]["dev"]}
    assert included == groups
