"""Fixtures for the gcxwire.mcp tests: real servers on both frameworks, in process."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest

from .servers import fastmcp_app, mcpserver_app

FRAMEWORKS = ["mcpserver", "fastmcp"]


def build_server(framework: str, **options: Any) -> Any:
    """A fresh server, as the SDK ``Client`` takes it in process."""
    if framework == "mcpserver":
        return mcpserver_app.build(**options)
    # fastmcp's own server object is not an SDK Server; the SDK Server it runs is.
    return fastmcp_app.build(**options)._mcp_server


def received_log(framework: str) -> list[dict[str, Any]]:
    return mcpserver_app.RECEIVED if framework == "mcpserver" else fastmcp_app.RECEIVED


@pytest.fixture(params=FRAMEWORKS)
def framework(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(autouse=True)
def quiet_tool_crashes() -> Iterator[None]:
    """MCPServer logs a crashing tool with a rich traceback (about 1 s to render each);
    the tests read the error from the result instead."""
    logger = logging.getLogger("mcp.server.mcpserver.server")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    yield
    logger.setLevel(level)
