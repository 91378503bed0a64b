"""The DCP schema: positional fields, the record paths they read, DcpSchemaDef files, the registry.

``DcpSchema`` is dcp-wrap's schema plus mapping in one value; ``to_def``/``from_def`` read and
write both projects' ``schema.json`` and ``mapping.json``; ``SchemaRegistry`` is a folder of them.
The path helpers (``flatten``, ``resolve``, ``unwrap``) are the one model of "where a field lives
in a record" that inference, encoding and decoding share.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from ._values import ABSENT, path_join
from .errors import DecodeError, EncodeTypeError, EncodeValueError

__all__ = [
    "DcpSchema",
    "Opened",
    "Path",
    "REGISTRY_SCHEMA",
    "STATUSES",
    "SchemaRegistry",
    "Status",
    "TypeDef",
    "check_record",
    "flatten",
    "resolve",
    "split_path",
    "unwrap",
]

Path = tuple[str, ...]
TypeDef = dict[str, Any]

#: Where a schema is in its lifecycle: learned from traffic (``provisional``, then
#: ``confirmed``), given as a DCP schema file (``preset``), a declared layout (``declared``),
#: or a declared layout on its way out (``deprecated``). A registry entry of a schema outside
#: any lifecycle says ``""``.
Status = Literal["provisional", "confirmed", "preset", "declared", "deprecated"]
STATUSES: tuple[Status, ...] = get_args(Status)


def check_status(status: Any, where: str = "$.status") -> Status | Literal[""]:
    """``status`` if it is one of :data:`STATUSES` or ``""``; else ``EncodeValueError``."""
    if status != "" and (not isinstance(status, str) or status not in STATUSES):
        raise EncodeValueError(
            f"Unknown schema status {status!r} (use {', '.join(STATUSES)})", where
        )
    return status  # type: ignore[no-any-return]  # one of the literal's values


_ID_RE = re.compile(r"^(?P<domain>.*):v(?P<version>\d+)$")


def split_path(dotted: str) -> Path:
    """The segments of a mapping path as dcp-wrap writes it (``"owner.login"``)."""
    return tuple(dotted.split("."))


def check_record(record: Any, where: str) -> dict[str, Any]:
    """``record`` if it is a JSON object; else ``EncodeTypeError`` at ``where``."""
    if not isinstance(record, dict):
        kind = "null" if record is None else type(record).__name__
        raise EncodeTypeError(f"A DCP record must be a JSON object, not {kind}", where)
    return record  # its keys are checked as it is flattened


@dataclass
class Opened:
    """What an object at one path looked like in every record that had it there."""

    keys: tuple[str, ...]  # the first one's keys, in order
    same_keys: bool = True  # every one had exactly these keys, in this order
    dot_nameable: bool = True  # never empty, no key empty or holding "."
    orders: dict[tuple[str, ...], None] = field(default_factory=dict)  # distinct key orders

    def note(self, value: dict[str, Any]) -> None:
        keys = tuple(value)
        if keys != self.keys:
            self.same_keys = False
        self.orders[keys] = None
        if self.dot_nameable and not (value and all(k and "." not in k for k in value)):
            self.dot_nameable = False

    def one_order(self) -> bool:
        """Every record lists these keys in first-seen order, so a rebuilt object keeps it."""
        merged: dict[str, None] = {}
        for keys in self.orders:
            merged.update(dict.fromkeys(keys))
        for keys in self.orders:
            present = set(keys)
            if keys != tuple(k for k in merged if k in present):
                return False
        return True


def flatten(
    record: Mapping[str, Any],
    *,
    max_depth: int | None = 3,
    leaf_paths: frozenset[Path] = frozenset(),
    opened: dict[Path, Opened] | None = None,
) -> dict[Path, Any]:
    """Flatten nested objects to ``{path: value}`` in first-seen order.

    An object under a key whose path has at most ``max_depth`` segments is opened (``None``: no
    limit); arrays, null, scalars and deeper objects are leaves. Paths in ``leaf_paths`` are
    never opened. An empty object yields no paths, as in dcp-wrap. ``opened`` collects what
    each opened object looked like across the records flattened with it.
    """
    out: dict[Path, Any] = {}

    def check_keys(obj: Mapping[Any, Any], prefix: Path) -> None:
        for key in obj:
            if not isinstance(key, str):
                where = "$"
                for segment in prefix:
                    where = path_join(where, segment)
                raise EncodeTypeError(
                    f"Object keys must be strings, not {type(key).__name__}", where
                )

    def walk(obj: Mapping[str, Any], prefix: Path) -> None:
        for key, value in obj.items():
            path = prefix + (key,)
            if (
                isinstance(value, dict)
                and (max_depth is None or len(path) <= max_depth)
                and path not in leaf_paths
            ):
                check_keys(value, path)
                walk(value, path)
                if opened is not None:
                    seen = opened.get(path)
                    if seen is None:
                        opened[path] = seen = Opened(tuple(value))
                    seen.note(value)
            else:
                out[path] = value

    check_keys(record, ())
    walk(record, ())
    return out


def resolve(record: Any, path: Path) -> Any:
    """The value at ``path`` in ``record``, or ``ABSENT`` when a segment is missing."""
    value = record
    for segment in path:
        if not isinstance(value, dict) or segment not in value:
            return ABSENT
        value = value[segment]
    return value


def unwrap(value: Any) -> tuple[dict[str, Any] | None, str | None, list[Any]]:
    """Split a ``{"total_count":..,"items":[...]}`` wrapper into (members, array key, records).

    A wrapper is an object with exactly one array member whose items are all objects. A list is
    returned as its own records; anything else raises ``EncodeTypeError``.
    """
    if isinstance(value, list):
        return None, None, value
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):  # the array key names the domain; every key is a name
                raise EncodeTypeError(f"Object keys must be strings, not {type(key).__name__}")
        arrays = [key for key, member in value.items() if isinstance(member, list)]
        if len(arrays) == 1 and all(isinstance(item, dict) for item in value[arrays[0]]):
            key = arrays[0]
            return {k: v for k, v in value.items() if k != key}, key, value[key]
        raise EncodeTypeError(
            "A single object is not tabular: DCP encodes a list of records or a wrapper object "
            "with exactly one array of objects"
        )
    kind = "null" if value is None else type(value).__name__
    raise EncodeTypeError(f"DCP encodes a list of records, not {kind}")


# --- the schema ------------------------------------------------------------------------------


@dataclass(frozen=True, eq=True)
class DcpSchema:
    """A DCP schema: positional field names, their source paths, types and nested sub-schemas.

    ``paths`` maps each field to the path (tuple of keys) it is read from; ``nest`` maps an
    array field to the sub-schema of its items (``$R``/``$N`` sub-rows).
    """

    id: str
    fields: tuple[str, ...]
    types: dict[str, TypeDef] = field(default_factory=dict)
    paths: dict[str, Path] = field(default_factory=dict)
    nest: dict[str, DcpSchema] = field(default_factory=dict)
    description: str = ""

    __hash__ = None  # type: ignore[assignment]  # holds dicts; compared by value only

    def __post_init__(self) -> None:
        fields = tuple(self.fields)
        if not isinstance(self.id, str) or "#" in self.id:
            raise EncodeValueError(f"Schema id {self.id!r} must be a string without '#'")
        if not all(isinstance(name, str) for name in fields):
            raise EncodeValueError(f"Schema {self.id!r} has a field name that is not a string")
        if len(set(fields)) != len(fields):
            raise EncodeValueError(f"Schema {self.id!r} has duplicate field names")
        # a field without a path reads the key of its own name (the caller's dict is not touched)
        paths = {name: tuple(self.paths.get(name, (name,))) for name in fields}
        object.__setattr__(self, "fields", fields)
        object.__setattr__(self, "paths", paths)

    @property
    def field_count(self) -> int:
        return len(self.fields)

    @property
    def full_mask(self) -> int:
        return (1 << len(self.fields)) - 1

    @property
    def domain(self) -> str:
        match = _ID_RE.match(self.id)
        return match["domain"] if match else self.id

    @property
    def version(self) -> int:
        match = _ID_RE.match(self.id)
        return int(match["version"]) if match else 1

    def field_bit(self, index: int) -> int:
        """Field ``index`` (0-based) has bit ``1 << (n-1-index)``: the first field is the MSB."""
        return 1 << (len(self.fields) - 1 - index)

    def fields_from_mask(self, mask: int) -> tuple[str, ...]:
        return tuple(name for i, name in enumerate(self.fields) if mask & self.field_bit(i))

    def cutdown_id(self, mask: int) -> str:
        """The id for a batch carrying only the fields in ``mask`` (plain id when all are)."""
        return self.id if mask == self.full_mask else f"{self.id}#{mask:x}"

    # --- DcpSchemaDef JSON (dcp-wrap / dcp-py interoperable) ---

    def mapping_def(self) -> dict[str, Any]:
        """dcp-wrap's ``mapping.json``: ``{"schemaId", "paths": {field: "dot.path"}}``."""
        return {
            "schemaId": self.id,
            "paths": {name: ".".join(self.paths[name]) for name in self.fields},
        }

    def to_def(self, *, with_mapping: bool = False) -> dict[str, Any]:
        """dcp-wrap's ``DcpSchemaDef`` (``schema.json``), with nested sub-schemas and mappings.

        ``with_mapping`` adds ``"mapping": mapping_def()``, a one-file form ``from_def`` reads
        (dcp-wrap keeps the top-level mapping in its own file and ignores the extra member).
        """
        out: dict[str, Any] = {
            "$dcp": "schema",
            "id": self.id,
            "description": self.description,
            "fields": list(self.fields),
            "fieldCount": len(self.fields),
            "types": {name: dict(self.types[name]) for name in self.fields if name in self.types},
        }
        if self.nest:
            out["nestSchemas"] = {
                name: {"schema": sub.to_def(), "mapping": sub.mapping_def()}
                for name, sub in self.nest.items()
            }
        if with_mapping:
            out["mapping"] = self.mapping_def()
        return out

    def to_entry(self, status: Status | Literal[""] = "") -> dict[str, Any]:
        """This schema as one row of :data:`REGISTRY_SCHEMA`: id, version, status, description,
        fields, types, paths (dot paths, as in the mapping file) and nestSchemas (sub-schemas as
        entries). ``status`` is the schema's lifecycle state where it has one (the proxy's
        ``provisional``, ``confirmed``, ``preset``...), else empty; sub-schemas share it."""
        check_status(status)
        return {
            "id": self.id,
            "version": self.version,
            "status": status,
            "description": self.description,
            "fields": list(self.fields),
            "types": {name: dict(self.types[name]) for name in self.fields if name in self.types},
            "paths": self.mapping_def()["paths"],
            "nestSchemas": {name: sub.to_entry(status) for name, sub in self.nest.items()},
        }

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any]) -> DcpSchema:
        """The schema of a :meth:`to_entry` row (as ``dcp.decode`` gives it back)."""
        if not isinstance(entry, Mapping):
            raise EncodeValueError("A registry entry must be an object")
        check_status(entry.get("status", ""))
        nest = entry.get("nestSchemas") or {}
        definition = {
            "$dcp": "schema",
            "id": entry.get("id"),
            "description": entry.get("description", ""),
            "fields": entry.get("fields"),
            "types": entry.get("types") or {},
        }
        schema = cls.from_def(definition, {"paths": entry.get("paths") or {}})
        version = entry.get("version", schema.version)
        if version != schema.version or isinstance(version, bool):
            raise EncodeValueError(
                f"Entry {schema.id!r} says version {version!r}, its id {schema.version}",
                "$.version",
            )
        subs = {name: cls.from_entry(sub) for name, sub in nest.items()}
        return cls(schema.id, schema.fields, schema.types, schema.paths, subs, schema.description)

    @classmethod
    def from_def(
        cls,
        definition: Mapping[str, Any],
        mapping: Mapping[str, Any] | None = None,
        *,
        samples: Sequence[Mapping[str, Any]] | None = None,
    ) -> DcpSchema:
        """Load a ``DcpSchemaDef`` (and optionally its mapping file, or its ``"mapping"`` member).

        Fields without a mapping path are auto-bound as dcp-wrap does when ``samples`` are
        given (top-level key, else the unique leaf of that name, else the shortest path), and
        read from the top-level key of their own name otherwise.
        """
        if not isinstance(definition, Mapping) or definition.get("$dcp") != "schema":
            raise EncodeValueError('A DcpSchemaDef needs "$dcp": "schema"')
        schema_id = definition.get("id")
        names = definition.get("fields")
        if not isinstance(schema_id, str) or not isinstance(names, list):
            raise EncodeValueError('A DcpSchemaDef needs a string "id" and a "fields" list')
        if not all(isinstance(name, str) for name in names):
            raise EncodeValueError("DcpSchemaDef field names must be strings", "$.fields")
        count = definition.get("fieldCount", len(names))
        if count != len(names):
            raise EncodeValueError(
                f"The fieldCount {count} differs from the {len(names)} fields", "$.fieldCount"
            )
        raw_paths: Mapping[str, Any] = {}
        if mapping is None and isinstance(definition.get("mapping"), Mapping):
            mapping = definition["mapping"]
        if mapping is not None:
            raw_paths = mapping.get("paths", {}) if isinstance(mapping, Mapping) else {}
        paths: dict[str, Path] = {}
        for name in names:
            dotted = raw_paths.get(name)
            if isinstance(dotted, str):
                paths[name] = split_path(dotted)
            elif samples is not None:
                paths[name] = _auto_bind(name, samples)
            else:
                paths[name] = (name,)
        nest: dict[str, DcpSchema] = {}
        for name, entry in (definition.get("nestSchemas") or {}).items():
            if isinstance(entry, Mapping) and "schema" in entry:
                nest[name] = cls.from_def(entry["schema"], entry.get("mapping"))
        types = definition.get("types") or {}
        return cls(
            id=schema_id,
            fields=tuple(names),
            types={k: dict(v) for k, v in types.items() if isinstance(v, Mapping)},
            paths=paths,
            nest=nest,
            description=str(definition.get("description", "")),
        )


