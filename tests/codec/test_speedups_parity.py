"""The two twins of the speedups: same names, signatures, results and errors."""

from __future__ import annotations

import copy
import importlib
import inspect
import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import orjson
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gcxwire import _impl, _speedups_py

from ..strategies import TEXT, TRICKY, json_values

try:
    from gcxwire import _speedups
except ImportError:  # pragma: no cover - CI requires the extension
    _speedups = None  # type: ignore[assignment]

Test = TypeVar("Test", bound=Callable[..., None])


def need_ext(test: Test) -> Test:
    """A test that calls both twins itself: it needs the extension, and runs once
    rather than once per twin the codec conftest swaps in."""
    marked: Test = pytest.mark.compares_twins(test)
    skip = pytest.mark.skipif(_speedups is None, reason="extension not built")
    return skip(marked)  # type: ignore[no-any-return]


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
    assert sorted(vars(_speedups)["__all__"]) == NAMES  # the stub does not list __all__
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
# A layout for fields (a, b): a constant 7 in a, b in group g, and a template
# column t (in g too, before b) derived from b: `<b>`.
LAYOUT = (
    ((0, "a", 0), (0, "g", -1), (1, "t", 2), (1, "b", 1)),
    1,
    ((0, "a", 7),),
    (),
    (),
    ((2, 1, "<", ">", "t", "b"),),
)
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
    ("encode_table", ([{"a": 1}, {"a": [float("nan")]}], ["a"], [("a",)], None, "\n", None)),
    ("encode_table", ([{"a": 1}, {"a": {3: 4}}], ["a", "b"], [("a",), ("b",)], "h", "\n", None)),
    ("encode_table", ([{"a": 1}, ["a"]], ["a"], [("a",)], None, "\n", None)),
    ("encode_table", ([{"a": 1}], [], [], None, "\n", None)),
    ("decode_rows", ("h\n1\t2\n#c\r\n\n3\t[x\n", 2, ["a", "b"], True, False, NONE, 99, 9, 5, 99)),
    ("decode_rows", ("1\t2\t3", 0, ["a", "b"], True, False, NONE, 99, 9, 5, 99)),
    ("decode_rows", ("é\n😀\t2\t3", 0, ["a", "b"], False, False, NONE, 99, 9, 5, 99)),
    ("nest_rows", ([{"a": 1, "a.b": 2}], [("a", (), "a"), ("a.b", ("a",), "b")])),
    ("nest_rows", ([{"a": 1}, [1]], [("a", (), "a")])),
    ("attach_items", ([{"b[]": 1}], [[0]], ("b",), "[]")),
    ("add_templates", ([{"s": 1.5}], [("d", "s", "<", ">")])),
    ("add_templates", ([{"s": "x"}, {}], [("d", "s", "<", ">")])),
    ("add_templates", ([{"s": "x"}, [1]], [("d", "s", "<", ">")])),
    ("attach_items", ([{"b[]": 1}], [{"[]": 1}], ("b",), "[]")),
    ("attach_items", ([{"b[]": 1}], [{"[]": True}], ("b",), "[]")),
    ("attach_items", ([{"b[]": 2}], [{"[]": 0}], ("b",), "[]")),
    ("attach_items", ([{"b[]": 1, "b": 0}], [{"[]": 0}], ("b",), "[]")),
    ("attach_items", ([{"b": 1}], [{"[]": 0}], ("b",), "[]")),
    ("attach_items", ([{"b[]": 1}], [{"[]": 0}], (), "[]")),
    # In place: the count is under the list's own key, the errors name the mark.
    ("attach_items", ([{"b[]": 1}], [{"[]": 0}], ("b",), "[]", True)),
    ("attach_items", ([{"b": 2}], [{"[]": 0}], ("b",), "[]", True)),
    ("attach_items", ([{"b": None}, {"a": 1}], [{"[]": 0}], ("b",), "[]", True)),
    ("encode_table", ([{"a": float("nan")}, [1]], ["a"], [("a",)], None, "\n", None)),
    (
        "encode_table",
        ([{"a": 1.0}, {"a": 2.0}, {"a": 3.0}, {"a": {4: 5}}], ["a"], [("a",)], "", "", None),
    ),
    ("encode_table", ([{"a": 1}], ["a"], [("a",), ("b",)], None, "\n", None)),
    ("encode_table", ([{"a": 1}], ["a"], [()], None, "\n", None)),
    ("encode_table", ([{"a": 1}], ["a"], [("a", ["b"])], None, "\n", None)),
    ("encode_table", ([{"a": 1}], ["a"], [("a",)], b"head", "\n", None)),
    # A row whose path meets a non-object fails before an earlier row's bad cell.
    (
        "encode_table",
        ([{"u": {"id": float("nan")}}, {"u": 3}], ["u.id"], [("u", "id")], None, "", None),
    ),
    ("encode_table", ([{"u": {"id": 1}}, "row"], ["u.id"], [("u", "id")], None, "\n", None)),
    ("encode_table", ([{"u": {2: float("inf")}}], ["u.2"], [("u", 2)], None, "\n", None)),
    ("dict_column", ([{"a": {}}], ["unhashable"])),
    ("constant_columns", ([{"a": 1}, {"a": 1}], [None])),
    ("constant_columns", ([{"a": {}}, {"a": {}}], [("a", ["x"])])),
    # decode_rows' layouts: a constant column with a cell, a template without a
    # source text (both at their line's start), layouts that do not fit their fields.
    ("decode_rows", ("1\t2\n", 0, ["a", "b"], True, False, NONE, 99, 9, 5, 99, LAYOUT)),
    ("decode_rows", ("\tx\n\t1.5\n", 0, ["a", "b"], True, False, NONE, 99, 9, 5, 99, LAYOUT)),
    (
        "decode_rows",
        ("1\n", 0, ["a"], True, False, NONE, 99, 9, 5, 99, (((1, "a", 0),), 1, (), (), (), ())),
    ),
    (
        "decode_rows",
        ("1\n", 0, ["a"], True, False, NONE, 99, 9, 5, 99, (((0, "a", 1),), 0, (), (), (), ())),
    ),
    (
        "decode_rows",
        ("1\n", 0, ["a"], True, False, NONE, 99, 9, 5, 99, (((0, "a", -1),), 0, (), (), (), ())),
    ),
    (
        "decode_rows",
        ("1\n", 0, ["a"], False, False, NONE, 99, 9, 5, 99, (((0, "a", 0),), 0, (), (), (), ())),
    ),
    (
        "decode_rows",
        ("1\n", 0, ["a"], True, False, NONE, 99, 9, 5, 99, ((), 0, ((3, "a", 1),), (), (), ())),
    ),
    ("find_text", (b'x""', '""', 0, 3)),
    ("find_text", ("x", 1, 0, 1)),
    ("find_text", ("x", "ab", "0", 1)),
]


