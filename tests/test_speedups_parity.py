"""The two twins of the speedups: same names, signatures, results and errors."""

from __future__ import annotations

import copy
import importlib
import inspect
import os
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gcxwire import _impl, _speedups_py

from .strategies import TEXT, TRICKY, json_values

try:
    from gcxwire import _speedups
except ImportError:  # pragma: no cover - CI requires the extension
    _speedups = None  # type: ignore[assignment]

need_ext = pytest.mark.skipif(_speedups is None, reason="extension not built")
NAMES = sorted(_speedups_py.__all__)


def test_extension_built_when_required() -> None:
    if os.environ.get("GCXWIRE_REQUIRE_EXTENSIONS") and not os.environ.get("GCXWIRE_NO_EXTENSIONS"):
        assert _speedups is not None
        assert _impl.USE_EXTENSIONS


def test_env_var_forces_pure_twin() -> None:
    code = "from gcxwire import _impl; print(_impl.USE_EXTENSIONS, _impl.escape.__module__)"
    env = {**os.environ, "GCXWIRE_NO_EXTENSIONS": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.split() == ["False", "gcxwire._speedups_py"]


@need_ext
def test_same_public_names() -> None:
    assert sorted(_speedups.__all__) == NAMES
    for name in NAMES:
        assert callable(getattr(_speedups, name))


@need_ext
@pytest.mark.parametrize("name", NAMES)
def test_same_signatures(name: str) -> None:
    def shape(fn: Any) -> list[tuple[str, Any]]:
        return [(p.name, p.kind) for p in inspect.signature(fn).parameters.values()]

    assert shape(getattr(_speedups, name)) == shape(getattr(_speedups_py, name))


@need_ext
def test_stub_lists_every_name() -> None:
    stub = importlib.resources.files("gcxwire").joinpath("_speedups.pyi").read_text()
    for name in NAMES:
        assert f"def {name}(" in stub


NONE: frozenset[str] = frozenset()
BAD_CALLS = [
    ("format_cell", (float("nan"),)),
    ("format_cell", (float("inf"),)),
    ("format_cell", ({1, 2},)),
    ("format_cell", (b"bytes",)),
    ("format_cell", ({1: "x"},)),
    ("parse_cell", ("[1,",)),
    ("parse_cell", ('{"a":}',)),
    ("encode_row", ({"a": float("nan")}, ["a"], False, NONE)),
    ("encode_row", ({"a": [1, {2: 3}]}, ["a"], True, NONE)),
    ("encode_row", ({}, [], False, NONE)),
    ("encode_row", ({"a": float("inf")}, ["a"], False, frozenset(["a"]))),
    ("decode_row", ("a\tb\tc", ["x", "y"], True, False, NONE)),
    ("decode_row", ("1\t[oops", ["x", "y"], True, True, NONE)),
    ("decode_row", ("1\t2\t3", ["x"], False, False, NONE)),
    ("encode_rows", ([{"a": 1}, {"a": [float("nan")]}], ["a"], False, NONE)),
    ("encode_rows", ([{"a": 1}, {"a": {3: 4}}], ["a", "b"], True, NONE)),
    ("encode_rows", ([{"a": 1}, ["a"]], ["a"], False, NONE)),
    ("encode_rows", ([{"a": 1}], [], False, NONE)),
    ("decode_rows", ("h\n1\t2\n#c\r\n\n3\t[x\n", 2, ["a", "b"], True, False, NONE, 99, 9)),
    ("decode_rows", ("1\t2\t3", 0, ["a", "b"], True, False, NONE, 99, 9)),
    ("decode_rows", ("é\n😀\t2\t3", 0, ["a", "b"], False, False, NONE, 99, 9)),
    ("nest_rows", ([{"a": 1, "a.b": 2}], [("a", (), "a"), ("a.b", ("a",), "b")])),
    ("nest_rows", ([{"a": 1}, [1]], [("a", (), "a")])),
    ("encode_table", ([{"a": float("nan")}, [1]], ["a"])),
    ("encode_table", ([{"a": 1.0}, {"a": 2.0}, {"a": 3.0}, {"a": {4: 5}}], ["a"])),
    ("encode_table", ([{"a": 1}], [])),
    ("flatten_rows", ([{"u": {"id": 1}}, {"u": 3}], frozenset(["u"]))),
    ("flatten_rows", ([{"u": {"id": 1}}, "row"], frozenset(["u"]))),
    ("flatten_rows", ([{"u": {"id": 1}}, {1: 2}], frozenset(["u"]))),
    ("flatten_rows", ([{"u": {"id": 1}}, {"u": {2: 3}}], frozenset(["u"]))),
]


@need_ext
@pytest.mark.parametrize(("name", "args"), BAD_CALLS, ids=[f"{n}{a!r}"[:40] for n, a in BAD_CALLS])
def test_same_errors(name: str, args: tuple[Any, ...]) -> None:
    errors = []
    for module in (_speedups_py, _speedups):
        with pytest.raises(Exception) as info:
            getattr(module, name)(*args)
        err = info.value
        errors.append((type(err), str(err), getattr(err, "pos", None), getattr(err, "path", None)))
    assert errors[0] == errors[1]


@need_ext
@given(TEXT)
def test_escape_unescape_agree(s: str) -> None:
    assert _speedups.escape(s) == _speedups_py.escape(s)
    assert _speedups.unescape(s) == _speedups_py.unescape(s)
    assert _speedups.unescape(_speedups.escape(s)) == s


def _stable(value: Any) -> Any:
    # repr keeps dict key order (which must match) but not a set's, which may not.
    if isinstance(value, (set, frozenset)):
        return ("set", sorted(value))
    if isinstance(value, tuple):
        return tuple(_stable(v) for v in value)
    return value


def outcome(fn: Any, *args: Any) -> tuple[str, str]:
    """What a call returned or raised, comparable across twins."""
    try:
        return ("ok", repr(_stable(fn(*args))))
    except Exception as exc:  # both twins must fail the same way
        return (type(exc).__name__, f"{exc} pos={getattr(exc, 'pos', None)}")


@need_ext
@given(st.text())
def test_parse_cell_agrees_on_any_text(raw: str) -> None:
    assert outcome(_speedups.parse_cell, raw) == outcome(_speedups_py.parse_cell, raw)


@need_ext
@given(json_values(8))
def test_format_cell_agrees(value: Any) -> None:
    assert _speedups.format_cell(value) == _speedups_py.format_cell(value)


FLAGS = st.tuples(st.booleans(), st.booleans(), st.frozensets(st.sampled_from(["f0", "f1", "f9"])))


@need_ext
@given(st.lists(TEXT, min_size=1, max_size=6), st.integers(1, 7), FLAGS)
def test_decode_row_agrees(cells: list[str], nfields: int, flags: Any) -> None:
    line = "\t".join(cells)
    fields = [f"f{i}" for i in range(nfields)]
    assert outcome(_speedups.decode_row, line, fields, *flags) == outcome(
        _speedups_py.decode_row, line, fields, *flags
    )


@need_ext
@given(
    st.dictionaries(st.sampled_from(["f0", "f1", "f2"]), json_values(4)),
    st.booleans(),
    st.frozensets(st.sampled_from(["f0", "f1"])),
    st.sampled_from([1.0, -0.0, 3.5, 1e15, 1e300, 12.0]),
)
def test_encode_row_agrees(row: dict[str, Any], empty_null: bool, floats: Any, f: float) -> None:
    row.setdefault("f1", f)
    fields = ["f0", "f1", "f2"]
    assert outcome(_speedups.encode_row, row, fields, empty_null, floats) == outcome(
        _speedups_py.encode_row, row, fields, empty_null, floats
    )


# Long text in each internal string width (ASCII, Latin-1, UCS-2, UCS-4), heavy in escapes.
LONG = st.text(alphabet=st.sampled_from('ab \\\t\nrtn"[{#-1.e\xe9\u0100\U0001f600'), max_size=300)


@need_ext
@given(LONG)
def test_escape_unescape_agree_on_long_text(s: str) -> None:
    assert _speedups.escape(s) == _speedups_py.escape(s)
    assert _speedups.unescape(s) == _speedups_py.unescape(s)
    assert outcome(_speedups.parse_cell, s) == outcome(_speedups_py.parse_cell, s)
    assert _speedups.format_cell(s) == _speedups_py.format_cell(s)


ROWS = st.lists(st.dictionaries(st.sampled_from(["f0", "f1", "f2"]), json_values(3)), max_size=5)


@need_ext
@given(ROWS, st.booleans(), st.frozensets(st.sampled_from(["f0", "f1"])))
def test_encode_rows_agrees(rows: list[dict[str, Any]], empty_null: bool, floats: Any) -> None:
    fields = ["f0", "f1", "f2"]
    ext = outcome(_speedups.encode_rows, rows, fields, empty_null, floats)
    assert ext == outcome(_speedups_py.encode_rows, rows, fields, empty_null, floats)
    if ext[0] == "ok":  # a table is its rows, each line as encode_row writes it
        lines = [_speedups.encode_row(r, fields, empty_null, floats) for r in rows]
        assert _speedups.encode_rows(rows, fields, empty_null, floats) == "\n".join(lines)


# 1-byte text only, so the extension writes the whole table through its byte buffer.
LATIN1 = st.one_of(
    TRICKY.filter(lambda t: all(ord(c) < 256 for c in t)),
    st.text(st.characters(max_codepoint=255), max_size=8),
)
LATIN1_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(-(10**30), 10**30),
    st.sampled_from([-(2**63), 2**63 - 1, 2**63, -(2**63) - 1, 2**64]),
    st.sampled_from([1.0, -0.0, 3.5, 1e16, 12.0]), LATIN1,
    st.lists(st.integers(0, 9), max_size=2),
)  # fmt: skip


