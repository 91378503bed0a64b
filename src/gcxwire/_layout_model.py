"""Declared layouts: the fields a tool's records carry, frozen per version, for GCX1 and DCP.

A :class:`Layout` names a tool, a version, a lifecycle status and the ordered :class:`Field`
list of its records: dot paths, JSON types, required-ness, and the GCX1 markers a field may
declare (a constant, a string prefix). The same value is a DCP schema (``to_dcp``/``from_dcp``)
and a row of the schema-of-schemas (``entry``/``from_entry``); its file form is ``to_dict``/
``from_dict`` (docs/layouts.md is normative for it).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, Literal, TypeVar, get_args

from ._dcp_schema import STATUSES, DcpSchema, Status
from ._values import path_join
from .errors import EncodeError, LayoutError

if TYPE_CHECKING:
    from ._layout_check import Drift

__all__ = [
    "FORMAT_VERSION",
    "JSON_TYPES",
    "UNSET",
    "Field",
    "JsonType",
    "Layout",
    "Scalar",
    "Template",
    "json_type",
]

JsonType = Literal["string", "integer", "number", "boolean", "array", "object", "null"]
JSON_TYPES: tuple[JsonType, ...] = get_args(JsonType)
# dcp-wrap's type names that differ from JSON's (dcp-wrap HEAD splits "int" from "number")
_DCP_TYPE_NAMES: dict[str, JsonType] = {"int": "integer"}

#: The file format version a layout document declares (``"$layout": 1``).
FORMAT_VERSION = 1

Scalar = str | int | float | bool | None
Segments = tuple[str | int, ...]
_Built = TypeVar("_Built")  # what per_layout keeps for each layout


class _Unset(Enum):
    UNSET = "unset"

    def __repr__(self) -> str:
        return "UNSET"


#: ``Field.constant`` when the field declares no constant (``None`` is the constant null).
UNSET: Literal[_Unset.UNSET] = _Unset.UNSET


def json_type(value: Any) -> JsonType | None:
    """The JSON type of a Python value (``None`` for what JSON cannot carry)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return None


def _error(reason: str, at: Segments) -> LayoutError:
    where = "$"
    for segment in at:
        where = path_join(where, segment)
    return LayoutError(reason, where, segments=at)


def _relocated(exc: LayoutError, prefix: Segments) -> LayoutError:
    return _error(exc.reason, prefix + exc.segments)


def _types(value: Any) -> JsonType | tuple[JsonType, ...]:
    """A field's ``type`` normalized: one name, or several in :data:`JSON_TYPES` order."""
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, (list, tuple)) or not names:
        raise _error("A field's type is a JSON type name or a non-empty list of them", ("type",))
    for name in names:
        if name not in JSON_TYPES:
            raise _error(f"Unknown JSON type {name!r} (use {', '.join(JSON_TYPES)})", ("type",))
    if len(set(names)) != len(names):
        raise _error("A field lists a type twice", ("type",))
    ordered = tuple(t for t in JSON_TYPES if t in names)
    return ordered[0] if len(ordered) == 1 else ordered


def _same_scalar(value: Any, constant: Scalar) -> bool:
    """Equal as JSON values: ``1``, ``1.0`` and ``true`` differ, and so do ``0.0`` and ``-0.0``."""
    if json_type(value) != json_type(constant):
        return False
    if isinstance(value, float) and isinstance(constant, float):
        return value == constant and math.copysign(1, value) == math.copysign(1, constant)
    return bool(value == constant)


@dataclass(frozen=True)
class Template:
    """A field whose strings are mostly another field's text inside a fixed one: ``before`` +
    the ``source`` field's value in the same record (a string, or an integer's digits) +
    ``after``. GCX1 writes it once (``template=``) and leaves such cells blank; a record that
    does not follow it keeps its own value, so it is no promise and never drift."""

    source: str
    before: str = ""
    after: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.source, str) or not all(self.source.split(".")):
            raise _error("A template's source is the path of another field", ("source",))
        for name in ("before", "after"):
            if not isinstance(getattr(self, name), str):
                raise _error(f"A template's `{name}` is a string", (name,))

    def to_dict(self) -> dict[str, str]:
        out = {"source": self.source}
        if self.before:
            out["before"] = self.before
        if self.after:
            out["after"] = self.after
        return out

    @classmethod
    def from_dict(cls, data: Any) -> Template:
        members = _members(data, ("source", "before", "after"), ("source",), "A template")
        return cls(members["source"], members.get("before", ""), members.get("after", ""))