@need_ext
@pytest.mark.parametrize(("name", "args"), BAD_CALLS, ids=[f"{n}{a!r}"[:40] for n, a in BAD_CALLS])
def test_same_errors(name: str, args: tuple[Any, ...]) -> None:
    errors = []
    for module in (_speedups_py, _speedups):
        with pytest.raises(Exception) as info:
            getattr(module, name)(*copy.deepcopy(args))  # attach_items pops what it reads
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


# Float cells: shortest reprs, and decimal texts with up to 22 digits and any exponent
# (the Cython twin reads the short ones without strtod; both must give float(text)).
FLOAT_TEXT = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.builds(
        "{}{}.{}e{}".format,
        st.sampled_from(["", "-"]),
        st.integers(0, 10**12),
        st.integers(0, 10**10).map(str),
        st.integers(-330, 330),
    ),
    st.builds("{}.{}".format, st.integers(0, 2**54), st.sampled_from(["0", "5", "25", "0001"])),
)


@need_ext
@given(FLOAT_TEXT)
def test_float_cells_agree(raw: str) -> None:
    ext, pure = _speedups.parse_cell(raw), _speedups_py.parse_cell(raw)
    assert repr(ext) == repr(pure)  # repr: -0.0 and 0.0 differ, and text beyond range stays text


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
FIELDS = ["f0", "f1", "f2"]
FLAT_PATHS = [("f0",), ("f1",), ("f2",)]


def table_outcome(
    module: Any, rows: Any, fields: Any, paths: Any, head: Any = None, keys: Any = None
) -> Any:
    return outcome(module.encode_table, rows, fields, paths, head, " t=1\n", keys)


@need_ext
@given(ROWS, st.one_of(st.none(), st.sampled_from(["GCX1 tool=t fields=a", "h\xe9", "h\u0100"])))
def test_encode_table_agrees(rows: list[dict[str, Any]], head: str | None) -> None:
    ext = table_outcome(_speedups, rows, FIELDS, FLAT_PATHS, head)
    assert ext == table_outcome(_speedups_py, rows, FIELDS, FLAT_PATHS, head)
    if ext[0] == "ok" and rows:  # a table is its rows, each line as encode_row writes it
        table = _speedups.encode_table(rows, FIELDS, FLAT_PATHS, None, "", None)
        assert table is not None
        text, empty_null, floats = table
        lines = [_speedups.encode_row(r, FIELDS, empty_null, floats) for r in rows]
        assert text == "\n".join(lines)


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
    st.recursive(  # JSON cells, written straight into the buffer when plain
        st.one_of(st.none(), st.booleans(), st.integers(), st.sampled_from([0.5, 2**64]), LATIN1),
        lambda inner: st.one_of(
            st.lists(inner, max_size=3), st.dictionaries(LATIN1, inner, max_size=3)
        ),
        max_leaves=6,
    ),
)  # fmt: skip


