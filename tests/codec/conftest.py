"""Every test in this folder runs on both speedup twins, in one process.

The session-scoped, autouse ``twin`` fixture swaps the leaves that every
gcxwire module imported from ``_impl`` (``_impl.use_twin``), so a test id ends
in ``[c]`` for the Cython extension and ``[py]`` for the pure twin. pytest
groups the tests by twin, so each twin is swapped in once per run.
``--no-c-extensions`` runs the pure twin only. A test marked ``compares_twins``
calls both twins itself and runs once.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gcxwire import _impl


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "twin" in metafunc.fixturenames:
        names = ["py"] if metafunc.config.getoption("no_c_extensions") else ["c", "py"]
        if metafunc.definition.get_closest_marker("compares_twins"):
            names = names[:1]  # it calls both twins itself: once is enough
        metafunc.parametrize("twin", names, indirect=True, scope="session")


@pytest.fixture(scope="session", autouse=True)
def twin(request: pytest.FixtureRequest) -> Iterator[str]:
    name: str = request.param
    if name == "c" and not _impl.USE_EXTENSIONS:
        pytest.fail("The Cython extension is not built: build it, or pass --no-c-extensions")
    with _impl.use_twin(name):
        yield name
