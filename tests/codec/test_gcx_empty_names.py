"""A column named "" never goes in a marker's name list (readers drop empty names there)."""

from __future__ import annotations

from typing import Any

import pytest

from .gcx_checks import roundtrip
from .test_gcx_transforms import reads_new_forms

# Each table would take the marker in its id for a column with a name.
TABLES: dict[str, Any] = {
    "tree": [{"x": 0, "": {"a\\b": {"c": {}, "d": {}, "e": {}}, "x y": {}}}],
    "lists": [{"": ["aa", "bb", "cc"], "x": i} for i in range(4)],
    "crlf": [{"": "line one\r\nline two\r\nthree", "x": i} for i in range(4)],
    "str": [{"": str(100 + i), "x": i} for i in range(6)],
    "lines": [{"": "\r\n".join(f"line {j} of it" for j in range(12)), "x": i} for i in range(3)],
    "record": {
        "kind": "Pod",
        "managedFields": [{"": {"f:metadata": {}, "f:labels": {}, ".": {}, 'k:{"u":"5"}': {}}}],
    },
}


@pytest.mark.parametrize("marker", sorted(TABLES))
def test_an_empty_column_name_reads_back(marker: str) -> None:
    value = TABLES[marker]
    text = roundtrip(value)
    assert f" {marker}=" not in text.split("\n", 1)[0]
    reads_new_forms(value, "t")


@pytest.mark.parametrize("marker", ["tree", "lists", "crlf", "str"])
def test_the_same_column_named_takes_the_marker(marker: str) -> None:
    # The tables above do take their marker when the column has a name: the test
    # above checks the empty name, not a table that never qualified.
    value = [{("k" if key == "" else key): v for key, v in row.items()} for row in TABLES[marker]]
    assert f" {marker}=k" in roundtrip(value).split("\n", 1)[0]
