"""User presets: field filters per tool and pre-built schemas, read from ``--presets DIR``.

``<server>.filter.json`` holds per-tool filters (dot-notation source paths)::

    {"search_repositories": {"ignore": ["node_id", "owner.gravatar_id"]},
     "list_issues": {"only": ["id", "title", "user.login"], "maxFields": 20}}

``only`` wins over ``ignore`` when a tool has both; ``maxFields`` (or
``--max-fields``) caps the fields left per row, in row order. Fields are never
dropped automatically: that is the schema lifecycle's job, and only once a field
was null in every one of N rows (see :mod:`.lifecycle`).

``<tool>.v<N>.layout.json`` and ``*.layouts.json`` are declared layouts
(docs/layouts.md): the tool's records, frozen per version. A result that does not
fit its tool's layout is a drift, counted and logged (see the interceptor).

Every other ``*.json`` file is a pre-built schema (``{"$dcp": "schema", "id":
"tool:vN", ...}``, or a list of them), used from the first call of its tool.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from ..errors import PresetError
from .codecs import optional_codec

__all__ = ["FieldFilter", "PresetError", "load_filters", "load_layouts", "load_schema_defs"]

# Declared layouts (gcxwire.layouts): one document per file, or a registry of them.
LAYOUT_FILES = (".layout.json", ".layouts.json")

log = logging.getLogger(__name__)

Row = dict[str, Any]


def _leaves(row: Row, prefix: str = "") -> Iterator[tuple[str, Any]]:
    for key, value in row.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            yield from _leaves(value, path + ".")
        else:
            yield path, value


def _matches(path: str, selected: frozenset[str]) -> bool:
    """``user.login`` is selected by ``user.login`` or by its ancestor ``user``."""
    parts = path.split(".")
    return any(".".join(parts[:end]) in selected for end in range(1, len(parts) + 1))


def _rebuild(leaves: list[tuple[str, Any]]) -> Row:
    row: Row = {}
    for path, value in leaves:
        *parents, last = path.split(".")
        node = row
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = value
    return row


@dataclass(frozen=True)
class FieldFilter:
    ignore: frozenset[str] = frozenset()
    only: frozenset[str] = frozenset()
    max_fields: int | None = None

    def __bool__(self) -> bool:
        return bool(self.ignore or self.only or self.max_fields)

    def apply(self, row: Row) -> Row:
        """``row`` with only the fields this filter keeps, nesting and order kept."""
        leaves = list(_leaves(row))
        if self.only:
            leaves = [(p, v) for p, v in leaves if _matches(p, self.only)]
        elif self.ignore:
            leaves = [(p, v) for p, v in leaves if not _matches(p, self.ignore)]
        if self.max_fields is not None:
            leaves = leaves[: self.max_fields]
        return _rebuild(leaves)


def _read_json(path: str) -> Any:
    try:
        with open(path, "rb") as file:
            return orjson.loads(file.read())
    except OSError as exc:
        raise PresetError(f"{path}: cannot read: {exc.strerror}") from None
    except orjson.JSONDecodeError as exc:
        raise PresetError(f"{path}: not JSON: {exc}") from None


def _paths(path: str, tool: str, key: str, value: Any) -> frozenset[str]:
    if value is None:
        return frozenset()
    if not isinstance(value, list) or not all(isinstance(p, str) and p for p in value):
        raise PresetError(f"{path}: {tool}.{key} must be a list of dot-notation paths")
    return frozenset(value)


def load_filters(directory: str, server: str, max_fields: int | None) -> dict[str, FieldFilter]:
    """Filters per tool from ``<directory>/<server>.filter.json`` (none if absent).

    ``max_fields`` (``--max-fields``) applies to every tool without its own ``maxFields``;
    it is returned under the key ``"*"``.
    """
    filters: dict[str, FieldFilter] = {}
    if max_fields is not None:
        filters["*"] = FieldFilter(max_fields=max_fields)
    path = os.path.join(directory, f"{server}.filter.json")
    if not os.path.exists(path):
        return filters
    data = _read_json(path)
    if not isinstance(data, dict):
        raise PresetError(f"{path}: expected an object of tool name -> filter")
    for tool, spec in data.items():
        if not isinstance(spec, dict):
            raise PresetError(f"{path}: {tool} must be an object with ignore/only/maxFields")
        unknown = set(spec) - {"ignore", "only", "maxFields"}
        if unknown:
            raise PresetError(f"{path}: {tool} has unknown key(s) {', '.join(sorted(unknown))}")
        cap = spec.get("maxFields", max_fields)
        if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 1):
            raise PresetError(f"{path}: {tool}.maxFields must be a whole number >= 1")
        filters[tool] = FieldFilter(
            ignore=_paths(path, tool, "ignore", spec.get("ignore")),
            only=_paths(path, tool, "only", spec.get("only")),
            max_fields=cap,
        )
    return filters


def load_schema_defs(directory: str) -> dict[str, dict[str, Any]]:
    """Pre-built schema definitions by tool name, from every non-filter ``*.json``."""
    defs: dict[str, dict[str, Any]] = {}
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".json") or name.endswith((".filter.json", *LAYOUT_FILES)):
            continue
        path = os.path.join(directory, name)
        data = _read_json(path)
        for index, item in enumerate(data if isinstance(data, list) else [data]):
            where = f"{path}[{index}]" if isinstance(data, list) else path
            if not isinstance(item, dict) or item.get("$dcp") != "schema":
                raise PresetError(f'{where}: not a schema definition ({{"$dcp": "schema", ...}})')
            schema_id = item.get("id")
            if not isinstance(schema_id, str) or ":v" not in schema_id:
                raise PresetError(f'{where}: "id" must look like "tool:v1"')
            tool = schema_id.rsplit(":v", 1)[0]
            if tool in defs:
                log.warning("%s: a second schema for %s replaces the first", where, tool)
            defs[tool] = item
    return defs


def load_layouts(directory: str) -> dict[str, Any]:
    """Declared layouts (``gcxwire.layouts.Layout``) by tool, each tool's current
    version, from the folder's layout files; none where this build has no layouts."""
    layouts = optional_codec("layouts")
    if layouts is None:
        return {}
    try:
        registry = layouts.Registry.load(directory)
    except layouts.LayoutError as exc:
        raise PresetError(str(exc)) from None
    found = {tool: registry.get(tool) for tool in registry.tools()}
    return {tool: layout for tool, layout in found.items() if layout is not None}