def _auto_bind(name: str, samples: Sequence[Mapping[str, Any]]) -> Path:
    candidates: dict[Path, None] = {}
    for sample in samples:
        if isinstance(sample, dict):
            if name in sample:
                return (name,)
            for path in flatten(sample, max_depth=None):
                if path[-1] == name:
                    candidates[path] = None
    if not candidates:
        return (name,)
    return min(candidates, key=len)


class SchemaRegistry:
    """A folder of DcpSchemaDef files, named as dcp-wrap's CLI names them.

    Each schema is ``<domain>.v<N>.json`` with its mapping in ``<domain>.v<N>.mapping.json``.
    """

    def __init__(self, folder: str | os.PathLike[str] | None = None) -> None:
        self.folder = None if folder is None else os.fspath(folder)
        self._schemas: dict[str, DcpSchema] = {}
        self._status: dict[str, Status | Literal[""]] = {}
        if self.folder is not None and os.path.isdir(self.folder):
            self.load()

    def __contains__(self, schema_id: object) -> bool:
        return schema_id in self._schemas

    def __len__(self) -> int:
        return len(self._schemas)

    def __iter__(self) -> Iterator[DcpSchema]:
        return iter(list(self._schemas.values()))

    def ids(self) -> list[str]:
        return list(self._schemas)

    def get(self, schema_id: str) -> DcpSchema | None:
        """The schema for ``schema_id``; a cutdown id (``x:v1#1b``) finds its base schema."""
        return self._schemas.get(schema_id.split("#", 1)[0])

    def add(self, schema: DcpSchema, *, status: Status | Literal[""] = "") -> None:
        """Add (or replace) ``schema``, at ``status`` in its lifecycle (``""``: none)."""
        self._status[schema.id] = check_status(status)
        self._schemas[schema.id] = schema

    def status(self, schema_id: str) -> Status | Literal[""] | None:
        """The lifecycle status of ``schema_id`` (a cutdown id finds its base schema)."""
        return self._status.get(schema_id.split("#", 1)[0])

    def entries(self) -> list[dict[str, Any]]:
        """Every schema as a row of :data:`REGISTRY_SCHEMA`, with its status, so the registry
        is itself a DCP table: ``dcp.encode(registry.entries(), REGISTRY_SCHEMA)``."""
        return [schema.to_entry(self._status[sid]) for sid, schema in self._schemas.items()]

    @classmethod
    def from_entries(cls, entries: Iterable[Mapping[str, Any]]) -> SchemaRegistry:
        """A registry (without a folder) of the schemas ``entries`` describe, with their status."""
        registry = cls()
        for entry in entries:
            registry.add(DcpSchema.from_entry(entry), status=entry.get("status", ""))
        return registry

    def _file_stem(self, schema: DcpSchema) -> str:
        stem = f"{schema.domain}.v{schema.version}"
        if "/" in stem or "\\" in stem or stem.startswith("."):
            raise EncodeValueError(f"Schema id {schema.id!r} cannot name a file")
        return stem

    def save(self, schema: DcpSchema | None = None) -> list[str]:
        """Write one schema (or all) to the folder; returns the files written."""
        if self.folder is None:
            raise EncodeValueError("This registry has no folder to save to")
        os.makedirs(self.folder, exist_ok=True)
        written = []
        for item in [schema] if schema is not None else list(self._schemas.values()):
            if schema is not None:
                self.add(schema, status=self._status.get(schema.id, ""))
            stem = os.path.join(self.folder, self._file_stem(item))
            for path, body in (
                (stem + ".json", item.to_def()),
                (stem + ".mapping.json", item.mapping_def()),
            ):
                with open(path, "w", encoding="utf-8") as out:
                    out.write(json.dumps(body, indent=2, ensure_ascii=False) + "\n")
                written.append(path)
        return written

    def load(self) -> list[str]:
        """Read every ``*.json`` schema of the folder (with its mapping file when present)."""
        if self.folder is None:
            return []
        loaded = []
        for name in sorted(os.listdir(self.folder)):
            if not name.endswith(".json") or name.endswith(".mapping.json"):
                continue
            path = os.path.join(self.folder, name)
            definition = _read_json(path)
            if not isinstance(definition, dict) or definition.get("$dcp") != "schema":
                continue
            mapping = None
            mapping_path = path[: -len(".json")] + ".mapping.json"
            if os.path.exists(mapping_path):
                mapping = _read_json(mapping_path)
            schema = DcpSchema.from_def(definition, mapping)
            self.add(schema)
            loaded.append(schema.id)
        return loaded