@need_ext
@given(
    st.lists(st.dictionaries(st.sampled_from(["f0", "f1", "f2"]), LATIN1_VALUES), max_size=5),
    st.booleans(),
    st.frozensets(st.sampled_from(["f0", "f1"])),
)
def test_encode_rows_agrees_on_latin1(
    rows: list[dict[str, Any]], empty_null: bool, floats: Any
) -> None:
    fields = ["f0", "f1", "f2"]
    ext = _speedups.encode_rows(rows, fields, empty_null, floats)
    assert ext == _speedups_py.encode_rows(rows, fields, empty_null, floats)
    lines = [_speedups.encode_row(r, fields, empty_null, floats) for r in rows]
    assert ext == "\n".join(lines)


STYLED = st.sampled_from([None, 1, 2.0, -3.0, 4.0, 0.5, 1e16, "x", "é", "😀", True, [1]])


@need_ext
@given(
    st.lists(st.dictionaries(st.sampled_from(["f0", "f1", "f2", "f3"]), STYLED), max_size=40),
    st.sampled_from([["f0", "f1", "f2", "f3"], ["f0", "f1", "f2"], ["f0", "f0", "f1", "f2", "f3"]]),
)
def test_encode_table_agrees(rows: list[dict[str, Any]], fields: list[str]) -> None:
    ext = outcome(_speedups.encode_table, rows, fields)
    assert ext == outcome(_speedups_py.encode_table, rows, fields)
    if ext[0] == "ok":  # the style scan_style picks, and the text encode_rows writes with it
        style = _speedups.scan_style(rows, fields)
        text = _speedups.encode_rows(rows, fields, *style)
        assert _speedups.encode_table(rows, fields) == (text, *style)


