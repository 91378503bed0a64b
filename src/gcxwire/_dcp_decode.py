"""DCP reading: the line reader, header forms and checks, and the record builders."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate, chain, repeat
from operator import eq
from typing import Any

import orjson

from ._dcp_encode import MARKERS, PLACEHOLDER, STYLES
from ._dcp_schema import DcpSchema, SchemaRegistry, split_path
from ._impl import dcp_join, dcp_records, dcp_tree_records
from ._values import has_long_digits, loads, long_digit_lines
from .errors import DecodeError
from .limits import (
    DEFAULT_LIMITS,
    Limits,
    as_text,
    check_json_numbers,
    check_size,
    depth_exceeds,
    digit_limit,
    long_json_number,
)

__all__ = ["decode", "header_id"]


@dataclass
class _Line:
    text: str
    start: int  # offset of the line in the document


class _Reader:
    """Parses one document; every error carries the line and column it was found at."""

    def __init__(self, doc: str, limits: Limits = DEFAULT_LIMITS) -> None:
        self.doc = doc
        self.limits = limits
        check_size(doc, limits)
        self._texts: list[str] | None = None
        self._long_digits: bool | None = None
        self._lines: list[_Line] | None = None

    @property
    def texts(self) -> list[str]:
        """Every line's text (split when first asked for: the fast path needs none)."""
        if self._texts is None:
            self._texts = self.doc.split("\n")
            if len(self._texts) > 1 and self._texts[-1] == "":
                self._texts.pop()  # one trailing newline is allowed
        return self._texts

    @property
    def long_digits(self) -> bool:
        """Whether the document holds a run of 19 digits (found when first asked for)."""
        if self._long_digits is None:
            self._long_digits = has_long_digits(self.doc)
        return self._long_digits

    @property
    def lines(self) -> list[_Line]:
        """Every line with its offset (made when first asked for: the fast path needs none)."""
        if self._lines is None:
            starts = accumulate(map((1).__add__, map(len, self.texts)), initial=0)
            self._lines = list(map(_Line, self.texts, starts))
        return self._lines

    def line(self, index: int) -> _Line:
        """Line ``index`` with its offset, found from the top without splitting the others."""
        if self._lines is not None:
            return self._lines[index]
        doc = self.doc
        start = 0
        for _ in range(index):
            start = doc.index("\n", start) + 1
        end = doc.find("\n", start)
        return _Line(doc[start:] if end < 0 else doc[start:end], start)

    def has_line(self, index: int) -> bool:
        """Whether the document has a line ``index`` (a final newline starts none)."""
        start = 0
        for _ in range(index):
            found = self.doc.find("\n", start)
            if found < 0:
                return False
            start = found + 1
        return index == 0 or start < len(self.doc)

    def error(self, msg: str, line: _Line, column: int = 0) -> DecodeError:
        return DecodeError.at(msg, self.doc, line.start + column)

    def json(self, line: _Line) -> Any:
        limits = self.limits
        if len(line.text) > limits.max_line:
            raise self.error(f"Line is longer than {limits.max_line} characters", line)
        if line.text.count("[") + line.text.count("{") > limits.max_depth and depth_exceeds(
            line.text, limits.max_depth
        ):
            raise self.error(f"JSON nests deeper than {limits.max_depth} levels", line)
        check_json_numbers(line.text, limits, self.doc, line.start)
        try:
            # the row loop: one search of the whole document; a header line: its own
            return loads(line.text, scan=self.long_digits if self._lines else True)
        except json.JSONDecodeError as exc:
            raise self.error(f"Invalid JSON: {exc.msg}", line, exc.pos) from None
        except RecursionError:
            raise self.error("JSON nested too deeply", line) from None
        except ValueError as exc:
            raise self.error(f"Invalid JSON: {exc}", line) from None


@dataclass
class _Header:
    sid: str | None
    names: list[str] | None  # None: abbreviated header (the schema knows the fields)
    count: int | None
    spaced: bool


