"""GCX1 (typed and reference profiles, both twins), DCP, orjson and TOON on the same rows.

Run ``pytest bench/speed --benchmark-only`` for figures (``--benchmark-group-by=group``
puts each table's codecs side by side); ``bench/ratios.py`` prints the ratio table.
Every benchmark also checks what it measured: a round trip, or the row count.
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from workloads import ON_TWIN, SHAPES, TOOL, TWINS, codecs, twin

from gcxwire import gcx

CODECS = [(name, t) for name in codecs("t") for t in (TWINS if name in ON_TWIN else ("-",))]
IDS = [name if t == "-" else f"{name}[{t}]" for name, t in CODECS]
_DATA: dict[tuple[str, int], list[dict[str, Any]]] = {}


def rows_of(shape: str, size: int) -> list[dict[str, Any]]:
    key = (shape, size)
    if key not in _DATA:
        _DATA[key] = SHAPES[shape](size)
    return _DATA[key]


def check(name: str, rows: list[dict[str, Any]], back: Any) -> None:
    if name == "gcx-reference":  # every cell a string: compare the shape only
        assert [len(s["rows"]) for s in back["sections"]] == [len(rows)]
    else:
        assert back == rows


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize(("name", "twin_name"), CODECS, ids=IDS)
def test_encode(benchmark: Any, shape: str, size: int, name: str, twin_name: str) -> None:
    rows = rows_of(shape, size)
    encode, decode = codecs(TOOL[shape])[name]
    benchmark.group = f"{shape}-{size:05}-encode"
    with twin(twin_name) if twin_name != "-" else contextlib.nullcontext():
        text = benchmark(encode, rows)
    check(name, rows, decode(text))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize(("name", "twin_name"), CODECS, ids=IDS)
def test_decode(benchmark: Any, shape: str, size: int, name: str, twin_name: str) -> None:
    rows = rows_of(shape, size)
    encode, decode = codecs(TOOL[shape])[name]
    text = encode(rows)
    benchmark.group = f"{shape}-{size:05}-decode"
    with twin(twin_name) if twin_name != "-" else contextlib.nullcontext():
        back = benchmark(decode, text)
    check(name, rows, back)


def test_twins_write_the_same_bytes() -> None:
    """The twins swapped by the suite really differ in code, not in output."""
    for shape in SHAPES:
        rows = rows_of(shape, 50)
        outs = set()
        for t in TWINS:
            with twin(t):
                outs.add(gcx.encode(rows, tool=TOOL[shape]))
        assert len(outs) == 1