@need_ext
@pytest.mark.parametrize(
    "rows",
    [
        [{"a": 1, "b": "x"}] * 16 + [{"a": None, "b": None}] * 9,  # empty=null only later
        [{"a": None, "b": None}] * 16 + [{"a": 1}] * 30,  # empty=null only early
        [{"a": "x"}] * 16 + [{"a": 2.0, "b": 3.0}] * 3,  # float= only later
        [{"a": 2.0}] * 16 + [{"a": 3}],  # float= broken by a late int
    ],
    ids=["null-late", "null-early", "float-late", "int-late"],
)
def test_encode_table_when_the_first_rows_mislead(rows: list[dict[str, Any]]) -> None:
    fields = ["a", "b"]
    ext = _speedups.encode_table(rows, fields)
    assert ext == _speedups_py.encode_table(rows, fields)
    style = _speedups_py.scan_style(rows, fields)
    assert ext == (_speedups_py.encode_rows(rows, fields, *style), *style)


STYLE_VALUES = st.sampled_from([None, 1, 2.0, -3.0, 1e16, 0.5, "x", True, float("nan")])


@need_ext
@given(st.lists(st.dictionaries(st.sampled_from(["a", "b", "c"]), STYLE_VALUES), max_size=12))
def test_scan_style_agrees(rows: list[dict[str, Any]]) -> None:
    fields = ["a", "b", "c"]
    assert _speedups.scan_style(rows, fields) == _speedups_py.scan_style(rows, fields)


