"""GCX1: a header line per section, then one TAB-separated row per record.

``encode`` / ``decode`` are the one-shot API; :class:`Encoder` and
:class:`Decoder` hold options for reuse and stream row by row. The normative
grammar, typing rule and shape mapping are in docs/wire-format.md.
"""

from __future__ import annotations

import codecs
import heapq
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from ._common import ABSENT, path_join
from ._impl import (
    decode_row,
    decode_rows,
    encode_row,
    encode_table,
    escape,
    flatten_rows,
    nest_rows,
    parse_cell,
    scan_style,
    shared_keys,
    unescape,
)
from ._json import MAX_DEPTH, RawNumber, go_marshal, loads_exact
from ._reference import encode_reference
from .errors import (
    DecodeError,
    EncodeError,
    EncodeTypeError,
    EncodeValueError,
    UnsupportedVersionError,
)
from .limits import DEFAULT_LIMITS, Limits, depth_exceeds

__all__ = [
    "Profile",
    "Header",
    "Section",
    "Encoder",
    "Decoder",
    "encode",
    "decode",
    "parse",
    "reference_json",
    "loads_exact",
    "RawNumber",
    "Limits",
]

Profile = Literal["typed", "reference"]

# Header tokens are split on spaces and the line is trimmed, so no header
# token may hold whitespace; TAB and LF never appear raw (they are escaped).
_SPACE: Final = re.compile(r"\s")
_VALUE: Final = ("value",)
# Reserved meta keys of the typed profile; a member with such a name is written `\of`.
_OF: Final = "of"  # of=NAME: this section's rows are member NAME of the top-level object
_IS: Final = "is"  # is=object|list|value: what the section's rows stand for
_EMPTY: Final = "empty"  # empty=null: an empty cell is null here, and `\` is absent
_FLOAT: Final = "float"  # float=a,b: numbers in these columns are floats ("1" for 1.0)
_FLAT: Final = "flat"  # flat=owner: columns `owner.x` are the members of an object `owner`
_CONTROL: Final = (_OF, _IS, _EMPTY, _FLOAT, _FLAT)
# Objects nested this deep at most are spread over `a.b.c` columns.
_FLAT_DEPTH: Final = 3
_NO_FLOATS: Final[frozenset[str]] = frozenset()
# Members with these names cannot be meta: reference decoders read them as header keys.
_HEADER_KEYS: Final = ("tool", "fields")


@dataclass(frozen=True)
class Header:
    """One section header: tool, field names and meta, all as unescaped strings."""

    tool: str
    fields: tuple[str, ...]
    meta: dict[str, str] = field(default_factory=dict)
    #: The meta pairs as written (raw, still escaped), in order; typed decoding reads these.
    raw_meta: tuple[tuple[str, str], ...] = ()
    #: Typed reading of rows: does an empty cell mean null (``empty=null``) rather than absent?
    empty_null: bool = False
    #: Typed reading of rows: columns whose numbers are floats (``float=...``).
    floats: frozenset[str] = frozenset()
    #: Typed reading of rows: objects spread over dotted columns (``flat=...``).
    flat: frozenset[str] = frozenset()


@dataclass
class Section:
    """A parsed section, every cell a string, exactly as reference decoders see it."""

    tool: str
    fields: list[str]
    meta: dict[str, str]
    rows: list[dict[str, str]]
    comments: list[str]


# ---------------------------------------------------------------------- encoding


def _tool_text(tool: str) -> str:
    if not isinstance(tool, str) or not tool:
        raise EncodeValueError("The tool name must be a non-empty string", "tool")
    text = escape(tool)
    if _SPACE.search(text):
        raise EncodeValueError(
            f"Tool name {tool!r} holds whitespace, which GCX1 headers cannot carry", "tool"
        )
    return text


def _field_text(name: str) -> str | None:
    # Reference decoders unescape the fields value, split on ",", then unescape
    # each name again; so names are escaped twice and may not hold a comma.
    text = escape(escape(name))
    if "," in text or _SPACE.search(text):
        return None
    return text


