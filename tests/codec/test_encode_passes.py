"""The encoder's column-wise detection passes read the same as their row-by-row definitions."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from gcxwire import _gcx_cell_styles, _gcx_columns, _gcx_section, _gcx_template, _speedups_py
from gcxwire._gcx_model import _CRLF, _JSON, _STR
from gcxwire._values import ABSENT

from .gcx_checks import leaves

_CELL = st.one_of(
    st.none(), st.integers(-5, 12), st.sampled_from(["a", "7", "x7y", "\r\n", "a\rb"])
)
_ROW = st.one_of(
    st.dictionaries(st.sampled_from(["a", "b"]), st.one_of(_CELL, st.dictionaries(
        st.sampled_from(["a", "b"]), st.one_of(_CELL, st.dictionaries(st.just("a"), _CELL))
    )), max_size=2),
    st.just(3),
)  # fmt: skip
_PATH = st.lists(st.sampled_from(["a", "b"]), min_size=1, max_size=3).map(tuple)


@settings(max_examples=60)
@given(st.lists(_ROW, max_size=12), _PATH)
def test_a_column_is_each_rows_value_at_the_path(rows: list[Any], path: tuple[str, ...]) -> None:
    assert _gcx_columns._column(rows, path) == [_gcx_columns._at(row, path) for row in rows]


@settings(max_examples=60)
@given(st.text(alphabet="\r\nab", max_size=12))
def test_crlf_only_is_no_lone_cr_or_lf(text: str) -> None:
    bare = text.replace("\r\n", "")
    assert _gcx_cell_styles._crlf_only(text) == ("\r" not in bare and "\n" not in bare)


def _follow_by_rows(
    rows: list[Any], path: Any, source: Any, before: str, after: str, beat: int
) -> int:
    # The row-by-row count _follow stood for: 0 at a row lacking the column or
    # once the rows left cannot reach the rows needed.
    size = len(rows)
    need = max(beat + 1, min(size, _gcx_template._TEMPLATE_ROWS), (size + 1) // 2)
    count = 0
    for i, row in enumerate(rows):
        value = _gcx_columns._at(row, path)
        if value is ABSENT:
            return 0
        text = (
            _gcx_template._source_text(_gcx_columns._at(row, source))
            if type(value) is str
            else None
        )
        if text is not None and value == before + text + after:
            count += 1
        elif count + size - i - 1 < need:
            return 0
    return count


@settings(max_examples=80)
@given(
    st.lists(
        st.fixed_dictionaries(
            {"n": st.one_of(st.integers(1, 3), st.just("2"))},
            optional={"u": st.sampled_from(["u/1", "u/2", "u/3", "v/2", "u/x"])},
        ),
        max_size=12,
    ),
    st.integers(0, 13),
)
def test_follow_counts_as_a_row_by_row_walk(rows: list[dict[str, Any]], beat: int) -> None:
    args = (rows, ("u",), ("n",), "u/", "", beat)
    assert _gcx_template._follow(*args) == _follow_by_rows(*args)


def _styles_by_passes(text: str, header: bool, rows: Any, cells: Any, paths: Any) -> Any:
    # _cell_styles as each pass runs in turn, with no shortcut before them.
    marks = []
    raw = _gcx_cell_styles._raw_json(text, header)
    if raw is not None:
        text = raw
        marks.append((_JSON, "raw"))
    for found, key in ((_gcx_cell_styles._unguarded, _STR), (_gcx_cell_styles._crlf, _CRLF)):
        got = found(text, header, rows, cells, paths)
        if got is not None:
            text = got[0]
            marks.append((key, got[1]))
    return text, marks


_STYLED = st.sampled_from(["62", "true", "a\r\nb", ["\\"], {"k": "\\\\x"}, "x", 7, None])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.fixed_dictionaries({"a": _STYLED, "b": _STYLED}), min_size=1, max_size=12))
def test_cell_styles_match_their_passes(twin: str, rows: list[dict[str, Any]]) -> None:
    # Also on text with no backslash, which _cell_styles hands back unread.
    paths = [("a",), ("b",)]
    table = leaves(twin).encode_table(rows, ["a", "b"], paths, "GCX1 t", "\n", None)
    assert table is not None
    text = table[0]
    for header in (True, False):
        body = text if header else text.split("\n", 1)[1] if "\n" in text else ""
        got = _gcx_cell_styles._cell_styles(body, header, rows, ["a", "b"], paths)
        assert got == _styles_by_passes(body, header, rows, ["a", "b"], paths)


def test_rows_of_other_keys_leave_the_uniform_path_before_its_passes(
    monkeypatch: Any,
) -> None:
    # The writer would give None for them: the prefix and template searches are not run.
    rows: list[dict[str, Any]] = [{"a": i, "b": "x" * 20} for i in range(40)]
    rows[20] = {"b": "y" * 20, "a": 1}

    def never(*args: Any) -> Any:
        raise AssertionError("searched a table the writer refuses")

    monkeypatch.setattr(_gcx_section, "_prefixes", never)
    monkeypatch.setattr(_gcx_section, "_templates", never)
    assert _gcx_section._uniform_table(rows, "t") is None


def test_column_prefixes_read_on_as_columns_settle(twin: str) -> None:
    # Most columns settle in the first rows (no shared prefix left) while an int
    # column stays open: the leaf then reads fewer columns, with the same result.
    rows: list[dict[str, Any]] = []
    for i in range(40):
        row: dict[str, Any] = {
            "a": f"x{i}/y",  # no prefix after row 1
            "b": i,  # ints to the end, then strings
            "c": f"https://host.example/{i % 3}",  # one shared prefix
            "d": {"e": f"q{i}", "f": "https://host.example/u/v"},
            "g": [i] if i == 30 else "kept-prefix/for/ever/and/ever",  # dies at row 30
        }
        if i >= 35:
            row["b"] = f"https://late.example/{i}"
        rows.append(row)
    paths = [("a",), ("b",), ("c",), ("d", "e"), ("d", "f"), ("g",), None]
    for least in (0, 3, 12):
        assert leaves(twin).column_prefixes(rows, paths, least) == _speedups_py.column_prefixes(
            rows, paths, least
        )
