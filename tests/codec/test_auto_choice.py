"""format="auto" decides from samples where candidates are far apart: it must still
pick what counting every token of every candidate picks wherever that choice is
closer than 1 %, and never send more tokens than compact JSON."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gcxwire
from gcxwire import _auto as select
from gcxwire import _auto_sample as sampling
from gcxwire import _speedups_py, tokens
from gcxwire._impl import plain_json
from gcxwire._values import same

from ..strategies import TEXT, json_values, tables

REAL = Path(__file__).resolve().parents[2] / "bench" / "cases" / "real"


def exhaustive(value: Any, tool: str) -> tuple[str, dict[str, str], dict[str, int]]:
    """The choice made the slow way: every candidate written, checked and fully counted."""
    texts = {"json": select.compact_json(value)}
    for name, encoder in select._ENCODERS.items():
        try:
            text = encoder(value, tool)
        except gcxwire.EncodeError:
            continue
        if same(value, select.decode(text)):
            texts[name] = text
    counts = {name: tokens.count(text) for name, text in texts.items()}
    best = min(counts, key=lambda name: (counts[name], select._ORDER.index(name)))
    return best, texts, counts


def check(value: Any, tool: str = "t") -> None:
    best, texts, counts = exhaustive(value, tool)
    chosen = select.encode(value, tool=tool)
    assert tokens.count(chosen) <= counts["json"]
    assert same(value, select.decode(chosen))
    others = [count for name, count in counts.items() if name != best]
    if others and min(others) < counts[best] * 1.01:
        assert chosen == texts[best], (best, counts)


@st.composite
def long_tables(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Generated rows, spread over enough of them that the texts get sampled."""
    rows = draw(tables())
    size = draw(st.integers(1, 400))
    prose = draw(st.lists(TEXT, min_size=1, max_size=4))
    counter = draw(st.sampled_from([None, "id", "body"]))
    out = []
    for i in range(size):
        row = dict(rows[i % len(rows)])
        if counter == "id":
            row["n"] = i
        elif counter == "body":
            row["body"] = " ".join(prose) * (1 + i % 7)
        out.append(row)
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(long_tables())
def test_sampled_choice_is_the_exhaustive_one_where_close(value: list[dict[str, Any]]) -> None:
    check(value)


@pytest.mark.parametrize("path", sorted(REAL.glob("*.json")), ids=lambda path: path.stem)
def test_real_responses(path: Path) -> None:
    case = json.loads(path.read_text(encoding="utf-8"))
    check(case["input"], case["tool"])


def _symbols(n: int, seed: int, words_per_doc: int = 30) -> list[dict[str, Any]]:
    rnd = random.Random(seed)
    words = ["Server", "Index", "Graph", "Parse", "Walk", "Load", "Store"]
    return [
        {
            "id": f"internal/{rnd.choice(words).lower()}.go::{rnd.choice(words)}{i}",
            "kind": rnd.choice(["function", "method", "type"]),
            "line": rnd.randrange(1, 2000),
            "doc": " ".join(rnd.choice(words) for _ in range(rnd.randrange(0, words_per_doc))),
        }
        for i in range(n)
    ]


@pytest.mark.parametrize("n", [5, 300, 3000])
def test_big_tables_are_chosen_as_exhaustively(n: int) -> None:
    check(_symbols(n, seed=n))


