"""DCP codec: ``["$S",id,field...]`` header, positional rows, ``$R``/``$N`` sub-rows, cutdown masks.

Three dialects are written and read:

- ``gateway``: dcp-wrap 0.3.1, the dcp-gateway README's output: no field count, absent -> ``null``,
  nested marker ``$R``, compact JSON.
- ``v0.3``: dcp-wrap HEAD / spec v0.3: field count after the id, absent and null -> ``"-"``,
  nested marker ``$N``, compact JSON.
- ``dcp-py``: dcp-py 0.3.0: field count (header density L2), ``"-"``, ``$R``, scalar arrays
  comma-joined, ``json.dumps`` spacing and ASCII escapes; densities L0..L4.

See docs/dcp.md for what a round trip keeps and loses in each.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import orjson

from ._common import str_to_int
from ._compare import difference
from ._json import dumps_cell
from .errors import DecodeError, EncodeTypeError, EncodeValueError
from .limits import DEFAULT_LIMITS, Limits, check_size, depth_exceeds
from .schema import (
    ABSENT,
    DcpSchema,
    SchemaRegistry,
    infer_schema,
    json_path,
    resolve,
    split_path,
    unwrap,
)

__all__ = [
    "DcpSchema",
    "Dialect",
    "SchemaRegistry",
    "decode",
    "encode",
    "infer_schema",
    "same_value",
]

Dialect = Literal["gateway", "v0.3", "dcp-py"]

_MARKERS = ("$R", "$N")
_PLACEHOLDER = "$S"  # a wrapper member whose value is the table below
_DEFAULT_DOMAIN = "data"


# --- JSON text -------------------------------------------------------------------------------


def _compact(value: Any) -> str:
    """``JSON.stringify`` form: no spaces, raw non-ASCII, lone surrogates escaped."""
    try:
        return orjson.dumps(value).decode()
    except (TypeError, orjson.JSONEncodeError):
        # ints beyond 64 bits (any size), lone surrogates, subclasses orjson refuses
        return dumps_cell(value)


def _spaced(value: Any) -> str:
    """Python ``json.dumps`` defaults, as dcp-py writes: ``", "`` and ``\\uXXXX`` escapes."""
    try:
        return json.dumps(value, allow_nan=False)
    except ValueError as exc:  # an int past CPython's 4,300-digit conversion limit
        raise EncodeValueError(f"The dcp-py dialect cannot write this value: {exc}") from None


_LONG_DIGITS = re.compile(r"[0-9]{19}")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"number {text} is out of range")
    return value


def _loads(line: str, long_digits: bool = True) -> Any:
    """Parse one line exactly: big integers stay ints, lone surrogates are kept.

    orjson reads integers beyond 64 bits as floats, so a line that may hold one (a run of 19
    digits; ``long_digits=False`` says the whole document has none) goes to the stdlib.
    """
    if not (long_digits and _LONG_DIGITS.search(line)):
        try:
            return orjson.loads(line)
        except orjson.JSONDecodeError:
            pass  # let the stdlib parser accept what orjson refuses, or explain why
    return json.loads(
        line, parse_constant=_reject_constant, parse_float=_finite_float, parse_int=str_to_int
    )


def _is_plain_json(value: Any) -> bool:
    """The fast check: plain JSON types only (a subclass or an error goes to ``_check_json``)."""
    cls = type(value)
    if cls is str or cls is int or cls is bool or value is None:
        return True
    if cls is float:
        return math.isfinite(value)
    if cls is list:
        for item in value:
            if not _is_plain_json(item):
                return False
        return True
    if cls is dict:
        for key, item in value.items():
            if type(key) is not str or not _is_plain_json(item):
                return False
        return True
    return False


def _check_json(value: Any, path: str) -> None:
    """Raise ``EncodeError`` (with the JSONPath) for anything JSON cannot carry exactly."""
    if value is None or isinstance(value, (str, bool, int)):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise EncodeValueError(f"{value!r} is not a JSON number", path)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise EncodeTypeError(
                    f"object keys must be strings, not {type(key).__name__}", path
                )
            _check_json(item, json_path(path, key))
        return
    if isinstance(value, list):
        for i, item in enumerate(value):
            _check_json(item, json_path(path, i))
        return
    raise EncodeTypeError(f"{type(value).__name__} is not a JSON value", path)


# --- dialects --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Style:
    count: bool  # the header carries the field count
    absent: Any  # what absent (and, outside the gateway, null) is written as
    marker: str  # nested sub-row marker
    join_lists: bool  # scalar arrays written as "a,b" (dcp-py)
    dumps: Callable[[Any], str]


_STYLES: dict[str, _Style] = {
    "gateway": _Style(False, None, "$R", False, _compact),
    "v0.3": _Style(True, "-", "$N", False, _compact),
    "dcp-py": _Style(True, "-", "$R", True, _spaced),
}


def _style(dialect: str) -> _Style:
    try:
        return _STYLES[dialect]
    except (KeyError, TypeError):
        raise EncodeValueError(
            f"unknown DCP dialect {dialect!r} (use 'gateway', 'v0.3' or 'dcp-py')", "$"
        ) from None


# --- encoding --------------------------------------------------------------------------------


def _join(values: list[Any]) -> str:
    """dcp-py's array cell: ``str()`` of each item joined by ``,``; ``"-"`` when empty."""
    return ",".join(str(item) for item in values) if values else "-"