@need_ext
@given(
    st.lists(st.dictionaries(st.sampled_from(FIELDS), LATIN1_VALUES), max_size=5),
    st.sampled_from([None, "h", "h\xe9"]),
)
def test_encode_table_agrees_on_latin1(rows: list[dict[str, Any]], head: str | None) -> None:
    ext = _speedups.encode_table(rows, FIELDS, FLAT_PATHS, head, "\n", None)
    assert ext == _speedups_py.encode_table(rows, FIELDS, FLAT_PATHS, head, "\n", None)
    assert ext is not None
    # The same str, down to its internal kind (an ASCII string flagged Latin-1 would differ).
    assert ext[0].isascii() == all(ord(c) < 128 for c in ext[0])


@need_ext
def test_json_cells_of_every_latin1_char() -> None:
    text = "".join(map(chr, range(256)))
    rows = [{"a": [text, {text: text}, -(2**63), 2**63 - 1, None, True, False, [], {}]}]
    args = (rows, ["a"], [("a",)], None, "", None)
    assert _speedups.encode_table(*args) == _speedups_py.encode_table(*args)


@need_ext
@pytest.mark.parametrize("special", ["\\", "\t", "\n", "\xe9"])
def test_escape_at_every_position_of_short_and_long_text(special: str) -> None:
    # The extension tests 16 bytes at a time, and the last bytes in a window
    # that may start before the text: every length and position around that.
    for n in range(40):
        for at in range(-1, n):
            chars = list("abcdefghijklmnopqrstuvwxyz0123456789ABCD"[:n])
            if at >= 0:
                chars[at] = special
            text = "".join(chars)
            args = ([{"a": text, "b": [text]}], ["a", "b"], [("a",), ("b",)], None, "", None)
            assert _speedups.encode_table(*args) == _speedups_py.encode_table(*args)


# Long 1-byte text heavy in escapes: the extension escapes it 16 bytes at a time.
LONG_LATIN1 = st.text(alphabet=st.sampled_from('ab \\\t\n\r"[{#-1.e\xe9'), max_size=300)


@need_ext
@given(st.lists(st.tuples(LONG_LATIN1, LONG_LATIN1), max_size=4))
def test_encode_table_agrees_on_long_text(cells: list[tuple[str, str]]) -> None:
    rows = [{"a": a, "b": [b]} for a, b in cells]
    args = (rows, ["a", "b"], [("a",), ("b",)], "h", "\n", None)
    assert _speedups.encode_table(*args) == _speedups_py.encode_table(*args)


# Nested rows read by path: members missing, objects absent, non-objects on the way,
# held (None) columns, and paths that share prefixes or end where another goes on.
MEMBER = st.sampled_from(["a", "b", "c"])
NESTED_VALUES = st.one_of(
    st.sampled_from([None, 1, 2.0, -3.0, 4.0, "x", "\xe9", "\U0001f600", True, 0.5]),
    st.dictionaries(MEMBER, st.sampled_from([None, 1, 2.0, "y", "\t#", "\r"]), max_size=3),
    st.just([1]),
)
NESTED_ROWS = st.lists(st.dictionaries(MEMBER, NESTED_VALUES, max_size=3), max_size=20)
PATHS = st.lists(
    st.one_of(st.none(), st.lists(MEMBER, min_size=1, max_size=3).map(tuple)),
    min_size=1,
    max_size=5,
)


@need_ext
@given(NESTED_ROWS, PATHS, st.sampled_from([None, "h"]))
def test_encode_table_agrees_on_paths(rows: list[dict[str, Any]], paths: Any, head: Any) -> None:
    fields = [".".join(p) if p else "held" for p in paths]
    ext = table_outcome(_speedups, rows, fields, paths, head)
    assert ext == table_outcome(_speedups_py, rows, fields, paths, head)


STYLED = st.sampled_from([None, 1, 2.0, -3.0, 4.0, 0.5, 1e16, "x", "é", "😀", True, [1]])


# Rows that mostly share one key order, some not; bad cells and bad paths too,
# since a keys check comes before every error.
KEYED_ROWS: st.SearchStrategy[list[dict[str, Any]]] = st.lists(
    st.sampled_from(["abc", "abc", "abc", "acb", "ab", "abcd", ""]).flatmap(
        lambda order: st.fixed_dictionaries(
            {
                k: st.sampled_from([1, "x", None, 2.0, float("nan"), {"a": 1}, {"a": {}}])
                for k in order
            }
        )
    ),
    max_size=24,
)


@need_ext
@given(
    KEYED_ROWS,
    st.sampled_from([("a", "b", "c"), ("a", "c", "b"), ("a", "b")]),
    st.sampled_from(
        [[("a",), ("b",), ("c",)], [("a", "a"), ("b",), None], [("c",), ("a",), ("b",)]]
    ),
)
def test_encode_table_agrees_on_keys(rows: list[dict[str, Any]], keys: Any, paths: Any) -> None:
    fields = ["a", "b", "c"]
    ext = table_outcome(_speedups, rows, fields, paths, "h", keys)
    assert ext == table_outcome(_speedups_py, rows, fields, paths, "h", keys)
    assert (ext == ("ok", "None")) == any(tuple(r) != keys for r in rows)


