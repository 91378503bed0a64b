"""GCX1 reading: header parsing, line classification, and rebuilding typed values."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from . import _gcx_lines as lines
from . import _gcx_nested as nested
from ._gcx_model import (
    _CONTROL,
    _CRLF,
    _EMPTY,
    _FLAT,
    _FLOAT,
    _FORM,
    _GO_SPACE,
    _INFIX,
    _INFIX_MARK,
    _IS,
    _JSON,
    _NULLABLE,
    _OF,
    _OPTIONAL,
    _PREFIX,
    _QUOTED,
    _STR,
    _TEMPLATE,
    _TREE,
    _WORDS,
    Header,
)
from ._gcx_trees import tree_json
from ._impl import add_templates, decode_row, decode_rows, escape, nest_rows, parse_cell, unescape
from ._values import ABSENT, NUMBER
from .errors import DecodeError, UnsupportedVersionError
from .limits import (
    DEFAULT_LIMITS,
    Limits,
    check_size,
    depth_exceeds,
    digit_limit,
    digit_message,
    digit_run,
    long_json_number,
)

_NO_NAMES: frozenset[str] = frozenset()
_STYLES = (_EMPTY, _FLOAT, _FLAT, _JSON, _STR, _CRLF, _TREE, _WORDS, _OPTIONAL, _NULLABLE, _QUOTED)
_GROUP_END = object()  # in _nest_plan's tree: a declared group ends here


def _parse_header(line: str, doc: str, pos: int, limits: Limits = DEFAULT_LIMITS) -> Header:
    rest = line[4:]
    at = pos + 4 + len(rest) - len(rest.lstrip(_GO_SPACE))
    tool: str | None = None
    fields: list[str] | None = None
    columns: list[str] = []
    constants: list[tuple[str, str]] = []
    meta: dict[str, str] = {}
    raw: list[tuple[str, str]] = []
    styles: dict[str, str] = {}
    prefixes: list[str] = []
    templates: list[str] = []
    infixes: list[str] = []
    listed_templates = False
    listed = ""  # the fields value, unescaped once
    for token in rest.strip(_GO_SPACE).split(" "):
        if token:
            key_raw, eq, value_raw = token.partition("=")
            if not eq:
                raise DecodeError.at(f"Malformed header token {token!r} (want key=value)", doc, at)
            # Most headers hold no escape at all: skip the unescape calls then.
            value = unescape(value_raw) if "\\" in value_raw else value_raw
            key = unescape(key_raw) if "\\" in key_raw else key_raw
            if key == "tool":
                tool = value
            elif key == "fields":
                if value.count(",") >= limits.max_cells:
                    raise DecodeError.at(
                        f"Header declares more than {limits.max_cells} fields", doc, at
                    )
                listed = value
                parts = value.split(",")
                fields = [unescape(f) for f in parts] if "\\" in value else parts
                columns, constants = _columns(parts, fields) if "=" in value else (fields, [])
            else:
                meta[key] = value
                raw.append((key_raw, value_raw))
                if key_raw in _STYLES:  # decided on the raw key: `\\empty` is data
                    styles[key_raw] = value
                elif key_raw == _PREFIX:  # one token per prefixed column
                    prefixes.append(value_raw)
                elif key_raw == _TEMPLATE:  # one token per derived column
                    if value_raw == "{}":  # the field list holds them: `url={login}/x`
                        listed_templates = True
                    else:
                        templates.append(value_raw)
                elif key_raw == _INFIX:  # one token per infixed column
                    infixes.append(value_raw)
        at += len(token) + 1
    if not tool:
        raise DecodeError.at("Header has no `tool=`", doc, pos)
    if fields is None:
        raise DecodeError.at("Header has no `fields=`", doc, pos)
    if not styles and not prefixes and not templates and not infixes and not listed_templates:
        return _header(tool, fields, meta, raw, False, _NO_NAMES, _NO_NAMES, columns, constants)
    if styles.get(_FLAT) == "{}":  # the field list holds the groups: `owner{login,id}`
        dotted, groups = _ungroup(listed, doc, pos, listed_templates)
        names = [unescape(p) for p in dotted]
        columns, constants = _columns(dotted, names) if "=" in listed else (names, [])
        flat = frozenset(groups)
    else:
        flat = _names(styles.get(_FLAT))
    if flat.intersection(columns):
        raise DecodeError.at("A `flat=` group is also a field", doc, pos)
    if listed_templates:  # a `name=text` field whose text holds a `{source}` is derived
        constants, derived = _split_templates(constants)
        templates = [*derived, *templates]
    empty_null = styles.get(_EMPTY) == "null"
    floats = _names(styles.get(_FLOAT))
    header = _header(tool, fields, meta, raw, empty_null, floats, flat, columns, constants)
    if _JSON in styles:
        if styles[_JSON] != "raw":
            raise DecodeError.at(f"Unknown `json={styles[_JSON]}`", doc, pos)
        header.__dict__["raw_json"] = True
    if _QUOTED in styles and styles[_QUOTED] != "json":  # it marks cells; typing needs nothing
        raise DecodeError.at(f"Unknown `quoted={styles[_QUOTED]}`", doc, pos)
    marked = ((_STR, "strings"), (_CRLF, "crlf"), (_TREE, "trees"), (_WORDS, "words"))
    for key, attribute in marked:
        if key in styles:
            declared = _names(styles[key])
            if not declared.issubset(header.columns):
                raise DecodeError.at(f"`{key}={styles[key]}` names no column", doc, pos)
            header.__dict__[attribute] = declared
    if _OPTIONAL in styles or _NULLABLE in styles:
        header.__dict__["missing"] = _missing_groups(styles, flat, doc, pos)
    if prefixes:
        header.__dict__["prefixes"] = _prefix_columns(prefixes, header.columns, doc, pos)
    if infixes:
        header.__dict__["infixes"] = _prefix_columns(infixes, header.columns, doc, pos, _INFIX)
    if templates:
        header.__dict__["templates"] = _template_columns(templates, header, doc, pos)
    return header


def _split_templates(
    constants: list[tuple[str, str]],
) -> tuple[list[tuple[str, str]], list[str]]:
    """Under `template={}`: the constants, and the `name=text{source}` fields as `template=` values.

    A listed field's text is as a `template=` value's (braces of the text itself
    written `\\{`, `\\}`), so an unescaped brace marks a template.
    """
    kept: list[tuple[str, str]] = []
    derived: list[str] = []
    for name, text in constants:
        if _brace(text, 0) >= 0:
            derived.append(escape(escape(name).replace("=", "\\=")) + "=" + text)
        else:
            kept.append((name, text))
    return kept, derived


def _ungroup(
    listed: str, doc: str, pos: int, templated: bool = False
) -> tuple[list[str], list[str]]:
    """``owner{login,id},n`` -> the dotted names ``owner.login,owner.id,n`` and the groups.

    Names stay escaped once, as in a plain field list; groups come unescaped.
    """
    dotted: list[str] = []
    groups: list[str] = []
    chain: list[str] = []
    for part in listed.split(","):
        if chain:  # a qualified piece (`assignee.name}` in `assignee{…}`): its groups dropped
            part = _unqualified(part, chain)
        if templated:  # a `name=text{source}` piece opens no group
            part, member = _open_groups(part, chain, groups)
        else:
            while "{" in part:
                name, _, part = part.partition("{")
                chain.append(name)
                groups.append(".".join(unescape(k) for k in chain))
            member = part.rstrip("}")
        dotted.append(".".join([*chain, member]))
        for _ in range(len(part) - len(member)):
            if not chain:
                raise DecodeError.at("A `}` in the field list closes no group", doc, pos)
            chain.pop()
    if chain:
        raise DecodeError.at(f"Group {chain[-1]!r} in the field list is not closed", doc, pos)
    return dotted, groups


def _open_groups(part: str, chain: list[str], groups: list[str]) -> tuple[str, str]:
    """Under `template={}`: the groups a piece opens, then (the rest, its member).

    A brace after the piece's own `=` is its template's: only the closing
    braces past the template's own pairs close groups.
    """
    while True:
        brace, cut = _brace(part, 0), _separator(part)
        if brace < 0 or part[brace] != "{" or (0 <= cut < brace):
            break
        chain.append(part[:brace])
        groups.append(".".join(unescape(k) for k in chain))
        part = part[brace + 1 :]
    if cut < 0:
        return part, part.rstrip("}")
    depth = 0
    at = _brace(part, cut)
    while at >= 0:
        depth += 1 if part[at] == "{" else -1
        at = _brace(part, at + 1)
    closing = max(0, -depth)  # the `}` that close groups, at the very end
    return part, part[: len(part) - closing]


def _unqualified(part: str, chain: list[str]) -> str:
    # A piece that starts with its innermost groups' names, each and a dot, the
    # most that match: those names dropped. Writers qualify a name that would
    # read like an earlier piece; no plain name inside a group reads so.
    for k in range(len(chain), 0, -1):
        qualifier = ".".join(chain[-k:]) + "."
        if part.startswith(qualifier):
            return part[len(qualifier) :]
    return part


def _missing_groups(
    styles: dict[str, str], flat: frozenset[str], doc: str, pos: int
) -> tuple[tuple[str, bool], ...]:
    # `optional=g` / `nullable=g`: declared groups; outer groups first, as rows are read.
    found: dict[str, bool] = {}
    for key, null in ((_OPTIONAL, False), (_NULLABLE, True)):
        declared = _names(styles.get(key))
        if not declared.issubset(flat):
            raise DecodeError.at(f"`{key}={styles[key]}` names no group", doc, pos)
        for group in declared:
            if group in found:
                raise DecodeError.at(f"Group {group!r} is both optional and nullable", doc, pos)
            found[group] = null
    return tuple(sorted(found.items(), key=lambda item: (item[0].count("."), item[0])))


def _drop_missing(rows: list[dict[str, Any]], header: Header) -> None:
    """Each ``optional=`` group whose cells are all blank, removed; a ``nullable=`` one, null.

    Such a group is rebuilt as an object holding at most (blank) groups; the
    writer spreads an object only when it holds a member that is no group, a
    cell that is never blank, so a blank group is a row that misses it.
    """
    paths = [(group.split("."), group, null) for group, null in header.missing]
    for row in rows:
        for path, group, null in paths:
            holder: Any = row
            for key in path[:-1]:
                holder = holder.get(key) if type(holder) is dict else None
            if type(holder) is dict:
                value = holder.get(path[-1])
                if type(value) is dict and _blank(value, group, header.flat):
                    if null:
                        holder[path[-1]] = None
                    else:
                        del holder[path[-1]]


def _blank(obj: dict[str, Any], group: str, flat: frozenset[str]) -> bool:
    # Whether a rebuilt group holds no cell's value: its members are blank groups, if any.
    return all(
        type(v) is dict and f"{group}.{k}" in flat and _blank(v, f"{group}.{k}", flat)
        for k, v in obj.items()
    )


def _prefix_columns(
    values: list[str], columns: tuple[str, ...], doc: str, pos: int, key: str = _PREFIX
) -> tuple[tuple[str, str], ...]:
    # Each `prefix=` (or `infix=`) value (raw) is `name=text`, the name as in the field list.
    found: dict[str, str] = {}
    for value in values:
        cut = _separator(value)
        name = unescape(unescape(value[:cut])) if cut >= 0 else ""
        if cut < 0 or name not in columns:
            raise DecodeError.at(f"`{key}={unescape(value)}` names no column", doc, pos)
        if name in found:
            raise DecodeError.at(f"Column {name!r} has two {key}es", doc, pos)
        found[name] = unescape(value[cut + 1 :])
    return tuple(found.items())


def _template_columns(
    values: list[str], header: Header, doc: str, pos: int
) -> tuple[tuple[str, str, str, str], ...]:
    # Each `template=` value (raw) is `name=before{source}after`: the name as in
    # the field list; in the text `\{` and `\}` are braces, one `{source}` is the place.
    found: dict[str, tuple[str, str, str, str]] = {}
    columns = header.columns
    constant = {name for name, _ in header.constants}
    for value in values:
        cut = _separator(value)
        name = unescape(unescape(value[:cut])) if cut >= 0 else ""
        text = value[cut + 1 :]
        opening, closing = _brace(text, 0), -1
        if opening >= 0:
            closing = _brace(text, opening + 1)
        if cut < 0 or name not in columns or name in constant:
            raise DecodeError.at(f"`template={unescape(value)}` names no column", doc, pos)
        if closing < 0 or text[closing] != "}" or _brace(text, closing + 1) >= 0:
            msg = f"`template={unescape(value)}` needs one `{{column}}` place"
            raise DecodeError.at(msg, doc, pos)
        source = unescape(text[opening + 1 : closing])
        if source not in columns or source == name:
            raise DecodeError.at(f"`template={unescape(value)}` names no source column", doc, pos)
        if name in found:
            raise DecodeError.at(f"Column {name!r} has two templates", doc, pos)
        found[name] = (name, source, unescape(text[:opening]), unescape(text[closing + 1 :]))
    if any(source in found for _, source, _, _ in found.values()):
        raise DecodeError.at("A `template=` column is also a template's source", doc, pos)
    return tuple(found.values())


# What _brace stops at: a brace, or the backslash of an escape it skips.
_BRACE_STOP = re.compile(r"[{}\\]")


def _brace(text: str, start: int) -> int:
    # The first `{` or `}` at or after start that no backslash escapes, else -1.
    # A regex search between stops, not a Python step per character: a template
    # piece's text (a URL) is long.
    i = start
    while True:
        found = _BRACE_STOP.search(text, i)
        if found is None:
            return -1
        i = found.start()
        if text[i] != "\\":
            return i
        i += 2


# A `str=` column's cell that typed reading would not take as a string, and its guarded form.
_WORD_CELLS = {"true": "tru\\e", "false": "fals\\e", "null": "nul\\l"}


def _escaped(
    text: str,
    raw_json: bool,
    strings: tuple[int, ...],
    crlf: tuple[int, ...] = (),
    trees: tuple[int, ...] = (),
    words: tuple[int, ...] = (),
) -> str:
    """Row lines as a section without ``json=raw``, ``str=``, ``crlf=`` and ``tree=``
    would write them.

    Under ``json=raw`` each backslash of a cell that starts with ``[`` or ``{``
    is doubled (JSON text holds no TAB or LF); in the ``str=`` columns (cell
    indexes) a number-like cell gets its ``\\`` and a word its ``tru\\e`` form;
    in the ``crlf=`` columns each ``\\n`` of a text cell gets its CR back; in the
    ``tree=`` columns a ``{…}`` key list becomes its JSON text (escaped), and in
    the ``lists=`` columns a list of texts (``a b``) its JSON array. A malformed
    key list raises DecodeError at its cell's offset in ``text``.
    """
    if not strings and not crlf and not trees and not words and not (raw_json and "\\" in text):
        return text
    lines = text.split("\n")
    start = 0  # where line i starts in text
    for i, line in enumerate(lines):
        if (raw_json and "\\" in line) or strings or crlf or trees or words:
            cells = line.split("\t")
            if raw_json:
                for k, cell in enumerate(cells):
                    if cell[:1] in ("[", "{"):
                        cells[k] = cell.replace("\\", "\\\\")
            for k in strings:
                if k < len(cells):
                    cell = cells[k]
                    cr = "\r" if cell.endswith("\r") else ""  # CRLF input: Go drops the CR
                    bare = cell[: len(cell) - len(cr)]
                    if bare in _WORD_CELLS:
                        cells[k] = _WORD_CELLS[bare] + cr
                    elif bare[:1] in _NUMBER_START and NUMBER.fullmatch(bare):
                        cells[k] = "\\" + cell
            for k in crlf:
                if k < len(cells) and "\\n" in cells[k] and cells[k][:1] not in _LITERAL_START:
                    cells[k] = _ESCAPE_UNIT.sub(_with_cr, cells[k])
            for k in trees:
                if k < len(cells) and cells[k][:1] == "{":
                    cells[k] = _tree_cell(cells[k], text, start, line, k)
            for k in words:
                if k < len(cells) and cells[k] not in _NOT_WORDS:
                    cells[k] = _words_cell(cells[k])
            lines[i] = "\t".join(cells)
        start += len(line) + 1
    return "\n".join(lines)


# Cells of a `lists=` column that hold no list of texts: absent, null, the empty list.
_NOT_WORDS = frozenset(["", "\\", "null", "[]", "\r", "\\\r", "null\r", "[]\r"])


def _words_cell(cell: str) -> str:
    # A `lists=` column's list of texts as the JSON array cell it stands for.
    cr = "\r" if cell.endswith("\r") else ""  # CRLF input: Go drops the CR
    items = unescape(cell[: len(cell) - len(cr)]).split(" ")
    return escape(json.dumps(items, ensure_ascii=False, separators=(",", ":"))) + cr


def _tree_cell(cell: str, text: str, start: int, line: str, k: int) -> str:
    # A `tree=` column's key list as the JSON cell it stands for; errors point at
    # the cell, cell k of the line that starts at ``start`` in text.
    cr = "\r" if cell.endswith("\r") else ""  # CRLF input: Go drops the CR
    try:
        return escape(tree_json(unescape(cell[: len(cell) - len(cr)]))) + cr
    except DecodeError as exc:
        at = start + sum(len(c) + 1 for c in line.split("\t")[:k])
        raise DecodeError.at(exc.msg, text, at) from None


_LITERAL_START = frozenset('"[{')
_ESCAPE_UNIT = re.compile(r"\\(.)")


def _with_cr(unit: re.Match[str]) -> str:
    return "\r\\n" if unit.group(1) == "n" else unit.group(0)


_NUMBER_START = frozenset("-0123456789")


def _string_cells(names: frozenset[str], cells: tuple[str, ...]) -> tuple[int, ...]:
    return tuple(k for k, name in enumerate(cells) if name in names)


def _original_pos(written: str, original: str, pos: int) -> int:
    # A position in _escaped's text as the same line and column of the original.
    line = written.count("\n", 0, pos)
    column = pos - (written.rfind("\n", 0, pos) + 1)
    start = 0
    for _ in range(line):
        start = original.index("\n", start) + 1
    end = original.find("\n", start)
    return min(start + column, len(original) if end < 0 else end)


def _add_infixes(rows: list[dict[str, Any]], infixes: tuple[tuple[str, str], ...]) -> None:
    # In an infixed column the first `…` of a string stands for the infix.
    for row in rows:
        for name, text in infixes:
            value = row.get(name)
            if type(value) is str and _INFIX_MARK in value:
                row[name] = value.replace(_INFIX_MARK, text, 1)


def _add_prefixes(rows: list[dict[str, Any]], prefixes: tuple[tuple[str, str], ...]) -> None:
    # In a prefixed column every string is the prefix followed by its cell's string.
    for row in rows:
        for name, text in prefixes:
            value = row.get(name)
            if type(value) is str:
                row[name] = text + value


def _names(value: str | None) -> frozenset[str]:
    # A style's list of field names (each escaped once more, like `fields=`).
    if not value:
        return _NO_NAMES
    return frozenset(unescape(f) for f in value.split(",") if f)


def _header(
    tool: str,
    fields: list[str],
    meta: dict[str, str],
    raw: list[tuple[str, str]],
    empty_null: bool,
    floats: frozenset[str],
    flat: frozenset[str],
    columns: list[str],
    constants: list[tuple[str, str]],
) -> Header:
    # A frozen dataclass's __init__ sets each attribute through object.__setattr__,
    # a third of a short header's parse; filling the new instance's __dict__ at
    # once is what that __init__ amounts to, without the per-field calls.
    header = object.__new__(Header)
    header.__dict__.update(
        tool=tool, fields=tuple(fields), meta=meta, raw_meta=tuple(raw),
        empty_null=empty_null, floats=floats, flat=flat,
        columns=tuple(columns), constants=tuple(constants),
    )  # fmt: skip
    return header


def _columns(parts: list[str], fields: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """Typed column names, and the ``name=text`` constant columns among ``parts``."""
    columns: list[str] = []
    constants: list[tuple[str, str]] = []
    for part, name in zip(parts, fields, strict=True):
        cut = _separator(part)
        if cut < 0:
            columns.append(name)
        else:
            columns.append(unescape(part[:cut]))
            constants.append((columns[-1], part[cut + 1 :]))
    return columns, constants


def _separator(part: str) -> int:
    # The first `=` that no backslash escapes: names write theirs as `\=`.
    # Only the run of backslashes right before each `=` is counted, so the
    # scan stays linear however many `\=` a part holds.
    at = part.find("=")
    while at >= 0:
        start = at
        while start > 0 and part[start - 1] == "\\":
            start -= 1
        if (at - start) % 2 == 0:
            return at
        at = part.find("=", at + 1)
    return -1


def _row_plan(
    header: Header, doc: str, pos: int, limits: Limits = DEFAULT_LIMITS
) -> tuple[tuple[str, ...], dict[str, Any] | None, list[tuple[str, tuple[str, ...], str]] | None]:
    """How typed rows read: (the fields that have cells, constant values, nest plan)."""
    columns = header.columns
    if len(set(columns)) != len(columns):
        # A row holds one value per name: the second cell would silently win.
        seen: set[str] = set()
        twice = next(c for c in columns if c in seen or seen.add(c))  # type: ignore[func-returns-value]
        raise DecodeError.at(f"Field {twice!r} is listed twice", doc, pos)
    for group in header.flat:  # each dot nests the rebuilt objects one level deeper
        if group.count(".") >= limits.max_depth:
            msg = f"A `flat=` group nests deeper than {limits.max_depth} levels"
            raise DecodeError.at(msg, doc, pos)
    if not header.constants:  # the column names: `owner.login` also where fields= groups them
        # Derived cells are filled in last: the plan also puts them back in column order.
        plan = _nest_plan(header) if header.flat or header.templates else None
        return header.columns, None, plan
    constants: dict[str, Any] = {}
    for name, raw in header.constants:
        if raw[:1] in ("[", "{"):  # refused before it is read, however deep it nests
            raise DecodeError.at(f"Constant column {name!r} is not a scalar", doc, pos)
        try:
            found = decode_row(raw, (name,), True, header.empty_null, header.floats)
        except DecodeError as exc:
            raise DecodeError.at(f"Constant column {name!r}: {exc.msg}", doc, pos) from None
        value = found.get(name, ABSENT)
        if isinstance(value, (list, dict)):
            raise DecodeError.at(f"Constant column {name!r} is not a scalar", doc, pos)
        if name in constants:
            raise DecodeError.at(f"Constant column {name!r} is listed twice", doc, pos)
        if value is not ABSENT:
            constants[name] = value
    # Rows keep a (blank) cell for a constant column before their last cell, so
    # cells are read against every column; constants not at the end need a reorder.
    tail = columns[len(columns) - len(constants) :] == tuple(constants)
    plan = _nest_plan(header) if header.flat or header.templates or not tail else None
    return columns, constants, plan


#: decode_rows' layout: (steps, groups, constants, infixes, prefixes, templates).
Layout = tuple[
    tuple[tuple[int, str, int], ...],
    int,
    tuple[tuple[int, str, Any], ...],
    tuple[tuple[int, str, str], ...],
    tuple[tuple[int, str], ...],
    tuple[tuple[int, int, str, str, str, str], ...],
]


def _layout(
    header: Header,
    cells: tuple[str, ...],
    constants: dict[str, Any] | None,
    nest: list[tuple[str, tuple[str, ...], str]] | None,
    size: int,
) -> Layout | None:
    """The rows' final shape for decode_rows, or None: rows need no change after their
    cells are read, or the groups depend on the values (a member where a group goes).

    Remembered by what it is made of (but the constants' values) when its header
    line is ``size`` <= _LAYOUT_LINE characters: sections of one payload repeat
    their header but for `of=`, and each is a header parse."""
    if not (constants or header.infixes or header.prefixes or header.templates or nest):
        return None
    if size > _LAYOUT_LINE:  # a long header: not kept, its layout is a small part of its parse
        return _with_constants(_new_layout(header, cells, tuple(constants or ()), nest), constants)
    key = (
        cells, None if nest is None else tuple(nest), tuple(constants or ()),
        header.infixes, header.prefixes, header.templates,
    )  # fmt: skip
    found = _LAYOUTS.get(key, _NO_LAYOUT)
    if found is _NO_LAYOUT:
        found = _new_layout(header, cells, tuple(constants or ()), nest)
        if len(_LAYOUTS) >= _LAYOUTS_KEPT:
            _LAYOUTS.clear()
        _LAYOUTS[key] = found
    return _with_constants(found, constants)  # type: ignore[arg-type]


def _with_constants(layout: Layout | None, constants: dict[str, Any] | None) -> Layout | None:
    if layout is None or not constants:
        return layout
    steps, groups, held, infixes, prefixes, templates = layout
    values = tuple((c, name, constants[name]) for c, name, _ in held)
    return steps, groups, values, infixes, prefixes, templates


_LAYOUTS: dict[tuple[Any, ...], object] = {}
_LAYOUTS_KEPT = 64
_LAYOUT_LINE = 2048
_LAYOUT_DEPTH = 32  # groups within groups a layout makes, at most
_NO_LAYOUT = object()


def _new_layout(
    header: Header,
    cells: tuple[str, ...],
    constants: tuple[str, ...],
    nest: list[tuple[str, tuple[str, ...], str]] | None,
) -> Layout | None:
    # _layout's work: the constants' values left None, filled in by each call.
    column = {name: i for i, name in enumerate(cells)}
    groups: dict[tuple[int, str], int] = {}  # (object, key): the group made there
    members: set[tuple[int, str]] = set()  # (object, key) of each column's value
    steps: list[tuple[int, str, int]] = []
    for name, chain, key in nest if nest is not None else [(c, (), c) for c in cells]:
        if len(chain) > _LAYOUT_DEPTH:  # nest_rows walks such a chain with less to build first
            return None
        at = 0
        for part in chain:
            inner = groups.get((at, part))
            if inner is None:
                if (at, part) in members:  # a value where a group goes: nest_rows decides
                    return None
                inner = groups[at, part] = len(groups) + 1
                steps.append((at, part, -inner))
            at = inner
        if (at, key) in groups or (at, key) in members or name not in column:
            return None
        members.add((at, key))
        steps.append((at, key, column[name]))
    return (
        tuple(steps),
        len(groups),
        tuple((column[n], n, None) for n in constants),
        tuple((column[n], _INFIX_MARK, text) for n, text in header.infixes),
        tuple((column[n], text) for n, text in header.prefixes),
        tuple((column[n], column[s], b, a, n, s) for n, s, b, a in header.templates),
    )


def _check_constants(row: dict[str, Any], constants: dict[str, Any]) -> None:
    # A constant column's cell must be blank (empty, or `\`); then the constant fills it.
    for name in constants:
        if row.get(name) is not None:
            raise DecodeError(f"Constant column {name!r} has a cell in this row", "", 0)
    row.update(constants)


def _nest_plan(header: Header) -> list[tuple[str, tuple[str, ...], str]]:
    """For each field: (field, chain of group keys, member key) to rebuild nested objects."""
    # The declared groups as a tree of their dotted parts: each name walks it
    # once, part by part (slicing a prefix per dot was quadratic in the dots).
    tree: dict[object, Any] = {}
    for group in header.flat:
        node = tree
        for part in group.split("."):
            node = node.setdefault(part, {})
        node[_GROUP_END] = True
    plan: list[tuple[str, tuple[str, ...], str]] = []
    for name in header.columns:
        # The longest declared group that prefixes the name wins (members may hold dots).
        parts = name.split(".")
        at, longest = tree, 0
        for i, part in enumerate(parts[:-1]):
            if part not in at:
                break
            at = at[part]
            if _GROUP_END in at:
                longest = i + 1
        if longest > 1 or (longest and parts[0]):  # a group named "" is no prefix
            plan.append((name, tuple(parts[:longest]), ".".join(parts[longest:])))
        else:
            plan.append((name, (), name))
    return plan


def _rename_marks(
    plan: list[tuple[str, tuple[str, ...], str]],
) -> tuple[list[tuple[str, tuple[str, ...], str]], list[str]]:
    """The plan with top-level members `x[]` (a child list's count) nested as `x`, and those
    marks; a mark stays where another top-level member is named `x` (attach refuses that)."""
    tops = {chain[0] if chain else key for _, chain, key in plan}
    out: list[tuple[str, tuple[str, ...], str]] = []
    marks: list[str] = []
    for name, chain, key in plan:
        if not chain and key.endswith("[]") and key[:-2] and key[:-2] not in tops:
            out.append((name, chain, key[:-2]))
            marks.append(key)
        else:
            out.append((name, chain, key))
    return out, marks


def _restore_marks(rows: list[dict[str, Any]], marks: list[str]) -> None:
    # No child section takes these lists: each row's `x` goes back to `x[]`, at its place.
    if not marks:  # every list was filled in place (the usual case): no row to look at
        return
    keys = {mark[:-2]: mark for mark in marks}
    for i, row in enumerate(rows):
        if any(key in row for key in keys):
            rows[i] = {keys.get(k, k): v for k, v in row.items()}


def _nest(row: dict[str, Any], plan: list[tuple[str, tuple[str, ...], str]]) -> dict[str, Any]:
    return nest_rows((row,), plan)[0]


def _not_a_header(line: str, doc: str, pos: int) -> DecodeError:
    first = line.split(" ", 1)[0]
    if first.startswith("GCX"):
        return UnsupportedVersionError.at(f"Unsupported wire-format version: {first}", doc, pos)
    return DecodeError.at(f"Expected a `GCX1` header, got {line[:20]!r}", doc, pos)


@dataclass
class _Lines:
    """Line-level state shared by one-shot and streaming decoding."""

    doc: str
    typed: bool
    limits: Limits = DEFAULT_LIMITS
    header: Header | None = None
    comments: list[str] = field(default_factory=list)
    nest: list[tuple[str, tuple[str, ...], str]] | None = None
    #: Typed reading: the fields that have cells, and the constant columns' values.
    cells: tuple[str, ...] = ()
    constants: dict[str, Any] | None = None
    #: Typed reading of a section whose rows change after their cells are read
    #: (groups, constants, infixes, prefixes, templates): decode_rows' layout.
    layout: Layout | None = None
    #: Typed reading of a `form=lines` section: its rows are plain strings, one line each.
    plain: bool = False
    #: Cells short rows may still fill in: max_padding plus one per input character
    #: (a stream adds each chunk's characters as it comes).
    padding: int = -1
    #: One-shot typed reading: the first section's `x[]` members nested as `x`
    #: (the marks go here, key 0) so a child section fills them in place.
    renames: dict[int, list[str]] | None = None

    def __post_init__(self) -> None:
        if self.padding < 0:
            self.padding = self.limits.max_padding + len(self.doc)

    def pad(self, need: int, pos: int) -> None:
        """Take ``need`` cells of padding for the row at ``pos``, or raise DecodeError."""
        if need > self.padding:
            msg = (
                f"Short rows fill in more than {self.limits.max_padding} cells "
                "beyond one per input character"
            )
            raise DecodeError.at(msg, self.doc, pos)
        self.padding -= need

    def line(self, text: str, pos: int) -> dict[str, Any] | Header | None:
        """Classify one line (without its LF): a row, a new header, or nothing."""
        if text.endswith("\r"):  # CRLF input, as Go's line reader takes it
            text = text[:-1]
        if not text:
            return None
        limits = self.limits
        if len(text) > limits.max_line:
            raise DecodeError.at(f"Line is longer than {limits.max_line} characters", self.doc, pos)
        trees = (
            self.typed and self.header is not None and bool(self.header.trees or self.header.words)
        )
        # Key lists and lists of texts are checked once JSON (below); lines are text, never numbers.
        if self.typed and (not (trees or self.plain) or text.startswith("GCX1")):
            _check_numbers(text, limits, self.doc, pos)
        if text.startswith("GCX1"):
            first = self.header is None
            self.header = header = _parse_header(text, self.doc, pos, limits)
            self.comments = []
            self.plain = self.typed and lines.is_lines(header)
            if self.typed and not self.plain:
                self.cells, self.constants, self.nest = _row_plan(header, self.doc, pos, limits)
                if first and self.renames is not None and self.nest is not None:
                    self.nest, self.renames[0] = _rename_marks(self.nest)
                self.layout = _layout(header, self.cells, self.constants, self.nest, len(text))
            else:
                self.cells, self.constants, self.nest = header.fields, None, None
                self.layout = None
            return header
        if self.header is None:
            raise _not_a_header(text, self.doc, pos)
        if text[0] == "#":
            self.comments.append(text[1:])
            return None
        typed = self.typed and not self.plain
        if typed and not trees and text.count("[") + text.count("{") > limits.max_depth:
            self._check_depth(text, pos)
        header = self.header
        if not typed or header.empty_null:
            short = len(self.cells) - text.count("\t") - 1
            if short > 0:
                self.pad(short, pos)
        if typed and (
            header.raw_json or header.strings or header.crlf or header.trees or header.words
        ):
            strings = _string_cells(header.strings, self.cells)
            crlf = _string_cells(header.crlf, self.cells)
            words = _string_cells(header.words, self.cells)
            try:
                text = _escaped(
                    text,
                    header.raw_json,
                    strings,
                    crlf,
                    _string_cells(header.trees, self.cells),
                    words,
                )
            except DecodeError as exc:
                raise DecodeError.at(exc.msg, self.doc, pos + exc.pos) from None
            if trees:  # key lists and lists of texts as the JSON they stand for
                _check_numbers(text, limits, self.doc, pos)
                if text.count("[") + text.count("{") > limits.max_depth:
                    self._check_depth(text, pos)
        try:
            row = decode_row(text, self.cells, typed, header.empty_null, header.floats)
            if self.constants:
                _check_constants(row, self.constants)
            if typed and header.infixes:
                _add_infixes([row], header.infixes)
            if typed and header.prefixes:
                _add_prefixes([row], header.prefixes)
            if typed and header.templates:
                add_templates([row], header.templates)
            if self.nest is None:
                return row
            row = _nest(row, self.nest)
            if header.missing:
                _drop_missing([row], header)
            return row
        except DecodeError as exc:
            raise DecodeError.at(exc.msg, self.doc, pos + exc.pos) from None

    def _check_depth(self, text: str, pos: int) -> None:
        # Only lines holding that many brackets get here; find the cell that nests too deep.
        start = 0
        for cell in text.split("\t"):
            if cell[:1] in ("[", "{") and depth_exceeds(unescape(cell), self.limits.max_depth):
                raise DecodeError.at(
                    f"JSON literal nests deeper than {self.limits.max_depth} levels",
                    self.doc,
                    pos + start,
                )
            start += len(cell) + 1


def _check_numbers(text: str, limits: Limits, doc: str, at: int) -> None:
    """Raise DecodeError if the typed line ``text`` (at ``at`` of ``doc``) holds a number
    past the digit limit: a number cell, a number in a JSON literal cell, or in a header.

    A string cell may hold any run of digits (``id 123…``): gcxwire writes it, so it
    reads it. Linear: each run of digits is looked at once, its cell at most once.
    """
    limit = digit_limit(limits)
    if limit <= 0 or len(text) <= limit:
        return
    run = digit_run(limit)
    found = run.search(text)
    header = text.startswith("GCX1")  # meta values are typed; rows start `\GCX1`
    while found is not None:
        start = text.rfind("\t", 0, found.start()) + 1
        end = text.find("\t", found.end())
        end = len(text) if end < 0 else end
        cell = text[start:end]
        if header or NUMBER.fullmatch(cell):
            raise DecodeError.at(digit_message(limit), doc, at + found.start())
        if cell[0] in "[{" and long_json_number(unescape(cell), limit) >= 0:
            raise DecodeError.at(digit_message(limit), doc, at + start)
        found = run.search(text, end)


def _section_rows(
    state: _Lines, rows: list[dict[str, Any]], start: int
) -> tuple[int, list[dict[str, Any]]]:
    # Returns where reading stopped and the section's row list: the leaf's own
    # list when the section had none yet (extending an empty list would hold
    # two arrays of a million rows at once: 8 bytes a row of peak memory).
    header, doc = state.header, state.doc
    assert header is not None
    limits = state.limits
    text, base = doc, start
    typed = state.typed and not state.plain
    if typed and (header.raw_json or header.strings or header.crlf or header.trees or header.words):
        # escaped as usual
        end = start if doc.startswith("GCX1", start) else doc.find("\nGCX1", start)
        end = len(doc) if end < 0 else end + (end > start)
        strings = _string_cells(header.strings, state.cells)
        crlf = _string_cells(header.crlf, state.cells)
        trees = _string_cells(header.trees, state.cells)
        words = _string_cells(header.words, state.cells)
        try:
            text, base = _escaped(doc[start:end], header.raw_json, strings, crlf, trees, words), 0
        except DecodeError as exc:
            raise DecodeError.at(exc.msg, doc, start + exc.pos) from None
    layout = state.layout if typed else None
    try:
        found, comments, stop, padded = decode_rows(
            text, base, state.cells, typed, header.empty_null, header.floats,
            limits.max_line, limits.max_depth, digit_limit(limits), state.padding, layout,
        )  # fmt: skip
    except DecodeError as exc:
        where = exc.pos if text is doc else start + _original_pos(text, doc[start:], exc.pos)
        raise DecodeError.at(exc.msg, doc, where) from None
    if text is not doc:
        stop = start + _original_pos(text, doc[start:], stop)
    state.padding -= padded
    state.comments.extend(comments)
    if layout is not None:  # the rows are in their final shape but for missing groups
        if header.missing:
            _drop_missing(found, header)
        if not rows:
            return stop, found
        rows.extend(found)
        return stop, rows
    try:
        if state.constants:
            for row in found:
                _check_constants(row, state.constants)
        if typed and header.infixes:
            _add_infixes(found, header.infixes)
        if typed and header.prefixes:
            _add_prefixes(found, header.prefixes)
        if typed and header.templates:
            add_templates(found, header.templates)
        if state.nest is not None:
            found = nest_rows(found, state.nest)
            if header.missing:
                _drop_missing(found, header)
        if not rows:
            return stop, found
        rows.extend(found)
    except DecodeError:  # rare: read the lines one by one to place the error
        pos = start
        while pos < stop:
            end = doc.find("\n", pos)
            end = stop if end < 0 else end
            state.line(doc[pos:end], pos)
            pos = end + 1
        raise
    return stop, rows


def _sections(
    doc: str,
    typed: bool,
    limits: Limits = DEFAULT_LIMITS,
    renames: dict[int, list[str]] | None = None,
) -> list[tuple[Header, list[dict[str, Any]], list[str]]]:
    """The sections of ``doc``; a ``renames`` dict (typed) takes the first section's marks
    nested as their list's key, which `_build` given the same dict then fills or restores."""
    check_size(doc, limits)
    state = _Lines(doc, typed, limits, renames=renames)
    out: list[tuple[Header, list[dict[str, Any]], list[str]]] = []
    pos, size = 0, len(doc)
    while pos < size:
        end = doc.find("\n", pos)
        end = size if end < 0 else end
        item = state.line(doc[pos:end], pos)
        if isinstance(item, Header):
            out.append((item, [], state.comments))
        elif item is not None:
            out[-1][1].append(item)
        pos = end + 1
        if state.header is not None:
            # The plain row lines that follow, in one leaf call; it stops at the
            # next header or a line the limits must look at, which `line` takes.
            header, rows, comments = out[-1]
            pos, filled = _section_rows(state, rows, pos)
            if filled is not rows:
                out[-1] = (header, filled, comments)
    if not out:
        raise DecodeError.at("Input holds no `GCX1` header", doc, len(doc))
    return out


def _typed_meta(
    header: Header, doc: str, limits: Limits = DEFAULT_LIMITS
) -> Iterator[tuple[str | None, Any]]:
    # Data members in header order; the `of` marker's position yields key None
    # (the last `of=`, as a repeated key's last value is the one that counts).
    last_of = max((i for i, (k, _) in enumerate(header.raw_meta) if k == _OF), default=-1)
    for i, (key_raw, value_raw) in enumerate(header.raw_meta):
        if key_raw == _OF:
            if i == last_of:
                yield None, None
            continue
        if key_raw in _CONTROL:
            continue
        if (
            value_raw[:1] in ("[", "{")
            and len(value_raw) > limits.max_depth
            and depth_exceeds(unescape(value_raw), limits.max_depth)
        ):
            deep = f"JSON literal nests deeper than {limits.max_depth} levels"
            raise DecodeError(f"Header {unescape(key_raw)!r}: {deep}", doc)
        try:
            value = parse_cell(value_raw)
        except DecodeError as exc:
            raise DecodeError(f"Header {unescape(key_raw)!r}: {exc.msg}", doc) from None
        yield unescape(key_raw), ("\\" if value is ABSENT else value)


def _marker(header: Header) -> tuple[str, str] | None:
    # The first of `of`/`is` to appear, with its last value: a repeated key's last one wins.
    kind = None
    value = ""
    for key_raw, value_raw in header.raw_meta:
        if key_raw in (_OF, _IS) and kind in (None, key_raw):
            kind, value = key_raw, value_raw
    if kind is None:
        return None
    return kind, value if kind == _OF else unescape(value)


def _of_path(raw: str) -> list[str | None]:
    # `of=query.search` (raw): member search of object query; `\.` is a dot in a
    # key. `items[].spec` (a child section): None stands for the list step `[]`.
    if "\\" not in raw and "[" not in raw:  # the common path: plain keys
        return list(raw.split("."))
    parts: list[str | None] = []
    part: list[str] = []
    i = 0
    while i < len(raw):
        c = raw[i]
        if c == "\\" and i + 1 < len(raw):
            nxt = raw[i + 1]
            part.append({"t": "\t", "n": "\n"}.get(nxt, nxt))
            i += 2
            continue
        if c == "." or (c == "[" and raw.startswith("[].", i)):
            if c == "." or part or parts:  # a leading `[]` is the top-level table's
                parts.append("".join(part))
            part = []
            if c == "[":
                parts.append(None)
                i += 2
        else:
            part.append(c)
        i += 1
    parts.append("".join(part))
    return parts


def _put(obj: dict[str, Any], path: list[str], value: Any, doc: str) -> None:
    # Set a member inside nested objects, making the objects on the way.
    for key in path[:-1]:
        inner = obj.setdefault(key, {})
        if type(inner) is not dict:
            raise DecodeError(f"`of=` path goes through {key!r}, which is no object", doc)
        obj = inner
    obj[path[-1]] = value


def _merge(obj: dict[str, Any], members: dict[str, Any]) -> None:
    # A record's members, merged into objects earlier sections opened (`query.x`).
    for key, value in members.items():
        inner = obj.get(key)
        if type(inner) is dict and type(value) is dict and key in obj:
            _merge(inner, value)
        else:
            obj[key] = value


def _build(
    doc: str,
    sections: list[tuple[Header, list[dict[str, Any]], list[str]]],
    limits: Limits = DEFAULT_LIMITS,
    renames: dict[int, list[str]] | None = None,
) -> Any:
    """The typed value of the sections; texts of `form=lines` sections put in their cells."""
    marks = renames.get(0, []) if renames else []
    in_place: dict[int, str] = {}
    if marks:
        in_place = _in_place(sections, marks)
        filled = set(in_place.values())
        _restore_marks(sections[0][1], [m for m in marks if m not in filled])
    if not any(lines.is_lines(header) for header, _, _ in sections):
        return _build_value(doc, sections, limits, in_place)
    kept, placed = lines.split(sections, doc)
    value = _build_value(doc, kept, limits)
    lines.place(value, placed, doc)
    return value


def _in_place(
    sections: list[tuple[Header, list[dict[str, Any]], list[str]]], marks: list[str]
) -> dict[int, str]:
    """Which child sections fill the top table's renamed marks in place: {section: mark}.

    Only a top-level table (rows, not `form=columns`) with child sections below it
    attaches them; of two sections for one list the last attaches first, so it takes it.
    """
    if any(lines.is_lines(header) for header, _, _ in sections):
        return {}
    markers = [_marker(h) for h, _, _ in sections]
    if markers[0] is not None or not all(_below_top(m) for m in markers[1:]):
        return {}
    if any(k == _FORM for k, _ in sections[0][0].raw_meta):
        return {}
    by_key = {mark[:-2]: mark for mark in marks}
    taken: dict[str, int] = {}
    for i, marker in enumerate(markers[1:], 1):
        assert marker is not None
        steps = nested.segments(_of_path(marker[1]))
        if len(steps) == 2 and steps[0] == () and len(steps[1]) == 1 and steps[1][0] in by_key:
            taken[steps[1][0]] = i
    return {i: by_key[key] for key, i in taken.items()}


def _build_value(
    doc: str,
    sections: list[tuple[Header, list[dict[str, Any]], list[str]]],
    limits: Limits = DEFAULT_LIMITS,
    in_place: dict[int, str] | None = None,
) -> Any:
    markers = [_marker(h) for h, _, _ in sections]
    if all(m is None for m in markers):
        if len(sections) == 1 and all(k in _CONTROL for k, _ in sections[0][0].raw_meta):
            return _section_value(sections[0][0], sections[0][1], doc)
        # A payload from another writer: meta members, then each section's rows by tool.
        foreign: dict[str, Any] = {}
        for header, rows, _ in sections:
            foreign.update((k, v) for k, v in _typed_meta(header, doc, limits) if k is not None)
            foreign[header.tool] = rows
        return foreign
    first = markers[0]
    if first is None and all(_below_top(m) for m in markers[1:]):
        # A top-level table with child sections below it (`of=[].x`).
        top: list[Any] = _section_value(sections[0][0], sections[0][1], doc)
        tables: dict[tuple[tuple[str, ...], ...], list[Any]] = {((),): top}
        pending: list[_Attach] = []
        for i, ((header, rows, _), marker) in enumerate(
            zip(sections[1:], markers[1:], strict=True), 1
        ):
            assert marker is not None
            steps = nested.segments(_of_path(marker[1]))
            filled = in_place is not None and i in in_place
            _child(tables, header, rows, steps, doc, limits, pending, filled)
        _attach_all(pending, doc)
        return top
    if first is not None and first[0] == _IS and first[1] in ("list", "value"):
        if len(sections) != 1:
            raise DecodeError(f"An `is={first[1]}` section must stand alone", doc)
        header, rows, _ = sections[0]
        column = header.fields[0]
        if any(column not in row for row in rows):
            raise DecodeError("Absent-key marker where a value is required", doc)
        if first[1] == "list":
            return [row[column] for row in rows]
        if len(rows) != 1:
            raise DecodeError(f"An `is=value` section holds {len(rows)} rows, not 1", doc)
        return rows[0][column]
    obj: dict[str, Any] = {}
    tables = {}
    pending = []
    for (header, rows, _), marker in zip(sections, markers, strict=True):
        if marker is None:
            raise DecodeError(f"Section {header.tool!r} has no `of=` in an object payload", doc)
        kind, name = marker
        if kind == _IS:
            if name != "object" or len(rows) != 1:
                raise DecodeError(f"Unexpected `is={name}` section with {len(rows)} rows", doc)
            obj.update((k, v) for k, v in _typed_meta(header, doc, limits) if k is not None)
            _merge(obj, rows[0])
            continue
        steps = nested.segments(_of_path(name))
        if len(steps) > 1:
            _child(tables, header, rows, steps, doc, limits, pending)
            continue
        path = list(steps[0])
        _check_depth(len(path), header, doc, limits)
        for key, value in _typed_meta(header, doc, limits):
            if key is None:
                value = _section_value(header, rows, doc)
                _put(obj, path, value, doc)
                if type(value) is list:
                    tables[(steps[0],)] = value
            else:
                obj[key] = value
    _attach_all(pending, doc)
    return obj


def _check_depth(levels: int, header: Header, doc: str, limits: Limits) -> None:
    # Each key of an `of=` path is one object level, each dot of a group one more.
    if levels <= limits.max_depth and not header.flat:
        return
    deepest = max((g.count(".") + 1 for g in header.flat), default=0)
    if levels + deepest > limits.max_depth:
        raise DecodeError(f"An `of=` path nests deeper than {limits.max_depth} levels", doc)


def _below_top(marker: tuple[str, str] | None) -> bool:
    # A child section of a top-level table: `of=[].x`.
    return marker is not None and marker[0] == _OF and marker[1].startswith("[].")


def _child(
    tables: dict[tuple[tuple[str, ...], ...], list[Any]],
    header: Header,
    rows: list[dict[str, Any]],
    steps: list[tuple[str, ...]],
    doc: str,
    limits: Limits,
    pending: list[_Attach],
    in_place: bool = False,
) -> None:
    """A child section (`of=items[].spec.containers`): checked, and its attach left pending
    (``in_place``: its table's rows hold the count under the list's own key already)."""
    parent = tables.get(tuple(steps[:-1]))
    if parent is None:
        raise DecodeError("An `of=` child section follows no table of that path", doc)
    if any(k != _OF for k, _ in header.raw_meta if k not in _CONTROL) or any(
        k not in _CONTROL for k, _ in header.raw_meta
    ):
        raise DecodeError("A child section holds members of its own", doc)
    if any(k == _FORM for k, _ in header.raw_meta):
        raise DecodeError("A child section cannot be `form=columns`", doc)
    # Each key is one object level, each list step two (the list and its item).
    _check_depth(sum(map(len, steps)) + 2 * (len(steps) - 1), header, doc, limits)
    pending.append((parent, rows, steps[-1], header.columns[0], in_place))
    tables[tuple(steps)] = rows


# A child section's rows waiting to go into its table's: (table, rows, path, link, in place).
_Attach = tuple[list[Any], list[dict[str, Any]], tuple[str, ...], str, bool]


def _attach_all(pending: list[_Attach], doc: str) -> None:
    # Last section first: attaching replaces a table's rows with renamed copies,
    # so a table takes its own children before its rows go into its parent's.
    for parent, rows, path, link, in_place in reversed(pending):
        nested.attach(parent, rows, path, link, doc, in_place)


def _section_value(header: Header, rows: list[dict[str, Any]], doc: str) -> Any:
    """A table section's value: its rows, or under ``form=columns`` one array per column."""
    form = None
    for key, value in header.raw_meta:
        if key == _FORM:
            form = value  # no break: a repeated key's last value wins
    if form is None:
        return rows
    if form != "columns":
        raise DecodeError(f"Unknown `form={unescape(form)}`", doc)
    keys = tuple(rows[0]) if rows else ()
    if any(tuple(row) != keys for row in rows):
        raise DecodeError("A `form=columns` row lacks a column", doc)
    return {key: [row[key] for row in rows] for key in keys}