def _cell(value: Any, style: _Style) -> Any:
    if value is ABSENT or value is None:
        return style.absent
    if style.join_lists and isinstance(value, list):
        return _join(value)
    return value


def _sub_block(items: list[dict[str, Any]], sub: DcpSchema, style: _Style) -> list[Any]:
    """``[marker, sub_id, subrow...]``; the sub-id names the sub-fields these rows carry."""
    grid = [[resolve(item, sub.paths[name]) for name in sub.fields] for item in items]
    active = [i for i in range(len(sub.fields)) if any(row[i] is not ABSENT for row in grid)]
    mask = sum(sub.field_bit(i) for i in active)
    block: list[Any] = [style.marker, sub.id if not items else sub.cutdown_id(mask)]
    block.extend([_cell(row[i], style) for i in active] for row in grid)
    return block


def _header(schema: DcpSchema, sid: str, names: list[str], style: _Style, density: int) -> str:
    if density == 0:
        return style.dumps(names)
    if density == 3:
        return style.dumps(
            {
                "$dcp": "schema",
                "id": sid,
                "fields": names,
                "fieldCount": len(names),
                "types": {n: _ordered_type(schema.types[n]) for n in names if n in schema.types},
            }
        )
    if density == 4:
        described = []
        for name in names:
            about = schema.types.get(name, {}).get("description")
            described.append(f"{name}: {about}" if about else name)
        return "Fields: " + ", ".join(described)
    head: list[Any] = ["$S", sid]
    if density == 2:
        head.append(len(names))
    return style.dumps(head + names)


_TYPE_KEY_ORDER = ("type", "description", "enum", "min", "max")


def _ordered_type(type_def: dict[str, Any]) -> dict[str, Any]:
    """A field type in dcp-py's key order (``type, description, enum, min, max``, then others)."""
    first = {key: type_def[key] for key in _TYPE_KEY_ORDER if key in type_def}
    return first | {k: v for k, v in type_def.items() if k not in first}


def _natural_row(names: list[str], cells: list[Any], style: _Style) -> str:
    parts = []
    for name, cell in zip(names, cells):
        if cell is None or cell == style.absent:
            continue
        parts.append(f"{name}: {cell if isinstance(cell, str) else style.dumps(cell)}")
    return ", ".join(parts)