def test_encode_table_keys_take_other_key_objects() -> None:
    # Keys equal but not the same objects (as a JSON parser may build them) still match.
    rows = [{"".join(["i", "d"]): 1}, {"".join(["i", "d"]): 2}]
    for module in (_speedups_py, _speedups) if _speedups else (_speedups_py,):
        assert module.encode_table(rows, ["id"], [("id",)], None, "", ("id",)) == (
            "1\n2",
            False,
            frozenset(),
        )


@need_ext
@given(
    st.lists(st.dictionaries(st.sampled_from(["f0", "f1", "f2", "f3"]), STYLED), max_size=40),
    st.sampled_from([["f0", "f1", "f2", "f3"], ["f0", "f1", "f2"], ["f0", "f0", "f1", "f2", "f3"]]),
)
def test_encode_table_agrees_on_styles(rows: list[dict[str, Any]], fields: list[str]) -> None:
    paths = [(f,) for f in fields]
    ext = table_outcome(_speedups, rows, fields, paths, "h")
    assert ext == table_outcome(_speedups_py, rows, fields, paths, "h")


@need_ext
@pytest.mark.parametrize(
    "rows",
    [
        [{"a": 1, "b": "x"}] * 16 + [{"a": None, "b": None}] * 9,  # empty=null only later
        [{"a": None, "b": None}] * 16 + [{"a": 1}] * 30,  # empty=null only early
        [{"a": "x"}] * 16 + [{"a": 2.0, "b": 3.0}] * 3,  # float= only later
        [{"a": 2.0}] * 16 + [{"a": 3}],  # float= broken by a late int
        [{"a": 2.0, "b": "x"}] * 16 + [{"a": 3.0, "b": "\u0100"}] * 4,  # wide text, late
    ],
    ids=["null-late", "null-early", "float-late", "int-late", "wide-late"],
)
def test_encode_table_when_the_first_rows_mislead(rows: list[dict[str, Any]]) -> None:
    fields = ["a", "b"]
    paths = [("a",), ("b",)]
    ext = _speedups.encode_table(rows, fields, paths, "h", "\n", None)
    assert ext == _speedups_py.encode_table(rows, fields, paths, "h", "\n", None)
    assert ext is not None
    _, empty_null, floats = ext
    assert (empty_null, floats) == _speedups_py.scan_style(rows, fields)


@need_ext
@given(
    st.lists(st.one_of(st.dictionaries(MEMBER, NESTED_VALUES, max_size=3), st.none()), max_size=6),
    MEMBER,
)
def test_dict_column_agrees(rows: list[dict[str, Any]], name: str) -> None:
    assert outcome(_speedups.dict_column, rows, name) == outcome(
        _speedups_py.dict_column, rows, name
    )


CONSTANT_VALUES = st.sampled_from(
    [None, 1, 1.0, -0.0, 0.0, True, False, "x", float("nan"), 2**70, [1], {"a": 1}]
)


@need_ext
@given(
    st.lists(
        st.dictionaries(
            MEMBER, st.one_of(CONSTANT_VALUES, st.dictionaries(MEMBER, CONSTANT_VALUES))
        ),
        max_size=5,
    ),
    st.lists(st.lists(MEMBER, min_size=1, max_size=2).map(tuple), max_size=4),
)
def test_constant_columns_agrees(rows: list[dict[str, Any]], paths: Any) -> None:
    ext = outcome(_speedups.constant_columns, rows, paths)
    assert ext == outcome(_speedups_py.constant_columns, rows, paths)


STYLE_VALUES = st.sampled_from([None, 1, 2.0, -3.0, 1e16, 0.5, "x", True, float("nan")])


@need_ext
@given(st.lists(st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), STYLE_VALUES), max_size=12))
def test_scan_style_agrees(rows: list[dict[str, Any]]) -> None:
    fields = ["a", "b", "c"]  # a "d" key is outside the fields: left out by both
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


ATTACH_VALUES = st.sampled_from([None, 0, 1, 2, True, "x", {}, {"b[]": 1, "z": 0}])
ATTACH_ROW = st.dictionaries(st.sampled_from(["a", "b", "b[]", "o"]), ATTACH_VALUES)
ATTACH_ITEM = st.dictionaries(st.sampled_from(["[]", "c"]), st.sampled_from([0, 1, 2, -1, 2**70]))


@need_ext
@given(
    st.lists(ATTACH_ROW, max_size=4),
    st.lists(ATTACH_ITEM, max_size=5),
    st.sampled_from([("b",), ("o", "b"), ("a", "o", "b")]),
)
def test_attach_items_agrees(rows: list[dict[str, Any]], items: list[Any], path: Any) -> None:
    # Each twin gets its own copies; the rows and items as each left them are compared too.
    results = []
    for twin in (_speedups, _speedups_py):
        mine, its = copy.deepcopy(rows), copy.deepcopy(items)
        result = outcome(twin.attach_items, mine, its, path, "[]")
        results.append((result, repr(mine), repr(its)))
    assert results[0] == results[1]


