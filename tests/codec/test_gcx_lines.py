"""Long texts as `form=lines` sections: one row per line of a text that left its cell.

The texts round-trip exactly on both twins, also when built to defeat the form
(blank lines, lines that start like a comment or a header, CR in all its
places, texts a cell must guard, a template column that holds one); the
reference-decoder model reads every payload with the same sections, rows and
columns, each moved cell blank, the lines joined by LF the text, and every other
string cell unchanged.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import strategies as st

from gcxwire import _gcx_lines, gcx
from gcxwire._gcx_header import _listed, _tool_text
from gcxwire._impl import escape
from gcxwire.errors import DecodeError

from .. import reference_model
from ..strategies import TEXT, same
from ..tiers import prove
from . import contract
from .gcx_checks import reference_sections, roundtrip
from .test_gcx_transforms import reads_new_forms

# Lines of code, markup and prose, most ending in a mark a real line break merges with
# (those move), and lines built to break the rows: blank, comment- and header-like, CR.
SAMPLED = st.sampled_from(
    [
        "def f(a, b):",
        "    return a + b;",
        "<p>Some text.</p>",
        "- an item,",
        "[link](https://x.test/)",
        '"quoted"',
        "{",
        "}",
        "\t\tindented.",
        " ",
    ]
)
TRICKY_LINES = st.sampled_from(
    ["", "# A heading", "#", "GCX1 tool=x fields=y", "GCX2 x", "\\", "a\\tb\\n", "null", "123",
     "-1", "end\r", "a\rb.", "tru\\e.", "plain words"]
)  # fmt: skip
LINE = st.one_of(SAMPLED, SAMPLED, SAMPLED, TRICKY_LINES, TEXT)


@st.composite
def texts(draw: st.DrawFn) -> str:
    """A text of 40 lines or more, with CR LF line ends, stray CRs or none."""
    lines = draw(st.lists(LINE, min_size=40, max_size=60))
    ends = draw(st.sampled_from(["lf", "crlf", "mixed"]))
    if ends == "crlf":
        text = "\r\n".join(line.replace("\r", "") for line in lines)
    elif ends == "mixed":
        text = "\r\n".join(lines[:10]) + "\n" + "\n".join(lines[10:])
    else:
        text = "\n".join(lines)
    edge = draw(st.sampled_from(["", "\n", "\n\n", "\r", "\r\n"]))
    return draw(st.sampled_from([text, edge + text, text + edge]))


@st.composite
def text_tables(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Rows with a long text in some column, and cells built to defeat the move."""
    rows: list[dict[str, Any]] = []
    owners = draw(st.booleans())  # a group of members, one of them a text
    for i in range(draw(st.integers(1, 4))):
        row: dict[str, Any] = {}
        if draw(st.booleans()):
            row["body"] = draw(texts())  # the first cell
        row["id"] = i
        row["url"] = f"https://x.test/a/{i}"
        row["text"] = draw(st.one_of(texts(), TEXT, st.none()))
        if draw(st.booleans()):
            row["note"] = draw(st.one_of(TEXT, st.none()))
        if owners:
            row["owner"] = {"login": draw(TEXT), "bio": draw(st.one_of(texts(), TEXT))}
        rows.append(row)
    defeat = draw(st.sampled_from(["none", "guard", "template", "nulls", "alone", "gone"]))
    k = draw(st.integers(0, len(rows) - 1))
    if defeat == "guard":  # a text a cell must guard: it starts like a JSON literal
        rows[k]["text"] = "[" + draw(texts())
    elif defeat == "template":  # a template column's own cell holds a long text
        for row in rows:
            row["link"] = "https://x.test/a/" + str(row["id"]) + "/page/" + "x" * 20
        rows[k]["link"] = draw(texts())
    elif defeat == "nulls":  # empty=null: a moved cell is written `\`
        for row in rows:
            row.update({f"n{j}": None for j in range(5)})
    elif defeat == "alone":  # the text is the row's only member
        rows[k] = {"text": draw(texts())}
    elif defeat == "gone":  # and the group some rows lack (optional=): its texts stay
        rows[k].pop("text")
        rows[k].pop("owner", None)
    return rows


