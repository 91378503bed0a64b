"""The README's example runs as written and prints what it says."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).parent.parent / "README.md"


def test_readme_example_runs_and_prints_what_it_shows() -> None:
    text = README.read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", text, re.S)
    assert code is not None
    shown = [line[2:] for line in code.group(1).splitlines() if line.startswith("# ")]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code.group(1), str(README), "exec"), {})
    assert out.getvalue().splitlines() == shown


def test_readme_quick_start_has_exactly_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    block = text.split("## Quick start", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    assert block.splitlines() == [
        "python -m pip install . && gcxwire scorecard",
        'python -m pip install ".[test]" && python -m pytest',
    ]
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert 'python -m pip install ".[test]" && python -m pytest\n' in ci
