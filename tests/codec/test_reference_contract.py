"""The reference contract on every bench case and on payloads built to break it.

tests/codec/contract.py checks it: reference decoders read each payload
without error, with gcxwire's sections, rows and columns, and every string
where no header marker says otherwise as that same string.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

import gcxwire
from gcxwire import DecodeError, gcx
from gcxwire.layouts import Layout

from .. import reference_model
from ..strategies import KEYS, json_values
from ..tiers import prove
from . import contract

CASES = Path(__file__).resolve().parents[2] / "bench" / "cases"
GROUPS = sorted(p.name for p in CASES.iterdir() if p.is_dir())


@pytest.mark.parametrize("group", GROUPS)
def test_every_bench_case_reads_the_same_in_the_reference(group: str) -> None:
    checked = 0
    for path in sorted((CASES / group).glob("*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        value = json.loads(case["input"])
        checked += contract.holds(value, gcx.encode(value, tool=case["tool"]))
    assert checked > 0


# Strings that read as something else somewhere: numbers and words, escapes,
# line ends, markers and JSON, unicode.
EDGES = [
    "", "true", "false", "null", "-1", "1e5", "0", "007", "1.0", "-0", "\\", "a\\",
    "\\t", "\\n", "\t", "\n", "\r", "a\r", "\r\n", "a\r\nb", "x\r\ny\r\n", "é", "😀",
    "\u2028", "\x00", '""', '"q"', "[1]", "{}", "[x", "{y", "#c", "GCX1 tool=x fields=a",
    "of=x", "quoted=json", "prefix=a=b", "{login}", "a=b", "tru\\e", " ", "a b", "a,b",
]  # fmt: skip
EDGE = st.one_of(st.sampled_from(EDGES), st.text(max_size=6))
BASE = "https://api.github.com/repos/octo/repo/"


@st.composite
def _column(draw: st.DrawFn, kind: str, n: int) -> list[Any]:
    """One column's values over ``n`` rows, shaped to set off one marker (or to break it)."""
    if kind == "id":
        return list(range(n))
    if kind == "url":  # prefix=: one cell may lack the prefix
        cells: list[Any] = [f"{BASE}issues/{draw(EDGE)}{i}" for i in range(n)]
    elif kind == "login":  # the template's source: long enough to pay
        cells = [f"user-{draw(EDGE)}-{i}" for i in range(n)]
    elif kind == "page":  # template= from `login`, filled in later
        return [None] * n
    elif kind == "zip":  # str=: number-like and word strings
        cells = [
            draw(st.sampled_from(["0213", "-1", "1e5", "true", "null", "62"])) for _ in range(n)
        ]
    elif kind == "body":  # crlf=
        cells = [f"a{i}\r\nb{draw(EDGE)}\r\n" for i in range(n)]
    elif kind == "kind":  # a constant column
        cells = [draw(EDGE)] * n
    elif kind == "owner":  # groups
        cells = [{"login": draw(EDGE), "id": i, "site": {"url": draw(EDGE)}} for i in range(n)]
    elif kind == "opt":  # optional= / nullable=
        gone = draw(st.sampled_from([None, "absent"]))
        cells = [{"a": draw(EDGE), "b": i} if i % 2 == 0 else gone for i in range(n)]
    elif kind == "tags":  # child sections
        cells = [[{"name": draw(EDGE), "n": j} for j in range(2)] for _ in range(n)]
    elif kind == "fav":  # infix=: a fixed middle between parts that vary
        mid = "rs:fit:32:32:1:0/g:ce/aHR0cDovL2Zhdmlj/b25zLnNlYXJjaC5i"
        cells = [f"https://imgs.example/{draw(EDGE)}x{i}/{mid}/N{i}{draw(EDGE)}" for i in range(n)]
    elif kind == "tree":  # tree=: objects whose leaves are all {}
        cells = [{"f:a": {}, f"f:{draw(EDGE)}": {".": {}}} for _ in range(n)]
    elif kind == "raw":  # json=raw
        cells = [{'k:{"uid":"a\\b"}': draw(EDGE), "v": [draw(EDGE)]} for _ in range(n)]
    else:
        cells = [draw(EDGE) for _ in range(n)]
    if n > 2 and draw(st.booleans()):  # one row breaks the pattern
        cells[draw(st.integers(0, n - 1))] = draw(st.one_of(EDGE, st.none()))
    return cells


KINDS = ["id", "login", "url", "page", "zip", "body", "kind", "owner", "opt", "tags", "tree"]
KINDS += ["fav", "raw", "text"]


@st.composite
def edge_tables(draw: st.DrawFn) -> list[dict[str, Any]]:
    n = draw(st.integers(1, 6))
    kinds = draw(st.lists(st.sampled_from(KINDS), min_size=1, max_size=5, unique=True))
    if "page" in kinds and "login" not in kinds:
        kinds.insert(0, "login")
    columns = {k: draw(_column(k, n)) for k in kinds}
    rows = []
    for i in range(n):
        row = {k: v[i] for k, v in columns.items() if v[i] != "absent"}
        if "page" in row:
            login = row.get("login")
            page = f"https://x.test/users/{login}/page" if isinstance(login, str) else "x"
            row["page"] = draw(st.sampled_from([page, page, page, "https://x.test/other"]))
        rows.append(row)
    return rows


