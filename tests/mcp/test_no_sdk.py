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


def test_tool_result_is_a_json_dict_and_read_result_reads_it_without_the_sdks() -> None:
    out = run_without_sdks(
        """
        import dataclasses, json
        from gcxwire import mcp

        @dataclasses.dataclass
        class Row:
            id: int
            name: str

        rows = [Row(i, f"n{i}") for i in range(5)]
        result = mcp.tool_result(rows, tool="rows", format="gcx")
        assert type(result) is dict and "structuredContent" not in result, result
        assert result["_meta"] == {"gcxwire/encoding": "gcx"}
        assert mcp.read_result(result) == [{"id": i, "name": f"n{i}"} for i in range(5)]
        print(json.dumps(result["content"][0]["text"]))
        """
    )
    assert out.strip().startswith('"GCX1 tool=rows fields=id,name')
