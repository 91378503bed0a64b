"""Shared fixtures and options. The codec tests (tests/codec) run on both
speedup twins in one run; the header line says which twins are tested."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gcxwire import _impl

DATA = Path(__file__).parent / "data"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--no-c-extensions",
        action="store_true",
        help="run the codec tests on the pure-Python twin only",
    )


def pytest_report_header(config: pytest.Config) -> str:
    if config.getoption("no_c_extensions"):
        return "gcxwire codec tests: pure-Python twin only"
    built = "built" if _impl.USE_EXTENSIONS else "NOT built (codec tests on [c] fail)"
    return f"gcxwire codec tests: Cython extension ({built}) and pure-Python twin"


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
