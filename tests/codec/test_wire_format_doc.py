"""docs/wire-format.md: every GCX1 example is what the writer writes for the value it
stands for, and the examples together show every header marker."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from gcxwire import _gcx_model, gcx

from .. import reference_model

DOC = (Path(__file__).parents[2] / "docs" / "wire-format.md").read_text(encoding="utf-8")
# A fenced block whose first line is a header, indented (inside a list item) or not.
_BLOCK = re.compile(r"^( *)```\n((?:\1GCX1 .*\n)(?:\1.*\n)*?)\1```$", re.M)
EXAMPLES = [textwrap.dedent(body).rstrip("\n") for _, body in _BLOCK.findall(DOC)]


def test_the_doc_has_examples() -> None:
    assert len(EXAMPLES) >= 10


@pytest.mark.parametrize("text", EXAMPLES, ids=[t.split()[1] for t in EXAMPLES])
def test_an_example_is_what_encode_writes_for_its_value(text: str) -> None:
    tool = text.split()[1].removeprefix("tool=")
    assert gcx.encode(gcx.decode(text), tool=tool) == text
    reference_model.decode(text)  # a reference decoder reads it without error


def test_the_examples_show_every_header_marker() -> None:
    keys = {
        token.partition("=")[0]
        for text in EXAMPLES
        for line in text.splitlines()
        if line.startswith("GCX1 ")
        for token in line.split()[1:]
    }
    assert [key for key in _gcx_model._CONTROL if key not in keys] == []


@pytest.mark.parametrize("style", ["empty=none", "float=zz", "flat=zz", "flat=b,zz"])
def test_the_styles_the_doc_says_readers_ignore_read_as_without_them(style: str) -> None:
    rows = "1\t2\n3"
    assert gcx.decode(f"GCX1 tool=t fields=a,b.c {style}\n{rows}") == gcx.decode(
        f"GCX1 tool=t fields=a,b.c{' flat=b' if 'b,' in style else ''}\n{rows}"
    )
