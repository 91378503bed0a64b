"""DCP writing: the dialects, header densities, rows, sub-row blocks, metadata and text lines."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import orjson

from ._dcp_infer import infer_schema
from ._dcp_schema import DcpSchema, Path, resolve, split_path, unwrap
from ._impl import dcp_lines, dcp_rows, dcp_text
from ._values import ABSENT, check_value, dumps_valid, is_plain, path_join, too_many_digits
from .errors import EncodeTypeError, EncodeValueError

__all__ = ["MARKERS", "PLACEHOLDER", "STYLES", "Dialect", "Style", "encode"]

Dialect = Literal["gateway", "v0.3", "dcp-py"]

MARKERS = ("$R", "$N")
PLACEHOLDER = "$S"  # a wrapper member whose value is the table below
_DEFAULT_DOMAIN = "data"


# --- JSON text -------------------------------------------------------------------------------


def _spaced(value: Any) -> str:
    """Python ``json.dumps`` defaults, as dcp-py writes: ``", "`` and ``\\uXXXX`` escapes."""
    try:
        return json.dumps(value, allow_nan=False)
    except ValueError as exc:  # an int past CPython's 4,300-digit conversion limit
        raise EncodeValueError(f"The dcp-py dialect cannot write this value: {exc}") from None


# --- dialects --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Style:
    count: bool  # the header carries the field count
    absent: Any  # what absent (and, outside the gateway, null) is written as
    marker: str  # nested sub-row marker
    join_lists: bool  # scalar arrays written as "a,b" (dcp-py)
    dumps: Callable[[Any], str]


STYLES: dict[str, Style] = {
    "gateway": Style(False, None, "$R", False, dumps_valid),
    "v0.3": Style(True, "-", "$N", False, dumps_valid),
    "dcp-py": Style(True, "-", "$R", True, _spaced),
}


def _style(dialect: str) -> Style:
    try:
        return STYLES[dialect]
    except (KeyError, TypeError):
        raise EncodeValueError(
            f"Unknown DCP dialect {dialect!r} (use 'gateway', 'v0.3' or 'dcp-py')"
        ) from None


def _density(dialect: str, style: Style, density: int | None) -> int:
    own = 2 if style.count else 1
    if density is None:
        return own
    if density not in (0, 1, 2, 3, 4) or (dialect != "dcp-py" and density != own):
        raise EncodeValueError(
            f"Header density {density!r} is not available in the {dialect} dialect"
        )
    return density


# --- the whole text --------------------------------------------------------------------------


def encode(
    records: Any,
    schema: DcpSchema | None,
    *,
    dialect: str,
    domain: str | None,
    density: int | None,
    text_key: str | None,
) -> str:
    """DCP text of ``records`` (see ``gcxwire.dcp.encode``)."""
    style = _style(dialect)
    level = _density(dialect, style, density)
    if schema is not None and not isinstance(schema, DcpSchema):
        raise EncodeTypeError(f"Schema must be a DcpSchema, not {type(schema).__name__}")
    members, key, items = unwrap(records)
    if schema is None and text_key is None and style.dumps is dumps_valid:
        # (the flat path takes exact dicts only: a record of another kind is judged below)
        domain = domain or key or _DEFAULT_DOMAIN

        def head(schema: DcpSchema) -> str:
            line = _header(schema, schema.id, list(schema.fields), style, level)
            if members is None:
                return line
            check_value(members)
            return _metadata_line(records, key or "", schema.domain, style) + "\n" + line

        flat = _flat_table(items, domain, style, head)
        if flat is not None:
            return flat
    prefix = path_join("$", key) if key is not None else "$"
    _check_records(items, prefix)
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
        check_value(members)

    table = _Table.gather(items, schema)
    lines: list[str] = []
    if members is not None:
        lines.append(_metadata_line(records, key or "", schema.domain, style))
    lines.append(_header(schema, schema.cutdown_id(table.mask), table.names, style, level))
    for r, row in enumerate(table.grid):
        cells = table.cells(row, style, prefix, r)
        lines.append(_natural_row(table.names, cells, style) if level == 4 else style.dumps(cells))
        if text_key is not None:
            lines.append(_text_line(items[r], text_key, f"{prefix}[{r}]"))
    return "\n".join(lines)


# --- columns and rows ------------------------------------------------------------------------


def _check_records(items: list[Any], prefix: str) -> None:
    # Every record is an object (the first that is not is named).
    for i, record in enumerate(items if set(map(type, items)) - {dict} else ()):
        if not isinstance(record, dict):
            kind = "null" if record is None else type(record).__name__
            raise EncodeTypeError(
                f"A DCP record must be a JSON object, not {kind}", f"{prefix}[{i}]"
            )


def _flat_table(
    items: list[Any], domain: str, style: Style, head: Callable[[DcpSchema], str]
) -> str | None:
    """The text of records the ``dcp_rows`` leaf takes (``head`` writes the lines above the
    rows for the inferred schema), or None.

    For records holding no object, inference is the keys in first-seen order, every one a
    field; for records whose objects all have one shape, a field per leaf named by its dot
    path (what ``infer_schema`` gives for either). A row is its record's values: built by
    the leaf over all records at once, then written by one orjson call. None (the general
    path decides, and raises what it raises) when anything is unusual (see ``dcp_rows``).
    """
    if not items or not domain or "#" in domain:
        return None
    found = dcp_rows(items, style.absent)
    if found is None or not found[0]:
        return None
    names, rows = found
    top = head(DcpSchema(id=f"{domain}:v1", fields=names))
    # Text past Latin-1 is written from the str values themselves: orjson's UTF-8 would
    # cost more to decode back to a str than to write (None: orjson's text is faster).
    lines = dcp_text(rows, top)
    if lines is not None:
        return lines
    try:
        # One orjson call for the whole table (a call per row costs ~10x more: each result
        # is a fresh allocation), then a row per line: every "],[" between two rows is
        # replaced when the count shows no cell holds one.
        text = orjson.dumps(rows)
    except orjson.JSONEncodeError:  # a lone surrogate
        return None
    lines = dcp_lines(text, len(rows), top)
    if lines is None:
        lines = "\n".join([top, *(orjson.dumps(row).decode() for row in rows)])
    return lines


@dataclass
class _Table:
    """The schema's fields present in this batch, and each record's values for them."""

    paths: list[Path]  # of the active fields
    names: list[str]
    subs: list[DcpSchema | None]
    mask: int
    grid: list[tuple[Any, ...]]

    @classmethod
    def gather(cls, items: list[dict[str, Any]], schema: DcpSchema) -> _Table:
        """Column by column (a top-level key is one dict lookup per record), then the rows."""
        paths = [schema.paths[name] for name in schema.fields]
        columns = [
            [r.get(p[0], ABSENT) for r in items] if len(p) == 1 else [resolve(r, p) for r in items]
            for p in paths
        ]
        active = [i for i, column in enumerate(columns) if any(v is not ABSENT for v in column)]
        if not items:
            active = list(range(len(paths)))
        grid = list(zip(*(columns[i] for i in active))) if active else [()] * len(items)
        names = [schema.fields[i] for i in active]
        return cls(
            paths=[paths[i] for i in active],
            names=names,
            subs=[schema.nest.get(name) for name in names],
            mask=sum(schema.field_bit(i) for i in active),
            grid=grid,
        )

    def cells(self, row: tuple[Any, ...], style: Style, prefix: str, r: int) -> list[Any]:
        """One record's cells: scalars as they are, absent as the dialect says, checked JSON."""
        absent = style.absent
        cells: list[Any] = []
        for path, sub, value in zip(self.paths, self.subs, row):
            cls = type(value)
            if value is ABSENT or value is None:
                cells.append(absent)
            elif cls is str or cls is bool or (cls is int and not too_many_digits(value)):
                cells.append(value)
            elif cls is float and math.isfinite(value):
                cells.append(value)
            else:
                if not is_plain(value):
                    check_value(value, _cell_path(prefix, r, path))
                if sub is not None and isinstance(value, list):
                    cells.append(_nested_cell(value, sub, style, _cell_path(prefix, r, path)))
                else:
                    cells.append(_cell(value, style))
        return cells