def encode(
    records: Any,
    schema: DcpSchema | None = None,
    *,
    dialect: Dialect = "gateway",
    domain: str | None = None,
    density: int | None = None,
    text_key: str | None = None,
    exact: bool = False,
) -> str:
    """Encode a list of records (or a ``{..., "items": [...]}`` wrapper) as DCP text.

    With ``schema`` the rows follow it (fields it lacks are dropped, paths it maps are read).
    Without one, a lossless schema is inferred on the fly: fields named by their dot paths in
    first-seen order, nothing dropped, so ``decode(text)`` rebuilds the records (see
    docs/dcp.md for the exceptions). ``domain`` names that schema (default: the wrapper's array
    key, else ``"data"``). ``density`` (0..4) is dcp-py's header density (dcp-py dialect only).
    ``text_key`` (a dot path) writes that string after each row as a raw text line, as dcp-py's
    ``text_key=`` does; decode it with the same ``text_key``. ``exact=True`` decodes the result
    and raises ``EncodeValueError`` unless it gives back exactly ``records`` (types, key order,
    null vs absent).

    Raises ``EncodeError`` for anything that is not a list of objects or a wrapper, and for
    values JSON cannot carry (NaN, non-string keys, sets...).
    """
    style = _style(dialect)
    if density is None:
        density = 2 if style.count else 1
    if density not in (0, 1, 2, 3, 4) or (
        dialect != "dcp-py" and density != (2 if style.count else 1)
    ):
        raise EncodeValueError(
            f"header density {density!r} is not available in the {dialect} dialect", "$"
        )
    if schema is not None and not isinstance(schema, DcpSchema):
        raise EncodeTypeError(f"schema must be a DcpSchema, not {type(schema).__name__}", "$")
    try:
        text = _encode(records, schema, style, dialect, domain, density, text_key)
        if exact:
            _require_exact(records, text, schema, text_key)
    except RecursionError:
        raise EncodeValueError("value is nested too deeply", "$") from None
    return text


def _encode(
    records: Any,
    schema: DcpSchema | None,
    style: _Style,
    dialect: str,
    domain: str | None,
    density: int,
    text_key: str | None,
) -> str:
    members, key, items = unwrap(records)
    prefix = json_path("$", key) if key is not None else "$"
    for i, record in enumerate(items):
        if not isinstance(record, dict):
            kind = "null" if record is None else type(record).__name__
            raise EncodeTypeError(
                f"a DCP record must be a JSON object, not {kind}", f"{prefix}[{i}]"
            )
    if schema is None:
        schema = infer_schema(
            items,
            domain=domain or key or _DEFAULT_DOMAIN,
            min_presence=0.0,
            order="source",
            naming="path",
            nest=False,
            flatten_sparse=style.absent is not None,  # the gateway cannot write "absent"
        )
    if members is not None:
        _check_json(members, "$")

    paths = [schema.paths[name] for name in schema.fields]
    # column by column: a top-level key is one dict lookup per record
    columns = [
        [r.get(p[0], ABSENT) for r in items] if len(p) == 1 else [resolve(r, p) for r in items]
        for p in paths
    ]
    active = [i for i, column in enumerate(columns) if any(v is not ABSENT for v in column)]
    if not items:
        active = list(range(len(paths)))
    grid = list(zip(*(columns[i] for i in active))) if active else [()] * len(items)
    mask = sum(schema.field_bit(i) for i in active)
    names = [schema.fields[i] for i in active]
    subs = [schema.nest.get(name) for name in names]

    lines: list[str] = []
    if members is not None:
        lines.append(_metadata_line(records, key or "", schema.domain, style))
    lines.append(_header(schema, schema.cutdown_id(mask), names, style, density))
    absent = style.absent
    for r, row in enumerate(grid):
        cells: list[Any] = []
        for i, sub, value in zip(active, subs, row):
            cls = type(value)
            if value is ABSENT or value is None:
                cells.append(absent)
            elif cls is str or cls is int or cls is bool:
                cells.append(value)
            elif cls is float and math.isfinite(value):
                cells.append(value)
            else:
                if not _is_plain_json(value):
                    _check_json(value, _cell_path(prefix, r, paths[i]))
                if sub is not None and isinstance(value, list):
                    cells.append(_nested_cell(value, sub, style, _cell_path(prefix, r, paths[i])))
                else:
                    cells.append(_cell(value, style))
        if density == 4:
            lines.append(_natural_row(names, cells, style))
        else:
            lines.append(style.dumps(cells))
        if text_key is not None:
            lines.append(_text_line(items[r], text_key, f"{prefix}[{r}]"))
    return "\n".join(lines)


