"""The flat-table searches (prefix=, infix=, template=) give up cheaply, with the same answers."""

from __future__ import annotations

from typing import Any

from gcxwire import _gcx_infix, _gcx_prefix


def _linked(n: int) -> list[Any]:
    # Rows whose `url` shares a long prefix and a long middle run of segments.
    return [
        {"url": f"https://img.example.com/{i:04x}/rs:fit:32:32:1:0/g:ce/plain/{i}.png"}
        for i in range(n)
    ]


def test_a_row_that_is_no_dict_rules_out_a_prefix_found_in_the_others() -> None:
    # The check for such rows runs only once a prefix is found; it must still run.
    rows = _linked(40)
    paths = [("url",)]
    assert _gcx_prefix._prefixes(rows, ["url"], paths, {}) == {0: "https://img.example.com/"}
    assert _gcx_prefix._prefixes([*rows, 7], ["url"], paths, {}) == {}


def test_a_row_that_is_no_dict_rules_out_an_infix_found_in_the_others() -> None:
    # The sample reads such a row as absent cells; the full read must refuse the table.
    rows = _linked(40)
    paths = [("url",)]
    found = _gcx_infix._infixes(rows, ["url"], paths, frozenset(), {})
    assert found == {0: "rs:fit:32:32:1:0/g:ce/plain"}
    assert _gcx_infix._infixes([*rows, "x"], ["url"], paths, frozenset(), {}) == {}
