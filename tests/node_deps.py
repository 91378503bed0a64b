"""The npm packages some tests drive (the TypeScript SDK client, npm MCP servers).

They are pinned by tests/node/package-lock.json and installed with ``npm ci`` on
first use, so ``pytest`` needs no step of its own before it. Without node the
tests that need it skip (``-ra`` prints why); a failed install fails them.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
from pathlib import Path

NODE_DIR = Path(__file__).parent / "node"
NODE_MODULES = NODE_DIR / "node_modules"


def node_missing() -> str | None:
    """Why the node tests cannot run here (node is absent), or ``None`` once installed."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        return "node and npm are not installed"
    _install()
    return None


@functools.cache
def _install() -> None:
    lock = NODE_DIR / "package-lock.json"
    stamp = NODE_MODULES / ".package-lock.json"  # npm writes it on every install
    if stamp.is_file() and stamp.stat().st_mtime >= lock.stat().st_mtime:
        return
    done = subprocess.run(
        ["npm", "ci", "--prefix", str(NODE_DIR), "--no-audit", "--no-fund", "--loglevel=error"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"npm ci in {NODE_DIR} failed:\n{done.stderr[-2000:]}")