KEY_ORDERS = st.lists(st.sampled_from(["a", "b", "c"]), unique=True)


@need_ext
@given(st.lists(st.one_of(KEY_ORDERS.map(dict.fromkeys), st.just([1]), st.just({1: 2}))))
def test_shared_keys_agrees(rows: list[Any]) -> None:
    assert _speedups.shared_keys(rows) == _speedups_py.shared_keys(rows)


PARTS = st.sampled_from(["a", "b", "a.b"])
PLAN = st.lists(st.tuples(PARTS, st.lists(PARTS, max_size=2).map(tuple), PARTS), max_size=4)
NEST_VALUES = st.sampled_from([None, 1, "x", {}, {"z": 1}])


@need_ext
@given(st.lists(st.dictionaries(PARTS, NEST_VALUES), max_size=4), PLAN)
def test_nest_rows_agrees(rows: list[dict[str, Any]], plan: Any) -> None:
    # Each twin gets its own copy: a nested value may be written into (both twins alias it).
    ext = outcome(_speedups.nest_rows, copy.deepcopy(rows), plan)
    assert ext == outcome(_speedups_py.nest_rows, copy.deepcopy(rows), plan)


# Section bodies: rows, comments, blanks, CRLF, headers, long and bracket-heavy lines.
LINES = st.one_of(
    st.lists(TEXT, min_size=1, max_size=4).map("\t".join),
    st.sampled_from(["", "#note", "#", "\r", "GCX1 tool=t fields=a", "[[[{", "x" * 30]),
)


@need_ext
@given(
    st.lists(LINES, max_size=8),
    st.sampled_from(["\n", "\r\n"]),
    st.integers(0, 6),
    st.integers(1, 3),
    FLAGS,
    st.integers(5, 40),
    st.integers(0, 4),
)
def test_decode_rows_agrees(
    lines: list[str], eol: str, start: int, nfields: int, flags: Any, max_line: int, brackets: int
) -> None:
    text = eol.join(lines)
    fields = [f"f{i}" for i in range(nfields)]
    args = (text, start, fields, *flags, max_line, brackets)
    ext = outcome(_speedups.decode_rows, *args)
    assert ext == outcome(_speedups_py.decode_rows, *args)


LEAF = st.integers(0, 3)
# Objects nested up to three deep, as flat= groups are.
NESTED = st.dictionaries(
    PARTS,
    st.one_of(LEAF, st.dictionaries(PARTS, st.one_of(LEAF, st.dictionaries(PARTS, LEAF)))),
)


@need_ext
@given(st.lists(NESTED, max_size=4), st.frozensets(st.sampled_from(["a", "b", "a.b", "b.a"])))
def test_flatten_rows_agrees(rows: list[dict[str, Any]], groups: frozenset[str]) -> None:
    ext = outcome(_speedups.flatten_rows, rows, groups)
    assert ext == outcome(_speedups_py.flatten_rows, rows, groups)