def _cell_path(prefix: str, row: int, path: tuple[str, ...]) -> str:
    where = json_path(prefix, row)
    for segment in path:
        where = json_path(where, segment)
    return where


def _nested_cell(value: list[Any], sub: DcpSchema, style: _Style, where: str) -> Any:
    """An array in a field with a sub-schema: sub-rows when it holds objects only."""
    if all(isinstance(item, dict) for item in value):
        return _sub_block(value, sub, style)
    if value and isinstance(value[0], str) and value[0] in _MARKERS:
        raise EncodeValueError(
            f"an array starting with {value[0]!r} would read back as sub-rows", where
        )
    return _cell(value, style)


def _text_line(record: dict[str, Any], text_key: str, where: str) -> str:
    value = resolve(record, split_path(text_key))
    where = f"{where}.{text_key}"  # the dot path as given
    if not isinstance(value, str):
        raise EncodeTypeError("a text line needs a string at text_key", where)
    if "\n" in value or "\r" in value:
        raise EncodeValueError("a text line cannot hold a line break", where)
    return value


def _metadata_line(wrapper: dict[str, Any], key: str, domain: str, style: _Style) -> str:
    """The wrapper's other members as one JSON object line.

    The array member is left out when it is the last member and its key is the header's domain
    (the dcp-gateway README form); otherwise it stays in place as ``"$S"`` so that decode puts
    the rows back under the right key, in the right position.
    """
    for name, value in wrapper.items():
        if name != key and isinstance(value, str) and value == _PLACEHOLDER:
            raise EncodeValueError(
                f"wrapper member {name!r} holds {_PLACEHOLDER!r}, DCP's table placeholder",
                json_path("$", name),
            )
    if wrapper.get("$dcp") == "schema":
        raise EncodeValueError('a wrapper with "$dcp": "schema" reads as a schema header', "$")
    if key == domain and next(reversed(wrapper)) == key:
        body = {name: value for name, value in wrapper.items() if name != key}
    else:
        body = {name: (_PLACEHOLDER if name == key else value) for name, value in wrapper.items()}
    return style.dumps(body)


def _require_exact(value: Any, text: str, schema: DcpSchema | None, text_key: str | None) -> None:
    try:
        back = decode(text, schema=schema, text_key=text_key)
    except DecodeError as exc:  # a bug if it happens: say so rather than pass the text on
        raise EncodeValueError(f"DCP output does not decode: {exc}", "$") from None
    diff = difference(value, back)
    if diff is not None:
        raise EncodeValueError(f"DCP round trip is not exact ({diff[1]})", diff[0])


# --- exact comparison ------------------------------------------------------------------------


def same_value(a: Any, b: Any) -> bool:
    """Strict JSON equality: same types (``1`` is not ``1.0`` or ``True``), same key order."""
    return difference(a, b) is None


# --- decoding --------------------------------------------------------------------------------


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
        self.lines: list[_Line] = []
        start = 0
        for text in doc.split("\n"):
            self.lines.append(_Line(text, start))
            start += len(text) + 1
        if self.lines and self.lines[-1].text == "" and len(self.lines) > 1:
            self.lines.pop()  # one trailing newline is allowed
        self.long_digits = _LONG_DIGITS.search(doc) is not None

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
        try:
            return _loads(line.text, self.long_digits)
        except json.JSONDecodeError as exc:
            raise self.error(f"invalid JSON: {exc.msg}", line, exc.pos) from None
        except RecursionError:
            raise self.error("JSON nested too deeply", line) from None
        except ValueError as exc:
            raise self.error(f"invalid JSON: {exc}", line) from None


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
        raise ValueError(f"bad presence mask {hexmask!r} in schema id {sid!r}")
    return base, int(hexmask, 16)


def _domain_of(base_id: str | None) -> str:
    if base_id is None:
        return "items"
    match = re.match(r"^(.*):v\d+$", base_id)
    return match.group(1) if match else base_id