@st.composite
def payloads(draw: st.DrawFn) -> Any:
    """Texts in a top-level table, a member table, a table deeper down, or a record."""
    table = draw(text_tables())
    kind = draw(st.sampled_from(["top", "member", "beside", "deep", "record"]))
    if kind == "top":
        return table
    if kind == "member":
        return {"query": draw(TEXT), "results": table, "answer": draw(st.one_of(TEXT, texts()))}
    if kind == "beside":  # records around a table hold texts, members after them
        alone = draw(st.booleans())  # a record of the text alone keeps it in its row
        first = {"answer": draw(texts())} if alone else {"q": "a b", "answer": draw(texts())}
        return {**first, "n": 1, "results": table, "tail": draw(texts()), "end": "x y"}
    if kind == "deep":
        return {"data": {"items": table + table, "total": len(table)}}
    record = dict(table[0])
    record["owner"] = {"login": draw(TEXT), "bio": draw(texts()), "id": 1}
    return record


# Default tier only (the slow tier is CI's critical path); each example writes ~100 lines.
def test_long_texts_round_trip() -> None:
    prove(10, roundtrip, payloads())


def test_reference_decoders_read_lines_sections() -> None:
    prove(10, reads_lines, payloads())


def reads_lines(value: Any) -> None:
    """The sections gcx.parse reads; each lines section's rows joined by LF are its text.

    The other sections' unmarked string cells, and the moved cells (blank), are
    checked by ``reads_new_forms``.
    """
    text = gcx.encode(value, tool="t")
    reads_new_forms(value, "t")
    contract.holds(value, text)  # every string cell the typed reading has, read the same
    for section, header in reference_sections(text):
        meta = section["meta"]
        if meta.get("form") != "lines":
            continue
        assert section["fields"] == list(header.fields) and len(section["fields"]) == 1
        name = section["fields"][0]
        original: Any = value
        for step in _gcx_lines._path(dict(header.raw_meta)["of"], text):
            original = original[step]
        joined = "\n".join(row[name] for row in section["rows"])
        assert joined == (original.replace("\r\n", "\n") if "crlf" in meta else original)
        assert all(row[name] for row in section["rows"])  # no row is blank


def test_a_long_page_moves_and_its_cell_is_left_blank() -> None:
    page = "\n".join(f"Line {i} of the page, with a comma," for i in range(40))
    rows = [{"title": "a", "raw_content": page, "score": 0.5}, {"title": "b", "score": 0.25}]
    text = roundtrip({"results": rows, "response_time": 1.5}, tool="search")
    lines = text.split("\n")
    assert (
        lines[0] == "GCX1 tool=search fields=title,raw_content,score of=results response_time=1.5"
    )
    assert lines[1:4] == [
        "a\t\t0.5",
        "b\t\t0.25",
        "GCX1 tool=search fields=raw_content form=lines of=results[0].raw_content",
    ]
    assert lines[4:] == page.split("\n")
    model = reference_model.decode(text)["sections"]
    assert model[0]["rows"][0]["raw_content"] == ""  # marked: the section below names it


def test_a_text_whose_lines_end_in_letters_stays_in_its_cell() -> None:
    # A break after a letter costs a token as `\n` and as a line: nothing to save.
    page = "\n".join(f"line {i} of the page" for i in range(60))
    assert "form=lines" not in roundtrip([{"id": 1, "body": page}])
    short = "\n".join(f"Line {i}." for i in range(6))  # too few breaks to pay for a header
    assert "form=lines" not in roundtrip([{"id": 1, "body": short}])


def test_a_record_member_moves_and_keeps_its_place() -> None:
    source = "\n".join(f"    x{i} = f({i})," for i in range(40))
    value = {"path": "a.py", "content": source, "size": len(source)}
    text = roundtrip(value, tool="read_file")
    header, row, lines_header = text.split("\n")[:3]
    assert header == "GCX1 tool=read_file fields=path,content,size is=object"
    assert row == f"a.py\t\t{len(source)}"
    assert lines_header == "GCX1 tool=read_file fields=content form=lines of=content"
    assert list(gcx.decode(text)) == ["path", "content", "size"]