def _cell_path(prefix: str, row: int, path: tuple[str, ...]) -> str:
    where = path_join(prefix, row)
    for segment in path:
        where = path_join(where, segment)
    return where


def _join(values: list[Any]) -> str:
    """dcp-py's array cell: ``str()`` of each item joined by ``,``; ``"-"`` when empty."""
    return ",".join(str(item) for item in values) if values else "-"


def _cell(value: Any, style: Style) -> Any:
    if value is ABSENT or value is None:
        return style.absent
    if style.join_lists and isinstance(value, list):
        return _join(value)
    return value


def _nested_cell(value: list[Any], sub: DcpSchema, style: Style, where: str) -> Any:
    """An array in a field with a sub-schema: sub-rows when it holds objects only."""
    if all(isinstance(item, dict) for item in value):
        return _sub_block(value, sub, style)
    if value and isinstance(value[0], str) and value[0] in MARKERS:
        raise EncodeValueError(
            f"An array starting with {value[0]!r} would read back as sub-rows", where
        )
    return _cell(value, style)


def _sub_block(items: list[dict[str, Any]], sub: DcpSchema, style: Style) -> list[Any]:
    """``[marker, sub_id, subrow...]``; the sub-id names the sub-fields these rows carry."""
    grid = [[resolve(item, sub.paths[name]) for name in sub.fields] for item in items]
    active = [i for i in range(len(sub.fields)) if any(row[i] is not ABSENT for row in grid)]
    mask = sum(sub.field_bit(i) for i in active)
    block: list[Any] = [style.marker, sub.id if not items else sub.cutdown_id(mask)]
    inner = [sub.nest.get(sub.fields[i]) for i in active]  # sub-schemas nest again ($R in $R)
    for row in grid:
        block.append(
            [
                _sub_block(row[i], deeper, style)
                if deeper is not None and _all_objects(row[i])
                else _cell(row[i], style)
                for i, deeper in zip(active, inner)
            ]
        )
    return block


