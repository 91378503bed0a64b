"""The layout today's records fit: ``Layout.infer``, so a tool's current output can be frozen.

Records are found as DCP finds them (a list, or a wrapper's one array of objects). An object
member is opened (its members become ``owner.login`` fields) when every record holds an
object there whose keys a dot path can name, up to three keys deep, as GCX1 spreads them;
anything else is one field. An array holding only objects gets ``items`` inferred the same
way. Types are the JSON types seen; a field is required when every record has it. No marker
is declared: a constant or prefix is a promise about tomorrow's records, so it is written by
hand.
"""

from __future__ import annotations

from typing import Any

from ._dcp_schema import check_record, unwrap
from ._layout_model import JSON_TYPES, Field, JsonType, json_type
from ._values import ABSENT, path_join
from .errors import EncodeTypeError, LayoutError

__all__ = ["infer_fields"]

_OPEN_DEPTH = 3  # keys in a path at most, as GCX1's flat= spreads objects


def infer_fields(value: Any) -> tuple[Field, ...]:
    _, key, items = unwrap(value)
    prefix = path_join("$", key) if key is not None else "$"
    records = [check_record(record, f"{prefix}[{i}]") for i, record in enumerate(items)]
    fields = _level(records, (), prefix)
    if not fields:
        raise LayoutError("No record holds a field to infer a layout from", prefix)
    return tuple(fields)


def _level(records: list[dict[str, Any]], at: tuple[str, ...], where: str) -> list[Field]:
    """The fields of one object level: every record has an object here."""
    order: dict[str, None] = {}
    for record in records:
        for key in record:
            if not isinstance(key, str):
                kind = type(key).__name__
                raise EncodeTypeError(f"Object keys must be strings, not {kind}", where)
            if not key or "." in key:
                raise LayoutError(f"A dot path cannot name the key {key!r}", where)
            order[key] = None
    fields: list[Field] = []
    for key in order:
        column = [record.get(key, ABSENT) for record in records]
        path = (*at, key)
        if _opens(column, path):
            fields.extend(_level(column, path, where))
        else:
            fields.append(_leaf(".".join(path), column, where))
    return fields


def _opens(column: list[Any], path: tuple[str, ...]) -> bool:
    return (
        len(path) < _OPEN_DEPTH + 1
        and all(type(v) is dict for v in column)
        and any(column)
        and all(type(k) is str and k and "." not in k for v in column for k in v)
    )


def _leaf(path: str, column: list[Any], where: str) -> Field:
    present = [v for v in column if v is not ABSENT]
    kinds: set[JsonType] = set()
    for value in present:
        kind = json_type(value)
        if kind is None:
            raise EncodeTypeError(f"{type(value).__name__} is not a JSON value", where)
        kinds.add(kind)
    if {"integer", "number"} <= kinds:
        kinds.discard("integer")  # "number" takes integers too
    names = tuple(t for t in JSON_TYPES if t in kinds)
    items = None
    arrays = [v for v in present if type(v) is list]
    if kinds - {"null"} == {"array"} and any(arrays):
        elements = [item for array in arrays for item in array]
        if all(type(item) is dict for item in elements) and any(elements):
            items = tuple(_level(elements, (), where))
    required = len(present) == len(column)
    return Field(path, names if len(names) > 1 else names[0], required=required, items=items)