def _counted_lengths(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """From now on, the length of each text ``tokens.count`` counts (the spy still counts)."""
    counted: list[int] = []
    real_count = tokens.count

    def spy(text: str, encoding: str = "cl100k_base") -> int:
        counted.append(len(text))
        return real_count(text, encoding)

    monkeypatch.setattr(tokens, "count", spy)
    return counted


def test_far_apart_candidates_are_not_counted_in_full(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 3,000-row table whose JSON and DCP cost far more than GCX1: no full count of any."""
    value = _symbols(3000, seed=1, words_per_doc=3)
    counted = _counted_lengths(monkeypatch)
    chosen = select.encode(value, tool="t")
    assert select.detect(chosen) == "gcx"
    assert sum(counted) < 0.1 * len(chosen)


def test_a_candidate_that_fails_its_check_leaves_the_race(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sampled winner that does not read back exactly is dropped; the next one is sent."""
    value = _symbols(3000, seed=2)
    monkeypatch.setitem(select._DECODERS, "gcx", lambda text, limits: [])
    chosen = select.encode(value, tool="t")
    assert select.detect(chosen) in ("dcp", "json")
    assert same(value, select.decode(chosen))


def test_a_winner_that_fails_its_check_brings_back_what_it_ruled_out() -> None:
    """DCP has the fewest tokens here but does not read back exactly (a big int
    among mixed cells); JSON, ruled out against DCP's estimate, must be back in
    the race when DCP leaves it: GCX1 (1027 tokens) was sent for JSON's 969."""
    kinds: list[dict[str, Any]] = [
        {"id": None, "name": {"id": -2890462, "name": None, "": None}},
        {"id": {"id": None}, "name": None},
        {"id": {}, "name": []},
        {"id": [{}, 5757, "a,b"], "name": {}},
        {"id": "a,b", "name": {"¢oÒ#ûÅ": "\U0007f6feñÚ𪝬\x8aÐlæ", "´\x9c\x99": False, "of": "el"}},
        {"id": {}, "name": []},
        {"name": {"of": None}, "id": 187_894_671_434_461_011_438_632_697_856},
        {"name": {}},
    ]
    check([dict(kinds[i % 8], n=i) for i in range(50)])


def test_rows_the_sample_missed_are_noticed() -> None:
    """One giant row between the sampled ones: the sample is refused, not extrapolated."""
    value = _symbols(1000, seed=3)
    fitting = select._Auto(value, "t")
    fitting.estimate()
    assert set(fitting.sampled) == {"json", "gcx", "dcp"}

    value[1]["doc"] = "Parse\t" * 20000  # index 1 is never among the sampled rows
    unlike = select._Auto(value, "t")
    unlike.estimate()
    assert not unlike.sampled
    check(value)


def _quotes(n: int, seed: int = 4) -> list[dict[str, Any]]:
    rnd = random.Random(seed)
    return [
        {
            "sym": f"S{i % 97}",
            "price": round(rnd.uniform(1, 500), 2),
            "chg": round(rnd.uniform(-5, 5), 4),
            "up": rnd.random() < 0.5,
        }
        for i in range(n)
    ]


@pytest.mark.parametrize(
    ("gap", "per_row", "rows"),
    [(86, 62_500, 500), (1462, 6e6, 5000), (40, 9e4, 2000), (5, 10, 400)],
)
def test_a_larger_sample_is_sized_with_the_t_of_its_own_size(
    gap: float, per_row: float, rows: int
) -> None:
    """The rows asked for decide the gap by the rule the next round applies (t
    at the sample's own size), and are no more than t at twice the first
    sample's size asked for (the quotes-500 race: 166 rows where 140 do)."""
    least = 32
    need = select._rows_to_decide(gap, per_row, rows, least)
    error = (per_row * (1 / need - 1 / rows)) ** 0.5
    assert need >= least
    assert need >= rows or sampling.spreads(need) * error <= gap
    target = gap / sampling.spreads(least)
    at_least = max(least, math.ceil(1.25 / (target**2 / per_row + 1 / rows)))
    assert need <= at_least
    if sampling.spreads(at_least) < sampling.spreads(least):  # a smaller t there: fewer rows
        assert need < at_least


def test_candidates_a_few_percent_apart_are_told_apart_on_more_rows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """GCX1 and DCP 4 % apart: 16 sampled rows cannot tell, the more rows their
    spread asks for can; no text counted in full (texts too long to be counted
    whole instead: _COUNT_CLOSE)."""
    monkeypatch.setattr(select, "_COUNT_CLOSE", 0)
    value = _quotes(2000)
    check(value)
    counted = _counted_lengths(monkeypatch)
    chosen = select.encode(value, tool="t")
    assert select.detect(chosen) == "gcx"
    assert sum(counted) < 0.5 * len(chosen)


def test_a_short_value_has_every_candidate_counted_whole_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Compact JSON under _COUNT_WHOLE (ASCII): each candidate's whole text is
    counted once, no row sampled, and the choice is the exhaustive one."""
    value = _quotes(50)
    check(value)
    choice = select._Auto(value, "t")
    assert len(choice.texts["json"] or "") <= select._COUNT_WHOLE
    counted: list[str] = []
    real_count = tokens.count

    def spy(text: str, encoding: str = "cl100k_base") -> int:
        counted.append(text)
        return real_count(text, encoding)

    monkeypatch.setattr(tokens, "count", spy)
    chosen = choice.choose()
    written = [text for text in choice.texts.values() if text is not None]
    assert sorted(counted) == sorted(written) and len(written) == 3
    best, texts, _ = exhaustive(value, "t")
    assert not choice.sampled and chosen == texts[best]


def test_close_rows_short_enough_are_counted_whole_not_sampled_again() -> None:
    """GCX1 and DCP 4 % apart on 2,000 ASCII rows, their texts under _COUNT_CLOSE
    together: both are counted exactly (around their sampled rows) instead of
    a larger sample, and the choice is the exhaustive one."""
    value = _quotes(2000)
    check(value)
    choice = select._Auto(value, "t")
    chosen = choice.choose()
    gcx_text, dcp_text = choice.text("gcx"), choice.text("dcp")
    assert gcx_text is not None and dcp_text is not None
    assert len(gcx_text) + len(dcp_text) <= select._COUNT_CLOSE
    assert choice.exact["gcx"] == tokens.count(gcx_text)
    assert choice.exact["dcp"] == tokens.count(dcp_text)
    assert all(len(sample.units) == select._SAMPLE_ROWS for sample in choice.sampled.values())
    best, texts, _ = exhaustive(value, "t")
    assert chosen == texts[best]


def test_child_sections_are_not_read_as_rows() -> None:
    """A list of objects in each row becomes a child section: the text has more
    lines than rows. Only the first section's lines stand for sampled rows; the
    child sections are estimated apart, and the sum is within its error."""
    value = [
        {"id": i, "name": f"n{i}", "labels": [{"k": f"l{j}", "c": j} for j in range(i % 3 + 1)]}
        for i in range(300)
    ]
    choice = select._Auto(value, "t")
    chosen = choice.choose()
    choice.estimate()
    assert choice.sections
    guess, error = choice.estimates["gcx"]
    text = choice.text("gcx")
    assert text is not None and abs(guess - tokens.count(text)) <= 4 * error
    check(value)
    assert same(value, select.decode(chosen))


def test_a_close_race_is_counted_only_where_the_texts_differ(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One big object: GCX1 holds JSON's text as cells, within 1 % of it. The
    exact comparison counts the header and framing, not the shared cells."""
    rnd = random.Random(5)
    words = ["Parse", "Walk", "Load", "Store", "Index"]
    body = [
        [rnd.randrange(999), rnd.choice(words), {rnd.choice(words).lower(): [None, 0.5]}]
        for _ in range(1500)
    ]
    value = {"name": "workspace", "version": 3, "root": {"kind": "module", "body": body}}
    check(value)
    counted = _counted_lengths(monkeypatch)
    chosen = select.encode(value, tool="t")
    assert sum(counted) < 0.2 * len(chosen)


def test_a_table_that_repeats_is_not_sampled_in_step_with_it() -> None:
    """Every 8th row differs, 256 rows: 32 evenly spaced rows would all be the
    odd one out (no spread, a wrong total). Rows drawn at random within strata
    see both kinds, and each estimate is within its error of the count."""
    value = [
        {"id": i, "doc": "x" * 29 if i % 8 == 0 else "a b c d e f g h i j k l m n o"}
        for i in range(256)
    ]
    choice = select._Auto(value, "t")
    assert choice.estimate()
    assert set(choice.sampled) == {"json", "gcx", "dcp"}
    for name in ("json", "gcx"):
        guess, error = choice.estimates[name]
        text = choice.text(name)
        assert text is not None and abs(guess - tokens.count(text)) <= 4 * error
    check(value)


def test_a_larger_sample_counts_no_row_a_smaller_one_counted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The rows a larger sample draws again are not counted again, and its
    estimates are the ones counting every unit afresh gives."""
    value = [{"id": i, "doc": "Parse the tree, then walk it. " * (i % 4)} for i in range(200)]
    choice = select._Auto(value, "t")
    assert choice.estimate(16)
    first = {piece for sample in choice.sampled.values() for piece, _ in sample.pieces}
    counted: list[str] = []
    real_count = tokens.count

    def spy(text: str, encoding: str = "cl100k_base") -> int:
        counted.append(text)
        return real_count(text, encoding)

    monkeypatch.setattr(tokens, "count", spy)
    assert choice.estimate(64)
    monkeypatch.undo()
    again = {piece for sample in choice.sampled.values() for piece, _ in sample.pieces} & first
    assert again and not again & set(counted)
    fresh = select._Auto(value, "t")
    assert fresh.estimate(64) and fresh.estimates == choice.estimates


def _sparse_rows() -> list[dict[str, Any]]:
    # 5 short rows, most keys absent: DCP writes a null for each, GCX1 skips them
    keys = [f"field{k}" for k in range(30)]
    return [{key: i * k for k, key in enumerate(keys) if (i + k) % 7 == 0} for i in range(5)]


def test_dcp_proved_no_better_is_not_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where DCP's pre-split pieces alone are as many as the best exact count,
    its text is never counted, and the choice is the exhaustive one (on a value
    too long to have every candidate counted whole)."""
    monkeypatch.setattr(select, "_COUNT_WHOLE", 0)
    value = _sparse_rows()
    choice = select._Auto(value, "t")
    dcp_text = choice.text("dcp")
    assert dcp_text is not None
    least = tokens.least_count(dcp_text)
    assert least is not None and least >= tokens.count(gcxwire.gcx.encode(value, tool="t"))
    counted: list[str] = []
    real_count = tokens.count

    def spy(text: str, encoding: str = "cl100k_base") -> int:
        counted.append(text)
        return real_count(text, encoding)

    monkeypatch.setattr(tokens, "count", spy)
    chosen = choice.choose()
    assert dcp_text not in counted and "dcp" not in choice.estimates
    monkeypatch.undo()
    check(value)
    assert chosen == select.encode(value, tool="t")


def test_dcp_that_may_win_is_counted() -> None:
    """The bound proves nothing where DCP's pieces are fewer than the best count."""
    value = _sparse_rows()
    choice = select._Auto(value, "t")
    dcp_text, gcx_text = choice.text("dcp"), choice.text("gcx")
    assert dcp_text is not None and gcx_text is not None
    assert len(dcp_text) > select._LONGER * len(gcx_text)  # the proof is tried
    choice.exact = {"json": 10**6, "gcx": (tokens.least_count(dcp_text) or 0) + 1}
    assert choice.cannot_win("dcp", dcp_text, select._ORDER) is False
    choice.exact["gcx"] -= 1
    assert choice.cannot_win("dcp", dcp_text, select._ORDER) is True
    assert choice.cannot_win("dcp", dcp_text, ["json", "dcp"]) is False  # GCX1 left the race


def test_a_close_race_counted_whole_skips_its_sampled_rows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A sampled table counted whole counts only the text between its sampled
    rows (and JSON's and GCX1's head), in every format, and gets the exact count."""
    value = [{"id": i, "doc": "Parse the tree, then walk it. " * (i % 4)} for i in range(200)]
    choice = select._Auto(value, "t")
    assert choice.estimate()
    assert set(choice.sampled) == {"json", "gcx", "dcp"}
    for name in ("json", "gcx", "dcp"):
        text = choice.text(name)
        assert text is not None
        sample = choice.sampled[name]
        counted = _counted_lengths(monkeypatch)
        assert choice.exact_count(name) == tokens.count(text)
        skipped = sum(len(piece) for piece, _ in sample.pieces)
        assert sum(counted) - len(text) == len(text) - skipped  # the spy's own whole count
        monkeypatch.undo()


@pytest.mark.parametrize("children", [False, True])
def test_row_units_are_the_same_whichever_way_lines_are_found(
    monkeypatch: pytest.MonkeyPatch, children: bool
) -> None:
    """Line starts found by this twin's row_line_starts, or by the pure twin's
    split (short lines) or str.find (long ones): the same units every way,
    with and without child sections after the rows, and every row's unit plus
    the head is the whole first section's count."""
    value: list[dict[str, Any]] = [
        {"id": i, "doc": "Parse the tree, then walk it. " * (i % 5)} for i in range(40)
    ]
    if children:
        for i, row in enumerate(value):
            row["labels"] = [{"k": f"l{j}", "c": j} for j in range(i % 3 + 1)]
    text = gcxwire.gcx.encode(value, tool="t")
    assert ("\nGCX1" in text) is children
    every = list(range(len(value)))
    found = [sampling.gcx_rows(text, len(value), every)]
    monkeypatch.setattr(sampling, "row_line_starts", _speedups_py.row_line_starts)
    for long_line in (0, 1 << 30):  # every table's lines long, then none
        monkeypatch.setattr(_speedups_py, "_LONG_LINE", long_line)
        found.append(sampling.gcx_rows(text, len(value), every))
    first = found[0]
    assert first is not None and all(other == first for other in found)
    if not children:
        assert first.fixed + sum(first.units) == tokens.count(text)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(long_tables())
def test_row_units_add_up_to_the_whole_count(value: list[dict[str, Any]]) -> None:
    """Sampling every row, the units and the head count exactly what the whole
    text counts: a unit is cut only where counts add up, so no sample is biased
    at its rows' edges."""
    every = list(range(len(value)))
    choice = select._Auto(value, "t")
    json_text = choice.texts["json"]
    assert json_text is not None
    texts = {"json": (json_text, sampling.json_rows(value, len(json_text), every))}
    gcx_text = choice.text("gcx")
    if gcx_text is not None:
        texts["gcx"] = (gcx_text, sampling.gcx_rows(gcx_text, len(value), every))
    for text, units in texts.values():
        if units is not None and units.fixed_var == 0:
            assert units.fixed + sum(units.units) == tokens.count(text)


# Values that read back alike in text but not in type or sign: the read-back
# must tell each from the others.
_LOOK_ALIKE = st.sampled_from([0, 1, 1.0, 0.0, -0.0, True, False, None, "1", "null", 2**63, 1e16])


def _near(value: Any) -> st.SearchStrategy[Any]:
    """``value`` with one leaf swapped for a look-alike, or as it is."""
    if isinstance(value, list) and value:
        return st.integers(0, len(value) - 1).flatmap(
            lambda i: _near(value[i]).map(lambda item: [*value[:i], item, *value[i + 1 :]])
        )
    if isinstance(value, dict) and value:
        return st.sampled_from(list(value)).flatmap(
            lambda key: _near(value[key]).map(lambda item: {**value, key: item})
        )
    return st.one_of(st.just(value), _LOOK_ALIKE)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_values().flatmap(lambda value: st.tuples(st.just(value), _near(value))), st.data())
def test_the_plain_read_back_is_the_strict_one(pair: tuple[Any, Any], data: st.DataObject) -> None:
    """_decodes_to told that the value is plain JSON (plain_json: it checks
    what reads back by its bytes and plain_json) answers as _values.same does,
    on texts of the value itself and of look-alikes (1, 1.0, true; 0.0 and
    -0.0; null and "null"; big ints) in every format."""
    value, other = pair
    fmt: select.Format = data.draw(st.sampled_from(["gcx", "dcp", "json"]))
    try:
        text = gcxwire.encode(other, tool="t", format=fmt)
    except gcxwire.EncodeError:
        return
    try:
        value_json = orjson.dumps(value)
    except orjson.JSONEncodeError:
        value_json = None
    plain = plain_json(value)
    strict = select._decodes_to(text, value, value_json)
    assert select._decodes_to(text, value, value_json, plain) == strict
    try:
        assert strict == same(value, gcxwire.decode(text))
    except gcxwire.DecodeError:
        assert not strict


@settings(max_examples=60, deadline=None)
@given(json_values())
def test_json_length_is_the_texts(value: Any) -> None:
    """JSON's length in characters, counted from its bytes without decoding
    them, is its text's (ASCII, wide, 4-byte and lone-surrogate text alike)."""
    choice = select._Auto(value, "t")
    assert choice.json_length() == len(select.compact_json(value))


def test_a_sampled_table_past_ascii_leaves_its_json_bytes_undecoded() -> None:
    """A long table whose GCX1 wins on its row sample: auto needs JSON's length
    only, so the bytes (~2 ns a byte to decode past ASCII) stay bytes."""
    rows = [
        {"id": i, "title": "\u6570\u636e\u5e93" * (i % 4 + 1), "tag": "\U0001f680 ok"}
        for i in range(3000)
    ]
    choice = select._Auto(rows, "t")
    text = choice.choose()
    assert select.detect(text) == "gcx"
    assert "json" not in choice.texts  # not decoded
    assert text == select._Auto(rows, "t").choose_counted()
    assert choice.texts["json"] == select.compact_json(rows)  # decoded when read
