"""Hostile GCX1 input and values: bounded work, no silent loss, the contract kept.

Scaling checks compare CPU time (``time.process_time``, so other processes on
a busy machine do not count) between an input and one 10 times its size, in
this one process: linear work grows about 10x, a quadratic path about 100x;
the bound (30x) is generous both ways.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import pytest

import gcxwire
from gcxwire import _impl, _speedups_py, dcp, gcx
from gcxwire.errors import DecodeError, EncodeError
from gcxwire.limits import Limits

from .. import reference_model

try:
    from gcxwire import _speedups
except ImportError:  # pragma: no cover - CI requires the extension
    _speedups = None  # type: ignore[assignment]

GROWTH_BOUND = 30.0


def _twin_module(twin: str) -> ModuleType:
    return _speedups if twin == "c" else _speedups_py


def _cpu(fn: Callable[[], Any]) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def growth(make: Callable[[int], Callable[[], Any]], n: int) -> float:
    """CPU time of the work on 10n over that on n (each the best of 3).

    The lowest of three such ratios: a busy machine can inflate one reading
    (shared caches), while a quadratic path is slow in every one.
    """
    small, large = make(n), make(10 * n)
    small()  # warm caches and imports
    ratios = []
    for _ in range(3):
        ratios.append(_cpu(large) / max(_cpu(small), 1e-6))
        if ratios[-1] < GROWTH_BOUND:
            break
    return min(ratios)


# ---------------------------------------------------------------- linear paths


def test_wide_table_column_plan_is_linear(twin: str) -> None:
    module = _twin_module(twin)

    def make(n: int) -> Callable[[], Any]:
        keys = [f"k{i}" for i in range(n)]
        rows = [dict.fromkeys(keys, 1)]
        paths = [(k,) for k in keys]
        return lambda: module.encode_table(rows, keys, paths, None, "", None)

    assert growth(make, 2000) < GROWTH_BOUND


def test_flat_group_names_are_linear() -> None:
    # Columns with many dots: under a deep group, and under none (every dot a
    # candidate group to look up).
    def make(n: int) -> Callable[[], Any]:
        group = ".".join(["g"] * n)
        text = f"GCX1 tool=t fields={group}.x,{group}.y,h.{group} flat={group},h.g\n1\n"
        return lambda: gcx.decode(text, limits=Limits(max_depth=10**7))

    assert growth(make, 3000) < GROWTH_BOUND


def test_escaped_separator_scan_is_linear() -> None:
    # A constant column whose name holds many `\=` before its own `=`.
    def make(n: int) -> Callable[[], Any]:
        name = "\\\\=" * n  # each `\=` escaped once more, as names are in `fields=`
        text = f"GCX1 tool=t fields=a,{name}=1\n2\n"
        return lambda: gcx.decode(text)

    assert growth(make, 5000) < GROWTH_BOUND


# ------------------------------------------------------------- contract holes

SHALLOW = Limits(max_depth=10)
DEEP = "[" * 20 + "]" * 20


def test_max_depth_holds_for_header_meta_values() -> None:
    with pytest.raises(DecodeError, match="nests deeper than 10 levels"):
        gcx.decode(f"GCX1 tool=t fields=a m={DEEP}\n1\n", limits=SHALLOW)


def test_max_depth_holds_for_dotted_names() -> None:
    group = ".".join("g" * 20)
    text = f"GCX1 tool=t fields={group}.x flat={group}\n1\n"
    with pytest.raises(DecodeError, match="nests deeper than 10 levels"):
        gcx.decode(text, limits=SHALLOW)
    short = ".".join("g" * 8)
    assert gcx.decode(f"GCX1 tool=t fields={short}.x flat={short}\n1\n", limits=SHALLOW)


def test_max_depth_holds_for_of_paths() -> None:
    path = ".".join("k" * 20)
    with pytest.raises(DecodeError, match="nests deeper than 10 levels"):
        gcx.decode(f"GCX1 tool=t fields=a of={path}\n1\n", limits=SHALLOW)
    short = ".".join("k" * 10)
    value = gcx.decode(f"GCX1 tool=t fields=a of={short}\n1\n", limits=SHALLOW)
    for _ in range(10):
        value = value["k"]
    assert value == [{"a": 1}]
    # A path and the groups of its rows nest together: 6 keys and 5 levels of groups.
    group = ".".join("g" * 5)
    text = f"GCX1 tool=t fields={group}.x flat={group} of={'.'.join('k' * 6)}\n1\n"
    with pytest.raises(DecodeError, match="nests deeper than 10 levels"):
        gcx.decode(text, limits=SHALLOW)


def test_a_constant_column_is_refused_before_its_literal_is_read() -> None:
    with pytest.raises(DecodeError, match="is not a scalar"):
        gcx.decode(f"GCX1 tool=t fields=a={DEEP},b\n\t1\n", limits=SHALLOW)


@pytest.mark.parametrize(
    "text",
    [
        "GCX1 tool=t fields=a\n[1e400]\n",
        'GCX1 tool=t fields=a\n{"x":-2.5E+999}\n',
        "GCX1 tool=t fields=a m=[1e400]\n1\n",
        "GCX1 tool=t fields=a\n[" + "9" * 400 + ".5]\n",
    ],
)
def test_a_number_past_float_range_is_an_error_not_inf(text: str) -> None:
    with pytest.raises(DecodeError, match="out of range"):
        gcx.decode(text)


def test_numbers_near_float_range_still_read() -> None:
    assert gcx.decode('GCX1 tool=t fields=a\n[1e308,-1.5e-300,"e123",1e-400]\n') == [
        {"a": [1e308, -1.5e-300, "e123", 0.0]}
    ]


def test_a_field_listed_twice_is_refused_in_typed_decode() -> None:
    text = "GCX1 tool=t fields=a,b,a\n1\t2\t3\n"
    with pytest.raises(DecodeError, match="Field 'a' is listed twice"):
        gcx.decode(text)
    # Untyped, the rows are what reference decoders read: the last cell wins.
    assert gcx.parse(text)[0].rows == [{"a": "3", "b": "2"}]


def test_a_float_column_named_empty_reads_back_as_floats() -> None:
    rows = [{"": float(i), "b": i} for i in range(5)]
    back = gcx.decode(gcx.encode(rows, tool="t"))
    assert back == rows
    assert all(type(row[""]) is float for row in back)


def test_str_subclasses_encode_as_their_text_on_both_twins(twin: str) -> None:
    import enum

    class Colour(str, enum.Enum):  # as enum.StrEnum members are (3.11+)
        RED = "red"
        NUMBER = "12"

    class Tag(str):
        pass

    value = {Colour.RED: [{"c": Colour.NUMBER, "t": Tag("true")}], "k": Colour.RED}
    text = gcx.encode(value, tool="t")
    assert gcx.decode(text) == {"red": [{"c": "12", "t": "true"}], "k": "red"}
    with _impl.use_twin("py"):
        assert gcx.encode(value, tool="t") == text


def test_invalid_utf8_is_reported_where_it_is() -> None:
    data = "GCX1 tool=t fields=a\n1\né".encode() + b"\xff\n"
    with pytest.raises(DecodeError, match="not UTF-8") as info:
        gcx.decode(data)
    assert (info.value.lineno, info.value.colno) == (3, 2)


# ------------------------------------------------------------ header trimming


@pytest.mark.parametrize("c", ["\x1c", "\x1d", "\x1e", "\x1f"])
def test_header_keeps_separator_controls_as_go_does(c: str) -> None:
    # Go trims a header with strings.TrimSpace, which keeps U+001C-U+001F.
    text = f"GCX1 tool=t fields={c}\n[]\n"
    assert gcx.parse(text)[0].fields == [c]
    assert reference_model.decode(text)["sections"][0]["fields"] == [c]


@pytest.mark.parametrize(
    "value",
    [
        [{"__proto__": 1, "b": 2}, {"__proto__": 3, "b": 4}],
        {"__proto__": "m", "rows": [{"a": 1}, {"a": 2}]},
        {"k\ufeff": 1, "rows": [{"a": 1}]},
        {"k": "v\ufeff", "rows": [{"a": 1}]},
        [{"a\ufeff": 1}, {"a\ufeff": 2}],
    ],
)
def test_names_the_typescript_decoder_loses_stay_out_of_headers(value: Any) -> None:
    # The TS decoder drops a field or meta key `__proto__` and trims U+FEFF.
    text = gcx.encode(value, tool="t")
    for line in text.split("\n"):
        if line.startswith("GCX1"):
            assert "__proto__" not in line and "\ufeff" not in line
    assert gcx.decode(text) == value


# ----------------------------------------------------------------- padding


WIDE = "GCX1 tool=t fields=" + ",".join(f"f{i}" for i in range(1 << 16))


@pytest.mark.parametrize("style", ["", " empty=null"])
def test_short_rows_under_a_wide_header_cannot_make_gigabytes(style: str) -> None:
    # Each 2-byte row would fill in 65,535 cells (2.6 MB of dict): 40 rows are
    # 100 MB from 80 bytes. The fill-in is bounded by max_padding plus one cell
    # per input character (here ~1.5 M cells, ~23 rows).
    text = WIDE + style + "\n" + "1\n" * 40
    with pytest.raises(DecodeError, match="Short rows fill in more than") as info:
        gcx.parse(text) if not style else gcx.decode(text)
    assert 2 < info.value.lineno < 40
    decoder = gcx.Decoder(typed=not not style)
    with pytest.raises(DecodeError, match="Short rows fill in more than"):
        for start in range(0, len(text), 1 << 16):
            decoder.feed(text[start : start + (1 << 16)])
        decoder.close()


def test_padding_is_counted_and_limited_as_configured() -> None:
    text = "GCX1 tool=t fields=a,b,c,d\n1\n2\t3\n"  # 3 + 2 cells filled in, 33 characters
    assert len(gcx.parse(text, limits=Limits(max_padding=0))[0].rows) == 2
    # 30 more rows: 93 characters may fill in 93 cells; the first two rows take 5
    # and each further row 3, so the 30th further row (line 33) needs 95.
    longer = text + "4\n" * 30
    with pytest.raises(DecodeError, match="more than 0 cells") as info:
        gcx.parse(longer, limits=Limits(max_padding=0))
    assert info.value.lineno == 33
    assert len(gcx.parse(longer, limits=Limits(max_padding=2))[0].rows) == 32
    # Typed without empty=null a missing cell is an absent key: nothing is filled in.
    assert gcx.decode(WIDE + "\n" + "1\n" * 40)[0] == {"f0": 1}


# ------------------------------------------------------- the reference profile


@pytest.mark.parametrize(
    ("value", "path"),
    [
        ([{"a": "#note"}], "$[0]"),  # a comment line to reference decoders
        ({"results": [{"a": "GCX1 tool=x fields=y"}]}, "$.results[0]"),  # a header
        (["#"], "$[0]"),
        ([{"c\\d": 1}], "$['c\\\\d']"),  # unescaped twice: read back as `cd`
        ([{"a,b": 1}], "$['a,b']"),  # split into two fields
        ({"results": [{"a": 1}], "total": "1 2"}, "$.total"),  # a space splits the token
        ([{"a b": 1}], "$['a b']"),
        ({"results": [1, 2]}, "$.results"),  # the bench refuses rows with no object keys
        ({"nodes": [{}, 1]}, "$.nodes"),  # rows of no cells: blank lines, skipped by readers
        ({"results": [{"a": 1}, "#x"]}, "$.results[1]"),  # a non-object item's text
        ({"results": [{"a": 1}, {"a": ""}]}, "$.results[1]"),  # one empty cell: a blank line
        ({"results": [{"a": None}]}, "$.results[0]"),
        (["x", ""], "$[1]"),  # a value list
        (None, "$"),  # EncodeAny of null: a value row with nothing in it
    ],
)
def test_reference_profile_refuses_what_reference_decoders_misread(value: Any, path: str) -> None:
    with pytest.raises(EncodeError) as info:
        gcx.encode(value, tool="t", profile="reference")
    assert info.value.path == path


def test_reference_profile_writes_non_object_row_items_as_the_bench_does() -> None:
    # encoders.go: a union-of-keys section writes an item that is not an object
    # as fmt.Sprint(item) in the first cell of a padded row (Go spells nil
    # `<nil>`, a list `[a b]`, an object `map[k:v]`); the nodes and edges
    # sections skip such items, even when no item is an object.
    value = gcx.loads_exact(
        '{"results": [{"a": 1, "b": 2}, "x", null, 1.50, [1, "c", null, {"k": true}],'
        ' {"z": {}}, false], "total": 7}'
    )
    text = gcx.encode(value, tool="t", profile="reference")
    assert text == (
        "GCX1 tool=t fields=a,b,z rows=7 total=7\n1\t2\t\nx\t\t\n<nil>\t\t\n1.50\t\t\n"
        "[1 c <nil> map[k:true]]\t\t\n\t\t{}\nfalse\t\t\n"
    )
    assert len(reference_model.decode(text)["sections"][0]["rows"]) == 7
    many = gcx.encode({"a": [{"x": 1}, 2], "b": [3, {"y": 1}]}, tool="t", profile="reference")
    assert many == (
        'GCX1 tool=t.a fields=x rows=2\n1\n2\nGCX1 tool=t.b fields=value rows=2\n3\n{"y":1}\n'
    )
    graph = {"nodes": [{"id": 1}, 2], "edges": [3, {"to": "b"}]}
    assert gcx.encode(graph, tool="t", profile="reference") == (
        "GCX1 tool=t.nodes fields=id rows=2\n1\nGCX1 tool=t.edges fields=to rows=2\nb\n"
    )
    assert gcx.encode({"nodes": [1, 2]}, tool="t", profile="reference") == (
        "GCX1 tool=t.nodes fields= rows=2\nGCX1 tool=t.edges fields= rows=0\n"
    )


def test_reference_profile_edges_only_rule_needs_no_nodes_key() -> None:
    # The bench's edges-only rule asks for no `nodes` key at all; a `nodes`
    # that is not a list sends the object to the generic encoder.
    value = {"nodes": "none", "edges": [{"from": "a", "to": "b"}]}
    text = gcx.encode(value, tool="t", profile="reference")
    assert text.startswith("GCX1 tool=t fields=edges,nodes\n")
    assert gcx.encode({"edges": value["edges"]}, tool="t", profile="reference").startswith(
        "GCX1 tool=t fields=from,to rows=1\n"
    )
    assert reference_model.decode(text)["sections"][0]["rows"][0]["nodes"] == "none"


# ------------------------------------------------------------------ big ints


BIG = "9" * 70_000  # past any default limit


@pytest.fixture
def interpreter_digits() -> Iterator[Callable[[int], None]]:
    """``sys.set_int_max_str_digits``, put back after the test."""
    before = sys.get_int_max_str_digits()
    yield sys.set_int_max_str_digits
    sys.set_int_max_str_digits(before)


@pytest.mark.parametrize(
    "text",
    [
        f"GCX1 tool=t fields=a\n{BIG}\n",
        f"GCX1 tool=t fields=a\n[1,-{BIG}]\n",
        f"GCX1 tool=t fields=a m={BIG}\n1\n",
        f"GCX1 tool=t fields=a,b\nx\t{BIG}.5\n",
    ],
)
def test_numbers_past_the_digit_limit_are_refused_before_they_are_read(text: str) -> None:
    # Reading an int costs more than linear time in its digits (12.8 MB: 54 s).
    limit = sys.get_int_max_str_digits()
    with pytest.raises(DecodeError, match=f"more than {limit} digits"):
        gcx.decode(text)
    with pytest.raises(DecodeError, match=f"more than {limit} digits"):
        gcx.Decoder().feed(text)
    with pytest.raises(DecodeError, match="more than 10 digits"):
        gcx.decode(text.replace(BIG, "9" * 11), limits=Limits(max_int_digits=10))


def _number_payloads(digits: str) -> list[tuple[Callable[..., Any], str]]:
    # One number of those digits in each format the decoders read.
    return [
        (gcx.decode, f"GCX1 tool=t fields=a,b\nx\t{digits}\n"),
        (gcx.decode, f'GCX1 tool=t fields=a\n[{{"k":-{digits}}}]\n'),
        (dcp.decode, f'["$S","t:v1","a","b"]\n["x",{digits}]\n'),
        (gcxwire.decode, f'{{"a":"x","b":[{digits}]}}'),
    ]


def test_the_default_digit_limit_is_the_interpreters(
    interpreter_digits: Callable[[int], None],
) -> None:
    # As int() and json.loads: 4,300 digits unless sys.set_int_max_str_digits says otherwise.
    interpreter_digits(4300)
    for decode, text in _number_payloads("9" * 4300):
        assert decode(text)
    for decode, text in _number_payloads("9" * 4301):
        with pytest.raises(DecodeError, match="more than 4300 digits.*Limits.max_int_digits"):
            decode(text)
        assert decode(text, limits=Limits(max_int_digits=4301))  # an explicit limit wins
        interpreter_digits(5000)
        assert decode(text)
        with pytest.raises(DecodeError, match="more than 100 digits"):
            decode(text, limits=Limits(max_int_digits=100))
        interpreter_digits(0)  # no limit
        assert decode(text)
        interpreter_digits(4300)


def test_encoders_refuse_ints_the_default_decoders_would_refuse(
    interpreter_digits: Callable[[int], None],
) -> None:
    # Writing in halves used to bypass the limit: gcxwire wrote what it then refused to read.
    interpreter_digits(4300)
    big = 10**4300  # 4301 digits
    cases: list[tuple[Callable[[], str], str]] = [
        (lambda: gcx.encode([{"a": 1}, {"a": big}], tool="t"), "$[1].a"),
        (lambda: gcx.encode({"a": "x", "b": big}, tool="t"), "$.b"),
        (lambda: gcx.encode({"a": [1, {"k": -big}]}, tool="t"), "$.a[1].k"),
        (lambda: gcx.encode(big, tool="t"), "$"),
        (
            lambda: gcx.encode({"results": [{"a": big}]}, tool="t", profile="reference"),
            "$.results[0].a",
        ),
        (lambda: dcp.encode([{"a": "x", "b": big}]), "$[0].b"),
        (lambda: gcxwire.encode({"a": [big]}, tool="t", format="json"), "$.a[0]"),
        (lambda: gcxwire.encode([{"a": big}], tool="t"), "$[0].a"),
    ]
    for encode, path in cases:
        with pytest.raises(
            EncodeError, match="more than 4300 digits.*sys.set_int_max_str_digits"
        ) as info:
            encode()
        assert info.value.path == path
    value = [{"a": big - 1}, {"a": -(big - 1)}]  # 4300 digits: written, and read back
    assert gcx.decode(gcx.encode(value, tool="t")) == value
    assert dcp.decode(dcp.encode(value)) == value
    interpreter_digits(5000)  # raised: written, and read back by the default decoders
    value = [{"a": big}]
    for fmt in ("gcx", "dcp", "json"):
        assert gcxwire.decode(gcxwire.encode(value, tool="t", format=fmt)) == value


def test_runs_of_digits_in_strings_are_not_numbers() -> None:
    # Only numbers are limited: a string of any digits is written and read back.
    digits = "7" * 70_000
    value = [
        {"a": f"id {digits}", "b": digits, "c": [f"{digits}"], "d": {"k": f'x"{digits}'}},
        {"a": f"{digits} x", "b": "-" + digits, "c": [], "d": {}},
    ]
    assert gcx.decode(gcx.encode(value, tool="t")) == value
    assert dcp.decode(dcp.encode(value)) == value
    assert gcxwire.decode(gcxwire.encode(value, tool="t", format="json")) == value
    assert gcx.decode(f'GCX1 tool=t fields=a\n["{BIG}"]\n') == [{"a": [BIG]}]
    assert gcx.decode(f"GCX1 tool=t fields=a\n{BIG}\n", limits=Limits(max_int_digits=0))


def test_a_huge_number_is_refused_in_linear_time() -> None:
    def make(n: int) -> Callable[[], Any]:
        text = "GCX1 tool=t fields=a\n" + "9" * n + "\n"

        def run() -> None:
            with pytest.raises(DecodeError):
                gcx.decode(text)

        return run

    assert growth(make, 200_000) < GROWTH_BOUND


@pytest.mark.slow
@pytest.mark.parametrize("typed", [True, False])
def test_many_two_byte_rows_cost_less_than_100_times_their_size(typed: bool) -> None:
    import tracemalloc

    # The bound is per input byte, so a quarter of a million rows tests what a million
    # did, in a quarter of the time (the pure twin under tracemalloc took minutes).
    text = "GCX1 tool=t fields=a\n" + "1\n" * 250_000
    tracemalloc.start()
    try:
        rows = gcx.decode(text) if typed else gcx.parse(text)[0].rows
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(rows) == 250_000
    # A one-key dict is 184 bytes and its list slot 8: about 96 bytes per input byte.
    assert peak < 100 * len(text)


def test_long_number_looks_at_few_characters_of_a_line_without_digit_runs() -> None:
    # The pure twin's look for a too long digit run before a line is read: the
    # regex it replaced took ~40 ns per character past the limit's length, so
    # 10 times the line past the limit took 65 times the time.
    from gcxwire.limits import long_number

    def make(n: int) -> Callable[[], Any]:
        line = "0\t" + "a closed pipe; " * (n // 15) + "1" * 30
        return lambda: [long_number(line, 4300) for _ in range(20)]

    assert growth(make, 5000) < GROWTH_BOUND


def test_an_object_of_many_members_encodes_in_linear_time() -> None:
    # Each top-level name was checked against every other one (is it a dotted
    # name's first part?): quadratic in the members.
    def make(n: int) -> Callable[[], Any]:
        value = {f"member{i}": i for i in range(n)}
        value["member7.x"] = 0  # a dotted name: the check has names to look at
        return lambda: gcx.encode(value, tool="t")

    assert growth(make, 300) < GROWTH_BOUND