@dataclass(frozen=True)
class Field:
    """One field of a layout: where it lives in a record and what it may hold.

    ``path`` is a dot path (``owner.login``: member ``login`` of object ``owner``); a field
    below an object means the object is there in every record. ``type`` is a JSON type name
    or a tuple of them (``("string", "null")`` for a nullable string; ``"number"`` also takes
    integers). ``required=False`` lets the key be absent. ``constant`` (a scalar) says every
    record holds exactly that value, which GCX1 writes once in its header; ``prefix`` says every
    string starts with that text, which GCX1 writes once too. ``items`` are the fields of each
    object in an array field (DCP writes them as sub-rows). ``template`` (a :class:`Template`)
    derives the field's strings from another field's, which GCX1 writes once.
    """

    path: str
    type: JsonType | tuple[JsonType, ...]
    required: bool = True
    constant: Scalar | _Unset = UNSET
    prefix: str | None = None
    items: tuple[Field, ...] | None = None
    description: str = ""
    template: Template | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.path, str) or not all(self.path.split(".")):
            raise _error(
                f"A field path is dot-separated non-empty keys, not {self.path!r}", ("path",)
            )
        object.__setattr__(self, "type", _types(self.type))
        types = self.types
        if not isinstance(self.required, bool):
            raise _error("`required` is true or false", ("required",))
        if not isinstance(self.description, str):
            raise _error("`description` is a string", ("description",))
        if self.constant is not UNSET:
            kind = json_type(self.constant)
            if kind not in ("string", "integer", "number", "boolean", "null"):
                raise _error("A constant is a string, number, boolean or null", ("constant",))
            if isinstance(self.constant, float) and not math.isfinite(self.constant):
                raise _error("A constant number is finite", ("constant",))
            if not _accepts(types, kind):
                raise _error(f"The constant is {kind}, the field's type is not", ("constant",))
            if not self.required:
                raise _error("A constant field is required (it is in every record)", ("required",))
        if self.prefix is not None:
            if not isinstance(self.prefix, str) or not self.prefix:
                raise _error("A prefix is a non-empty string", ("prefix",))
            if "string" not in types:
                raise _error("A prefix needs a field of type string", ("prefix",))
            if self.constant is not UNSET:
                raise _error("A field has a constant or a prefix, not both", ("prefix",))
        if self.template is not None:
            if not isinstance(self.template, Template):
                raise _error("A template is a Template", ("template",))
            if "string" not in types:
                raise _error("A template needs a field of type string", ("template",))
            if not self.required:
                raise _error(
                    "A templated field is required (a blank cell is derived)", ("required",)
                )
            if self.constant is not UNSET or self.prefix is not None:
                raise _error("A templated field has no constant or prefix", ("template",))
            if self.template.source == self.path:
                raise _error("A template's source is another field", ("template", "source"))
        if self.items is not None:
            items = tuple(self.items)
            if "array" not in types:
                raise _error("`items` needs a field of type array", ("items",))
            items = _checked_group(items, "items", "`items` lists one field at least")
            object.__setattr__(self, "items", items)

    @property
    def types(self) -> tuple[JsonType, ...]:
        """The field's JSON types, always as a tuple."""
        return (self.type,) if isinstance(self.type, str) else self.type

    @property
    def nullable(self) -> bool:
        return "null" in self.types

    @property
    def segments(self) -> tuple[str, ...]:
        return tuple(self.path.split("."))

    def accepts(self, value: Any) -> bool:
        """Whether ``value``'s JSON type is one of the field's (the markers aside)."""
        kind = json_type(value)
        return kind is not None and _accepts(self.types, kind)

    # --- the file form ---

    def to_dict(self) -> dict[str, Any]:
        """The field as a layout document writes it (defaults left out)."""
        out: dict[str, Any] = {"path": self.path, "type": _type_json(self.type)}
        if not self.required:
            out["required"] = False
        if self.constant is not UNSET:
            out["constant"] = self.constant
        if self.prefix is not None:
            out["prefix"] = self.prefix
        if self.items is not None:
            out["items"] = [item.to_dict() for item in self.items]
        if self.description:
            out["description"] = self.description
        if self.template is not None:
            out["template"] = self.template.to_dict()
        return out

    @classmethod
    def from_dict(cls, data: Any) -> Field:
        """A field from its document form; ``LayoutError`` names the bad member."""
        members = _members(data, _FIELD_KEYS, ("path", "type"), "A field")
        items = members.get("items")
        if items is not None:
            items = _fields_from_list(items, "items", "`items` is a list of fields")
        template = members.get("template")
        if template is not None:
            try:
                template = Template.from_dict(template)
            except LayoutError as exc:
                raise _relocated(exc, ("template",)) from None
        return cls(
            path=members["path"],
            type=members["type"],
            required=members.get("required", True),
            constant=members.get("constant", UNSET),
            prefix=members.get("prefix"),
            items=items,
            description=members.get("description", ""),
            template=template,
        )

    # --- the DCP type definition ---

    def type_def(self) -> dict[str, Any]:
        """The field as a DcpSchemaDef ``types`` entry: ``type`` plus what the layout adds."""
        out: dict[str, Any] = {"type": _type_json(self.type)}
        if self.description:
            out["description"] = self.description
        if not self.required:
            out["required"] = False
        if self.constant is not UNSET:
            out["constant"] = self.constant
        if self.prefix is not None:
            out["prefix"] = self.prefix
        if self.template is not None:
            out["template"] = self.template.to_dict()
        return out