def test_attach_items_renames_the_count_at_its_place(twin: str) -> None:
    rows: list[Any] = [{"a": 1, "b[]": 2, "z": 3}, {"a": 2, "b[]": None}, {"a": 3}]
    items = [{"[]": 0, "c": 1}, {"[]": 0, "c": 2}]
    module = _speedups if twin == "c" else _speedups_py
    held = rows[0]
    module.attach_items(rows, items, ("b",), "[]")
    assert rows == [{"a": 1, "b": [{"c": 1}, {"c": 2}], "z": 3}, {"a": 2, "b": None}, {"a": 3}]
    assert list(rows[0]) == ["a", "b", "z"] and rows[0] is not held and rows[2] is not None
    nested: list[Any] = [{"o": {"b[]": 1, "z": 0}, "y": 1}]
    module.attach_items(nested, [{"[]": 0}], ("o", "b"), "[]")
    assert nested == [{"o": {"b": [{}], "z": 0}, "y": 1}] and list(nested[0]["o"]) == ["b", "z"]


TEMPLATE_VALUES = st.one_of(
    st.sampled_from([None, True, 1.5, 0, -7, 2**63, -(2**64) - 1, "", "x", "é😀"]), TEXT
)
TEMPLATES = st.lists(
    st.tuples(st.sampled_from(["d", "e", "s"]), st.sampled_from(["s", "t"]), TEXT, TEXT),
    max_size=3,
)


@need_ext
@given(
    st.lists(st.dictionaries(st.sampled_from(["s", "t", "d"]), TEMPLATE_VALUES), max_size=4),
    TEMPLATES,
)
def test_add_templates_agrees(rows: list[dict[str, Any]], templates: Any) -> None:
    results = []
    for twin in (_speedups, _speedups_py):
        mine = copy.deepcopy(rows)
        results.append((outcome(twin.add_templates, mine, templates), repr(mine)))
    assert results[0] == results[1]


# Section bodies: rows, comments, blanks, CRLF, headers, long, bracket-heavy and
# digit-heavy lines; literal cells with strings, JSON and GCX1 escapes in them.
DEEP = st.text(st.sampled_from('[]{}"\\nt0x'), max_size=12).map(lambda s: "[" + s)
LINES = st.one_of(
    st.lists(st.one_of(TEXT, DEEP), min_size=1, max_size=4).map("\t".join),
    st.sampled_from(["", "#note", "#", "\r", "GCX1 tool=t fields=a", "[[[{", "x" * 30]),
    st.sampled_from(["1234567", "#123456", '[\\"1234567]', "[[[[[[[0]]]]]]]", '["[[[[[["]']),
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
    st.integers(0, 6),
    st.integers(0, 6),
)
def test_decode_rows_agrees(
    lines: list[str],
    eol: str,
    start: int,
    nfields: int,
    flags: Any,
    max_line: int,
    depth: int,
    digits: int,
    padding: int,
) -> None:
    text = eol.join(lines)
    fields = [f"f{i}" for i in range(nfields)]
    args = (text, start, fields, *flags, max_line, depth, digits, padding)
    ext = outcome(_speedups.decode_rows, *args)
    assert ext == outcome(_speedups_py.decode_rows, *args)


# The encoder's fast path for a list whose rows share the first row's keys
# must write exactly what the general path (key-order merge first) writes.
LIST_ROWS = st.lists(
    st.one_of(
        st.dictionaries(MEMBER, st.one_of(json_values(3), st.dictionaries(MEMBER, STYLED))),
        st.sampled_from([None, 1, [1]]),
    ),
    max_size=6,
)


@given(st.one_of(LIST_ROWS, LIST_ROWS.map(lambda rows: rows[:1] * 3)))
def test_uniform_table_writes_what_the_general_path_writes(rows: list[Any]) -> None:
    from gcxwire import _gcx_header, _gcx_plan, _gcx_section

    tool = _gcx_header._tool_text("t")
    try:
        fast = _gcx_section._uniform_table(rows, tool)
    except Exception as exc:  # then the general path fails the same way
        fast = f"{type(exc).__name__}: {exc}"
    if fast is None:
        return
    try:
        fields = _gcx_plan._table_fields(rows, "$")
        assert fields is not None
        table = _gcx_section._section(rows, fields, "$", tool, None, (), (tool, "", 0))
        assert table is not None
        general = table[2]
    except Exception as exc:
        general = f"{type(exc).__name__}: {exc}"
    assert fast == general


TWIN_MODULES = [_speedups_py, _speedups] if _speedups else [_speedups_py]


