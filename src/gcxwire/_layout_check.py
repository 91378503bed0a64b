"""Drift: how a value does not fit a declared layout, found before anything is written.

:func:`check` walks the records once against the layout's tree of fields. A :class:`Drift`
names the layout (tool and version), the kind, the JSONPath of the first place found and
the JSON types involved, never a value, so a proxy can count and log it as it is.
:func:`screen` is what an encoder asks: go on with the layout, or fall back (``on_drift``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ._dcp_schema import unwrap
from ._layout_model import UNSET, Field, Layout, _same_scalar, json_type, per_layout
from ._values import path_join
from .errors import DriftError, EncodeError

__all__ = ["Drift", "DriftKind", "OnDrift", "check", "screen"]

log = logging.getLogger("gcxwire.layouts")

DriftKind = Literal[
    "not_tabular",  # the value is not a list of records nor a wrapper of one
    "new_field",  # a key the layout does not declare
    "missing_field",  # a required field (or an object holding fields) is absent
    "type_change",  # a value of a JSON type the field does not take
    "not_constant",  # a value other than the field's declared constant
    "no_prefix",  # a string that does not start with the field's declared prefix
]


@dataclass(frozen=True)
class Drift:
    """One way a value does not fit a layout.

    ``path`` is the JSONPath of the first place found (``$.items[3].owner.id``); ``field``
    is the layout's dot path there (for a new key, the key's dot path; ``""`` when the value
    is not tabular); ``expected`` and ``found`` are JSON type names (``"absent"`` for a
    missing key, ``"undeclared"`` for a new one).
    """

    tool: str
    version: int
    kind: DriftKind
    path: str
    field: str
    expected: str
    found: str

    @property
    def layout_id(self) -> str:
        return f"{self.tool}:v{self.version}"

    @property
    def message(self) -> str:
        at = f"layout {self.layout_id}"
        if self.kind == "not_tabular":
            return f"A {self.found} is not a list of records nor a wrapper of one, as {at} needs"
        if self.kind == "new_field":
            return f"Field {self.field!r} is not in {at}"
        if self.kind == "missing_field":
            return f"Field {self.field!r} of {at} is absent"
        if self.kind == "type_change":
            return f"Field {self.field!r} is {self.found}, {at} says {self.expected}"
        if self.kind == "not_constant":
            return f"Field {self.field!r} differs from the constant {at} declares"
        return f"Field {self.field!r} does not start with the prefix {at} declares"

    def __str__(self) -> str:
        return f"{self.message} - at `{self.path}`"


#: What an encoder does when a value does not fit: raise ``DriftError``, fall back to the
#: inferred encoding (logging a warning), or call the function with the ``Drift`` and fall back.
OnDrift = Literal["raise", "fallback"] | Callable[[Drift], object]


@dataclass
class _Node:
    """One object level of a layout: fields by key, objects holding fields by key."""

    leaves: dict[str, tuple[Field, _Node | None]] = field(default_factory=dict)
    children: dict[str, _Node] = field(default_factory=dict)
    order: dict[str, None] = field(default_factory=dict)  # leaf and child keys, in layout order
    marked: list[tuple[str, Field]] = field(default_factory=list)  # with a constant or prefix
    nested: list[tuple[str, Field, _Node]] = field(default_factory=list)  # with items


def _tree(fields: tuple[Field, ...]) -> _Node:
    root = _Node()
    for item in fields:
        node = root
        *parents, last = item.segments
        for key in parents:
            node.order[key] = None
            node = node.children.setdefault(key, _Node())
        node.order[last] = None
        items = None if item.items is None else _tree(item.items)
        node.leaves[last] = (item, items)
        if item.constant is not UNSET or item.prefix is not None:
            node.marked.append((last, item))
        if items is not None:
            node.nested.append((last, item, items))
    return root


@per_layout
def tree_of(layout: Layout) -> _Node:
    return _tree(layout.fields)


class _Enough(Exception):
    """Raised inside the walk once the drifts wanted are found."""


@dataclass
class _Found:
    layout: Layout
    limit: int | None
    drifts: list[Drift] = field(default_factory=list)
    seen: set[tuple[str, str]] = field(default_factory=set)
    # (node, keys, value types) already walked: keys and types need no second look
    shapes: set[tuple[int, tuple[Any, ...], tuple[type, ...]]] = field(default_factory=set)

    def add(self, kind: DriftKind, path: str, name: str, expected: str, found: str) -> None:
        if (kind, name) in self.seen:
            return
        self.seen.add((kind, name))
        layout = self.layout
        self.drifts.append(Drift(layout.tool, layout.version, kind, path, name, expected, found))
        if self.limit is not None and len(self.drifts) >= self.limit:
            raise _Enough


def check(layout: Layout, value: Any, *, limit: int | None = None) -> list[Drift]:
    """The drifts of ``value`` from ``layout``: one per (kind, field), the first place each
    was found, at most ``limit`` of them (the walk stops there)."""
    found = _Found(layout, limit)
    try:
        _check(layout, value, found)
    except _Enough:
        pass
    return found.drifts


def _check(layout: Layout, value: Any, found: _Found) -> None:
    try:
        _, key, records = unwrap(value)
    except EncodeError:
        kind = json_type(value) or type(value).__name__
        found.add("not_tabular", "$", "", "array", kind)
        return
    prefix = path_join("$", key) if key is not None else "$"
    tree = tree_of(layout)
    for i, record in enumerate(records):
        where = f"{prefix}[{i}]"
        if type(record) is dict:
            _walk(tree, record, where, "", found)
        else:
            found.add("not_tabular", where, "", "object", json_type(record) or "unknown")


def _walk(node: _Node, obj: dict[str, Any], where: str, dotted: str, found: _Found) -> None:
    shape = (id(node), tuple(obj), tuple(map(type, obj.values())))
    if shape in found.shapes:  # the same keys and types as a record walked before
        _values(node, obj, where, dotted, found)
        return
    found.shapes.add(shape)
    leaves, children = node.leaves, node.children
    for key, value in obj.items():
        if type(key) is not str:
            continue  # the encoder refuses it, naming the path
        leaf = leaves.get(key)
        if leaf is not None:
            _type(leaf[0], value, where, key, found)
            continue
        child = children.get(key)
        if child is None:
            kind = json_type(value)
            if kind is not None:  # else the encoder refuses it, naming the path
                found.add("new_field", path_join(where, key), dotted + key, "undeclared", kind)
        elif type(value) is not dict:
            kind = json_type(value)
            if kind is not None:
                found.add("type_change", path_join(where, key), dotted + key, "object", kind)
    for key, (item, _) in leaves.items():
        if item.required and key not in obj:
            found.add("missing_field", path_join(where, key), item.path, _types(item), "absent")
    for key in children:
        if key not in obj:
            found.add("missing_field", path_join(where, key), dotted + key, "object", "absent")
    _values(node, obj, where, dotted, found)


def _types(item: Field) -> str:
    return " or ".join(item.types)


def _type(item: Field, value: Any, where: str, key: str, found: _Found) -> None:
    kind = json_type(value)
    if kind is None:
        return  # not JSON: the encoder refuses it, naming the path
    if kind not in item.types and not (kind == "integer" and "number" in item.types):
        found.add("type_change", path_join(where, key), item.path, _types(item), kind)


def _values(node: _Node, obj: dict[str, Any], where: str, dotted: str, found: _Found) -> None:
    """What a record's keys and types do not tell: markers, objects and array items."""
    for key, item in node.marked:
        if key not in obj:
            continue
        value = obj[key]
        if item.constant is not UNSET:
            if not _same_scalar(value, item.constant) and item.accepts(value):
                kind = json_type(value) or "unknown"
                found.add("not_constant", path_join(where, key), item.path, _types(item), kind)
        elif type(value) is str and not value.startswith(item.prefix or ""):
            found.add("no_prefix", path_join(where, key), item.path, "string", "string")
    for key, child in node.children.items():
        value = obj.get(key)
        if type(value) is dict:
            _walk(child, value, path_join(where, key), dotted + key + ".", found)
    for key, item, items in node.nested:
        value = obj.get(key)
        if type(value) is not list:
            continue
        here = path_join(where, key)
        for j, element in enumerate(value):
            if type(element) is dict:
                _walk(items, element, path_join(here, j), "", found)
            else:
                what = json_type(element) or "unknown"
                found.add("type_change", path_join(here, j), item.path + "[]", "object", what)


def screen(layout: Layout, value: Any, on_drift: OnDrift) -> bool:
    """True: encode ``value`` with ``layout``. False: fall back to the inferred encoding, the
    drift reported as ``on_drift`` says. Raises ``DriftError`` under ``on_drift="raise"``."""
    if not (on_drift in ("raise", "fallback") or callable(on_drift)):
        raise ValueError(f"on_drift is 'raise', 'fallback' or a function, not {on_drift!r}")
    drifts = check(layout, value, limit=1)
    if not drifts:
        return True
    drift = drifts[0]
    if on_drift == "raise":
        raise DriftError(drift)
    if on_drift == "fallback":
        log.warning("%s; the inferred encoding is sent", drift, extra={"drift": drift})
    else:
        on_drift(drift)
    return False
