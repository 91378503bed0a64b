"""Speed suite options: ``--quick`` keeps CI fast (small tables, one call each with
``--benchmark-disable``), so the suite runs on every push and cannot rot."""

from __future__ import annotations

import pytest
from workloads import QUICK_SIZES, SIZES


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--quick", action="store_true", help="only the 5- and 50-row tables")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "size" in metafunc.fixturenames:
        sizes = QUICK_SIZES if metafunc.config.getoption("quick") else SIZES
        metafunc.parametrize("size", sizes)