def decode(
    text: str,
    *,
    schema: DcpSchema | SchemaRegistry | None = None,
    dialect: Dialect | None = None,
    expand_paths: bool = True,
    text_key: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> Any:
    """Decode DCP text (any of the three dialects) back to JSON values.

    Returns a list of records, or the wrapper object when the text starts with a metadata line.
    With ``schema`` (or a registry holding the header's id) the original nesting is rebuilt from
    the mapping paths and ``$R``/``$N`` sub-rows are expanded; without one, records are keyed by
    the header names, and dotted names (``owner.login``) are expanded into nested objects when
    ``expand_paths`` is true and they form a consistent tree.

    ``dialect`` forces how ``"-"`` reads (absent in ``v0.3``/``dcp-py``, a string in
    ``gateway``); by default a field count or dcp-py spacing in the header means ``"-"`` is
    absent. With ``text_key`` every row is followed by a raw text line, put back at that path.
    Raises ``DecodeError`` with line and column on any malformed input, and past ``limits``
    (size, line length, JSON nesting per line).
    """
    if not isinstance(text, str):
        raise DecodeError(f"DCP text must be str, not {type(text).__name__}")
    reader = _Reader(text, limits)
    if not text.strip():
        return []
    lines = reader.lines
    first = lines[0]
    if first.text.startswith("Fields: "):
        raise reader.error("header density L4 (natural language) cannot be decoded", first)
    head_value = reader.json(first)
    members: dict[str, Any] | None = None
    index = 0
    if isinstance(head_value, dict) and head_value.get("$dcp") != "schema":
        members = head_value
        index = 1
        if len(lines) < 2:
            raise reader.error(
                "a metadata line must be followed by a $S header", first, len(first.text)
            )
        head_value = reader.json(lines[1])
    head_line = lines[index]
    header = _read_header(reader, head_line, head_value)
    if dialect is not None and dialect not in _STYLES:
        raise reader.error(f"unknown DCP dialect {dialect!r}", head_line)
    if dialect is not None:
        dash_absent = _STYLES[dialect].absent == "-"
    else:
        dash_absent = header.count is not None or header.spaced

    active_schema = _find_schema(reader, head_line, header, schema)
    if active_schema is not None:
        names = _active_fields(reader, head_line, header, active_schema)
        build: Callable[[list[Any], _Line], dict[str, Any]] = _schema_builder(
            reader, active_schema, names, dash_absent
        )
    else:
        # without a schema, a header naming no fields carries none (a zero-field batch)
        names = header.names if header.names is not None else []
        build = _flat_builder(names, dash_absent, expand_paths)

    records = []
    body = lines[index + 1 :]
    step = 1 if text_key is None else 2
    if text_key is not None and len(body) % 2:
        raise reader.error("the last row has no text line", body[-1], len(body[-1].text))
    for at in range(0, len(body), step):
        line = body[at]
        row = reader.json(line)
        if not isinstance(row, list):
            raise reader.error(f"a row must be a JSON array, not {type(row).__name__}", line)
        if len(row) != len(names):
            raise reader.error(
                f"row has {len(row)} values but the header has {len(names)} fields", line
            )
        record = build(row, line)
        if text_key is not None:
            _put(record, split_path(text_key), body[at + 1].text)
        records.append(record)

    if members is None:
        return records
    return _rewrap(members, records, _domain_of(_parse_id(header.sid)[0] if header.sid else None))


def _rewrap(members: dict[str, Any], records: list[Any], domain: str) -> dict[str, Any]:
    slots = [k for k, v in members.items() if isinstance(v, str) and v == _PLACEHOLDER]
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
            raise reader.error('an L3 header needs "id" and "fields"', line)
        if not all(isinstance(n, str) for n in names):
            raise reader.error("header field names must be strings", line)
        if count is not None and count != len(names):
            raise reader.error(f"fieldCount {count} differs from {len(names)} fields", line)
        return _Header(sid, names, len(names), True)
    if not isinstance(value, list):
        raise reader.error("expected a $S header array", line)
    if not value:  # density L0 naming no fields
        return _Header(None, [], None, True)
    if value[0] != "$S":
        if all(isinstance(n, str) for n in value):  # density L0: names only
            return _Header(None, value, None, True)
        raise reader.error('a header starts with "$S"', line)
    if len(value) < 2 or not isinstance(value[1], str):
        raise reader.error("the $S header needs a schema id string", line)
    rest = value[2:]
    count = None
    if rest and isinstance(rest[0], int) and not isinstance(rest[0], bool):
        count = rest[0]
        rest = rest[1:]
    for name in rest:
        if not isinstance(name, str):
            raise reader.error(f"header field names must be strings, not {name!r}", line)
    if count is not None and rest and count != len(rest):
        raise reader.error(f"the header says {count} fields but names {len(rest)}", line)
    try:
        _parse_id(value[1])
    except ValueError as exc:
        raise reader.error(str(exc), line) from None
    names = rest if rest or count == 0 else None
    if names is not None and len(set(names)) != len(names):
        raise reader.error("duplicate field names in the header", line)
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
            raise reader.error(f"unknown schema id {header.sid!r}", line)
        return found
    if not isinstance(schema, DcpSchema):
        raise reader.error(f"schema must be a DcpSchema or SchemaRegistry, not {schema!r}", line)
    if base is not None and base != schema.id:
        raise reader.error(f"unknown schema id {header.sid!r} (expected {schema.id!r})", line)
    return schema


def _active_fields(reader: _Reader, line: _Line, header: _Header, schema: DcpSchema) -> list[str]:
    mask = _parse_id(header.sid)[1] if header.sid is not None else None
    if mask is not None and mask > schema.full_mask:
        raise reader.error(f"mask {mask:x} names fields {schema.id!r} does not have", line)
    from_mask = list(schema.fields_from_mask(schema.full_mask if mask is None else mask))
    if header.names is None:
        if header.count is not None and header.count != len(from_mask):
            raise reader.error(
                f"the header says {header.count} fields, the schema has {len(from_mask)}", line
            )
        return from_mask
    if header.sid is None:  # L0: names only; they must be schema fields in schema order
        order = {name: i for i, name in enumerate(schema.fields)}
        positions = [order.get(name, -1) for name in header.names]
        if -1 in positions or positions != sorted(positions):
            raise reader.error(
                f"header fields {header.names} do not fit schema {schema.id!r}", line
            )
        return header.names
    if header.names != from_mask:
        raise reader.error(
            f"header fields {header.names} differ from schema {header.sid!r}: {from_mask}", line
        )
    return from_mask


def _flat_builder(
    names: list[str], dash_absent: bool, expand_paths: bool
) -> Callable[[list[Any], _Line], dict[str, Any]]:
    paths = _tree_paths(names) if expand_paths else None
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
    leaves = set(paths)
    for path in paths:
        for cut in range(1, len(path)):
            if path[:cut] in leaves:
                return None
    return paths


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
        and value[0] in _MARKERS
    )


def _expand(
    reader: _Reader, line: _Line, block: list[Any], sub: DcpSchema, dash_absent: bool
) -> list[dict[str, Any]]:
    sid = block[1]
    if not isinstance(sid, str):
        raise reader.error(f"a {block[0]} block needs a sub-schema id", line)
    try:
        base, mask = _parse_id(sid)
    except ValueError as exc:
        raise reader.error(str(exc), line) from None
    if base != sub.id:
        raise reader.error(f"unknown sub-schema id {sid!r} (expected {sub.id!r})", line)
    if mask is not None and mask > sub.full_mask:
        raise reader.error(f"mask {mask:x} names fields {sub.id!r} does not have", line)
    names = sub.fields_from_mask(sub.full_mask if mask is None else mask)
    builder = _schema_builder(reader, sub, names, dash_absent)
    items = []
    for subrow in block[2:]:
        if not isinstance(subrow, list) or len(subrow) != len(names):
            raise reader.error(
                f"a sub-row of {sid!r} must be an array of {len(names)} values", line
            )
        items.append(builder(subrow, line))
    return items