def test_blank_lines_ride_in_the_next_row_and_guards_keep_rows_rows() -> None:
    text = "# Title\n\n\nGCX1 x\n" + "\n".join(f"- step {i};" for i in range(30)) + "\n"
    rows = _gcx_lines.line_rows(text)
    assert rows[:2] == ["# Title", "\n\nGCX1 x"]
    assert rows[-1] == "- step 29;\n"  # a final LF stays in the last row
    assert "\n".join(rows) == text
    assert _gcx_lines._rows_text(["# Title", "GCX1 x", "a#", "\\"]) == (
        "\\# Title\n\\GCX1 x\na#\n\\\\",
        2,
    )


def test_line_rows_join_back_and_none_is_blank() -> None:
    def check(text: str) -> None:
        rows = _gcx_lines.line_rows(text)
        assert "\n".join(rows) == text
        if text:
            assert all(rows) and not any(r.endswith("\r") for r in rows[:-1])

    prove(60, check, st.text(alphabet="ab\r\n\t#", max_size=40))


def test_crlf_text_says_so_on_its_lines_section() -> None:
    body = "\r\n".join(f"Step {i}: run it." for i in range(40))
    text = roundtrip([{"id": 1, "body": body}, {"id": 2, "body": body}])
    assert text.count("crlf=body") == 3  # the table's column and both lines sections
    assert "\r" not in text


@pytest.mark.parametrize(
    "tail",
    [
        "fields=text form=lines of=[5].text",  # no such row
        "fields=text form=lines of=[0].id",  # a cell that is not blank
        "fields=text form=lines of=[0].nope",  # no column of its table
        "fields=text form=lines of=[x].text",
        "fields=text form=lines of=[0]text",
        "fields=text form=lines of=[0].text float=text",  # members of its own
        "fields=text,more form=lines of=[0].text",
        "fields=text form=lines",  # names no cell
    ],
)
def test_a_lines_section_that_names_no_blank_cell_is_refused(tail: str) -> None:
    table = "GCX1 tool=t fields=id,text\n1\n"
    with pytest.raises(DecodeError):
        gcx.decode(f"{table}GCX1 tool=t {tail}\nline one\nline two")
    with pytest.raises(DecodeError):  # nor may it come first
        gcx.decode(f"GCX1 tool=t {tail}\nline one\n{table}")


def test_lines_are_text_whatever_they_look_like() -> None:
    table = "GCX1 tool=t fields=id,text\n1\n"
    lines = ["123", "null", "[1, 2", "\\#x", "a\\tb", "\\", "x" * 5000 + "1" * 5000]
    got = gcx.decode(table + "GCX1 tool=t fields=text form=lines of=[0].text\n" + "\n".join(lines))
    assert got == [
        {"id": 1, "text": "\n".join(["123", "null", "[1, 2", "#x", "a\tb", "\\", lines[-1]])}
    ]
    assert same(
        gcx.decode(
            "GCX1 tool=t fields=a,b,c is=object\n1\t\t3\nGCX1 tool=t fields=b form=lines of=b\nx"
        ),
        {"a": 1, "b": "x", "c": 3},
    )


def test_a_template_source_keeps_its_text_in_its_row() -> None:
    # `copy` is derived from `text` (`copy={text}/` in the field list): the source must stay put.
    pages = ["\n".join(f"Row {r}, line {i};" for i in range(40)) for r in range(3)]
    rows = [{"id": r, "text": p, "copy": p + "/"} for r, p in enumerate(pages)]
    text = roundtrip(rows)
    assert ",copy={text}/ template={}" in text
    assert "form=lines" not in text
    record = {"text": pages[0], "copy": pages[0] + "/", "body": pages[1]}
    text = roundtrip(record)
    assert ",copy={text}/" in text and " template={}" in text
    assert text.count("form=lines") == 1 and "of=body" in text


