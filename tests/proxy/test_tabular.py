"""Which values count as tables."""

from __future__ import annotations

import json

import pytest

from gcxwire.proxy.tabular import find_table, parse_text_blocks

ROWS = [{"a": 1}, {"a": 2}]


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        (ROWS, "rows"),
        ({"total": 2, "items": ROWS}, "wrapper"),
        ({"total": 2, "items": ROWS, "tags": ["x"]}, "wrapper"),
        ({"a": ROWS, "b": ROWS}, "sections"),
        ({f"k{i}": i for i in range(6)}, "object"),
        ({f"k{i}": i for i in range(5)}, None),
        ([], None),
        ([1, 2], None),
        ([{"a": 1}, 2], None),
        ({"items": []}, None),
        ("text", None),
    ],
)
def test_shapes(value: object, kind: str | None) -> None:
    table = find_table(value)
    assert (table.kind if table else None) == kind


def test_rows_and_map_rows_keep_the_shape() -> None:
    table = find_table({"total": 2, "items": ROWS, "more": True})
    assert table is not None and table.rows == ROWS
    doubled = table.map_rows(lambda row: {"a": row["a"] * 2})
    assert doubled.value == {"total": 2, "items": [{"a": 2}, {"a": 4}], "more": True}
    sections = find_table({"a": ROWS, "b": ROWS})
    assert sections is not None and sections.rows is None


def test_text_blocks() -> None:
    assert parse_text_blocks([json.dumps(ROWS)], json.loads) == ROWS
    assert parse_text_blocks([json.dumps(r) for r in ROWS], json.loads) == ROWS
    assert parse_text_blocks(["[1]", "[2]"], json.loads) is None  # blocks must be objects
    assert parse_text_blocks(["{bad"], json.loads) is None
    assert parse_text_blocks(["hello"], json.loads) is None
    assert parse_text_blocks([], json.loads) is None
