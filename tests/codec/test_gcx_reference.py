"""Reference compatibility: gortex goldens, TS goldens and the recorded edge cases."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import gcxwire
from gcxwire import gcx
from gcxwire.errors import DecodeError, EncodeValueError, UnsupportedVersionError

from .. import reference_model

GORTEX = Path(__file__).parent.parent / "data" / "gortex"
CASES = sorted(p.stem for p in (GORTEX / "cases").glob("*.json"))


def _case(name: str) -> dict[str, Any]:
    case: dict[str, Any] = json.loads((GORTEX / "cases" / f"{name}.json").read_text("utf-8"))
    return case


def _golden(name: str, suffix: str) -> str:
    return (GORTEX / "golden" / f"{name}{suffix}").read_text(encoding="utf-8")


def _nulls_to_lists(expected: dict[str, Any]) -> dict[str, Any]:
    # Go prints an empty row list as null; gcxwire returns [].
    for section in expected["sections"]:
        section["rows"] = section["rows"] or []
    return expected


def test_twenty_cases_present() -> None:
    assert len(CASES) == 20


@pytest.mark.parametrize("name", CASES)
def test_decode_untyped_matches_golden(name: str) -> None:
    expected = _nulls_to_lists(json.loads(_golden(name, ".json")))
    # The golden's top-level "tool" names the bench case; compare what the payload says.
    assert gcx.decode(_golden(name, ".gcx"), typed=False)["sections"] == expected["sections"]


@pytest.mark.parametrize("name", CASES)
def test_parse_matches_golden(name: str) -> None:
    expected = _nulls_to_lists(json.loads(_golden(name, ".json")))
    sections = gcx.parse(_golden(name, ".gcx"))
    got = [{"tool": s.tool, "fields": s.fields, "meta": s.meta, "rows": s.rows} for s in sections]
    assert got == expected["sections"]


@pytest.mark.parametrize("name", CASES)
def test_reference_profile_reproduces_golden_bytes(name: str) -> None:
    case = _case(name)
    value = gcx.loads_exact(case["input"])
    assert gcx.encode(value, tool=case["tool"], profile="reference") == _golden(name, ".gcx")


@pytest.mark.parametrize("name", CASES)
def test_reference_json_reproduces_baseline(name: str) -> None:
    value = gcx.loads_exact(_case(name)["input"])
    assert gcx.reference_json(value) == _golden(name, ".baseline.json")


@pytest.mark.parametrize("name", CASES)
def test_model_agrees_with_golden(name: str) -> None:
    # Guards the test-only reference model that other tests lean on.
    expected = _nulls_to_lists(json.loads(_golden(name, ".json")))
    assert reference_model.decode(_golden(name, ".gcx"))["sections"] == expected["sections"]


@pytest.mark.parametrize("path", sorted((GORTEX / "ts-golden").glob("*.gcx")), ids=lambda p: p.stem)
def test_ts_goldens(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert gcx.decode(text, typed=False) == reference_model.decode(text)
    assert gcx.decode(text, typed=False)["sections"][0]["rows"]


# ------------------------------------------------------------ recorded edge cases


def _edge_cases() -> list[tuple[str, str, Any, str]]:
    text = (GORTEX / "golden" / "_edge_cases_reference_output.txt").read_text(encoding="utf-8")
    out = []
    for block in text.split("### ")[1:]:
        title, _, body = block.partition("\n")
        wire = re.search(r'^wire=(".*") encErr=', body, re.M)
        decoded = re.search(r"^decoded=(.*) decErr=(.*)$", body, re.M)
        assert wire and decoded, title
        payload = ast.literal_eval(wire.group(1))  # Go %q quoting reads as a Python literal
        expected = json.loads(decoded.group(1)) if decoded.group(1) else None
        out.append((title, payload, expected, decoded.group(2)))
    return out


EDGE_CASES = _edge_cases()
# The one deliberate difference: like the TS decoder, gcxwire skips blank lines
# before the first header (Go refuses them). docs/wire-format.md lists it.
LENIENT = {"leading blank line before header"}


def test_edge_case_count() -> None:
    assert len(EDGE_CASES) == 49


@pytest.mark.parametrize(
    ("title", "payload", "expected", "error"), EDGE_CASES, ids=[c[0] for c in EDGE_CASES]
)
def test_edge_case_decode(title: str, payload: str, expected: Any, error: str) -> None:
    if error != "<nil>" and title not in LENIENT:
        kind = UnsupportedVersionError if payload.startswith("GCX2") else DecodeError
        with pytest.raises(kind):
            gcx.decode(payload, typed=False)
        return
    if title in LENIENT:
        expected = [reference_model.decode(payload.lstrip("\n"))["sections"][0]]
        expected[0]["rows"] = expected[0]["rows"] or None
    got = gcx.decode(payload, typed=False)["sections"]
    for section in expected:
        section["rows"] = section["rows"] or []
        section.setdefault("meta", {})
    assert [dict(s, rows=s["rows"]) for s in got] == [
        {"tool": s["tool"], "fields": s["fields"], "meta": s["meta"], "rows": s["rows"]}
        for s in expected
    ]


GO_LINE_LIMIT = 4 * 1024 * 1024  # bytes


@pytest.mark.parametrize(
    ("row", "reads"),
    [
        ("x" * (GO_LINE_LIMIT - 1), True),
        ("x" * GO_LINE_LIMIT, False),
        ("x" * (GO_LINE_LIMIT - 1) + "\r", False),  # the CR counts
        ("é" * (GO_LINE_LIMIT // 2), False),  # bytes, not characters
    ],
    ids=["one-byte-short", "4MiB", "4MiB-with-CR", "4MiB-of-utf8"],
)
def test_model_refuses_the_lines_gos_scanner_refuses(row: str, reads: bool) -> None:
    # Seen in the real Go decoder (gcx-go NewDecoder: a 4 MiB bufio.Scanner buffer).
    payload = "GCX1 tool=t fields=a\n" + row + "\n"
    if reads:
        assert reference_model.decode(payload)["sections"][0]["rows"] == [{"a": row.rstrip("\r")}]
    else:
        with pytest.raises(reference_model.ReferenceError, match="token too long"):
            reference_model.decode(payload)


def test_gcx_never_writes_a_line_the_go_decoder_refuses() -> None:
    # The contract: whatever gcxwire writes reads in the reference decoders.
    # One byte under Go's limit is written; at it, every writer refuses.
    fits = "x" * (GO_LINE_LIMIT - 10)
    text = gcx.encode([{"a": fits}, {"a": "y"}], tool="t")
    assert gcx.decode(text) == [{"a": fits}, {"a": "y"}]
    big = "é" * (GO_LINE_LIMIT // 2)
    writers: list[Callable[[], str]] = [
        lambda: gcx.encode([{"a": "y"}, {"a": big}], tool="t"),
        lambda: gcx.encode({"results": [{"a": big}]}, tool="t", profile="reference"),
        lambda: gcx.Encoder().encode({"a": big}, tool="t"),
        lambda: gcxwire.encode([{"a": big}], tool="t", format="gcx"),
    ]
    for write in writers:
        with pytest.raises(EncodeValueError, match="longer than the 4,194,303 UTF-8 bytes"):
            write()
    encoder = gcx.Encoder()
    encoder.header("t", ["a"])
    with pytest.raises(EncodeValueError, match="Line 1 of the GCX1 text"):
        encoder.row({"a": big})
    # auto leaves GCX1 out instead (test_auto_does_not_send_gcx1_lines_the_go_decoder_refuses).