def test_a_text_beside_a_table_keeps_its_place_among_the_members() -> None:
    page = "\n".join(f"Step {i}: do it." for i in range(40))
    value = {"query": "what is it?", "answer": page, "results": [{"a": 1}, {"a": 2}], "t": 1.5}
    text = roundtrip(value, tool="search")
    assert "GCX1 tool=search fields=answer form=lines of=answer" in text
    assert list(gcx.decode(text)) == ["query", "answer", "results", "t"]
    alone = {"answer": page, "results": [{"a": 1}, {"a": 2}]}
    assert "form=lines" not in roundtrip(alone)  # its record would hold no cell


def test_a_group_member_moves_unless_a_blank_group_reads_as_missing() -> None:
    bio = "\n".join(f"- point {i};" for i in range(40))
    rows = [{"id": i, "owner": {"login": f"u{i}", "bio": bio, "site": "x"}} for i in range(3)]
    text = roundtrip({"items": rows, "total": 3})
    assert "GCX1 tool=t fields=bio form=lines of=items[1].owner.bio" in text
    members = {"summary": "s", "description": bio, "status": "open", "labels": "a", "rank": 1}
    text = roundtrip({"id": 1, "fields": members, "n": 2})
    assert "GCX1 tool=t fields=description form=lines of=fields.description" in text
    assert list(gcx.decode(text)["fields"]) == list(members)
    rows[1] = {"id": 1}  # owner{...} optional=owner: a blank group would read as missing
    text = roundtrip({"items": rows, "total": 3})
    assert "optional=owner" in text and "form=lines" not in text


def test_a_cell_ending_in_cr_is_not_left_last_when_the_text_after_it_moves() -> None:
    page = "\n".join(f"Line {i}, more;" for i in range(40))
    text = roundtrip([{"id": 1, "a": "x\r", "body": page}, {"id": 2, "a": "y", "body": "z"}])
    assert text.split("\n")[1] == "1\tx\r\t"  # a reference line reader keeps the CR


# Prose, and texts of k lines that each end in a mark: the fewest breaks that pay.
_PROSE = st.one_of(
    st.text(alphabet=" .,:a#\n", max_size=300),
    st.integers(8, 40).map(lambda k: "\n".join(["x."] * k)),
)


def test_no_text_that_moves_has_fewer_breaks_than_the_scan_skips() -> None:
    # The scan skips cells with fewer `\\n` than the cheapest header costs: a lower bound
    # on what any text that moves holds, or texts that pay would stay in their cells.
    def check(text: str, tool: str, path: tuple[str, ...], of: str | None, row: int) -> None:
        tool_text = _tool_text(tool)
        where = _gcx_lines._where(of, row, path)
        if _gcx_lines.lines_section(tool_text, _listed(path[-1]), where, text) is not None:
            floor = _gcx_lines._fewest_breaks(tool_text, of, [None, path], ())
            assert escape(text).count("\\n") >= floor

    prove(
        40,
        check,
        _PROSE,
        st.sampled_from(["t", "search"]),
        st.sampled_from([("body",), ("a", "b.c")]),
        st.sampled_from([None, "", "results"]),
        st.integers(0, 120),
    )


def test_the_first_look_asks_for_no_more_breaks_than_any_column_needs() -> None:
    # move_texts asks break_cells for least_breaks' count before it reads the columns'
    # headers: more than a column's _fewest_breaks would skip a text that pays there.
    def check(tool: str, path: tuple[str, ...], of: str | None) -> None:
        tool_text = _tool_text(tool)
        least = _gcx_lines.least_breaks(tool_text, of)
        assert least <= _gcx_lines._fewest_breaks(tool_text, of, [None, path], ())

    prove(
        40,
        check,
        st.sampled_from(["t", "search", "a=b"]),
        st.lists(st.text(alphabet="a.[]\\{=,\t", max_size=3), min_size=1, max_size=3).map(tuple),
        st.sampled_from([None, "", "results", "[].labels"]),
    )
