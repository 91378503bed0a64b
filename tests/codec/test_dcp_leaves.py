"""DCP decoding's leaves on both twins: dotted-name records built from a key tree
(``dcp_tree_records``) and the row-line join (``dcp_join``) over every string kind.

Each leaf is called as ``_dcp_decode`` calls it, on the twin the codec conftest swapped
in; the tests marked ``compares_twins`` call both twins themselves.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gcxwire import _dcp_decode, _dcp_encode, _speedups_py, dcp

try:
    from gcxwire import _speedups
except ImportError:  # pragma: no cover - CI requires the extension
    _speedups = None  # type: ignore[assignment]


def _need_ext(test: Any) -> Any:
    """A test that calls both twins itself: once, and only with the extension."""
    test = pytest.mark.compares_twins(test)
    return pytest.mark.skipif(_speedups is None, reason="extension not built")(test)


def _tree(rows: list[Any], tree: dict[str, Any], width: int) -> Any:
    return vars(_dcp_decode)["dcp_tree_records"](rows, tree, width)


def _join(text: str, start: int, max_line: int, depth: int) -> Any:
    return vars(_dcp_decode)["dcp_join"](text, start, max_line, depth)


def test_tree_records_nest_in_tree_order() -> None:
    tree = {"a": 2, "u": {"login": 0, "x": {"y": 1}}, "b": 3}
    got = _tree([[1, 2, 3, 4], ["l", None, [], {}]], tree, 4)
    assert got == [
        {"a": 3, "u": {"login": 1, "x": {"y": 2}}, "b": 4},
        {"a": [], "u": {"login": "l", "x": {"y": None}}, "b": {}},
    ]
    assert [list(r) for r in got] == [["a", "u", "b"]] * 2
    assert list(got[0]["u"]) == ["login", "x"]
    assert got[0]["u"] is not got[1]["u"]
    assert _tree([], tree, 4) == []


@pytest.mark.parametrize(
    ("rows", "tree", "width"),
    [
        ([[1, 2]], {"a": 0, "b": {"c": 1}}, 3),  # a row of another width
        ([[1, 2], (1, 2)], {"a": 0, "b": {"c": 1}}, 2),  # a row that is no list
        ([[1, 2]], {"a": 0, "b": {}}, 2),  # an empty subtree
        ([[1, 2]], {}, 2),
        ([[1, 2]], {"a": 0, "b": 2}, 2),  # an index past the row
        ([[1, 2]], {"a": -1, "b": 1}, 2),
        ([[1, 2]], {"a": True, "b": 1}, 2),  # not an int
        ([[1, 2]], {"a": "0", "b": 1}, 2),
    ],
)
def test_tree_records_decline(rows: list[Any], tree: dict[str, Any], width: int) -> None:
    assert _tree(rows, tree, width) is None


_NODES: st.SearchStrategy[Any] = st.recursive(
    st.integers(-1, 4) | st.sampled_from([True, "0", None]),
    lambda inner: st.dictionaries(st.sampled_from(["a", "b", "", "\u4e00"]), inner, max_size=3),
    max_leaves=6,
)


@_need_ext
@settings(max_examples=80)
@given(
    st.lists(st.lists(st.integers(), min_size=2, max_size=4) | st.tuples(), max_size=3),
    st.dictionaries(st.sampled_from(["a", "b", "c.d"]), _NODES, max_size=3),
    st.integers(0, 4),
)
def test_tree_records_agree(rows: list[Any], tree: dict[str, Any], width: int) -> None:
    got = _speedups.dcp_tree_records(rows, tree, width)
    assert got == _speedups_py.dcp_tree_records(rows, tree, width)
    if got is not None:
        assert [list(r) for r in got] == [
            list(r) for r in _speedups_py.dcp_tree_records(rows, tree, width) or []
        ]


# Lines of long strings (the 1-byte scan takes 16 characters at a time) with
# quotes, escapes and LFs at any place, in all three kinds.
_PIECES = st.sampled_from(
    ["a" * 15, "b" * 16, "c" * 17, '"', "\\", '\\"', "\\\\", "\n", "[", "]", "{", "}", ","]
    + ["1" * 19, "1" * 18, "\xe9", "\xff", "\u4e00", "\U0001f680", " "]
)
_LINES = st.lists(st.lists(_PIECES, max_size=10).map("".join), min_size=1, max_size=4)


@_need_ext
@settings(max_examples=150)
@given(_LINES, st.booleans(), st.sampled_from(["H", "\xe9", "\u4e00"]))
def test_join_agrees_on_long_strings(lines: list[str], quoted: bool, head: str) -> None:
    if quoted:  # one string cell per line, so that its text is read as a string's
        lines = [f'["{line}"]' for line in lines]
    doc = head + "\n" + "\n".join(lines)
    for depth in (2, 512):
        got = _speedups.dcp_join(doc, len(head) + 1, 1 << 20, depth)
        assert got == _speedups_py.dcp_join(doc, len(head) + 1, 1 << 20, depth)


def test_join_of_latin1_and_ascii_rows() -> None:
    text = '["$S","d:v1","a"]\n["' + "x" * 40 + '\\"\xe9\\n' + "y" * 20 + '"]\n[1]\n'
    assert _join(text, 18, 1 << 20, 512) == (
        '[["' + "x" * 40 + '\\"\xe9\\n' + "y" * 20 + '"],[1]]',
        2,
    )
    assert _join('H\n["' + "x" * 40 + "\n" + '"]', 2, 1 << 20, 512) is None  # LF in a string


def test_decode_rebuilds_dotted_names_as_before() -> None:
    records = [
        {"id": i, "user": {"login": f"u{i}", "site": {"admin": i % 2 == 0}}, "body": "\xe9" * i}
        for i in range(20)
    ]
    text = dcp.encode(records)
    assert '"user.site.admin"' in text.split("\n")[0]
    assert dcp.decode(text) == records
    assert [list(r["user"]) for r in dcp.decode(text)] == [["login", "site"]] * 20


def _rows(records: list[Any]) -> Any:
    return vars(_dcp_encode)["dcp_rows"](records, None)


def test_rows_find_columns_by_key_object_and_by_value() -> None:
    # Wide sparse records: keys far apart in first-seen order (past the probe of a few
    # columns), some equal keys as other str objects (not the first records' own).
    names = [f"k{c}" for c in range(40)]
    records: list[dict[str, Any]] = [{n: i for n in names[i % 3 :: 3]} for i in range(6)]
    records.append({"".join(["k", "3", "9"]): 1, "".join(["k", "0"]): 2, "new": 3})
    records.append({n: n for n in reversed(names)})
    found = _rows(records)
    assert found is not None
    fields, rows = found
    assert list(fields) == [*names[0::3], *names[1::3], *names[2::3], "new"]
    assert [dict(zip(fields, row)) for row in rows] == [
        {f: r.get(f) for f in fields} for r in records
    ]
