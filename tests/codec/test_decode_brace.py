"""The header reader's brace search (templates, `template={}` field lists): the
first brace no backslash escapes, from a place, on the texts escapes make."""

from __future__ import annotations

import pytest

from gcxwire import gcx
from gcxwire._gcx_decode import _brace


@pytest.mark.parametrize(
    ("text", "start", "found"),
    [
        ("", 0, -1),
        ("abc", 0, -1),
        ("a{b}", 0, 1),
        ("a{b}", 2, 3),
        ("a\\{b}", 0, 4),  # an escaped brace is skipped
        ("a\\\\{b", 0, 3),  # an escaped backslash: the brace after it counts
        ("a\\", 0, -1),  # a backslash at the end escapes nothing there
        ("\\}", 0, -1),
        ("x{", 5, -1),  # from past the end
        ("{", 1, -1),
    ],
)
def test_brace_finds_the_first_unescaped_brace(text: str, start: int, found: int) -> None:
    assert _brace(text, start) == found


def test_templated_field_list_with_escaped_braces_decodes() -> None:
    rows = [{"id": i, "url": f"https://x/{{v}}/{i}", "a": {"b": i}} for i in range(6)]
    text = gcx.encode(rows, tool="t")
    assert gcx.decode(text) == rows