def _header_line(tool_text: str, fields: Sequence[str], pairs: Iterable[tuple[str, str]]) -> str:
    names = ",".join(escape(escape(f)) for f in fields)
    meta = "".join(f" {k}={v}" for k, v in pairs)
    return f"GCX1 tool={tool_text} fields={names}{meta}\n"


def _meta_pair(key: str, value: Any, path: str) -> tuple[str, str] | None:
    """The raw ``key=value`` of an object member, or None if a header cannot hold it."""
    if not key or "=" in key or key in _HEADER_KEYS:
        return None
    key_text = escape(key)
    if _SPACE.search(key_text):
        return None
    if key_text in _CONTROL:
        key_text = "\\" + key_text
    try:
        value_text = "" if value is None else _one_cell(value)
    except EncodeError as exc:
        raise exc.relocated(path) from None
    if _SPACE.search(value_text):
        return None
    return key_text, value_text


def _one_cell(value: Any) -> str:
    # A single value as a one-cell row (the row guards apply); paths start at `$`.
    try:
        return encode_row({"value": value}, _VALUE, False, _NO_FLOATS)
    except EncodeError as exc:
        raise type(exc)(exc.reason, "$" + exc.path[len("$.value") :]) from None


def _table_fields(rows: Sequence[Any], path: str) -> list[str] | None:
    """Column order for a list of objects, or None when it is not a clean table.

    Columns follow first appearance; when rows disagree on order a topological
    merge finds one order every row agrees with, so each row keeps its key order.
    """
    if not rows:
        return None
    shared = shared_keys(rows)
    if shared is not None:  # the common case, in one leaf call: every row has the same keys
        if not shared or any(_field_text(f) is None for f in shared):
            return None
        return list(shared)
    index: dict[str, int] = {}
    fields: list[str] = []
    shapes: list[tuple[str, ...]] = []
    ordered = True
    previous: tuple[str, ...] | None = None
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            return None
        keys = tuple(row)
        if keys == previous:
            continue
        previous = keys
        shapes.append(keys)
        last = -1
        for key in keys:
            at = index.get(key)
            if at is None:
                if not isinstance(key, str):
                    raise EncodeTypeError(f"Object key {key!r} is not a string", path_join(path, i))
                at = index[key] = len(fields)
                fields.append(key)
            elif at < last:
                ordered = False
            last = at
    if not fields or any(_field_text(f) is None for f in fields):
        return None
    if ordered:
        return fields
    return _merge_orders(shapes, index)


def _merge_orders(shapes: list[tuple[str, ...]], first: dict[str, int]) -> list[str] | None:
    after: dict[str, set[str]] = {k: set() for k in first}
    pending = dict.fromkeys(first, 0)
    for keys in set(shapes):
        for a, b in zip(keys, keys[1:], strict=False):
            if b not in after[a]:
                after[a].add(b)
                pending[b] += 1
    ready = [(first[k], k) for k, n in pending.items() if n == 0]
    heapq.heapify(ready)
    order: list[str] = []
    while ready:
        _, key = heapq.heappop(ready)
        order.append(key)
        for nxt in after[key]:
            pending[nxt] -= 1
            if pending[nxt] == 0:
                heapq.heappush(ready, (first[nxt], nxt))
    return order if len(order) == len(first) else None


def _style(rows: Sequence[dict[str, Any]], fields: Sequence[str]) -> tuple[bool, frozenset[str]]:
    """Pick the cheaper reading of a section's rows.

    Absent keys cost nothing as empty cells, nulls a ``null`` each; a section
    with clearly more nulls says ``empty=null`` and writes absent keys ``\\``.
    A column whose numbers are all floats, several of them integral, says
    ``float=`` and drops their ``.0`` (two tokens a cell).
    The scan over every cell is a speedups leaf.
    """
    return scan_style(rows, fields)


def _style_pairs(
    fields: Sequence[str], empty_null: bool, floats: frozenset[str]
) -> list[tuple[str, str]]:
    pairs = [(_EMPTY, "null")] if empty_null else []
    if floats:
        pairs.append((_FLOAT, ",".join(escape(escape(f)) for f in fields if f in floats)))
    return pairs