@pytest.mark.parametrize("keys", [None, ("a", "b")])
@pytest.mark.parametrize("module", TWIN_MODULES, ids=lambda m: m.__name__)
def test_encode_table_survives_a_cell_that_changes_the_table(module: Any, keys: Any) -> None:
    """Memory safety: a cell whose text is computed by code that empties the rows,
    their dicts and the shared buffer's user (a nested call) while they are written."""
    rows = [{"a": i, "b": "x" * i} for i in range(40)]
    nested = []

    class Meddler(int):
        def __str__(self) -> str:
            for row in rows:
                row.clear()
            rows.clear()
            nested.append(module.encode_table([{"a": "é" * 99}], ["a"], [("a",)], "h", "\n", None))
            return "5"

    rows[3]["a"] = Meddler(5)
    out = module.encode_table(list(rows), ["a", "b"], [("a",), ("b",)], "h", "\n", keys)
    assert nested == [("h\n" + "é" * 99, False, frozenset())]
    # What rows read after the change hold may differ between twins; the rows before not.
    assert out is None or out[0].startswith('h\n0\t""\n1\tx\n2\txx\n5')


OBJECTS = st.dictionaries(
    st.sampled_from(["items", "more", "total", "a b", ""]),
    st.one_of(
        LIST_ROWS,
        LIST_ROWS.map(lambda rows: rows[:1] * 3),
        json_values(3),
        st.sampled_from(  # tables that fail: the error must come from the same member
            [
                [{"x": float("nan")}, {"x": 1}],
                [{"x": 1}, {"x": [float("inf")]}],
                [{"x": 1}, {1: 2}],
                [{"x": {"y": float("nan")}}, {"x": {"y": 1}}],
            ]
        ),
    ),
    max_size=4,
)


@given(OBJECTS)
def test_object_members_fast_path_writes_what_the_general_path_writes(value: Any) -> None:
    from unittest import mock

    from gcxwire import _gcx_record, gcx

    def encoded() -> str:
        try:
            return gcx.encode(value, tool="t")
        except Exception as exc:  # both paths must fail the same way
            return f"{type(exc).__name__}: {exc} at {getattr(exc, 'path', None)}"

    fast = encoded()
    with mock.patch.object(_gcx_record, "_uniform_section", lambda rows, path, below=None: None):
        assert encoded() == fast


class _NestingKey(str):
    """A row key whose comparison encodes another table: a call inside a call."""

    module: Any = _speedups_py
    __hash__ = str.__hash__

    def __eq__(self, other: object) -> bool:
        inner = [{"x": "inner" * 50} for _ in range(40)]
        assert self.module.encode_table(inner, ["x"], [("x",)], None, "", None)[0].count("\n") == 39
        return str.__eq__(self, other)


def test_encode_table_inside_encode_table_keeps_both_texts(twin: str) -> None:
    # The extension keeps one spare byte buffer between calls; a call made
    # while another is writing (here from a key's __eq__) must get its own.
    module = _speedups if twin == "c" else _speedups_py
    _NestingKey.module = module
    rows = [{_NestingKey("k"): f"outer {i}"} for i in range(30)]
    text = module.encode_table(rows, ["k"], [("k",)], None, "", ("k",))
    assert text == (("\n".join(f"outer {i}" for i in range(30))), False, frozenset())


def test_encode_table_from_threads_each_gets_its_own_text() -> None:
    import threading

    results: dict[int, list[str]] = {}

    def work(t: int) -> None:
        rows = [{"a": f"thread {t} row {i} " * 20} for i in range(200)]
        want = "\n".join(r["a"] for r in rows)
        got = results.setdefault(t, [])
        for _ in range(20):
            table = _impl.encode_table(rows, ["a"], [("a",)], None, "", None)
            got.append("ok" if table is not None and table[0] == want else "mixed")

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert {t: set(v) for t, v in results.items()} == {t: {"ok"} for t in range(4)}


class _Text(str):
    pass


# Strings that share long prefixes, or stop short of them, beside other cells.
PREFIX_VALUES = st.one_of(
    st.sampled_from(["https://a.io/x/", "https://a.io/", "https://a.io/x/1", "h", ""]).flatmap(
        lambda head: st.text("/ab\xe9\u0100", max_size=4).map(lambda tail: head + tail)
    ),
    st.sampled_from([None, 1, 2.5, True, [1], (1,), _Text("https://a.io/x/9")]),
    st.dictionaries(MEMBER, st.sampled_from(["https://a.io/x/7", "https://a.io/y", 3])),
)


@need_ext
@given(
    st.lists(
        st.one_of(st.dictionaries(MEMBER, PREFIX_VALUES, max_size=3), st.just([1])), max_size=12
    ),
    st.lists(st.one_of(st.none(), st.lists(MEMBER, min_size=1, max_size=2).map(tuple)), max_size=4),
    st.integers(0, 16),
)
def test_column_prefixes_agrees(rows: list[Any], paths: Any, least: int) -> None:
    ext = outcome(_speedups.column_prefixes, rows, paths, least)
    assert ext == outcome(_speedups_py.column_prefixes, rows, paths, least)


