"""`infix=` columns: a long run of path segments a column's strings share inside, written
once; each cell writes `…` in its place.

Round trips on both twins (the autouse ``twin`` fixture), with cells built to
defeat the form; the reference-decoder model reads the same sections, rows and
columns, an infixed column's cells reading `…` where the header's text goes.
"""

from __future__ import annotations

import enum
from typing import Any

import pytest
from hypothesis import strategies as st

from gcxwire import gcx
from gcxwire.errors import DecodeError

from .. import reference_model
from ..strategies import TEXT
from ..tiers import prove
from . import contract
from .gcx_checks import roundtrip

MARK = "\u2026"
INFIXES = st.sampled_from(
    [
        "rs:fit:32:32:1:0/g:ce/aHR0cDovL2Zhdmlj",
        "search?q=what+is+this%3f&id",
        "images/icons/issuetypes",
        "a%2Fb/c%3Dd/e-f.g_h~i",
    ]
)
ENDS = st.one_of(
    st.text("abcXYZ019_-", min_size=1, max_size=12),
    st.sampled_from(["12", "-3", "true", "x\ty", "a\\b", "[x", "#h", "GCX1"]),
)
PREFIXES = st.sampled_from(["", "https://imgs.example.test/", "/srv/demo/files/"])


@st.composite
def infix_tables(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Rows whose `img` (and `meta.icon`) hold a shared middle, with cells built to break it."""
    infix, prefix = draw(INFIXES), draw(PREFIXES)
    sep = "&" if infix.endswith("&id") else "/"

    def url() -> str:
        return f"{prefix}{draw(ENDS)}/{infix}{sep}{draw(ENDS)}"

    rows: list[dict[str, Any]] = []
    for i in range(draw(st.integers(min_value=3, max_value=9))):
        row: dict[str, Any] = {"id": i, "img": url()}
        if draw(st.booleans()):
            row["meta"] = {"icon": url(), "n": i}
        rows.append(row)
    k = draw(st.integers(0, len(rows) - 1))
    defeat = draw(
        st.sampled_from(
            ["none", "lacks", "mark", "start", "end", "twice", "null", "number", "list", "gone"]
        )
    )
    if defeat == "lacks":  # one cell lacks the infix
        rows[k]["img"] = draw(TEXT)
    elif defeat == "mark":  # one cell holds the ellipsis itself: the form must not apply
        rows[k]["img"] = f"{prefix}x/{MARK}/{infix}/y"
    elif defeat == "start":  # the infix only at the cell's start: no head to keep
        rows[k]["img"] = f"{prefix}{infix}/y"
    elif defeat == "end":  # the infix only at the cell's end: no tail to keep
        rows[k]["img"] = f"{prefix}x/{infix}"
    elif defeat == "twice":
        rows[k]["img"] = f"{prefix}x/{infix}/{infix}/y"
    elif defeat == "null":
        rows[k]["img"] = None
    elif defeat == "number":
        rows[k]["img"] = draw(st.integers())
    elif defeat == "list":
        rows[k]["img"] = [f"x/{infix}/y"]
    elif defeat == "gone":
        del rows[k]["img"]
    return rows


@st.composite
def infix_payloads(draw: st.DrawFn) -> Any:
    rows = draw(infix_tables())
    if draw(st.booleans()):
        return rows
    return {"total": len(rows), "data": {"items": rows}}  # a table below the top


def test_infix_columns_round_trip() -> None:
    # Default tier only: the slow tier is CI's critical path.
    prove(12, roundtrip, infix_payloads())


def test_reference_decoder_reads_infix_columns() -> None:
    # Default tier only: the slow tier is CI's critical path.
    prove(12, reads_infix_columns, infix_payloads())


def reads_infix_columns(value: Any) -> None:
    """No error, the same sections, rows and columns; unmarked string cells unchanged.

    In an `infix=` column a cell holding `…` reads as its string with the
    infix there (after the column's prefix); tests/codec/contract.py checks it.
    """
    contract.holds(value, gcx.encode(value, tool="t"))


FAVICONS = [
    {
        "title": f"page {i}",
        "favicon": f"https://imgs.example.test/{sig}/rs:fit:32:32:1:0/g:ce/aHR0cDovL2Zhdmlj"
        f"/b25zLnNlYXJjaC5i/{tail}",
    }
    for i, (sig, tail) in enumerate(
        [("m6XxME4ek8DG", "NjQwNGZh"), ("olJXVnUGSGEK", "NzBlZTRi"), ("WP8Eq7jjrGe0", "NDZjMGEz")]
    )
]


def test_a_shared_middle_is_written_once_and_each_cell_keeps_both_ends() -> None:
    text = roundtrip(FAVICONS)
    header, *rows = text.split("\n")
    assert header.endswith(
        " prefix=favicon=https://imgs.example.test/"
        " infix=favicon=rs:fit:32:32:1:0/g:ce/aHR0cDovL2Zhdmlj/b25zLnNlYXJjaC5i"
    )
    assert rows == ["page 0\tm6XxME4ek8DG/…/NjQwNGZh", "page 1\tolJXVnUGSGEK/…/NzBlZTRi",
                    "page 2\tWP8Eq7jjrGe0/…/NDZjMGEz"]  # fmt: skip


def test_a_cell_without_the_infix_keeps_its_text() -> None:
    rows = [*FAVICONS, {"title": "other", "favicon": "https://imgs.example.test/a/b/c"}]
    text = roundtrip(rows)
    assert text.endswith("\nother\ta/b/c")
    assert " infix=favicon=" in text


def test_no_infix_where_a_string_of_the_column_holds_the_ellipsis() -> None:
    rows = [*FAVICONS, {"title": "x", "favicon": "https://imgs.example.test/a/…/c"}]
    assert " infix=" not in roundtrip(rows)


def test_a_str_subclass_holding_the_ellipsis_keeps_the_column_plain() -> None:
    class Text(str, enum.Enum):
        ODD = "https://imgs.example.test/…/x"

    rows = [*FAVICONS, {"title": "x", "favicon": Text.ODD}]
    text = gcx.encode(rows, tool="t")
    assert " infix=" not in text
    assert gcx.decode(text)[-1]["favicon"] == Text.ODD.value


def test_no_infix_that_would_leave_a_cell_without_its_own_end() -> None:
    # A column that repeats one path in most rows reads `internal/…` in those cells:
    # nothing of the row would be left to say what it is.
    rows = [{"from": "internal/mcp/server.go::Server.Start", "to": f"t{i}"} for i in range(6)]
    assert " infix=" not in roundtrip(rows)


def test_no_infix_from_markup_or_for_a_few_rows_of_the_column() -> None:
    html = [{"u": f"https://x.test/{i}/<b>semantic</b>-<b>kernel</b>/p{i}"} for i in range(6)]
    assert " infix=" not in roundtrip(html)
    few = [{"u": f"https://x.test/{i}/y/p{i}"} for i in range(6)]
    few += [
        {"u": f"https://x.test/{i}/rs:fit:32:32:1:0/g:ce/aHR0cDovL2Zhdmlj/p{i}"} for i in (6, 7)
    ]
    assert " infix=" not in roundtrip(few)


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ("GCX1 tool=t fields=a infix=b=xyz\nq", "`infix=b=xyz` names no column"),
        ("GCX1 tool=t fields=a infix=xyz\nq", "`infix=xyz` names no column"),
        ("GCX1 tool=t fields=a infix=a=x infix=a=y\nq", "Column 'a' has two infixes"),
    ],
)
def test_infix_decoding_refuses_what_it_cannot_apply(payload: str, message: str) -> None:
    with pytest.raises(DecodeError, match=message):
        gcx.decode(payload)


def test_only_the_first_mark_of_a_string_is_the_infix() -> None:
    text = "GCX1 tool=t fields=a,b infix=a=MID\nx…y…z\t…\n7\tq"
    assert gcx.decode(text) == [{"a": "xMIDy…z", "b": "…"}, {"a": 7, "b": "q"}]
    assert reference_model.decode(text)["sections"][0]["rows"][0]["a"] == "x…y…z"