def _flat_plan(
    rows: Sequence[dict[str, Any]], fields: Sequence[str], prefix: str
) -> tuple[list[str], list[str]]:
    """Columns with nested objects spread out: (dotted fields, flattened groups).

    A column is spread when every row holds an object there, its members form a
    clean table, and no sibling name starts with ``column.`` (so no two dotted
    names can collide). Group names are dot-free keys joined by dots.
    """
    flat: list[str] = []
    groups: list[str] = []
    for name in fields:
        members: list[str] | None = None
        if (
            name  # an empty group name cannot be listed in `flat=` (readers skip it)
            and "." not in name
            and prefix.count(".") < _FLAT_DEPTH
            and all(type(row.get(name)) is dict for row in rows)  # stops at the first non-object
            and not any(f.startswith(name + ".") for f in fields)
        ):
            values: list[Any] = [row[name] for row in rows]
            try:
                members = _table_fields(values, "$")
            except EncodeError:  # a bad key: the JSON cell will report it with its path
                members = None
        if members is None:
            flat.append(prefix + name)
            continue
        groups.append(prefix + name)
        sub_flat, sub_groups = _flat_plan(values, members, f"{prefix}{name}.")
        flat.extend(sub_flat)
        groups.extend(sub_groups)
    return flat, groups


def _table(
    rows: Sequence[dict[str, Any]], fields: list[str], path: str
) -> tuple[list[str], list[tuple[str, str]], list[str]]:
    """One table section: its fields, control pairs and row lines."""
    pairs: list[tuple[str, str]] = []
    if len(rows) > 1:
        flat, groups = _flat_plan(rows, fields, "")
        if groups:
            rows, fields = flatten_rows(rows, frozenset(groups)), flat
            pairs.append((_FLAT, ",".join(escape(escape(g)) for g in groups)))
    try:  # the style _style would pick, and the rows written in it (lines joined by LF)
        text, empty_null, floats = encode_table(rows, fields)
    except EncodeError as exc:
        raise exc.relocated(path) from None
    # The LF is its own element, so the payload's final LF drops without a copy.
    body = [text, "\n"] if text else []
    return fields, [*_style_pairs(fields, empty_null, floats), *pairs], body


def _write_value(out: list[str], tool_text: str, value: Any) -> None:
    """The catch-all shape: one ``value`` cell per list element, or one for the whole value."""
    if isinstance(value, (list, tuple)):
        out.append(_header_line(tool_text, _VALUE, [(_IS, "list")]))
        for i, item in enumerate(value):
            try:
                out.append(_one_cell(item))
            except EncodeError as exc:
                raise exc.relocated(path_join("$", i)) from None
            out.append("\n")
    else:
        out.append(_header_line(tool_text, _VALUE, [(_IS, "value")]))
        out.append(_one_cell(value))
        out.append("\n")


def _write_object(out: list[str], tool_text: str, obj: dict[str, Any]) -> None:
    # Split the members into tables (lists of objects) and runs of other members.
    segments: list[tuple[str, list[str]] | list[tuple[str, Any]]] = []
    run: list[tuple[str, Any]] = []
    for key, value in obj.items():
        if not isinstance(key, str):
            raise EncodeTypeError(f"Object key {key!r} is not a string", "$")
        fields = None
        if isinstance(value, (list, tuple)) and escape(key) and not _SPACE.search(escape(key)):
            fields = _table_fields(value, path_join("$", key))
        if fields is None:
            run.append((key, value))
            continue
        if run:
            segments.append(run)
            run = []
        segments.append((key, fields))
    if run:
        segments.append(run)

    if not any(isinstance(s, tuple) for s in segments):
        keys = list(obj)
        if keys and all(_field_text(k) is not None for k in keys):
            style = _style([obj], keys)
            out.append(
                _header_line(tool_text, keys, [*_style_pairs(keys, *style), (_IS, "object")])
            )
            out.append(encode_row(obj, keys, *style) + "\n")  # its paths are `$.key` already
        else:
            _write_value(out, tool_text, obj)
        return

    # Each section: header pairs and rows. Runs that fit in a header ride on
    # the neighbouring table's header, in member order around its `of=` marker.
    sections: list[tuple[list[str], list[tuple[str, str]], list[str]]] = []
    last_table: list[tuple[str, str]] | None = None
    waiting: list[tuple[str, str]] = []
    for seg in segments:
        if isinstance(seg, tuple):
            key, fields = seg
            fields, pairs, body = _table(obj[key], fields, path_join("$", key))
            pairs.extend([*waiting, (_OF, escape(key))])
            waiting = []
            sections.append((fields, pairs, body))
            last_table = pairs
            continue
        meta = [_meta_pair(k, v, path_join("$", k)) for k, v in seg]
        if all(p is not None for p in meta):
            target = last_table if last_table is not None else waiting
            target.extend(p for p in meta if p is not None)
            continue
        keys = [k for k, _ in seg]
        if not all(_field_text(k) is not None for k in keys):
            out.clear()
            _write_value(out, tool_text, obj)
            return
        record = dict(seg)
        style = _style([record], keys)
        line = encode_row(record, keys, *style) + "\n"
        sections.append((keys, [*_style_pairs(keys, *style), (_IS, "object")], [line]))
        last_table = None
    for fields, pairs, body in sections:
        out.append(_header_line(tool_text, fields, pairs))
        out.extend(body)