def _accepts(types: tuple[JsonType, ...], kind: str) -> bool:
    return kind in types or (kind == "integer" and "number" in types)


def _type_json(value: JsonType | tuple[JsonType, ...]) -> str | list[str]:
    return value if isinstance(value, str) else list(value)


_FIELD_KEYS = (
    "path", "type", "required", "constant", "prefix", "template", "items", "description"
)  # fmt: skip
_LAYOUT_KEYS = ("$layout", "tool", "version", "status", "description", "fields")


def _members(
    data: Any, allowed: Sequence[str], needed: Sequence[str], what: str
) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise _error(f"{what} is a JSON object", ())
    for key in data:
        if key not in allowed:
            raise _error(
                f"Unknown member {key!r} (a {what.split()[-1]} has {', '.join(allowed)})",
                (key,),
            )
    for key in needed:
        if key not in data:
            raise _error(f"{what} needs {key!r}", ())
    return data


def check_group(fields: Sequence[Field]) -> None:
    """The fields of one object level fit together: distinct paths, no path both a field and
    an object holding fields, and the fields below one object listed together (so a record
    rebuilt in this order lists each object's members in one place)."""
    seen: dict[str, int] = {}
    leaves: set[tuple[str, ...]] = set()
    parents: dict[tuple[str, ...], int] = {}
    closed: set[tuple[str, ...]] = set()
    previous: tuple[tuple[str, ...], ...] = ()
    for i, item in enumerate(fields):
        if not isinstance(item, Field):
            raise _error(f"A field is a Field, not {type(item).__name__}", (i,))
        if item.path in seen:
            raise _error(f"Field {item.path!r} is listed twice", (i, "path"))
        seen[item.path] = i
        segments = item.segments
        groups = tuple(segments[:n] for n in range(1, len(segments)))
        closed.update(g for g in previous if g not in groups)
        for group in groups:
            name = ".".join(group)
            if group in leaves:
                raise _error(f"{name!r} is a field and holds fields", (i, "path"))
            if group in closed:
                raise _error(f"The fields below {name!r} are not listed together", (i, "path"))
            parents.setdefault(group, i)
        if segments in parents:
            raise _error(f"{item.path!r} is a field and holds fields", (i, "path"))
        leaves.add(segments)
        previous = groups
    derived = {f.path for f in fields if f.template is not None}
    for i, item in enumerate(fields):
        if item.template is None:
            continue
        source = item.template.source
        if source not in seen:
            raise _error(
                f"Template source {source!r} is not a field here", (i, "template", "source")
            )
        if source in derived:
            raise _error(f"Template source {source!r} is itself derived", (i, "template", "source"))


