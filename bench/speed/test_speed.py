"""GCX1 (typed and reference profiles, both twins), DCP, orjson and TOON on the same rows.

Run ``pytest bench/speed --benchmark-only`` for figures (``--benchmark-group-by=group``
puts each table's codecs side by side); ``bench/ratios.py`` prints the ratio table.
Every benchmark also checks what it measured: a round trip, or the row count.
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from workloads import ON_TWIN, SHAPES, TOOL, TWINS, carries, codecs, twin

from gcxwire import gcx

CODECS = [(name, t) for name in codecs("t") for t in (TWINS if name in ON_TWIN else ("-",))]
CASES = [
    pytest.param(shape, name, t, id=f"{name}-{shape}" if t == "-" else f"{name}[{t}]-{shape}")
    for name, t in CODECS
    for shape in SHAPES
    if carries(name, shape)
]
_DATA: dict[tuple[str, int], Any] = {}


def rows_of(shape: str, size: int) -> Any:
    key = (shape, size)
    if key not in _DATA:
        _DATA[key] = SHAPES[shape](size)
    return _DATA[key]


def check(name: str, rows: Any, back: Any) -> None:
    if name == "gcx-reference":  # every cell a string: compare the shape only
        sections = [len(s["rows"]) for s in back["sections"]]
        assert sections == [len(rows)] if isinstance(rows, list) else sections
    elif name == "dcp":  # DCP reads an absent key as null
        assert [_present(r) for r in back] == [_present(r) for r in rows]
    else:
        assert back == rows


def _present(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if v is not None}


@pytest.mark.parametrize(("shape", "name", "twin_name"), CASES)
def test_encode(benchmark: Any, shape: str, size: int, name: str, twin_name: str) -> None:
    rows = rows_of(shape, size)
    encode, decode = codecs(TOOL[shape])[name]
    benchmark.group = f"{shape}-{size:05}-encode"
    with twin(twin_name) if twin_name != "-" else contextlib.nullcontext():
        text = benchmark(encode, rows)
    check(name, rows, decode(text))


@pytest.mark.parametrize(("shape", "name", "twin_name"), CASES)
def test_decode(benchmark: Any, shape: str, size: int, name: str, twin_name: str) -> None:
    rows = rows_of(shape, size)
    encode, decode = codecs(TOOL[shape])[name]
    text = encode(rows)
    benchmark.group = f"{shape}-{size:05}-decode"
    with twin(twin_name) if twin_name != "-" else contextlib.nullcontext():
        back = benchmark(decode, text)
    check(name, rows, back)


def test_twins_write_the_same_bytes() -> None:
    """The twins swapped by the suite write the same bytes on every shape."""
    for shape in SHAPES:
        rows = rows_of(shape, 50)
        outs = set()
        for t in TWINS:
            with twin(t):
                outs.add(gcx.encode(rows, tool=TOOL[shape]))
        assert len(outs) == 1
