"""The row reader's scans on JSON cells: bracket counts for the depth limit and
digit runs for big ints, on 1-byte and wider text, at their boundaries."""

from __future__ import annotations

import pytest

from gcxwire import gcx
from gcxwire.errors import DecodeError
from gcxwire.limits import Limits


@pytest.mark.parametrize("pad", ["", "\u0101", "\U0001f600"])
def test_depth_limit_counts_both_brackets(pad: str) -> None:
    # Four levels of mixed [ and {, plus brackets inside a string that do not count.
    cell = '[{"k":[{"s":"' + pad + '[[{{"}]}]'
    text = f"GCX1 tool=t fields=a\n{cell}\n"
    value = [{"k": [{"s": pad + "[[{{"}]}]
    assert gcx.decode(text, limits=Limits(max_depth=4)) == [{"a": value}]
    with pytest.raises(DecodeError, match="deeper than 3") as info:
        gcx.decode(text, limits=Limits(max_depth=3))
    assert info.value.lineno == 2


@pytest.mark.parametrize("pad", ["", "\u0101"])
@pytest.mark.parametrize("digits", [16, 17, 25])
def test_digit_runs_in_json_cells_keep_ints_exact(pad: str, digits: int) -> None:
    big = int("9" * digits)
    cell = f'["{pad}",{big},0.5]'
    text = f"GCX1 tool=t fields=a\n{cell}\n"
    (row,) = gcx.decode(text)
    assert row == {"a": [pad, big, 0.5]}
    assert type(row["a"][1]) is int