def _checked_group(fields: Iterable[Field], member: str, empty: str) -> tuple[Field, ...]:
    """The fields of one level (a layout's, or an array field's items) as a tuple, refused
    with ``LayoutError`` at ``member`` when empty (reason ``empty``) or clashing."""
    group = tuple(fields)
    if not group:
        raise _error(empty, (member,))
    try:
        check_group(group)
    except LayoutError as exc:
        raise _relocated(exc, (member,)) from None
    return group


def _fields_from_list(data: Any, member: str, not_list: str) -> tuple[Field, ...]:
    """The fields of a document's ``member`` list; ``LayoutError`` names the bad item."""
    if not isinstance(data, list):
        raise _error(not_list, (member,))
    parsed = []
    for i, item in enumerate(data):
        try:
            parsed.append(Field.from_dict(item))
        except LayoutError as exc:
            raise _relocated(exc, (member, i)) from None
    return tuple(parsed)


@dataclass(frozen=True)
class Layout:
    """A tool's declared layout: its records' fields, in order, for one version.

    The layout is frozen within its version: a new field, a type change or a dropped field
    ships as a new version. ``status`` is where it is in its lifecycle (``declared``, or
    ``deprecated`` on its way out; the proxy's learned schemas are ``provisional`` and
    ``confirmed``). Its id is ``tool:vN``, the DCP schema id.
    """

    tool: str
    version: int
    fields: tuple[Field, ...]
    status: Status = "declared"
    description: str = ""

    def __post_init__(self) -> None:
        tool = self.tool
        if not isinstance(tool, str) or not tool or "#" in tool or any(c.isspace() for c in tool):
            raise _error(
                f"A tool name is a non-empty string without whitespace or '#', not {tool!r}",
                ("tool",),
            )
        version = self.version
        if not isinstance(version, int) or isinstance(version, bool) or version < 1:
            raise _error(f"A version is an integer from 1, not {version!r}", ("version",))
        if self.status not in STATUSES:
            raise _error(f"Unknown status {self.status!r} (use {', '.join(STATUSES)})", ("status",))
        if not isinstance(self.description, str):
            raise _error("`description` is a string", ("description",))
        fields = _checked_group(self.fields, "fields", "A layout lists one field at least")
        object.__setattr__(self, "fields", fields)

    @property
    def id(self) -> str:
        """``tool:vN``: the DCP schema id, and the layout's key in a registry."""
        return f"{self.tool}:v{self.version}"

    def field(self, path: str) -> Field | None:
        """The field at dot path ``path``, if the layout declares it."""
        return next((f for f in self.fields if f.path == path), None)

    def check(self, value: Any, /) -> list[Drift]:
        """Every way ``value`` does not fit: one :class:`Drift` per kind and field, at the first
        place found (empty when it fits). Encoding with the layout checks the same way."""
        from ._layout_check import check

        return check(self, value)

    # --- the file form ---

    def to_dict(self) -> dict[str, Any]:
        """The layout document (docs/layouts.md), defaults left out."""
        out: dict[str, Any] = {"$layout": FORMAT_VERSION, "tool": self.tool}
        out["version"] = self.version
        if self.status != "declared":
            out["status"] = self.status
        if self.description:
            out["description"] = self.description
        out["fields"] = [f.to_dict() for f in self.fields]
        return out

    @classmethod
    def from_dict(cls, data: Any, *, inner: bool = False) -> Layout:
        """A layout from its document; ``inner`` (in a registry file) makes ``$layout``
        optional. Raises ``LayoutError`` naming the bad member."""
        members = _members(data, _LAYOUT_KEYS, ("tool", "version", "fields"), "A layout")
        marker = members.get("$layout", None if inner else "missing")
        if marker is not None and marker != FORMAT_VERSION:
            if marker == "missing":
                raise _error(f'A layout document starts with "$layout": {FORMAT_VERSION}', ())
            raise _error(f"Unsupported layout format {marker!r}", ("$layout",))
        fields = _fields_from_list(members["fields"], "fields", "`fields` is a list of fields")
        return cls(
            tool=members["tool"],
            version=members["version"],
            fields=fields,
            status=members.get("status", "declared"),
            description=members.get("description", ""),
        )

    # --- DCP ---

    def to_dcp(self) -> DcpSchema:
        """The layout as a DCP schema: id ``tool:vN``, one field per layout field named by its
        dot path, its type definition (:meth:`Field.type_def`), and a sub-schema
        ``tool.field:vN`` for each field with ``items``."""
        return _schema(self.tool, self.version, self.fields, self.description)

    @classmethod
    def from_dcp(cls, schema: DcpSchema, /, *, status: Status = "declared") -> Layout:
        """The layout of a DCP schema: its fields' paths, types (dcp-wrap's ``int`` is
        ``integer``; a field without a type takes any JSON value), and what :meth:`to_dcp`
        adds. Field names are not kept: a layout names each field by its path."""
        if not isinstance(schema, DcpSchema):
            raise TypeError(f"from_dcp takes a DcpSchema, not {type(schema).__name__}")
        return cls(
            tool=schema.domain,
            version=schema.version,
            fields=_fields_of(schema, ()),
            status=status,
            description=schema.description,
        )

    def entry(self) -> dict[str, Any]:
        """The layout as one row of ``dcp.REGISTRY_SCHEMA`` (id, version, status, ...)."""
        return self.to_dcp().to_entry(self.status)

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any], /) -> Layout:
        """The layout of a ``REGISTRY_SCHEMA`` row (as ``dcp.decode`` gives it back)."""
        try:
            schema = DcpSchema.from_entry(entry)
        except EncodeError as exc:
            raise LayoutError(f"Registry entry: {exc.reason}", exc.path) from None
        return cls.from_dcp(schema, status=entry.get("status") or "declared")

    @classmethod
    def infer(
        cls,
        value: Any,
        /,
        *,
        tool: str,
        version: int = 1,
        status: Status = "declared",
        description: str = "",
    ) -> Layout:
        """Freeze what a tool sends today: the layout every record of ``value`` fits (a list of
        records, or a wrapper object with one array of them, as DCP reads it)."""
        from ._layout_infer import infer_fields

        return cls(tool, version, infer_fields(value), status, description)


