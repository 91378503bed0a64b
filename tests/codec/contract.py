"""The reference contract, checked on any payload (docs/wire-format.md §7).

``holds(value, text)`` takes a JSON value and the GCX1 text gcxwire wrote for it
and checks, with the model of the reference decoders (tests/reference_model.py):

- it reads without error, with the same sections, rows and columns as gcxwire's
  own untyped parse, and no field name twice (a reference decoder would keep
  one cell of the two);
- the text decodes back to ``value``, so gcxwire's typed reading of each cell is
  the value that cell stands for;
- every cell whose typed value is a string reads in the reference as exactly
  that string, unless a header marker says the cell is transformed:
  ``prefix=`` (the cell is the suffix), ``infix=`` (a ``…`` stands for the
  header's text), ``template=`` (a blank cell is derived),
  ``crlf=`` (LF for each CR LF), a constant column (the value is in the field
  name, which must then end in ``=`` and the string), and, under ``quoted=json``,
  a cell, constant or member starting with ``"`` (its JSON text: ``""`` for the
  empty string, or a string ending in CR);
- every string member carried in a header reads as that string, unless its
  name is a reserved key (written with a leading backslash, so marked).

Cells that hold no string have nothing to match (numbers, literals, null,
absent keys, ``json=raw`` JSON, ``name[]`` counts and child-section links).
"""

from __future__ import annotations

import json
from typing import Any

from gcxwire import gcx
from gcxwire._gcx_decode import _Lines, _typed_meta
from gcxwire._gcx_model import _CONTROL, _INFIX_MARK, _QUOTED, Header

from .. import reference_model
from ..strategies import same
from .gcx_checks import reference_sections


def holds(value: Any, text: str) -> int:
    """Check the contract on ``text`` (gcxwire's GCX1 for ``value``); return the strings checked."""
    checked, wrong = strings_read(value, text)
    assert not wrong, (text, wrong)
    return checked


def strings_read(value: Any, text: str) -> tuple[int, list[str]]:
    """The strings checked, and each one a reference decoder reads differently without a marker.

    Sections, rows, columns and the round trip are asserted (they fail the payload).
    """
    back = gcx.decode(text)
    assert same(back, value), (text, back)
    checked = 0
    wrong: list[str] = []
    typed = _Lines(text, True)
    for (section, header), lines in zip(reference_sections(text), _row_lines(text), strict=True):
        fields = section["fields"]
        assert len(fields) == len(header.columns), (fields, header.columns)
        assert len(set(fields)) == len(fields), f"a reference decoder loses a cell: {fields}"
        checked += _meta_holds(header, section["meta"], text, wrong)
        head, rows = lines
        typed.line(head[1], head[0])
        typed.nest = None  # cells by column, before objects are rebuilt
        assert len(rows) == len(section["rows"])
        for (pos, line), read in zip(rows, section["rows"], strict=True):
            row = typed.line(line, pos)
            assert isinstance(row, dict)
            checked += _row_holds(header, fields, line.split("\t"), read, row, wrong)
    return checked, wrong


def _row_lines(text: str) -> list[tuple[tuple[int, str], list[tuple[int, str]]]]:
    # Each section's header and row lines (with their offsets), as reference decoders split them.
    out: list[tuple[tuple[int, str], list[tuple[int, str]]]] = []
    pos = 0
    for line in text.split("\n"):
        at, pos = pos, pos + len(line) + 1
        line = line[:-1] if line.endswith("\r") else line
        if line.startswith("GCX1"):
            out.append(((at, line), []))
        elif line and not line.startswith("#"):
            out[-1][1].append((at, line))
    return out


def _row_holds(
    header: Header,
    fields: list[str],
    raw: list[str],
    read: dict[str, str],
    row: dict[str, Any],
    wrong: list[str],
) -> int:
    constants = dict(header.constants)
    prefixes = dict(header.prefixes)
    infixes = dict(header.infixes)
    derived = {t[0] for t in header.templates}
    quoted = (_QUOTED, "json") in header.raw_meta
    checked = 0
    for i, (field, column) in enumerate(zip(fields, header.columns, strict=True)):
        cell = raw[i] if i < len(raw) else ""
        value = row.get(column)
        if not isinstance(value, str):
            continue
        checked += 1
        if column in constants:
            assert cell in ("", "\\"), (column, cell)
            # Inside groups (`owner{login,type=User}`) a closing brace follows the last name.
            name = field.rstrip("}") if ("flat", "{}") in header.raw_meta else field
            text = reference_model.unescape(constants[column])
            marked = quoted and constants[column].startswith('"')  # the name ends in its JSON text
            if (_json_string(text) if marked else text) != value:
                wrong.append(f"constant {column!r}: {text!r} for {value!r}")
            if not name.endswith("=" + text):
                wrong.append(f"constant {column!r}: field {field!r} for {value!r}")
            continue
        if column in derived and cell in ("", "\\"):
            continue  # the template gives it (the typed reading filled it in)
        # The value rebuilt from the reference reading as the markers say: a JSON
        # string under quoted=json, the infix for its `…`, the prefix in front; LF
        # for CR LF in a crlf= column (JSON text keeps its own escapes).
        rebuilt: str | None = read[field]
        target = value.replace("\r\n", "\n") if column in header.crlf else value
        if quoted and cell.startswith('"'):
            rebuilt, target = _json_string(read[field]), value
        if rebuilt is not None and column in infixes and _INFIX_MARK in rebuilt:
            rebuilt = rebuilt.replace(_INFIX_MARK, infixes[column], 1)
        if rebuilt is not None and column in prefixes:
            rebuilt = prefixes[column] + rebuilt
        if rebuilt != target:
            wrong.append(f"column {column!r}: cell {cell!r} reads {read[field]!r} for {value!r}")
    return checked


def _meta_holds(header: Header, read: dict[str, str], text: str, wrong: list[str]) -> int:
    marked = {k for k, _ in header.raw_meta if k.startswith("\\")}
    quoted = (_QUOTED, "json") in header.raw_meta
    checked = 0
    for (key_raw, value_raw), value in zip(
        [kv for kv in header.raw_meta if kv[0] not in _CONTROL],
        [v for k, v in _typed_meta(header, text) if k is not None],
        strict=True,
    ):
        key = reference_model.unescape(key_raw)
        if isinstance(value, str) and key_raw not in marked:
            checked += 1
            if quoted and value_raw.startswith('"') and _json_string(read[key]) == value:
                continue  # marked: the JSON text
            if read[key] != value:
                wrong.append(f"member {key!r}: reads {read[key]!r} for {value!r}")
    return checked


def _json_string(text: str) -> str | None:
    try:
        found = json.loads(text)
    except ValueError:
        return None
    return found if isinstance(found, str) else None