def _parse_id(sid: str) -> tuple[str, int | None]:
    base, sep, hexmask = sid.partition("#")
    if not sep:
        return base, None
    if not hexmask or not all(c in "0123456789abcdefABCDEF" for c in hexmask):
        raise ValueError(f"Bad presence mask {hexmask!r} in schema id {sid!r}")
    return base, int(hexmask, 16)


def _domain_of(base_id: str | None) -> str:
    if base_id is None:
        return "items"
    match = re.match(r"^(.*):v\d+$", base_id)
    return match.group(1) if match else base_id


def decode(
    text: str | bytes | bytearray,
    *,
    schema: DcpSchema | SchemaRegistry | None = None,
    dialect: str | None = None,
    expand_paths: bool = True,
    text_key: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> Any:
    """Records (or the wrapper object) of DCP ``text`` (see ``gcxwire.dcp.decode``)."""
    text = as_text(text)
    reader = _Reader(text, limits)
    if not text.strip():
        return []
    skip = 0
    first = reader.line(skip)
    while first.text in ("", "\r"):  # blank lines before the header, as GCX1 allows
        skip += 1
        first = reader.line(skip)
    if first.text.startswith("Fields: "):
        raise reader.error("Header density L4 (natural language) cannot be decoded", first)
    head_value = reader.json(first)
    members: dict[str, Any] | None = None
    index = 0
    if isinstance(head_value, dict) and head_value.get("$dcp") != "schema":
        members = head_value
        index = 1
        if not reader.has_line(skip + 1):
            raise reader.error(
                "A metadata line must be followed by a $S header", first, len(first.text)
            )
        head_value = reader.json(reader.line(skip + 1))
    head_line = reader.line(skip + index)
    header = _read_header(reader, head_line, head_value)
    if dialect is not None and dialect not in STYLES:
        raise reader.error(f"Unknown DCP dialect {dialect!r}", head_line)
    if dialect is not None:
        dash_absent = STYLES[dialect].absent == "-"
    else:
        dash_absent = header.count is not None or header.spaced

    active_schema = _find_schema(reader, head_line, header, schema)
    fast = active_schema is None and text_key is None
    if active_schema is not None:
        names = _active_fields(reader, head_line, header, active_schema)
        build: Callable[[list[Any], _Line], dict[str, Any]] = _schema_builder(
            reader, active_schema, names, dash_absent
        )
    else:
        # without a schema, a header naming no fields carries none (a zero-field batch)
        names = header.names if header.names is not None else []
        paths = _tree_paths(names) if expand_paths else None
        if paths is not None and max(map(len, paths)) > limits.max_depth:
            raise reader.error(
                f"A dotted field name nests deeper than {limits.max_depth} levels", head_line
            )
        build = _flat_builder(names, paths, dash_absent)
        fast = fast and (paths is None or max(map(len, paths)) <= _NESTED_FAST)

    offset = head_line.start + len(head_line.text) + 1  # where the rows start
    found = (
        _flat_records(reader, skip + index + 1, offset, names, paths, dash_absent) if fast else None
    )
    if found is not None:
        return found if members is None else _rewrap(members, found, _domain(header))
    records = []
    body = reader.lines[skip + index + 1 :]
    step = 1 if text_key is None else 2
    if text_key is not None and len(body) % 2:
        raise reader.error("The last row has no text line", body[-1], len(body[-1].text))
    for at in range(0, len(body), step):
        line = body[at]
        row = reader.json(line)
        if not isinstance(row, list):
            raise reader.error(f"A row must be a JSON array, not {type(row).__name__}", line)
        if len(row) != len(names):
            raise reader.error(
                f"Row has {len(row)} values but the header has {len(names)} fields", line
            )
        record = build(row, line)
        if text_key is not None:
            _put(record, split_path(text_key), body[at + 1].text)
        records.append(record)

    if members is None:
        return records
    return _rewrap(members, records, _domain(header))


def _domain(header: _Header) -> str:
    return _domain_of(_parse_id(header.sid)[0] if header.sid else None)


_NESTED_FAST = 32  # dotted names nesting deeper go through the row loop


def _flat_records(
    reader: _Reader,
    start: int,
    offset: int,
    names: list[str],
    paths: list[tuple[str, ...]] | None,
    dash_absent: bool,
) -> list[dict[str, Any]] | None:
    """The records of rows ``start:`` keyed by ``names`` (no schema), or None.

    The row loop's result without a Python step per row: the lines read by one orjson call
    when ``dcp_join`` shows each is one array (else by orjson in one builtin map), checked in
    whole-list passes, zipped with the names. None (the row loop
    decides, and raises what it raises) when a line is too long or may nest too deep, a
    line does not parse, or a row is no array of the right size.
    """
    limits = reader.limits
    digits = digit_limit(limits)  # a number past it is the row loop's to refuse
    if 0 < digits < 19:
        return None
    joined = dcp_join(reader.doc, offset, limits.max_line, limits.max_depth)
    if joined is not None:  # every line one array: one orjson call reads them all
        try:
            rows = orjson.loads(joined[0])
        except (ValueError, RecursionError):  # orjson's refusals: the row loop decides
            return None
    else:
        found = _each_line(reader, reader.texts[start:], digits)
        if found is None:
            return None
        rows = found
    if paths is None:
        return dcp_records(rows, names, dash_absent)
    if rows and (set(map(type, rows)) != {list} or set(map(len, rows)) != {len(names)}):
        return None
    if dash_absent and any(map(eq, repeat("-"), chain.from_iterable(rows))):
        return None  # a group of absent members makes no object: the row loop decides
    # Dotted names: every record has the same tree, each object built from its row
    # (a group's dict from its members', in first-seen order, as _put makes them).
    tree: dict[str, Any] = {}
    for i, path in enumerate(paths):
        node = tree
        for segment in path[:-1]:
            node = node.setdefault(segment, {})
        node[path[-1]] = i
    return dcp_tree_records(rows, tree, len(names))


def _each_line(reader: _Reader, texts: list[str], digits: int) -> list[Any] | None:
    """Every line parsed as ``reader.json`` parses it, by orjson in one builtin map, or None
    when a line is too long or may nest too deep, has too long a number or does not parse."""
    limits = reader.limits
    if max(map(len, texts), default=0) > limits.max_line:
        return None
    depth = limits.max_depth
    for text in filter(lambda t: len(t) > depth, texts):
        if text.count("[") + text.count("{") > depth:
            return None
    # Each line as reader.json reads it: orjson, or the exact loads for a long digit run.
    exact = long_digit_lines(texts) if reader.long_digits else []
    if any(long_json_number(texts[i], digits) >= 0 for i in exact):
        return None
    try:
        plain = texts.copy() if exact else texts
        for i in exact:
            plain[i] = "0"  # a placeholder orjson reads; the line itself below
        rows = list(map(orjson.loads, plain))
        for i in exact:
            rows[i] = loads(texts[i])
    except (ValueError, RecursionError):  # orjson's and the stdlib's refusals
        return None
    return rows


def header_id(text: str | bytes | bytearray) -> str | None:
    """The schema id of a DCP text's ``$S`` header (on its first or second line), if any."""
    doc = as_text(text)
    pos = seen = 0
    while pos < len(doc) and seen < 2:  # blank lines before the header are skipped
        end = doc.find("\n", pos)
        end = len(doc) if end < 0 else end
        line = doc[pos:end].removesuffix("\r")
        pos = end + 1
        if not line:
            continue
        seen += 1
        if line.startswith('["$S"'):
            try:
                head = json.loads(line)
            except ValueError:
                return None
            sid = head[1] if isinstance(head, list) and len(head) > 1 else None
            return sid if isinstance(sid, str) else None
    return None


def _rewrap(members: dict[str, Any], records: list[Any], domain: str) -> dict[str, Any]:
    slots = [k for k, v in members.items() if isinstance(v, str) and v == PLACEHOLDER]
    if slots:
        return {k: (records if k == slots[0] else v) for k, v in members.items()}
    out = dict(members)
    out[domain] = records
    return out


def _read_header(reader: _Reader, line: _Line, value: Any) -> _Header:
    spaced = line.text.startswith('["$S", ') or line.text.startswith('{"$dcp": ')
    if isinstance(value, dict):  # density L3: the schema object itself
        sid, names, count = value.get("id"), value.get("fields"), value.get("fieldCount")
        if not isinstance(sid, str) or not isinstance(names, list):
            raise reader.error('An L3 header needs "id" and "fields"', line)
        if not all(isinstance(n, str) for n in names):
            raise reader.error("Header field names must be strings", line)
        if count is not None and count != len(names):
            raise reader.error(f"The fieldCount {count} differs from {len(names)} fields", line)
        return _Header(sid, names, len(names), True)
    if not isinstance(value, list):
        raise reader.error("Expected a $S header array", line)
    if not value:  # density L0 naming no fields
        return _Header(None, [], None, True)
    if value[0] != "$S":
        if all(isinstance(n, str) for n in value):  # density L0: names only
            return _Header(None, value, None, True)
        raise reader.error('A header starts with "$S"', line)
    if len(value) < 2 or not isinstance(value[1], str):
        raise reader.error("The $S header needs a schema id string", line)
    rest = value[2:]
    count = None
    if rest and isinstance(rest[0], int) and not isinstance(rest[0], bool):
        count = rest[0]
        rest = rest[1:]
    for name in rest:
        if not isinstance(name, str):
            raise reader.error(f"Header field names must be strings, not {name!r}", line)
    if count is not None and rest and count != len(rest):
        raise reader.error(f"The header says {count} fields but names {len(rest)}", line)
    try:
        _parse_id(value[1])
    except ValueError as exc:
        raise reader.error(str(exc), line) from None
    names = rest if rest or count == 0 else None
    if names is not None and len(set(names)) != len(names):
        raise reader.error("Duplicate field names in the header", line)
    return _Header(value[1], names, count, spaced)


def _find_schema(
    reader: _Reader,
    line: _Line,
    header: _Header,
    schema: DcpSchema | SchemaRegistry | None,
) -> DcpSchema | None:
    if schema is None:
        return None
    base = _parse_id(header.sid)[0] if header.sid is not None else None
    if isinstance(schema, SchemaRegistry):
        found = schema.get(base) if base is not None else None
        if found is None:
            raise reader.error(f"Unknown schema id {header.sid!r}", line)
        return found
    if not isinstance(schema, DcpSchema):
        raise reader.error(f"Schema must be a DcpSchema or SchemaRegistry, not {schema!r}", line)
    if base is not None and base != schema.id:
        raise reader.error(f"Unknown schema id {header.sid!r} (expected {schema.id!r})", line)
    return schema


def _active_fields(reader: _Reader, line: _Line, header: _Header, schema: DcpSchema) -> list[str]:
    mask = _parse_id(header.sid)[1] if header.sid is not None else None
    if mask is not None and mask > schema.full_mask:
        raise reader.error(f"Mask {mask:x} names fields {schema.id!r} does not have", line)
    from_mask = list(schema.fields_from_mask(schema.full_mask if mask is None else mask))
    if header.names is None:
        if header.count is not None and header.count != len(from_mask):
            raise reader.error(
                f"The header says {header.count} fields, the schema has {len(from_mask)}", line
            )
        return from_mask
    if header.sid is None:  # L0: names only; they must be schema fields in schema order
        order = {name: i for i, name in enumerate(schema.fields)}
        positions = [order.get(name, -1) for name in header.names]
        if -1 in positions or positions != sorted(positions):
            raise reader.error(
                f"Header fields {header.names} do not fit schema {schema.id!r}", line
            )
        return header.names
    if header.names != from_mask:
        raise reader.error(
            f"Header fields {header.names} differ from schema {header.sid!r}: {from_mask}", line
        )
    return from_mask


def _flat_builder(
    names: list[str], paths: list[tuple[str, ...]] | None, dash_absent: bool
) -> Callable[[list[Any], _Line], dict[str, Any]]:
    if paths is None:  # flat records: the common case, kept to one comprehension
        if dash_absent:
            return lambda row, line: {n: v for n, v in zip(names, row) if v != "-"}
        return lambda row, line: dict(zip(names, row))

    def build(row: list[Any], line: _Line) -> dict[str, Any]:
        record: dict[str, Any] = {}
        for i, value in enumerate(row):
            if dash_absent and value == "-" and isinstance(value, str):
                continue
            if len(paths[i]) == 1:
                record[names[i]] = value
            else:
                _put(record, paths[i], value)
        return record

    return build


def _tree_paths(names: list[str]) -> list[tuple[str, ...]] | None:
    """Dotted names as paths, when they form a tree (no name is both a leaf and a parent)."""
    if not any("." in name for name in names):
        return None
    paths = [tuple(name.split(".")) if "." in name else (name,) for name in names]
    if any("" in path for path in paths if len(path) > 1):
        return None
    # one walk of a key tree, so the check is linear in the header's length (testing every
    # prefix of every name was quadratic: a 256 KB header took a minute)
    root: dict[str, Any] = {}
    for path in paths:
        node = root
        for segment in path[:-1]:
            child = node.setdefault(segment, {})
            if child is _LEAF:
                return None  # a leaf is also a parent
            node = child
        if path[-1] in node:
            return None  # a parent is also a leaf
        node[path[-1]] = _LEAF
    return paths


_LEAF: Any = object()  # a leaf in _tree_paths' key tree


def _put(record: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    target = record
    for segment in path[:-1]:
        inner = target.get(segment)
        if not isinstance(inner, dict):
            inner = target[segment] = {}
        target = inner
    target[path[-1]] = value


def _schema_builder(
    reader: _Reader, schema: DcpSchema, names: Sequence[str], dash_absent: bool
) -> Callable[[list[Any], _Line], dict[str, Any]]:
    paths = [schema.paths[name] for name in names]
    subs = [schema.nest.get(name) for name in names]

    def build(row: list[Any], line: _Line) -> dict[str, Any]:
        record: dict[str, Any] = {}
        for value, path, sub in zip(row, paths, subs):
            if dash_absent and value == "-" and isinstance(value, str):
                continue
            if sub is not None and _is_block(value):
                value = _expand(reader, line, value, sub, dash_absent)
            if len(path) == 1:
                record[path[0]] = value
            else:
                _put(record, path, value)
        return record

    return build


def _is_block(value: Any) -> bool:
    return (
        isinstance(value, list)
        and len(value) >= 2
        and isinstance(value[0], str)
        and value[0] in MARKERS
    )


def _expand(
    reader: _Reader, line: _Line, block: list[Any], sub: DcpSchema, dash_absent: bool
) -> list[dict[str, Any]]:
    sid = block[1]
    if not isinstance(sid, str):
        raise reader.error(f"A {block[0]} block needs a sub-schema id", line)
    try:
        base, mask = _parse_id(sid)
    except ValueError as exc:
        raise reader.error(str(exc), line) from None
    if base != sub.id:
        raise reader.error(f"Unknown sub-schema id {sid!r} (expected {sub.id!r})", line)
    if mask is not None and mask > sub.full_mask:
        raise reader.error(f"Mask {mask:x} names fields {sub.id!r} does not have", line)
    names = sub.fields_from_mask(sub.full_mask if mask is None else mask)
    builder = _schema_builder(reader, sub, names, dash_absent)
    items = []
    for subrow in block[2:]:
        if not isinstance(subrow, list) or len(subrow) != len(names):
            raise reader.error(
                f"A sub-row of {sid!r} must be an array of {len(names)} values", line
            )
        items.append(builder(subrow, line))
    return items
