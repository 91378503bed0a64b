"""Layout files and the registry: JSON documents read with the line and column of every error.

A layout document is one tool at one version (``<tool>.v<N>.layout.json`` in a folder); a
registry document holds many (``*.layouts.json``). docs/layouts.md is normative for both.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ._dcp_schema import SchemaRegistry
from ._layout_model import FORMAT_VERSION, Layout, Segments, _error, _relocated
from .errors import LayoutError

__all__ = ["LAYOUT_SUFFIX", "REGISTRY_SUFFIX", "Registry", "load", "save"]

#: A folder's layout documents end so (one layout each) ...
LAYOUT_SUFFIX = ".layout.json"
#: ... and its registry documents so (many layouts each).
REGISTRY_SUFFIX = ".layouts.json"

_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")


# --- reading a document with positions -------------------------------------------------------


def _line_column(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def _skip(text: str, pos: int) -> int:
    match = _SPACE.match(text, pos)
    return pos if match is None else match.end()


def _locate(text: str, at: Segments) -> int:
    """The offset of the value at ``at`` (keys and indexes) in JSON ``text``; for a member
    that is not there, the offset of the object or array that lacks it."""
    pos = _skip(text, 0)
    try:
        for segment in at:
            start = pos
            if isinstance(segment, int) and text[pos] == "[":
                pos = _skip(text, pos + 1)
                for _ in range(segment):
                    if text[pos] == "]":
                        return start
                    _, pos = _DECODER.raw_decode(text, pos)
                    pos = _skip(text, pos)
                    if text[pos] == ",":
                        pos = _skip(text, pos + 1)
                if text[pos] == "]":
                    return start
            elif isinstance(segment, str) and text[pos] == "{":
                pos = _skip(text, pos + 1)
                found = None
                while text[pos] == '"':
                    key, pos = json.decoder.scanstring(text, pos + 1)  # type: ignore[attr-defined]
                    pos = _skip(text, _skip(text, pos) + 1)  # past the ":"
                    if key == segment:
                        found = pos  # the last one wins, as json.loads reads it
                    _, pos = _DECODER.raw_decode(text, pos)
                    pos = _skip(text, pos)
                    if text[pos] == ",":
                        pos = _skip(text, pos + 1)
                if found is None:
                    return start
                pos = found
            else:
                return start
    except (IndexError, ValueError):
        return 0
    return pos


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _read(path: str) -> tuple[str, Any]:
    """The text of a JSON file and its value; ``LayoutError`` with line and column if bad."""
    with open(path, "rb") as src:
        raw = src.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _line_column(raw[: exc.start].decode("utf-8", "replace"), exc.start)
        raise LayoutError(f"Not UTF-8: {exc.reason}", "$", path, line, column) from None
    duplicates: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out = dict(items)
        if len(out) != len(items) and not duplicates:
            keys = [key for key, _ in items]
            duplicates.append(next(k for k in keys if keys.count(k) > 1))
        return out

    try:
        data = json.loads(
            text.removeprefix("\ufeff"), object_pairs_hook=pairs, parse_constant=_reject_constant
        )
    except json.JSONDecodeError as exc:
        raise LayoutError(f"Invalid JSON: {exc.msg}", "$", path, exc.lineno, exc.colno) from None
    except (ValueError, RecursionError) as exc:
        raise LayoutError(f"Invalid JSON: {exc}", "$", path, 1, 1) from None
    if duplicates:
        key = duplicates[0]
        hits = [m.start() for m in re.finditer(re.escape(json.dumps(key)) + r"\s*:", text)]
        line, column = _line_column(text, hits[1] if len(hits) > 1 else 0)
        raise LayoutError(f"Member {key!r} is given twice", "$", path, line, column)
    return text, data


def _placed(exc: LayoutError, path: str, text: str) -> LayoutError:
    line, column = _line_column(text, _locate(text, exc.segments))
    return LayoutError(exc.reason, exc.where, path, line, column, exc.segments)


def _parse(path: str) -> list[Layout]:
    """The layouts of one file: a layout document, or a registry document."""
    text, data = _read(path)
    try:
        if isinstance(data, Mapping) and "$layouts" in data:
            return Registry.from_dict(data).layouts()
        return [Layout.from_dict(data)]
    except LayoutError as exc:
        raise _placed(exc, path, text) from None


def load(path: str | os.PathLike[str], /) -> Layout:
    """The layout of one layout document (``LayoutError`` with file, line and column)."""
    name = os.fspath(path)
    text, data = _read(name)
    try:
        return Layout.from_dict(data)
    except LayoutError as exc:
        raise _placed(exc, name, text) from None


def _write(path: str, body: Any) -> None:
    with open(path, "w", encoding="utf-8") as out:
        out.write(json.dumps(body, indent=2, ensure_ascii=False) + "\n")


def save(layout: Layout, path: str | os.PathLike[str], /) -> None:
    """Write ``layout`` as a layout document (UTF-8 JSON, two-space indent)."""
    _write(os.fspath(path), layout.to_dict())


# --- the registry ----------------------------------------------------------------------------


class Registry:
    """Declared layouts by id (``tool:vN``), in the order added.

    ``entries()`` is the registry as rows of ``dcp.REGISTRY_SCHEMA``, so
    ``dcp.encode(registry.entries(), dcp.REGISTRY_SCHEMA)`` is the whole registry in DCP.
    """

    def __init__(self, layouts: Iterable[Layout] = (), /) -> None:
        self._layouts: dict[str, Layout] = {}
        for layout in layouts:
            self.add(layout)

    def add(self, layout: Layout, /) -> None:
        """Add ``layout``, replacing one of the same tool and version."""
        if not isinstance(layout, Layout):
            raise TypeError(f"A registry holds Layouts, not {type(layout).__name__}")
        self._layouts[layout.id] = layout

    def get(self, tool: str, version: int | None = None) -> Layout | None:
        """The layout of ``tool`` at ``version``; without one, its current layout: the highest
        version that is not deprecated (else the highest)."""
        if version is not None:
            return self._layouts.get(f"{tool}:v{version}")
        found = [layout for layout in self._layouts.values() if layout.tool == tool]
        if not found:
            return None
        live = [layout for layout in found if layout.status != "deprecated"]
        return max(live or found, key=lambda layout: layout.version)

    def find(self, layout_id: str, /) -> Layout | None:
        """The layout of id ``tool:vN`` (a DCP cutdown id, ``tool:vN#1b``, finds its base)."""
        return self._layouts.get(layout_id.split("#", 1)[0])

    def layouts(self) -> list[Layout]:
        return list(self._layouts.values())

    def ids(self) -> list[str]:
        return list(self._layouts)

    def tools(self) -> list[str]:
        return list(dict.fromkeys(layout.tool for layout in self._layouts.values()))

    def __iter__(self) -> Iterator[Layout]:
        return iter(self.layouts())

    def __len__(self) -> int:
        return len(self._layouts)

    def __contains__(self, layout_id: object) -> bool:
        return layout_id in self._layouts

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Registry):
            return NotImplemented
        return list(self._layouts.items()) == list(other._layouts.items())

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"Registry({self.ids()!r})"

    # --- the schema-of-schemas ---

    def entries(self) -> list[dict[str, Any]]:
        """Every layout as a row of ``dcp.REGISTRY_SCHEMA`` (``Layout.entry``)."""
        return [layout.entry() for layout in self._layouts.values()]

    @classmethod
    def from_entries(cls, entries: Iterable[Mapping[str, Any]], /) -> Registry:
        """The registry ``entries`` describe (as ``dcp.decode`` gives them back)."""
        registry = cls()
        for i, entry in enumerate(entries):
            try:
                registry.add(Layout.from_entry(entry))
            except LayoutError as exc:
                raise _relocated(exc, (i,)) from None
        return registry

    def to_dcp(self) -> SchemaRegistry:
        """The layouts as DCP schemas, with their status (for ``dcp.decode(schema=...)``)."""
        out = SchemaRegistry()
        for layout in self._layouts.values():
            out.add(layout.to_dcp(), status=layout.status)
        return out

    # --- files ---

    def to_dict(self) -> dict[str, Any]:
        """The registry document: ``{"$layouts": 1, "layouts": [layout document, ...]}``."""
        return {"$layouts": FORMAT_VERSION, "layouts": [x.to_dict() for x in self]}

    @classmethod
    def from_dict(cls, data: Any, /) -> Registry:
        """A registry from its document; ``LayoutError`` names the bad member."""
        if not isinstance(data, Mapping):
            raise _error("A registry document is a JSON object", ())
        for key in data:
            if key not in ("$layouts", "layouts"):
                raise _error(f"Unknown member {key!r} (a registry has $layouts, layouts)", (key,))
        if data.get("$layouts") != FORMAT_VERSION:
            raise _error(f"Unsupported registry format {data.get('$layouts')!r}", ("$layouts",))
        items = data.get("layouts")
        if not isinstance(items, list):
            raise _error("`layouts` is a list of layout documents", ("layouts",))
        registry = cls()
        for i, item in enumerate(items):
            try:
                layout = Layout.from_dict(item, inner=True)
            except LayoutError as exc:
                raise _relocated(exc, ("layouts", i)) from None
            if layout.id in registry:
                raise _error(f"Layout {layout.id!r} is given twice", ("layouts", i))
            registry.add(layout)
        return registry

    @classmethod
    def load(cls, path: str | os.PathLike[str], /) -> Registry:
        """A registry from a file (a layout or registry document) or a folder (its
        ``*.layout.json`` and ``*.layouts.json`` files, by name; other files are not read).
        A layout given twice, or a bad file, is a ``LayoutError`` naming the file."""
        name = os.fspath(path)
        if not os.path.isdir(name):
            return cls(_parse(name))
        registry = cls()
        origin: dict[str, str] = {}
        for entry in sorted(os.listdir(name)):
            if not entry.endswith((LAYOUT_SUFFIX, REGISTRY_SUFFIX)):
                continue
            file = os.path.join(name, entry)
            for layout in _parse(file):
                if layout.id in origin:
                    raise LayoutError(
                        f"Layout {layout.id!r} is also in {origin[layout.id]}", "$", file, 1, 1
                    )
                origin[layout.id] = file
                registry.add(layout)
        return registry

    def save(self, path: str | os.PathLike[str], /) -> None:
        """Write the whole registry as one registry document."""
        _write(os.fspath(path), self.to_dict())

    def save_folder(self, folder: str | os.PathLike[str], /) -> list[str]:
        """Write one ``<tool>.v<N>.layout.json`` per layout into ``folder``; the files written."""
        name = os.fspath(folder)
        os.makedirs(name, exist_ok=True)
        written = []
        for layout in self:
            stem = f"{layout.tool}.v{layout.version}"
            if "/" in stem or "\\" in stem or stem.startswith(".") or "\0" in stem:
                raise LayoutError(f"Tool {layout.tool!r} cannot name a file", "$.tool")
            file = os.path.join(name, stem + LAYOUT_SUFFIX)
            save(layout, file)
            written.append(file)
        return written