def _encode_typed(value: Any, tool: str) -> str:
    tool_text = _tool_text(tool)
    out: list[str] = []
    if isinstance(value, dict):
        _write_object(out, tool_text, value)
    elif isinstance(value, (list, tuple)):
        fields = _table_fields(value, "$")
        if fields is None:
            _write_value(out, tool_text, value)
        else:
            fields, pairs, body = _table(value, fields, "$")
            out.append(_header_line(tool_text, fields, pairs))
            out.extend(body)
    else:
        _write_value(out, tool_text, value)
    # Like a JSON text, a payload ends without a newline; every decoder accepts that.
    if out and out[-1] == "\n":
        out.pop()
        return "".join(out)
    return "".join(out)[:-1]


def _encode(value: Any, tool: str, profile: Profile) -> str:
    if profile == "typed":
        try:
            return _encode_typed(value, tool)
        except RecursionError:
            raise EncodeValueError(f"Nesting deeper than {MAX_DEPTH} levels (or a cycle)") from None
    if profile == "reference":
        _tool_text(tool)
        return encode_reference(value, tool)
    raise ValueError(f"Unknown profile {profile!r}: use 'typed' or 'reference'")


def encode(value: Any, /, *, tool: str, profile: Profile = "typed") -> str:
    """Encode a JSON value as GCX1 text.

    ``profile="typed"`` (default) is lossless: ``decode(encode(v)) == v``.
    ``profile="reference"`` reproduces the gortex bench encoder byte for byte
    (strings only; pair it with :func:`loads_exact` to keep number literals).

    Raises EncodeError, naming the value's path, for what JSON cannot carry.
    """
    return _encode(value, tool, profile)


def reference_json(value: Any, /) -> str:
    """The JSON the reference scorecard measures: Go ``json.Marshal`` of the value.

    Compact, keys sorted, ``<`` ``>`` ``&`` U+2028 U+2029 escaped, number literals kept.
    """
    return go_marshal(value)


# ---------------------------------------------------------------------- decoding


def _parse_header(line: str, doc: str, pos: int, limits: Limits = DEFAULT_LIMITS) -> Header:
    rest = line[4:]
    lead = len(rest) - len(rest.lstrip())
    tool: str | None = None
    fields: list[str] | None = None
    meta: dict[str, str] = {}
    raw: list[tuple[str, str]] = []
    at = pos + 4 + lead
    for token in rest.strip().split(" "):
        if token:
            key_raw, eq, value_raw = token.partition("=")
            if not eq:
                raise DecodeError.at(f"Malformed header token {token!r} (want key=value)", doc, at)
            key = unescape(key_raw)
            if key == "tool":
                tool = unescape(value_raw)
            elif key == "fields":
                listed = unescape(value_raw)
                if listed.count(",") >= limits.max_cells:
                    raise DecodeError.at(
                        f"Header declares more than {limits.max_cells} fields", doc, at
                    )
                fields = [unescape(f) for f in listed.split(",")]
            else:
                meta[key] = unescape(value_raw)
                raw.append((key_raw, value_raw))
        at += len(token) + 1
    if not tool:
        raise DecodeError.at("Header has no `tool=`", doc, pos)
    if fields is None:
        raise DecodeError.at("Header has no `fields=`", doc, pos)
    controls = dict(p for p in raw if p[0] in (_EMPTY, _FLOAT, _FLAT))

    def names(key: str) -> frozenset[str]:
        return frozenset(unescape(f) for f in unescape(controls.get(key, "")).split(",") if f)

    empty_null = unescape(controls.get(_EMPTY, "")) == "null"
    flat = names(_FLAT)
    if flat.intersection(fields):
        raise DecodeError.at("A `flat=` group is also a field", doc, pos)
    return Header(tool, tuple(fields), meta, tuple(raw), empty_null, names(_FLOAT), flat)


