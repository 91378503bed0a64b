"""Shape inference shared by the codecs: flattening, naming, types, DcpSchema and its registry.

The inference reproduces dcp-wrap 0.3.1's ``SchemaGenerator`` (field order, names, types, enum,
ranges, nested sub-schemas) with its default options, and adds the options gcxwire needs for a
lossless round trip (``order="source"``, ``naming="path"``, ``nest=False``).
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .errors import DecodeError, EncodeTypeError, EncodeValueError

__all__ = [
    "ABSENT",
    "DcpSchema",
    "Path",
    "SchemaRegistry",
    "flatten",
    "infer_schema",
    "json_path",
    "resolve",
    "split_path",
    "unwrap",
]

Path = tuple[str, ...]
TypeDef = dict[str, Any]


class _Absent:
    """The marker of a key that is not there (distinct from a JSON null)."""

    _instance: _Absent | None = None

    def __new__(cls) -> _Absent:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "ABSENT"

    def __reduce__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()

# dcp-wrap's category vocabulary (rank 1..3 by name; ranks 2..4 also by values).
_IDENTIFIERS = frozenset(
    "id source name path endpoint url uri key file file_path doc document chunk_id node_id".split()
)
_CLASSIFIERS = frozenset(
    "status level type action method kind category state trigger mode role domain".split()
)
_NUMERICS = frozenset(
    (
        "score count weight latency page rank index chunk_index position size duration "
        "confidence distance similarity uptime hit_count"
    ).split()
)

_ID_RE = re.compile(r"^(?P<domain>.*):v(?P<version>\d+)$")


def split_path(dotted: str) -> Path:
    """The segments of a mapping path as dcp-wrap writes it (``"owner.login"``)."""
    return tuple(dotted.split("."))


def _is_object(value: Any) -> bool:
    return type(value) is dict or isinstance(value, dict)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_record(record: Any, where: str) -> dict[str, Any]:
    if not isinstance(record, dict):
        kind = "null" if record is None else type(record).__name__
        raise EncodeTypeError(f"a DCP record must be a JSON object, not {kind}", where)
    return record  # its keys are checked as it is flattened


def json_path(parent: str, key: str | int) -> str:
    """``parent`` extended by one member (``$.a``, ``$['a b']``) or index (``$[3]``)."""
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if key.isidentifier() else f"{parent}[{key!r}]"


@dataclass
class _Opened:
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
    opened: dict[Path, _Opened] | None = None,
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
                    where = json_path(where, segment)
                raise EncodeTypeError(
                    f"object keys must be strings, not {type(key).__name__}", where
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
                        opened[path] = seen = _Opened(tuple(value))
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
        arrays = [key for key, member in value.items() if isinstance(member, list)]
        if len(arrays) == 1 and all(isinstance(item, dict) for item in value[arrays[0]]):
            key = arrays[0]
            return {k: v for k, v in value.items() if k != key}, key, value[key]
        raise EncodeTypeError(
            "a single object is not tabular: DCP encodes a list of records or a wrapper object "
            "with exactly one array of objects",
            "$",
        )
    kind = "null" if value is None else type(value).__name__
    raise EncodeTypeError(f"DCP encodes a list of records, not {kind}", "$")


# --- collation -------------------------------------------------------------------------------

# ICU root order of ASCII punctuation and symbols (all sort before digits and letters).
_PUNCT_ORDER = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"
_PUNCT_RANK = {ch: i + 1 for i, ch in enumerate(_PUNCT_ORDER)}


def _collation_key(text: str) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """An approximation of JavaScript's ``localeCompare`` (ICU root collation).

    Primary: whitespace < punctuation < symbols < digits < letters, letters compared without
    case or accents; secondary: accents; tertiary: lower case before upper case.
    """
    primary: list[int] = []
    secondary: list[int] = []
    tertiary: list[int] = []
    for ch in unicodedata.normalize("NFD", text):
        if unicodedata.combining(ch):
            secondary.append(ord(ch))
            continue
        if ch.isspace() or unicodedata.category(ch).startswith("C"):
            primary.append(0)
        elif ch in _PUNCT_RANK:
            primary.append(_PUNCT_RANK[ch])
        elif ch.isdigit():
            primary.append(100 + (unicodedata.digit(ch, 0)))
        elif ch.isalpha():
            primary.append(1000 + ord(ch.lower()))
        else:
            primary.append(50 + ord(ch) % 40)
        secondary.append(0)
        tertiary.append(1 if ch.isupper() else 0)
    return tuple(primary), tuple(secondary), tuple(tertiary)


def _utf16_key(text: str) -> bytes:
    """JavaScript's default ``Array.prototype.sort`` order (UTF-16 code units)."""
    return text.encode("utf-16-be", "surrogatepass")


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
            raise EncodeValueError(f"schema id {self.id!r} must be a string without '#'", "$")
        if not all(isinstance(name, str) for name in fields):
            raise EncodeValueError(f"schema {self.id!r} has a field name that is not a string", "$")
        if len(set(fields)) != len(fields):
            raise EncodeValueError(f"schema {self.id!r} has duplicate field names", "$")
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
            raise EncodeValueError('a DcpSchemaDef needs "$dcp": "schema"', "$")
        schema_id = definition.get("id")
        names = definition.get("fields")
        if not isinstance(schema_id, str) or not isinstance(names, list):
            raise EncodeValueError('a DcpSchemaDef needs a string "id" and a "fields" list', "$")
        if not all(isinstance(name, str) for name in names):
            raise EncodeValueError("DcpSchemaDef field names must be strings", "$.fields")
        count = definition.get("fieldCount", len(names))
        if count != len(names):
            raise EncodeValueError(
                f"fieldCount {count} differs from the {len(names)} fields", "$.fieldCount"
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

    def add(self, schema: DcpSchema) -> None:
        self._schemas[schema.id] = schema

    def _file_stem(self, schema: DcpSchema) -> str:
        stem = f"{schema.domain}.v{schema.version}"
        if "/" in stem or "\\" in stem or stem.startswith("."):
            raise EncodeValueError(f"schema id {schema.id!r} cannot name a file", "$")
        return stem

    def save(self, schema: DcpSchema | None = None) -> list[str]:
        """Write one schema (or all) to the folder; returns the files written."""
        if self.folder is None:
            raise EncodeValueError("this registry has no folder to save to", "$")
        os.makedirs(self.folder, exist_ok=True)
        written = []
        for item in [schema] if schema is not None else list(self._schemas.values()):
            if schema is not None:
                self.add(schema)
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
            self._schemas[schema.id] = schema
            loaded.append(schema.id)
        return loaded


def _read_json(path: str) -> Any:
    with open(path, encoding="utf-8") as src:
        text = src.read()
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DecodeError.at(f"{path}: {exc.msg}", text, exc.pos) from None


# --- inference -------------------------------------------------------------------------------


@dataclass
class _Column:
    path: Path
    name: str
    values: list[Any]  # one per record; ABSENT where the record lacks the path
    first_seen: int

    present: list[Any] = field(default_factory=list)  # the non-null values, once collected


_KIND = {bool: "boolean", int: "number", float: "number", str: "string"}


def _type_def(values: list[Any], nonnull: list[Any], int_split: bool) -> TypeDef:
    classes = {type(v) for v in nonnull}
    kinds = {_KIND.get(c) or _kind_of_subclass(c) for c in classes}
    if not kinds:
        return {"type": "null"}
    names = sorted(kinds)
    all_int = kinds == {"number"} and all(issubclass(c, int) for c in classes)
    if int_split and all_int:
        names = ["int"]
    if len(nonnull) < len(values):
        names.append("null")
    type_def: TypeDef = {"type": names[0] if len(names) == 1 else names}
    if classes and all(issubclass(c, str) for c in classes):
        distinct = set(nonnull)
        if 2 <= len(distinct) <= 10 and len(distinct) <= 0.6 * len(nonnull):
            type_def["enum"] = sorted(distinct, key=_utf16_key)
    elif kinds == {"number"}:
        low, high = min(nonnull), max(nonnull)
        if low >= 0 and not (int_split and all_int) and high <= 1:
            type_def["min"] = 0
            type_def["max"] = 1
        elif low >= 0:
            type_def["min"] = 0
    return type_def


def _kind_of_subclass(cls: type) -> str:
    if issubclass(cls, bool):
        return "boolean"
    if issubclass(cls, (int, float)):
        return "number"
    return "string"  # strings, and objects and arrays, as dcp-wrap types them


def _category(name: str, nonnull: list[Any]) -> int:
    if name in _IDENTIFIERS:
        return 1
    all_strings = bool(nonnull) and all(isinstance(v, str) for v in nonnull)
    if name in _CLASSIFIERS:
        return 2
    if all_strings:
        # a hashable view: values are strings here
        if len(set(nonnull)) / len(nonnull) < 0.3:
            return 2
    if name in _NUMERICS or (bool(nonnull) and all(_is_number(v) for v in nonnull)):
        return 3
    if all_strings and all(len(v) > 50 for v in nonnull):
        return 4
    return 5


def infer_schema(
    records: Any,
    *,
    domain: str,
    version: int = 1,
    include: Iterable[str] | None = None,
    exclude: Iterable[str] | None = None,
    field_names: Mapping[str, str] | None = None,
    max_depth: int | None = 3,
    max_fields: int | None = None,
    min_presence: float = 0.1,
    description: str = "",
    order: Literal["category", "source"] = "category",
    naming: Literal["leaf", "path"] = "leaf",
    nest: bool = True,
    types: Literal["dcp-wrap", "v0.3"] = "dcp-wrap",
    flatten_sparse: bool = True,
) -> DcpSchema:
    """Infer a DCP schema from sample records, as dcp-wrap 0.3.1's ``SchemaGenerator`` does.

    With the defaults the result (fields, order, names, types, mapping, nestSchemas) matches
    dcp-wrap 0.3.1. Unlike dcp-wrap, a path first seen in a later record is back-filled as
    absent in the earlier ones, so its presence and nullability are right.

    Extra options: ``order="source"`` keeps first-seen order (grouped by parent object) instead
    of dcp-wrap's category order; ``naming="path"`` names each field by its dot path (so a
    header rebuilds the nesting) and never flattens an object that could not be rebuilt;
    ``nest=False`` makes no ``$R`` sub-schemas; ``types="v0.3"`` splits ``int`` from
    ``number`` as dcp-wrap HEAD does; ``flatten_sparse=False`` keeps whole every object whose
    keys (or their order) differ between records, so no flattened column is ever absent because
    of it (the gateway dialect writes absent as null).
    A wrapper object (``{"total_count":..,"items":[...]}``) is unwrapped first.
    Raises ``EncodeTypeError`` (with the record's JSONPath) for a record that is not an object.
    """
    if not isinstance(domain, str) or not domain or "#" in domain:
        raise EncodeValueError(f"domain must be a non-empty string without '#': {domain!r}", "$")
    _, key, items = unwrap(records)
    prefix = f"$.{key}" if key is not None else "$"
    rows = [_check_record(record, f"{prefix}[{i}]") for i, record in enumerate(items)]
    included = list(include) if include is not None else None
    excluded = list(exclude or [])
    renames = dict(field_names or {})

    flats = []
    opened: dict[Path, _Opened] = {}
    for index, record in enumerate(rows):
        try:
            flats.append(flatten(record, max_depth=max_depth, opened=opened))
        except EncodeTypeError as exc:
            raise exc.relocated(f"{prefix}[{index}]") from None
    whole: set[Path] = set()
    if naming == "path":
        # an object that is sometimes something else, empty, lists its keys in differing
        # orders, or has keys a dot path cannot name stays one opaque value, so the header's
        # dot paths always rebuild it exactly
        leaves = {path for flat in flats for path in flat}
        whole.update(
            p for p, o in opened.items() if not o.dot_nameable or p in leaves or not o.one_order()
        )
    if not flatten_sparse:
        whole.update(p for p, o in opened.items() if not o.same_keys)
    keep_whole = frozenset(whole)
    columns: dict[Path, _Column] = {}
    for index, record in enumerate(rows):
        flat = (
            flatten(record, max_depth=max_depth, leaf_paths=keep_whole)
            if keep_whole
            else flats[index]
        )
        for path, value in flat.items():
            column = columns.get(path)
            if column is None:
                dotted = ".".join(path)
                name = renames.get(dotted, dotted if naming == "path" else path[-1])
                column = _Column(path, name, [ABSENT] * len(rows), index)
                columns[path] = column
            column.values[index] = value

    def selected(path: Path) -> bool:
        dotted = ".".join(path)
        if included is not None and not any(
            dotted == p or dotted.startswith(p + ".") for p in included
        ):
            return False
        return not any(dotted == p or dotted.startswith(p + ".") for p in excluded)

    total = len(rows)
    kept: list[_Column] = []
    for column in columns.values():
        if not selected(column.path):
            continue
        column.present = [v for v in column.values if v is not ABSENT and v is not None]
        presence = len(column.present) / total if total else 0.0
        if presence < min_presence:
            continue
        kept.append(column)

    if order == "category":
        ranked = sorted(
            kept,
            key=lambda c: (
                _category(c.name, c.present),
                -len(c.present),
                _collation_key(c.name),
            ),
        )
    else:
        ranked = _tree_order(kept)
    if max_fields is not None:
        ranked = ranked[:max_fields]

    names = _unique_names(ranked)
    nest_subs: dict[str, DcpSchema] = {}
    type_defs: dict[str, TypeDef] = {}
    for column, name in zip(ranked, names):
        nonnull = column.present
        type_defs[name] = _type_def(column.values, nonnull, types == "v0.3")
        if nest and len(column.path) == 1 and _is_nestable(column.values):
            pooled = []
            for index, value in enumerate(column.values):
                for j, item in enumerate(value if isinstance(value, list) else []):
                    where = json_path(json_path(f"{prefix}[{index}]", column.path[0]), j)
                    for key in _check_record(item, where):
                        if not isinstance(key, str):
                            raise EncodeTypeError(
                                f"object keys must be strings, not {type(key).__name__}", where
                            )
                    pooled.append(item)
            nest_subs[name] = infer_schema(
                pooled,
                domain=f"{domain}.{name}",
                version=version,
                max_depth=0,
                min_presence=min_presence,
                order=order,
                naming=naming,
                nest=False,
                types=types,
            )
            type_defs[name] = {"type": "array"}
    return DcpSchema(
        id=f"{domain}:v{version}",
        fields=tuple(names),
        types=type_defs,
        paths={name: column.path for column, name in zip(ranked, names)},
        nest=nest_subs,
        description=description,
    )


def _tree_order(columns: list[_Column]) -> list[_Column]:
    """First-seen order, grouped by parent object (a depth-first walk of the key tree).

    For flat records this is plain first-seen order; for nested ones it is the order a record
    rebuilt from the header lists its keys in, so re-encoding a decoded batch gives the same
    header.
    """
    by_path = {column.path: column for column in columns}
    children: dict[Path, list[str]] = {}
    for path in by_path:
        for depth in range(len(path)):
            siblings = children.setdefault(path[:depth], [])
            if path[depth] not in siblings:
                siblings.append(path[depth])
    ordered: list[_Column] = []

    def walk(prefix: Path) -> None:
        for segment in children.get(prefix, []):
            path = prefix + (segment,)
            if path in by_path:
                ordered.append(by_path[path])
            walk(path)

    walk(())
    return ordered


def _is_nestable(values: list[Any]) -> bool:
    """Every present value is a non-empty array of objects (dcp-wrap's ``$R`` rule)."""
    present = [v for v in values if v is not ABSENT]
    return bool(present) and all(
        isinstance(v, list) and v and all(isinstance(item, dict) for item in v) for v in present
    )


def _unique_names(columns: list[_Column]) -> list[str]:
    """dcp-wrap's collision renaming: the first holder keeps the name, later ones become
    ``parent_leaf``, then ``name_2``, ``name_3``..."""
    taken: set[str] = set()
    names: list[str] = []
    for column in columns:
        name = column.name
        if name in taken:
            candidate = f"{column.path[-2]}_{name}" if len(column.path) > 1 else name
            if candidate in taken:
                n = 2
                while f"{name}_{n}" in taken:
                    n += 1
                candidate = f"{name}_{n}"
            name = candidate
        taken.add(name)
        names.append(name)
    return names
