"""A top table's child lists are filled in place: the same values, key order and errors
as attaching renamed copies (the reading `_build` does without a renames dict)."""

import sys
from pathlib import Path
from typing import Any

import pytest

from gcxwire import DecodeError, gcx
from gcxwire._gcx_decode import _build, _sections

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "speed"))
import workloads  # noqa: E402


def _copies(doc: str) -> Any:
    return _build(doc, _sections(doc, True))


def _outcome(read: Any, doc: str) -> Any:
    try:
        value = read(doc)
    except DecodeError as exc:
        return ("error", str(exc))
    return ("value", value, repr(value))  # repr: key order too


def _issues_doc() -> str:
    doc = gcx.encode(workloads.issues(6), tool="t")
    assert "of=[].labels" in doc  # the shape this reading is for
    return doc


def _variants() -> list[str]:
    doc = _issues_doc()
    top, _, child = doc.partition("\nGCX1 ")
    child = "GCX1 " + child
    return [
        doc,
        top,  # no child section: `labels[]` stays a count
        top + "\n" + child + "\n" + child,  # two sections for one list
        top + "\n" + child.replace("of=[].labels", "of=[].other"),
        top.replace(" flat=", " form=columns flat=", 1) + "\n" + child,
        top.replace("labels[]", "labels[],labels", 1) + "\n" + child,
        doc.replace("\t2\t", "\t9\t", 1),  # a count the child rows do not meet
    ]


@pytest.mark.parametrize("case", range(len(_variants())))
def test_in_place_reads_as_copies(case: int) -> None:
    doc = _variants()[case]
    assert _outcome(gcx.decode, doc) == _outcome(_copies, doc)


def test_issues_round_trip_keeps_key_order() -> None:
    rows = workloads.issues(6)
    got = gcx.decode(gcx.encode(rows, tool="t"))
    assert got == rows
    assert [list(r) for r in got] == [list(r) for r in rows]