def _nest_plan(header: Header) -> list[tuple[str, tuple[str, ...], str]]:
    """For each field: (field, chain of group keys, member key) to rebuild nested objects."""
    groups = sorted(header.flat, key=len, reverse=True)
    plan: list[tuple[str, tuple[str, ...], str]] = []
    for name in header.fields:
        group = next((g for g in groups if name.startswith(g + ".")), None)
        if group is None:
            plan.append((name, (), name))
        else:
            plan.append((name, tuple(group.split(".")), name[len(group) + 1 :]))
    return plan


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

    def line(self, text: str, pos: int) -> dict[str, Any] | Header | None:
        """Classify one line (without its LF): a row, a new header, or nothing."""
        if text.endswith("\r"):  # CRLF input, as Go's line reader takes it
            text = text[:-1]
        if not text:
            return None
        limits = self.limits
        if len(text) > limits.max_line:
            raise DecodeError.at(f"Line is longer than {limits.max_line} characters", self.doc, pos)
        if text.startswith("GCX1"):
            self.header = _parse_header(text, self.doc, pos, limits)
            self.comments = []
            self.nest = _nest_plan(self.header) if self.typed and self.header.flat else None
            return self.header
        if self.header is None:
            raise _not_a_header(text, self.doc, pos)
        if text[0] == "#":
            self.comments.append(text[1:])
            return None
        if self.typed and text.count("[") + text.count("{") > limits.max_depth:
            self._check_depth(text, pos)
        try:
            header = self.header
            row = decode_row(text, header.fields, self.typed, header.empty_null, header.floats)
            return row if self.nest is None else _nest(row, self.nest)
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


def _section_rows(state: _Lines, rows: list[dict[str, Any]], start: int) -> int:
    header, doc = state.header, state.doc
    assert header is not None
    limits = state.limits
    try:
        found, comments, stop = decode_rows(
            doc, start, header.fields, state.typed, header.empty_null, header.floats,
            limits.max_line, limits.max_depth,
        )  # fmt: skip
    except DecodeError as exc:
        raise DecodeError.at(exc.msg, doc, exc.pos) from None
    state.comments.extend(comments)
    if state.nest is None:
        rows.extend(found)
        return stop
    try:
        rows.extend(nest_rows(found, state.nest))
    except DecodeError:  # rare: read the lines one by one to place the error
        pos = start
        while pos < stop:
            end = doc.find("\n", pos)
            end = stop if end < 0 else end
            state.line(doc[pos:end], pos)
            pos = end + 1
        raise
    return stop


def _sections(
    doc: str, typed: bool, limits: Limits = DEFAULT_LIMITS
) -> list[tuple[Header, list[dict[str, Any]], list[str]]]:
    if len(doc) > limits.max_size:
        raise DecodeError.at(
            f"Input is longer than {limits.max_size} characters", doc, limits.max_size
        )
    state = _Lines(doc, typed, limits)
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
            pos = _section_rows(state, out[-1][1], pos)
    if not out:
        raise DecodeError.at("Input holds no `GCX1` header", doc, len(doc))
    return out


def _as_text(data: str | bytes) -> str:
    if isinstance(data, str):
        return data
    try:
        return bytes(data).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DecodeError(f"Input is not UTF-8: {exc.reason}", "", exc.start) from None


