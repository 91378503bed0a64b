"""The row reader's scans on JSON cells: bracket counts for the depth limit and
digit runs for big ints, on 1-byte and wider text, at their boundaries."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import strategies as st

from gcxwire import gcx
from gcxwire._impl import escape
from gcxwire.errors import DecodeError
from gcxwire.limits import Limits

from ..tiers import prove, tiers


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


_DEEP6 = "[" * 6 + "1" + "]" * 6
_TOO_DEEP = "JSON literal nests deeper than 5 levels (line 2, column 1)"


@pytest.mark.parametrize(
    "row",
    [
        _DEEP6,
        '{"a":{"b":[{"c":[[1]]}]}}',  # objects and lists mixed
        "[" * 2000 + "]" * 2000,  # past orjson's own depth limit
        "[" * 8,  # not JSON at all
        "[" * 6 + "9" * 25 + "]" * 6,  # a big int: the exact parser reads it
        '["\u0101",' + _DEEP6 + "]",  # 2-byte text
        _DEEP6 + "\t[x",  # a bad literal after the deep one: depth is named first
        _DEEP6 + "\t1",  # a cell more than the fields
    ],
)
def test_depth_limit_wins_over_other_row_errors(row: str) -> None:
    # The reader may parse a line before it measures its depth; the error it
    # gives is still the depth limit's, at the line's start.
    text = f"GCX1 tool=t fields=a\n{row}\n"
    with pytest.raises(DecodeError) as info:
        gcx.decode(text, limits=Limits(max_depth=5))
    assert str(info.value) == _TOO_DEEP
    assert (info.value.lineno, info.value.colno) == (2, 1)


def test_many_brackets_within_the_depth_limit_decode() -> None:
    shallow = "[" + ",".join(['{"k":[[1]]}'] * 20) + "]"  # 4 deep, 60 brackets
    text = f"GCX1 tool=t fields=a,b\n{shallow}\t{_DEEP6[1:-1]}\n"
    (row,) = gcx.decode(text, limits=Limits(max_depth=5))
    assert row == {"a": [{"k": [[1]]}] * 20, "b": [[[[[1]]]]]}
    bad = f"GCX1 tool=t fields=a,b\n{shallow}\t[x\n"
    with pytest.raises(DecodeError, match="Cell is not a valid JSON literal") as info:
        gcx.decode(bad, limits=Limits(max_depth=5))
    assert (info.value.lineno, info.value.colno) == (2, len(shallow) + 2)


@pytest.mark.parametrize("pad", ["", "\u0101"])
@pytest.mark.parametrize("offset", range(18))
def test_big_ints_found_at_every_offset(pad: str, offset: int) -> None:
    # The digit-run search looks at every 17th character: a 20-digit int (past
    # 64 bits, which orjson would read as a float) at each place against that stride.
    big = int("9" * 20)
    cell = "[" + '"' + pad + "x" * offset + '",' + f"{big},1234567890123456]"
    (row,) = gcx.decode(f"GCX1 tool=t fields=a\n{cell}\n")
    assert row == {"a": [pad + "x" * offset, big, 1234567890123456]}
    assert type(row["a"][1]) is int


def _depth(value: Any) -> int:
    # Containers nested in value, value counted.
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    return 0


# Strings dense in what the depth scan must read right: quotes, runs of
# backslashes and brackets inside strings, long enough to cross its 64-byte blocks.
_TRICKY = st.text(alphabet='"\\[]{}ab \t', max_size=90)
_JSON = st.recursive(
    st.none() | st.integers(-99, 99) | _TRICKY,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TRICKY, inner, max_size=3),
    max_leaves=30,
)


def _depth_limit_holds(value: Any, spare: int, above: bool) -> None:
    depth = _depth(value)
    limit = max(1, depth - 1 - spare) if above else depth + spare
    cell = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    text = f"GCX1 tool=t fields=a,b\n{escape(cell)}\t1\n"
    if depth > limit:
        with pytest.raises(DecodeError, match=f"deeper than {limit} levels"):
            gcx.decode(text, limits=Limits(max_depth=limit))
    else:
        assert gcx.decode(text, limits=Limits(max_depth=limit)) == [{"a": value, "b": 1}], cell


@tiers(fast=60, many=600)
def test_depth_limit_reads_strings_as_the_parser_does(examples: int) -> None:
    # Only a line with more brackets than the limit is measured: a small limit
    # measures most, at the limit (passes) and just under it (refused).
    prove(
        examples,
        _depth_limit_holds,
        _JSON.filter(lambda v: isinstance(v, (list, dict))),
        st.integers(0, 2),
        st.booleans(),
    )


@pytest.mark.parametrize("slashes", [None, 0, 1, 2, 3])
@pytest.mark.parametrize("pad", range(0, 140, 3))
def test_depth_scan_across_its_blocks(pad: int, slashes: int | None) -> None:
    # A string holding closing brackets (after a run of backslashes and an
    # escaped quote, or plain: no GCX escape, the cell read in place) at every
    # offset against the scan's 64-byte blocks: read as brackets they would
    # hide the four levels after them.
    inner = "]}" * 8 if slashes is None else "\\" * slashes + '"' + "]}" * 8 + "\\"
    value = ["x" * pad, inner, {"k": inner}, [[[1]]]]
    cell = escape(json.dumps(value, separators=(",", ":")))
    assert ("\\" in cell) is (slashes is not None)
    text = f"GCX1 tool=t fields=a\n{cell}\n"
    with pytest.raises(DecodeError, match="deeper than 3 levels"):
        gcx.decode(text, limits=Limits(max_depth=3))
    assert gcx.decode(text, limits=Limits(max_depth=4)) == [{"a": value}]