def _read_json(path: str) -> Any:
    with open(path, encoding="utf-8") as src:
        text = src.read()
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DecodeError.at(f"{path}: {exc.msg}", text, exc.pos) from None


#: The schema-of-schemas: its rows are :meth:`DcpSchema.to_entry` entries, one per schema, so a
#: registry is one DCP table an agent can read with the header alone.
REGISTRY_SCHEMA = DcpSchema(
    id="dcp-schemas:v1",
    fields=("id", "version", "status", "description", "fields", "types", "paths", "nestSchemas"),
    types={
        "id": {"type": "string", "description": "domain:vN"},
        "version": {"type": "integer", "description": "N of the id: a new field is a new version"},
        "status": {
            "type": "string",
            "enum": ["", *STATUSES],
            "description": "lifecycle state, empty outside one",
        },
        "description": {"type": "string"},
        "fields": {"type": "array", "description": "the positional field names, in order"},
        "types": {
            "type": "object",
            "description": "field -> {type, enum?, min?, max?, required?, constant?, prefix?}",
        },
        "paths": {"type": "object", "description": "field -> dot path in the source record"},
        "nestSchemas": {"type": "object", "description": "array field -> sub-schema entry"},
    },
    description="DCP schema registry: one row per DcpSchemaDef",
)
