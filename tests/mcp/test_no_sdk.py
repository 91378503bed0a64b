"""gcxwire.mcp without the SDKs: it imports, and works on plain JSON dicts."""

from __future__ import annotations

import subprocess
import sys
import textwrap

# Run in a fresh interpreter where importing the SDKs (or pydantic) fails.
BLOCK_SDKS = (
    "import sys\n"
    "for name in ('mcp', 'mcp_types', 'fastmcp', 'pydantic'):\n"
    "    sys.modules[name] = None\n"
)


def run_without_sdks(code: str) -> str:
    script = BLOCK_SDKS + textwrap.dedent(code)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_gcxwire_mcp_imports_lazily_without_the_sdks() -> None:
    out = run_without_sdks(
        """
        import gcxwire
        assert "gcxwire.mcp" not in sys.modules  # `import gcxwire` does not load it
        from gcxwire import mcp
        assert gcxwire.mcp is mcp
        print(mcp.reading_hint("gcx").splitlines()[0])
        """
    )
    assert out.strip() == "How to read gcxwire results:"