def parse(text: str | bytes, /, *, limits: Limits = DEFAULT_LIMITS) -> list[Section]:
    """Parse GCX1 into sections of strings, exactly as the reference decoders read it."""
    doc = _as_text(text)
    return [
        Section(h.tool, list(h.fields), dict(h.meta), rows, comments)
        for h, rows, comments in _sections(doc, False, limits)
    ]


def _typed_meta(header: Header, doc: str) -> Iterator[tuple[str | None, Any]]:
    # Data members in header order; the `of` marker's position yields key None.
    for key_raw, value_raw in header.raw_meta:
        if key_raw == _OF:
            yield None, None
            continue
        if key_raw in _CONTROL:
            continue
        try:
            value = parse_cell(value_raw)
        except DecodeError as exc:
            raise DecodeError(f"Header {unescape(key_raw)!r}: {exc.msg}", doc) from None
        yield unescape(key_raw), ("\\" if value is ABSENT else value)


def _marker(header: Header) -> tuple[str, str] | None:
    for key_raw, value_raw in header.raw_meta:
        if key_raw in (_OF, _IS):
            return key_raw, unescape(value_raw)
    return None


def _build(doc: str, sections: list[tuple[Header, list[dict[str, Any]], list[str]]]) -> Any:
    markers = [_marker(h) for h, _, _ in sections]
    if all(m is None for m in markers):
        if len(sections) == 1 and all(k in _CONTROL for k, _ in sections[0][0].raw_meta):
            return sections[0][1]
        # A payload from another writer: meta members, then each section's rows by tool.
        foreign: dict[str, Any] = {}
        for header, rows, _ in sections:
            foreign.update((k, v) for k, v in _typed_meta(header, doc) if k is not None)
            foreign[header.tool] = rows
        return foreign
    first = markers[0]
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
    for (header, rows, _), marker in zip(sections, markers, strict=True):
        if marker is None:
            raise DecodeError(f"Section {header.tool!r} has no `of=` in an object payload", doc)
        kind, name = marker
        if kind == _IS:
            if name != "object" or len(rows) != 1:
                raise DecodeError(f"Unexpected `is={name}` section with {len(rows)} rows", doc)
            obj.update((k, v) for k, v in _typed_meta(header, doc) if k is not None)
            obj.update(rows[0])
            continue
        for key, value in _typed_meta(header, doc):
            if key is None:
                obj[name] = rows
            else:
                obj[key] = value
    return obj


def decode(text: str | bytes, /, *, typed: bool = True, limits: Limits = DEFAULT_LIMITS) -> Any:
    """Decode GCX1 text.

    ``typed=True`` (default) returns the JSON value ``encode`` was given, and
    reads reference payloads with the same typing rule. ``typed=False`` returns
    what reference decoders return, every cell a string:
    ``{"tool": ..., "sections": [{"tool", "fields", "meta", "rows"}, ...]}``.

    Raises DecodeError (UnsupportedVersionError for ``GCX2`` and later) with line
    and column, also for input past one of the ``limits``.
    """
    doc = _as_text(text)
    if not typed:
        sections = parse(doc, limits=limits)
        return {
            "tool": sections[0].tool,
            "sections": [
                {"tool": s.tool, "fields": s.fields, "meta": s.meta, "rows": s.rows}
                for s in sections
            ],
        }
    try:
        return _build(doc, _sections(doc, True, limits))
    except RecursionError:
        raise DecodeError("Input is nested too deeply", doc) from None


# ---------------------------------------------------------------- reusable classes


