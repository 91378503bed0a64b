"""The flat-table searches (prefix=, infix=, template=) give up cheaply, with the same answers."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gcxwire import _gcx_columns, _gcx_infix, _gcx_prefix, _gcx_section, _speedups_py, gcx
from gcxwire._values import ABSENT, int_to_str

from .gcx_checks import leaves, roundtrip


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


# The Python the column_strings and infix_runs leaves replaced, kept as their definition.
_OLD_SEPARATOR = re.compile(r"[/?&#]")
_OLD_URL_TEXT = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+")


def _old_column_strings(values: list[Any], cut: int) -> list[str] | None:
    out: list[str] = []
    for value in values:
        if value is ABSENT or not isinstance(value, str):
            continue
        if _gcx_infix.MARK in value:
            return None
        if type(value) is str:
            out.append(value[cut:])
    return out


def _old_runs(seed: str, other: str) -> list[str]:
    cuts = [m.start() for m in _OLD_SEPARATOR.finditer(seed, 0, _gcx_infix._SEED_LENGTH)]
    cuts = cuts[: _gcx_infix._SEED_CUTS]
    if len(cuts) < 2:
        return []
    runs: list[str] = []
    start: int | None = None
    for i in range(len(cuts)):
        if i + 1 < len(cuts) and seed[cuts[i] + 1 : cuts[i + 1]] in other:
            if start is None:
                start = i
            continue
        if start is not None:
            run = seed[cuts[start] + 1 : cuts[i]]
            if (
                len(run) >= _gcx_infix._INFIX_MIN
                and _OLD_SEPARATOR.match(run) is None
                and _OLD_SEPARATOR.match(run[-1]) is None
                and _OLD_URL_TEXT.fullmatch(run) is not None
            ):
                runs.append(run)
            start = None
    return runs


def _old_candidates(strings: list[str]) -> list[str]:
    # The runs the old _best_run scored, in its order.
    size, longest = _gcx_infix._SEED_SIZE, _gcx_infix._SEED_LENGTH
    seeds = [s for s in strings if size <= len(s) <= longest][: _gcx_infix._SEEDS + 1]
    return [run for seed, other in zip(seeds, seeds[1:]) for run in _old_runs(seed, other)]


class _Text(str):
    pass


_SEGMENT = st.sampled_from(
    ["img", "rs:fit:32:32", "g:ce", "plain", "é", "a b", "</b>", "", "x…y", "0123456789abcdef"]
)
_URLISH = (
    st.lists(_SEGMENT, max_size=8)
    .flatmap(
        lambda parts: st.tuples(
            st.just(parts),
            st.lists(st.sampled_from("/?&#"), min_size=len(parts), max_size=len(parts)),
        )
    )
    .map(lambda t: "".join(p + s for p, s in zip(*t, strict=True)))
)
_CELL = st.one_of(
    _URLISH, st.none(), st.integers(0, 3), _URLISH.map(_Text), st.lists(st.just(1), max_size=1)
)
_ROW = st.one_of(
    st.dictionaries(
        st.sampled_from(["a", "b"]),
        st.one_of(_CELL, st.dictionaries(st.just("a"), _CELL)),
        max_size=2,
    ),
    st.just(3),
)


@settings(max_examples=40)
@given(st.lists(_ROW, max_size=10), st.integers(0, 6))
def test_column_strings_read_as_the_old_python(twin: str, rows: list[Any], cut: int) -> None:
    paths = [("a",), ("b", "a"), None, ("b",)]
    got = leaves(twin).column_strings(rows, paths, [cut, 1, 0, 0], _gcx_infix.MARK)
    want = [
        None if p is None else _old_column_strings(_gcx_columns._column(rows, p), c)
        for p, c in zip(paths, [cut, 1, 0, 0], strict=True)
    ]
    assert got == want


@settings(max_examples=25)
@given(st.lists(_URLISH.map(lambda s: "sig" + s + "tail"), max_size=7))
def test_infix_runs_are_the_old_pythons_candidates(twin: str, strings: list[str]) -> None:
    got = leaves(twin).infix_runs(
        strings,
        _gcx_infix._SEEDS,
        _gcx_infix._SEED_SIZE,
        _gcx_infix._SEED_LENGTH,
        _gcx_infix._INFIX_MIN,
        _gcx_infix._SEED_CUTS,
    )
    assert got == _old_candidates(strings)


def test_infix_runs_of_a_url_column(twin: str) -> None:
    strings = [u["url"] for u in _linked(5)]
    got = leaves(twin).infix_runs(strings, 3, 20, 4096, 16, 48)
    assert got == ["rs:fit:32:32:1:0/g:ce/plain"] * 3  # one per pair of the first four


class _Row(dict):  # type: ignore[type-arg]
    pass


def test_column_strings_read_every_row_once_as_the_pure_twin(twin: str) -> None:
    # Rows read in one walk each: keys that are other objects than the paths' (by
    # value), keys in another order, a dict subclass row (holds nothing: exact dicts
    # only), a column asked twice, a marked string late in one column, wide rows.
    names = [f"k{i}" for i in range(40)]
    rows: list[Any] = []
    for n in range(60):
        row = {"".join(list(name)): f"v{n}/{name}/tail" for name in names if (n + len(name)) % 3}
        if n % 7 == 0:
            row = dict(reversed(list(row.items())))
        rows.append(_Row(row) if n % 11 == 5 else row)
    rows[45]["k1"] = "x…y"
    paths: list[Any] = [(name,) for name in names] + [("k2",), None, ("k3", "x")]
    cuts = [n % 4 for n in range(len(paths))]
    got = leaves(twin).column_strings(rows, paths, cuts, _gcx_infix.MARK)
    assert got == _speedups_py.column_strings(rows, paths, cuts, _gcx_infix.MARK)
    assert got[1] is None and len(got[2] or ()) == len(got[40] or ()) > 0
    assert got[41] is None and got[42] == []


def test_column_strings_refuse_what_is_no_column(twin: str) -> None:
    leaf = leaves(twin).column_strings
    with pytest.raises(ValueError, match="differ in length"):
        leaf([], [("a",)], [], "…")
    with pytest.raises(ValueError, match="at least one key"):
        leaf([], [()], [0], "…")
    with pytest.raises(ValueError, match="never negative"):
        leaf([], [("a",)], [-1], "…")
    with pytest.raises(TypeError, match="unhashable"):
        leaf([], [(["a"],)], [0], "…")


def _old_probes_follow(rows: list[Any], path: Any, source: Any, before: str, after: str) -> bool:
    # The Python template_probes replaced (_gcx_template._probes_follow).
    size = len(rows)
    misses = 0
    probes = _gcx_columns._PROBES
    for i in range(probes):
        row = rows[i * size // probes]
        value = _gcx_columns._at(row, path)
        if value is ABSENT:
            return False
        got = _gcx_columns._at(row, source)
        text = got if type(got) is str else int_to_str(got) if type(got) is int else None
        if type(value) is not str or text is None or value != before + text + after:
            misses += 1
            if misses > probes // 2:
                return False
    return True


_LINK = st.one_of(
    st.sampled_from(["u/1", "u/2", "u/x", "v/2", "u/", "u/7/x", "u/ab"]),
    st.integers(0, 3),
    st.just(True),
    st.sampled_from(["u/1"]).map(_Text),
)
_SOURCE = st.one_of(st.integers(0, 3), st.sampled_from(["1", "2", "x", "ab", ""]), st.just(True))


@settings(max_examples=60)
@given(
    st.lists(
        st.one_of(
            st.fixed_dictionaries({"n": _SOURCE}, optional={"u": _LINK}),
            st.fixed_dictionaries({"o": st.fixed_dictionaries({"n": _SOURCE, "u": _LINK})}),
            st.just(5),
        ),
        min_size=1,
        max_size=40,
    ),
    st.sampled_from([(("u",), ("n",)), (("o", "u"), ("o", "n")), (("u",), ("o", "n"))]),
    st.sampled_from([("u/", ""), ("", ""), ("u/", "/x"), ("v", "")]),
)
def test_template_probes_hold_as_the_old_python(
    twin: str, rows: list[Any], paths: Any, around: tuple[str, str]
) -> None:
    path, source = paths
    got = leaves(twin).template_probes(rows, path, source, *around, _gcx_columns._PROBES)
    assert got == _old_probes_follow(rows, path, source, *around)


def test_template_probes_refuse_a_text_that_is_no_str(twin: str) -> None:
    with pytest.raises(TypeError, match="must be str"):
        leaves(twin).template_probes([{"u": "a"}], ("u",), ("n",), b"x", "", 1)


_PREFIXED = st.sampled_from(
    ["https://host.example/a/1", "https://host.example/a/2", "https://host.example/b", "x/y", ""]
)
_MEMBER = st.one_of(_PREFIXED, st.integers(0, 3), st.none(), _PREFIXED.map(_Text), st.just([1]))


def _fresh(key: str) -> str:
    # An equal key that is another object: the leaf must look it up, not skip it.
    return "".join(list(key))


@settings(max_examples=40)
@given(
    st.lists(
        st.one_of(
            st.dictionaries(
                st.sampled_from(["a", "b", "c", "z"]).map(lambda k: k if k != "z" else _fresh("b")),
                _MEMBER,
                max_size=4,
            ),
            st.just(3),
        ),
        max_size=30,
    ),
    st.lists(st.one_of(st.sampled_from(["a", "b", "c"]), st.none()), max_size=4),
    st.sampled_from([0, 3, 12]),
)
def test_flat_prefixes_are_column_prefixes_of_top_level_members(
    twin: str, rows: list[Any], keys: list[str | None], least: int
) -> None:
    # Rows of other key orders, other key objects, a key twice and non-dict rows included.
    got = leaves(twin).flat_prefixes(rows, keys, least)
    paths = [None if key is None else (key,) for key in keys]
    assert got == _speedups_py.column_prefixes(rows, paths, least)


def test_flat_prefixes_read_many_rows_alike(twin: str) -> None:
    # Rows built alike (one walk each) while most columns are open, then lookups.
    rows = [
        {"a": f"https://host.example/{i}", "b": i, "c": f"https://host.example/u/{i % 3}"}
        for i in range(50)
    ]
    rows[40] = {"c": "https://host.example/u/9", "a": "https://host.example/x", "b": "late/one"}
    keys = ["a", "b", "c", None]
    paths = [None if key is None else (key,) for key in keys]
    assert leaves(twin).flat_prefixes(rows, keys, 12) == _speedups_py.column_prefixes(
        rows, paths, 12
    )


def _late_prefix(n: int, first: int) -> list[dict[str, Any]]:
    # A column of ints in its first rows, then of strings sharing a long prefix.
    return [
        {"id": i, "ref": i if i < first else f"https://host.example/api/v2/items/{i}/x"}
        for i in range(n)
    ]


def test_a_prefix_the_first_rows_hold_no_str_of_is_still_found() -> None:
    # The first rows leave `ref` to the writer's count, which finds its strs and
    # sends the table to the whole search: the prefix is written as before.
    rows = _late_prefix(60, 20)
    text = gcx.encode(rows, tool="t")
    assert "prefix=ref=https://host.example/api/v2/" in text.split("\n")[0]
    assert roundtrip(rows) == text
    unsure: list[int] = []
    paths = [("id",), ("ref",)]
    assert _gcx_prefix._prefixes(rows, ["id", "ref"], paths, {}, unsure) == {}
    assert unsure == [0, 1]
    assert not _gcx_prefix._prefixes_stand(rows, paths, unsure, [0, 40])
    assert _gcx_prefix._prefixes(rows, ["id", "ref"], paths, {}) == {
        1: "https://host.example/api/v2/"
    }


def test_a_column_of_few_strs_after_the_first_rows_holds_no_prefix() -> None:
    rows = _late_prefix(60, 58)  # two strings: a prefix needs three
    paths = [("id",), ("ref",)]
    unsure: list[int] = []
    assert _gcx_prefix._prefixes(rows, ["id", "ref"], paths, {}, unsure) == {}
    assert _gcx_prefix._prefixes_stand(rows, paths, unsure, [0, 2])
    assert "prefix=" not in gcx.encode(rows, tool="t")


def test_encode_table_counts_each_columns_strs(twin: str) -> None:
    rows = [{"a": "x", "b": 1, "c": _Sub("s")}, {"a": "yy", "b": "z", "c": None}, {"b": True}]
    paths = [("a",), ("b",), ("c",), None]
    for cuts in (None, [1, 0, 0, 0]):
        counted: list[int] = [9]
        assert leaves(twin).encode_table(rows, list("abcd"), paths, None, "\n", None, cuts, counted)
        assert counted == [2, 1, 0, 0]
    with pytest.raises(TypeError, match="counted must be a list or None, not tuple"):
        leaves(twin).encode_table(rows, list("abcd"), paths, None, "\n", None, None, ())


class _Sub(str):
    pass


_CELL = st.one_of(
    st.integers(-5, 5),
    st.none(),
    st.sampled_from(["https://host.example/api/v2/", "https://host.example/api/v3/", "x"]).map(
        lambda s: s + "items/1"
    ),
)


@settings(max_examples=30)
@given(
    st.lists(st.fixed_dictionaries({"a": _CELL, "b": _CELL}), min_size=30, max_size=60),
    st.integers(0, 60),
)
def test_sections_are_those_of_the_whole_prefix_search(
    twin: str, rows: list[dict[str, Any]], first: int
) -> None:
    # A column's strs may start anywhere: the first rows hold ints only.
    for row in rows[:first]:
        row["b"] = 0
    got = _gcx_section._section(rows, ["a", "b"], "$", "t", None)
    assert got == _gcx_section._section(rows, ["a", "b"], "$", "t", None, whole=True)


@settings(max_examples=30)
@given(
    st.lists(
        st.fixed_dictionaries({"a": _CELL, "u": st.fixed_dictionaries({"b": _CELL, "c": _CELL})}),
        min_size=30,
        max_size=60,
    ),
    st.integers(0, 60),
)
def test_sections_of_spread_objects_are_those_of_the_whole_prefix_search(
    twin: str, rows: list[dict[str, Any]], first: int
) -> None:
    # The same with members of spread objects (`u.b` read by path): the first rows rule
    # columns out there too, and a column they hold no str of is left to the writer's count.
    for row in rows[:first]:
        row["u"]["b"] = 0
    got = _gcx_section._section(rows, ["a", "u"], "$", "t", None)
    assert got == _gcx_section._section(rows, ["a", "u"], "$", "t", None, whole=True)


def test_a_late_prefix_in_a_spread_object_is_still_found() -> None:
    rows = [{"id": i, "u": {"ref": r["ref"], "n": i}} for i, r in enumerate(_late_prefix(60, 20))]
    text = gcx.encode(rows, tool="t")
    assert "prefix=u.ref=https://host.example/api/v2/" in text.split("\n")[0]
    assert roundtrip(rows) == text
    unsure: list[int] = []
    fields, paths = ["id", "u.ref", "u.n"], [("id",), ("u", "ref"), ("u", "n")]
    assert _gcx_prefix._prefixes(rows, fields, paths, {}, unsure) == {}
    assert unsure == [0, 1, 2]
    assert not _gcx_prefix._prefixes_stand(rows, paths, unsure, [0, 40, 0])
    assert _gcx_prefix._prefixes_stand(rows, paths, unsure, [0, 2, 0])