@st.composite
def edge_payloads(draw: st.DrawFn) -> Any:
    """Tables alone, inside objects (also below the top level), columnar, records, any JSON."""
    table = draw(edge_tables())
    shape = draw(st.integers(0, 7))
    if shape == 0:
        return table
    if shape == 1:  # members around a table, in the header
        before = draw(st.dictionaries(KEYS, EDGE, max_size=2))
        return {**before, "items": table, **draw(st.dictionaries(KEYS, EDGE, max_size=2))}
    if shape == 2:  # a table below the top level
        return {"data": {"items": table, "total": draw(EDGE)}, "q": draw(EDGE)}
    if shape == 3:  # columnar
        n = draw(st.integers(2, 4))
        return {"hourly": {k: [draw(EDGE) for _ in range(n)] for k in ("time", "t")}}
    if shape == 4:  # a record with member objects
        return {"id": draw(EDGE), "a": {"b": draw(EDGE), "c": {"d": draw(EDGE), "e": draw(EDGE)}}}
    if shape == 5:
        return draw(st.lists(EDGE, max_size=4))
    if shape == 6:  # a long text, written in lines of its own (form=lines)
        lines = [draw(st.one_of(EDGE, st.just("a line;"))) for _ in range(36)]
        return {"path": draw(EDGE), "text": "\n".join(lines) + "\n", "size": 1}
    return draw(json_values(12))


def reads_the_same(value: Any) -> None:
    contract.holds(value, gcx.encode(value, tool="t"))
    chosen = gcxwire.encode(value, tool="t", format="auto")
    if chosen.startswith("GCX1"):
        contract.holds(value, chosen)


def test_edge_payloads_read_the_same_in_the_reference() -> None:
    prove(20, reads_the_same, edge_payloads())


def test_the_empty_string_is_marked() -> None:
    # The reference reads `""` as two quote characters: `quoted=json` says it is JSON.
    text = gcx.encode([{"a": "", "b": 1}, {"a": "x", "b": 2}], tool="t")
    assert text.split("\n")[:2] == ["GCX1 tool=t fields=a,b quoted=json", '""\t1']
    assert reference_model.decode(text)["sections"][0]["meta"]["quoted"] == "json"
    assert "quoted=" not in gcx.encode([{"a": "x", "b": '"q"'}], tool="t")  # `\"q"` is no literal


def test_a_layout_marks_the_empty_string_too() -> None:
    rows = [{"id": i, "name": "" if i % 2 else f"n{i}"} for i in range(4)]
    text = gcx.encode(rows, tool="t", layout=Layout.infer(rows, tool="t"))
    assert text.split("\n")[0] == "GCX1 tool=t fields=id,name quoted=json"
    contract.holds(rows, text)


def test_lines_sections_are_never_marked() -> None:
    # Their rows are plain text (`""` is two quote characters there), and take no other meta.
    text = "".join(f"line {i};\n" for i in range(40)).replace("line 3;", '""')
    payload = gcx.encode({"path": "a", "text": text, "size": 1}, tool="t")
    assert "\nGCX1 tool=t fields=text form=lines of=text\n" in payload
    assert "quoted=" not in payload and '\n""\n' in payload
    assert gcx.decode(payload)["text"] == text


def test_a_string_ending_in_cr_is_marked_where_it_is_json_text() -> None:
    # Go's line reader drops a CR before LF, so the last cell is the string's JSON text.
    text = gcx.encode([{"a": 1, "b": "x\r"}, {"a": 2, "b": "y"}], tool="t")
    assert text.split("\n")[:2] == ["GCX1 tool=t fields=a,b quoted=json", '1\t"x\\\\r"']
    assert reference_model.decode(text)["sections"][0]["rows"][0]["b"] == '"x\\r"'
    assert "quoted=" not in gcx.encode([{"a": "x\r", "b": 1}], tool="t")  # mid-row: raw CR
    text = gcx.encode({"items": [{"a": 1}, {"a": 2}], "after": "a\r"}, tool="t")
    assert text.split("\n")[0] == 'GCX1 tool=t fields=a of=items after="a\\\\r" quoted=json'


def test_quoted_has_one_value() -> None:
    assert gcx.decode('GCX1 tool=t fields=a quoted=json\n""') == [{"a": ""}]
    with pytest.raises(DecodeError, match="Unknown `quoted=yes`"):
        gcx.decode('GCX1 tool=t fields=a quoted=yes\n""')


def test_a_repeated_marker_reads_its_last_value_as_reference_decoders_do() -> None:
    text = "GCX1 tool=t fields=a n=1 of=x m=2 of=y\n1"
    assert reference_model.decode(text)["sections"][0]["meta"]["of"] == "y"
    assert gcx.decode(text) == {"n": 1, "m": 2, "y": [{"a": 1}]}
    assert gcx.decode("GCX1 tool=t fields=a is=list is=object\n1") == {"a": 1}
    with pytest.raises(DecodeError, match="Unknown `form=x`"):
        gcx.decode("GCX1 tool=t fields=a form=columns form=x of=y\n1")