class Encoder:
    """Reusable GCX1 encoder; also writes a table a row at a time.

    >>> enc = Encoder()
    >>> enc.header("t", ["a", "b"]) + enc.row({"a": 1, "b": "x"})
    'GCX1 tool=t fields=a,b\\n1\\tx\\n'
    """

    def __init__(self, *, profile: Profile = "typed") -> None:
        if profile not in ("typed", "reference"):
            raise ValueError(f"Unknown profile {profile!r}: use 'typed' or 'reference'")
        self.profile: Profile = profile
        self._fields: tuple[str, ...] = ()

    def encode(self, value: Any, /, *, tool: str) -> str:
        """Encode a whole value, as :func:`encode` does."""
        return _encode(value, tool, self.profile)

    def header(self, tool: str, fields: Sequence[str]) -> str:
        """Start a streamed table: the header line; rows then follow with :meth:`row`."""
        texts = [_field_text(f) for f in fields]
        if not fields or any(t is None for t in texts):
            raise EncodeValueError(f"Field names {list(fields)!r} cannot be written in a header")
        self._fields = tuple(fields)
        return _header_line(_tool_text(tool), self._fields, ())

    def row(self, record: dict[str, Any]) -> str:
        """One streamed row line for the current header (keys it lacks are written absent)."""
        if not self._fields:
            raise EncodeValueError("Call header() before row()")
        extra = [k for k in record if k not in self._fields]
        if extra:
            raise EncodeValueError(
                f"Key {extra[0]!r} is not a field of the header", path_join("$", extra[0])
            )
        return encode_row(record, self._fields, False, _NO_FLOATS) + "\n"


class Decoder:
    """Reusable GCX1 decoder that also reads a stream in arbitrary chunks.

    :meth:`feed` takes the next chunk (str or UTF-8 bytes, split anywhere) and
    returns the rows whose lines it completed, each with its section header;
    :meth:`close` flushes a final line that had no LF. Memory stays O(one line).
    """

    def __init__(self, *, typed: bool = True, limits: Limits = DEFAULT_LIMITS) -> None:
        self.typed = typed
        self.limits = limits
        self._state = _Lines("", typed, limits)
        self._utf8 = codecs.getincrementaldecoder("utf-8")()
        # The unfinished line, in pieces: joining only at its LF keeps feeding O(n).
        self._pending: list[str] = []
        self._pending_len = 0
        self._pos = 0
        self._line = 1
        self.headers: list[Header] = []

    def decode(self, text: str | bytes, /) -> Any:
        """Decode a whole payload, as :func:`decode` does."""
        return decode(text, typed=self.typed, limits=self.limits)

    def feed(self, chunk: str | bytes) -> list[tuple[Header, dict[str, Any]]]:
        """Take the next chunk; return the rows it completed."""
        if isinstance(chunk, str):
            text = chunk
        else:
            try:
                text = self._utf8.decode(chunk)
            except UnicodeDecodeError as exc:
                raise DecodeError(f"Input is not UTF-8: {exc.reason}", "", self._pos) from None
        if "\n" not in text:
            self._pending.append(text)
            self._pending_len += len(text)
            if self._pending_len > self.limits.max_line:
                msg = f"Line is longer than {self.limits.max_line} characters"
                raise DecodeError(msg, "", self._pos, self._line, 1)
            return []
        lines = text.split("\n")
        if self._pending:
            lines[0] = "".join(self._pending) + lines[0]
        tail = lines.pop()
        self._pending = [tail] if tail else []
        self._pending_len = len(tail)
        return self._take(lines)

    def close(self) -> list[tuple[Header, dict[str, Any]]]:
        """End of input: the final unterminated line's row, if any."""
        try:
            tail = "".join(self._pending) + self._utf8.decode(b"", final=True)
        except UnicodeDecodeError as exc:  # the stream ended inside a UTF-8 sequence
            raise DecodeError(f"Input is not UTF-8: {exc.reason}", "", self._pos) from None
        self._pending = []
        self._pending_len = 0
        rows = self._take([tail] if tail else [])
        if not self.headers:
            raise DecodeError("Input holds no `GCX1` header", "", self._pos)
        return rows

    def _take(self, lines: list[str]) -> list[tuple[Header, dict[str, Any]]]:
        out: list[tuple[Header, dict[str, Any]]] = []
        state = self._state
        for text in lines:
            # Errors carry this line as their document; positions count from the stream start.
            state.doc = text
            try:
                item = state.line(text, 0)
            except DecodeError as exc:
                raise type(exc)(exc.msg, text, self._pos + exc.pos, self._line, exc.colno) from None
            if isinstance(item, Header):
                self.headers.append(item)
            elif item is not None:
                assert state.header is not None
                out.append((state.header, item))
            self._pos += len(text) + 1
            self._line += 1
        return out