def _all_objects(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, dict) for item in value)


# --- header, natural rows, text and metadata lines -------------------------------------------


def _header(schema: DcpSchema, sid: str, names: list[str], style: Style, density: int) -> str:
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


def _natural_row(names: list[str], cells: list[Any], style: Style) -> str:
    parts = []
    for name, cell in zip(names, cells):
        if cell is None or cell == style.absent:
            continue
        parts.append(f"{name}: {cell if isinstance(cell, str) else style.dumps(cell)}")
    return ", ".join(parts)


def _text_line(record: dict[str, Any], text_key: str, where: str) -> str:
    value = resolve(record, split_path(text_key))
    where = f"{where}.{text_key}"  # the dot path as given
    if not isinstance(value, str):
        raise EncodeTypeError("A text line needs a string at text_key", where)
    if "\n" in value or "\r" in value:
        raise EncodeValueError("A text line cannot hold a line break", where)
    return value


def _metadata_line(wrapper: dict[str, Any], key: str, domain: str, style: Style) -> str:
    """The wrapper's other members as one JSON object line.

    The array member is left out when it is the last member and its key is the header's domain
    (the dcp-gateway README form); otherwise it stays in place as ``"$S"`` so that decode puts
    the rows back under the right key, in the right position.
    """
    for name, value in wrapper.items():
        if name != key and isinstance(value, str) and value == PLACEHOLDER:
            raise EncodeValueError(
                f"Wrapper member {name!r} holds {PLACEHOLDER!r}, DCP's table placeholder",
                path_join("$", name),
            )
    if wrapper.get("$dcp") == "schema":
        raise EncodeValueError('A wrapper with "$dcp": "schema" reads as a schema header')
    if key == domain and next(reversed(wrapper)) == key:
        body = {name: value for name, value in wrapper.items() if name != key}
    else:
        body = {name: (PLACEHOLDER if name == key else value) for name, value in wrapper.items()}
    return style.dumps(body)
