"""gcxwire.mcp.reading_hint: every marker a payload uses is explained, nothing else,
and no hint can be mistaken for a payload."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gcxwire
from gcxwire import _auto, _gcx_model, dcp
from gcxwire.mcp import HINT_OPENING, MARKERS, hint_markers, is_hint, reading_hint

ROWS = [{"id": i, "name": f"user{i}", "owner": {"login": "a", "id": i}} for i in range(4)]
RECORDS = [{"id": i, "name": "x", "tags": [{"k": i}], "opt": i} for i in range(3)]
SCHEMA = dcp.infer_schema(RECORDS, domain="things")


def gcx(value: Any) -> str:
    return gcxwire.encode(value, tool="t", format="gcx")


# (payload, markers it must name): together they use every marker the hint knows.
CASES: list[tuple[str, set[str]]] = [
    (gcx(ROWS), {"gcx", "flat"}),
    (gcx({"total": 4, "items": ROWS}), {"of", "flat"}),
    (gcx({"of": 1, "items": ROWS}), {"of", "data-key"}),
    (gcx({"a": 1, "b": "x y"}), {"is=object"}),
    (
        gcx(
            [
                {"id": i, "tags": [{"key": "k", "value": f"v{j}"} for j in range(3)]}
                for i in range(2)
            ]
        ),
        {"gcx", "of", "child"},
    ),
    (gcx([1, "2", "true", "", None]), {"is=list", "guard", "words"}),
    (gcx(["null", "false"]), {"is=list", "words"}),
    (gcx(5), {"is=value"}),
    (gcx([{"a": float(i % 3), "b": i} for i in range(4)]), {"float"}),
    (gcx({"hourly": {"time": ["T0", "T1"], "temp": [1.5, 2]}}), {"of", "form=columns"}),
    (gcx({"path": "a.py", "text": "\n".join(f"x{i} = {i};" for i in range(40))}), {"form=lines"}),
    (
        gcx([{"id": i, "url": f"https://api.example.test/repos/o/r/issues/{i}"} for i in range(3)]),
        {"prefix"},
    ),
    (
        gcx(
            [
                {"n": f"u{i}", "u": f"https://api.example.test/users/u{i}/followers"}
                for i in range(9)
            ]
        ),
        {"template"},
    ),
    (
        gcx([{"img": f"s{i}/rs:fit:32:32:1:0/g:ce/aHR0cDovL2Zhdmlj/h{i}"} for i in range(3)]),
        {"infix"},
    ),
    (gcx([{"a": i, "f": [[{'k:{"uid":"x"}': i}]]} for i in range(2)]), {"json=raw"}),
    (gcx([{"a": i, "zip": str(10000 + i)} for i in range(4)]), {"str"}),
    (gcx([{"a": i, "text": "a\r\nb\r\nc\r\n"} for i in range(2)]), {"crlf"}),
    (gcx([{"a": i, "text": ""} for i in range(2)]), {"quoted=json"}),
    (
        gcx([{"a": 0, "f": {"x": {}, "y": {"z": {}, "w": {}}, "v": {}}}, {"a": 1, "f": "-"}]),
        {"tree"},
    ),
    (gcx([{"a": i, "f": ["x", "y", "z"]} for i in range(2)]), {"lists"}),
    (
        gcx([{"a": i, **({"o": {"x": i, "y": i}} if i else {})} for i in range(3)]),
        {"flat", "optional"},
    ),
    (gcx([{"a": i, "o": {"x": i, "y": i} if i else None} for i in range(3)]), {"flat", "nullable"}),
    (
        gcx([{"a": i, "b": "same-value-here"} for i in range(3)]),
        {"constant"},
    ),
    (
        gcx([{k: None if (i + j) % 2 else i for j, k in enumerate("abcdef")} for i in range(4)]),
        {"empty=null"},
    ),
    (gcxwire.encode(ROWS, tool="t", format="dcp"), {"dcp", "dcp-dotted"}),
    (gcxwire.encode({"total": 4, "items": ROWS}, tool="t", format="dcp"), {"dcp-wrapper"}),
    (dcp.encode([{"id": 1, "name": "y", "tags": [{"k": 1}]}], SCHEMA), {"dcp-mask", "dcp-nested"}),
]


@pytest.mark.parametrize(("payload", "expected"), CASES)
def test_a_payload_hint_names_its_markers(payload: str, expected: set[str]) -> None:
    markers = hint_markers(payload)
    assert expected <= set(markers)
    hint = reading_hint(payload)
    assert hint.splitlines()[0] == HINT_OPENING
    assert hint.splitlines()[1:] == ["- " + MARKERS[m] for m in markers]


def test_the_cases_use_every_marker_and_every_header_marker_has_a_line() -> None:
    used = set().union(*(hint_markers(payload) for payload, _ in CASES))
    assert used == set(MARKERS)
    # A new reserved header key (a marker) fails here until the hint explains it.
    for key in _gcx_model._CONTROL:
        assert any(m == key or m.startswith(key + "=") for m in MARKERS), (
            f"header marker {key!r} has no line in gcxwire.mcp.hint.MARKERS"
        )


CORPUS = sorted((Path(__file__).parents[2] / "bench" / "cases").glob("*/*.json"))
# Reserved keys whose hint line is for one value (`is=object`), not for the key.
_BY_VALUE = ("is", "form", "json", "empty", "quoted")


def test_every_marker_a_recorded_response_is_written_with_has_its_line() -> None:
    # Read from what the writer emits, not from the expectations above: a new
    # reserved key, or a new value of one, fails here until the hint explains it.
    assert len(CORPUS) >= 100
    for path in CORPUS:
        text = gcx(json.loads(json.loads(path.read_text(encoding="utf-8"))["input"]))
        markers = set(hint_markers(text))
        for line in text.split("\n"):
            for token in line.split()[1:] if line.startswith("GCX1 ") else ():
                key, _, value = token.partition("=")
                if key in _gcx_model._CONTROL:
                    wanted = f"{key}={value}" if key in _BY_VALUE else key
                    if key == "of" and "form=lines" in line.split():
                        wanted = "form=lines"  # whose line says what of= names there
                    assert wanted in markers, f"{path.name}: {token} is not in its hint"


def test_a_plain_table_gets_no_line_for_markers_it_does_not_use() -> None:
    payload = gcx([{"id": i, "name": f"n{i}"} for i in range(3)])
    assert hint_markers(payload) == ("gcx",)


@pytest.mark.parametrize("fmt", ["gcx", "dcp", "auto"])
def test_a_format_hint_explains_all_of_its_markers(fmt: str) -> None:
    lines = reading_hint(fmt).splitlines()
    wanted = [m for m in MARKERS if fmt == "auto" or m.startswith("dcp") == (fmt == "dcp")]
    assert lines == [HINT_OPENING, *("- " + MARKERS[m] for m in wanted)]
    assert hint_markers(fmt) == tuple(wanted)


def test_explained_markers_are_left_out() -> None:
    payload = gcx({"total": 4, "items": ROWS})
    assert reading_hint(payload, explained=hint_markers(payload)) == ""
    assert reading_hint(payload, explained={"gcx"}).splitlines()[1:] == [
        "- " + MARKERS["of"],
        "- " + MARKERS["flat"],
    ]


@pytest.mark.parametrize("text", ["json", '{"a": 1}', "[1, 2]", "plain words", "", "xml"])
def test_json_and_plain_text_need_no_hint(text: str) -> None:
    assert reading_hint(text) == ""
    assert hint_markers(text) == ()


@pytest.mark.parametrize("fmt", ["gcx", "dcp", "auto"])
def test_no_hint_reads_as_a_payload(fmt: str) -> None:
    hint = reading_hint(fmt)
    # Nothing in it starts like a GCX1 header or a DCP line, so a client joining
    # all text blocks gets prose first, never a half-valid payload.
    assert not any(line.startswith(("GCX", "[", "{")) for line in hint.splitlines())
    assert _auto.detect(hint) == "json"
    with pytest.raises(gcxwire.DecodeError):
        gcxwire.decode(hint + "\n" + CASES[0][0])
    assert is_hint(hint)


# What earlier gcxwire proxies put before an encoded result (still read as hints).
OLD_PROXY_HINTS = [
    'DCP: the ["$S",schema,field...] line names the columns; each next array is one row.',
    "GCX1: fields= names the columns; each next line is one row, cells TAB-separated.",
]


def test_is_hint_knows_the_proxys_old_one_line_hints_and_no_payload() -> None:
    assert all(is_hint(old) for old in OLD_PROXY_HINTS)
    payloads: list[Any] = [p for p, _ in CASES] + ['{"a":1}', "GCX1 tool=t fields=a\n1"]
    assert not any(is_hint(p) for p in payloads)


# The markers' first regexes, one each, tried at every character: the oracle.
_GUARD_REGEX = re.compile(r"(?:^|\t)\\(?:$|\t|(?![tn\\]|false(?:\t|$)))", re.MULTILINE)
_WORDS_REGEX = re.compile(r"(?:^|\t)(?:tru\\e|fals\\e|nul\\l)(?:\t|$)", re.MULTILINE)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="\\\t\ntruefalsnx", max_size=40))
def test_guard_and_words_are_found_where_the_cell_regexes_find_them(rows: str) -> None:
    text = "GCX1 tool=t fields=a\n" + rows
    markers = hint_markers(text)
    assert ("guard" in markers) == bool(_GUARD_REGEX.search(text))
    assert ("words" in markers) == bool(_WORDS_REGEX.search(text))


@pytest.mark.parametrize("before", ["\n", "\nx\r"])
def test_a_later_section_header_still_adds_its_markers(before: str) -> None:
    first = "GCX1 tool=t fields=a\n1"
    later = first + before + "GCX1 tool=t fields=b of=x\n1"
    assert "of" not in hint_markers(first) and "of" in hint_markers(later)


def test_a_header_line_seen_again_gives_the_same_markers_and_the_memo_stays_bounded() -> None:
    from gcxwire.mcp import hint as hint_module

    rows = [{"id": i, "note": None if i % 3 else f"n{i}", "f": i * 1.5} for i in range(9)]
    text = gcxwire.gcx.encode(rows, tool="t")
    first = hint_markers(text)
    assert hint_markers(text) == first and "empty=null" in first and "float" in first
    for i in range(hint_module._HEADERS_KEPT + 10):
        hint_markers(gcxwire.gcx.encode([{f"k{i}": None, "v": 1}, {f"k{i}": 2, "v": 2}], tool="t"))
    assert len(hint_module._HEADER_MARKERS) <= hint_module._HEADERS_KEPT
    long_name = "x" * (hint_module._HEADER_KEPT_LENGTH + 1)
    wide = gcxwire.gcx.encode([{long_name: row["note"], "f": row["f"]} for row in rows], tool="t")
    assert hint_markers(wide) == first and wide.split("\n")[0] not in hint_module._HEADER_MARKERS
    assert hint_markers(text) == first