def per_layout(build: Callable[[Layout], _Built]) -> Callable[[Layout], _Built]:
    """``build`` run once per layout object and its result kept.

    Keyed by identity: hashing a frozen layout would walk all its fields. The
    layout is kept beside its result, so its id is not reused while cached; the
    memo starts over past 256 layouts.
    """
    memo: dict[int, tuple[Layout, _Built]] = {}

    def cached(layout: Layout) -> _Built:
        found = memo.get(id(layout))
        if found is not None and found[0] is layout:
            return found[1]
        if len(memo) >= 256:
            memo.clear()
        built = build(layout)
        memo[id(layout)] = (layout, built)
        return built

    return cached


def _schema(domain: str, version: int, fields: Sequence[Field], description: str) -> DcpSchema:
    return DcpSchema(
        id=f"{domain}:v{version}",
        fields=tuple(f.path for f in fields),
        types={f.path: f.type_def() for f in fields},
        paths={f.path: f.segments for f in fields},
        nest={  # a DCP id holds no "#": a path's is written %23 in its sub-schema's id
            f.path: _schema(f"{domain}.{f.path.replace('#', '%23')}", version, f.items, "")
            for f in fields
            if f.items is not None
        },
        description=description,
    )


def _fields_of(schema: DcpSchema, at: Segments) -> tuple[Field, ...]:
    fields = []
    for i, name in enumerate(schema.fields):
        where = (*at, "fields", i)
        definition = schema.types.get(name)
        if definition is None:
            definition = {"type": list(JSON_TYPES)}
        kind = definition.get("type", list(JSON_TYPES))
        if isinstance(kind, str):
            kind = _DCP_TYPE_NAMES.get(kind, kind)
        elif isinstance(kind, list):
            kind = [_DCP_TYPE_NAMES.get(k, k) for k in kind]
        sub = schema.nest.get(name)
        template = definition.get("template")
        try:
            if template is not None:
                template = Template.from_dict(template)
            fields.append(
                Field(
                    path=".".join(schema.paths[name]),
                    type=kind,
                    required=definition.get("required", True),
                    constant=definition.get("constant", UNSET),
                    prefix=definition.get("prefix"),
                    items=None if sub is None else _fields_of(sub, ()),
                    description=definition.get("description", ""),
                    template=template,
                )
            )
        except LayoutError as exc:
            raise _relocated(exc, where) from None
    try:
        check_group(fields)
    except LayoutError as exc:
        raise _relocated(exc, (*at, "fields")) from None
    return tuple(fields)