# Rows whose key sets and orders differ: some merge, some conflict (no order
# agrees), some are not exact dicts or hold a key that is not an exact str.
ORDER_ROWS = st.lists(
    st.one_of(
        st.lists(st.sampled_from("abcdef"), max_size=5, unique=True).map(dict.fromkeys),
        st.sampled_from([{1: 0}, {_Text("a"): 0}, [1], None]),
    ),
    max_size=10,
)


@need_ext
@given(ORDER_ROWS)
def test_key_order_agrees(rows: list[Any]) -> None:
    assert outcome(_speedups.key_order, rows) == outcome(_speedups_py.key_order, rows)


def _fresh(key: str) -> str:
    # An equal str that is another object (the extension finds keys by address first).
    return "".join(list(key))


@need_ext
def test_key_order_agrees_on_equal_keys_of_other_objects() -> None:
    # Keys met again as new objects, many keys (the address map grows), an order
    # seen first with one set of objects and contradicted with another.
    names = [f"column_{i}" for i in range(300)]
    rows: list[Any] = [dict.fromkeys(names[:150]), dict.fromkeys(map(_fresh, names[100:]))]
    rows += [dict.fromkeys([_fresh(names[i]), names[i + 1]]) for i in range(0, 299, 7)]
    assert _speedups.key_order(rows) == _speedups_py.key_order(rows) == names
    rows.append({"first": 0, _fresh(names[0]): 0})  # a key seen last goes first
    assert _speedups.key_order(rows) == _speedups_py.key_order(rows) == ["first", *names]
    rows.append({_fresh(names[5]): 0, _fresh(names[2]): 0})  # 5 before 2: no order agrees
    assert _speedups.key_order(rows) is None
    assert _speedups_py.key_order(rows) is None


_NOT_PLAIN = st.sampled_from(
    [float("nan"), float("inf"), 2**63, -(2**63) - 1, 2**64, (1, 2), {1: 2}, b"x", True.__class__]
)


@need_ext
@given(
    st.recursive(
        json_values(2) | _NOT_PLAIN,
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
        ),
        max_leaves=12,
    )
)
def test_plain_json_agrees(value: Any) -> None:
    assert _speedups.plain_json(value) == _speedups_py.plain_json(value)


def test_plain_json_depth_limit(twin: str) -> None:
    deep: Any = 1
    for _ in range(250):  # 250 lists deep, as is_plain and orjson take; 251 is refused
        deep = [deep]
    assert _impl.plain_json(deep) and not _impl.plain_json([deep])


_DCP_CELLS = json_values(2) | _NOT_PLAIN
_DCP_RECORDS: st.SearchStrategy[list[Any]] = st.lists(
    st.dictionaries(
        st.sampled_from(["id", "a", "b.c", "", 1]),
        _DCP_CELLS
        | st.dictionaries(st.sampled_from(["x", "y", "", "p.q"]), _DCP_CELLS, max_size=2),
        max_size=4,
    )
    | st.sampled_from([None, [], _Text("a")]),
    max_size=5,
)


@need_ext
@settings(max_examples=40)
@given(_DCP_RECORDS, st.sampled_from([None, "-"]))
def test_dcp_rows_agrees(records: list[Any], absent: Any) -> None:
    got = outcome(_speedups.dcp_rows, records, absent)
    assert got == outcome(_speedups_py.dcp_rows, records, absent)


@need_ext
@settings(max_examples=40)
@given(st.lists(st.lists(json_values(1) | st.just("],["), max_size=3), min_size=1, max_size=4))
def test_dcp_lines_agrees(rows: list[Any]) -> None:
    try:
        text = orjson.dumps(rows)
    except TypeError:  # big ints, lone surrogates: never handed to dcp_lines
        assume(False)
    for count in (len(rows), len(rows) + 1):
        for head in ("H", "\u00e9", "\u4e00", "\U0001f600\ud800"):
            got = outcome(_speedups.dcp_lines, text, count, head)
            assert got == outcome(_speedups_py.dcp_lines, text, count, head)
    assert _speedups.dcp_lines(b"[]", 0, "") is None


@need_ext
@settings(max_examples=60)
@given(st.binary(max_size=12), st.text(max_size=2))
def test_dcp_lines_agrees_on_any_bytes(body: bytes, head: str) -> None:
    # orjson writes only UTF-8, but the leaf's own decoder must judge as Python's does
    text = b"[" + body + b"]"
    assert outcome(_speedups.dcp_lines, text, 1, head) == outcome(
        _speedups_py.dcp_lines, text, 1, head
    )


# UTF-8 of a 1-, 2-, 3- and 4-byte character and pieces of them, so rows cut a
# character in two at a "],[" or hold one of each width.
_UTF8_PIECES = st.sampled_from(
    [
        b"a",
        b"\xc3\xa9",
        b"\xe4\xb8\x80",
        b"\xf0\x9f\x98\x80",
        b"\xc3",
        b"\xe4\xb8",
        b"\x9f\x98\x80",
        b"\x80",
        b"\xff",
    ]
)


