"""Shared fixtures. The codec suite runs once per twin: CI runs it again with
GCXWIRE_NO_EXTENSIONS=1; the header line says which twin this run uses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gcxwire import _impl

DATA = Path(__file__).parent / "data"


def pytest_report_header(config: pytest.Config) -> str:
    twin = "Cython extension" if _impl.USE_EXTENSIONS else "pure-Python twin"
    return f"gcxwire speedups: {twin}"


def load_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def gortex_cases() -> list[dict[str, Any]]:
    """The 20 gortex bench cases: name, tool and the exact input JSON text."""
    cases = []
    for path in sorted((DATA / "gortex" / "cases").glob("*.json")):
        case = load_json(path)
        case["name"] = path.stem
        cases.append(case)
    return cases