@need_ext
@settings(max_examples=60)
@given(st.lists(st.lists(_UTF8_PIECES, max_size=12).map(b"".join), min_size=2, max_size=4))
def test_dcp_lines_agrees_on_rows_of_any_utf8_pieces(rows: list[bytes]) -> None:
    # the leaf decodes a row at a time: a character split by a row's end must be refused
    text = b"[[" + b"],[".join(rows) + b"]]"
    for head in ("H", "\u4e00"):
        assert outcome(_speedups.dcp_lines, text, len(rows), head) == outcome(
            _speedups_py.dcp_lines, text, len(rows), head
        )


_JOIN_LINES = st.lists(st.text(alphabet='[]{}",\\01a\n\r', max_size=8), min_size=1, max_size=4)


@need_ext
@settings(max_examples=60)
@given(_JOIN_LINES, st.integers(0, 3), st.integers(1, 4), st.integers(1, 3))
def test_dcp_join_agrees(lines: list[str], start: int, max_line: int, depth: int) -> None:
    text = "\n".join(lines)
    for doc in (text, text + "\u00e9", text + "\u4e00", text + "\U0001f600", "\u4e00\n" + text):
        got = outcome(_speedups.dcp_join, doc, start, max_line, depth)
        assert got == outcome(_speedups_py.dcp_join, doc, start, max_line, depth)


def test_dcp_join_reads_one_array_per_line(twin: str) -> None:
    assert _impl.dcp_join('H\n[1,"a\\\\"]\n[[2]]\n', 2, 20, 2) == ('[[1,"a\\\\"],[[2]]]', 2)
    assert _impl.dcp_join('H\n[1,"a\\"]', 2, 20, 2) is None  # the string is not closed
    assert _impl.dcp_join("H\n[1],[2]", 2, 20, 2) is None  # two arrays on one line
    assert _impl.dcp_join("H\n[[[1]]]", 2, 20, 2) is None  # deeper than 2
    assert _impl.dcp_join("H\n[1234567890123456789]", 2, 40, 2) is None  # orjson: a float
    assert _impl.dcp_join("H\n", 2, 20, 2) == ("[]", 0)


@need_ext
@settings(max_examples=40)
@given(
    st.lists(
        st.lists(json_values(1) | st.sampled_from(["-", "--", _Text("-")]), max_size=3)
        | st.sampled_from([None, ("a", "b")]),
        max_size=4,
    ),
    st.booleans(),
)
def test_dcp_records_agrees(rows: list[Any], dash: bool) -> None:
    names = ("a", "b")
    got = outcome(_speedups.dcp_records, rows, names, dash)
    assert got == outcome(_speedups_py.dcp_records, rows, names, dash)


def test_dcp_records_leave_out_dashes(twin: str) -> None:
    rows: list[Any] = [["-", 1], ["x", "-"]]
    assert _impl.dcp_records(rows, ["a", "b"], True) == [{"b": 1}, {"a": "x"}]
    assert _impl.dcp_records(rows, ["a", "b"], False) == [{"a": "-", "b": 1}, {"a": "x", "b": "-"}]
    assert _impl.dcp_records([[1]], ["a", "b"], False) is None


# Cells a layout reads: blanks, strings with the infix mark, numbers, big ints, literals.
_LAYOUT_CELLS = st.sampled_from(
    [
        "",
        "\\",
        "x",
        "a\u2026b",
        "\u2026",
        "12",
        "-0",
        "1.5",
        "null",
        "true",
        "[1]",
        '"q"',
        "9" * 25,
        "é",
    ]
)
# Fields a, b, c, d: a is constant (its cell blank or it errs); b and c in group
# g, c in g.h, c prefixed, b infixed; d derived from b.
_LAYOUT = (
    ((0, "a", 0), (0, "g", -1), (1, "b", 1), (1, "h", -2), (2, "c", 2), (0, "d", 3)),
    2,
    ((0, "a", "k"),),
    ((1, "\u2026", "<mid>"),),
    ((2, "pre/"),),
    ((3, 1, "u/", "", "d", "b"),),
)


@need_ext
@given(
    st.lists(st.lists(_LAYOUT_CELLS, min_size=1, max_size=5), max_size=6),
    st.booleans(),
    st.sampled_from([NONE, frozenset(["c"])]),
)
def test_decode_rows_layouts_agree(rows: list[list[str]], empty_null: bool, floats: Any) -> None:
    text = "".join("\t".join(cells) + "\n" for cells in rows)
    args = (text, 0, ["a", "b", "c", "d"], True, empty_null, floats, 99, 9, 20, 99, _LAYOUT)
    assert outcome(_speedups.decode_rows, *args) == outcome(_speedups_py.decode_rows, *args)
