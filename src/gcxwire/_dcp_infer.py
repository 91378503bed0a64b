"""Schema inference as dcp-wrap 0.3.1's ``SchemaGenerator`` does it, in named steps.

flatten every record to dot paths -> collect one column per path -> select (include, exclude,
presence) -> rank (category, presence, collation) -> name (leaf, collisions) -> type (kinds,
enum, range) -> nest (``$R`` sub-schemas). The options gcxwire adds for a lossless round trip
(``order="source"``, ``naming="path"``, ``nest=False``, ``flatten_sparse=False``) hook into the
flatten, rank and name steps.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ._dcp_schema import (
    DcpSchema,
    Opened,
    Path,
    TypeDef,
    check_record,
    flatten,
    unwrap,
)
from ._values import ABSENT, path_join
from .errors import EncodeTypeError, EncodeValueError

__all__ = ["infer_schema"]

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


@dataclass
class _Column:
    path: Path
    name: str
    values: list[Any]  # one per record; ABSENT where the record lacks the path
    first_seen: int

    present: list[Any] = field(default_factory=list)  # the non-null values, once collected


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
        raise EncodeValueError(f"Domain must be a non-empty string without '#': {domain!r}")
    _, key, items = unwrap(records)
    prefix = path_join("$", key) if key is not None else "$"
    rows = [check_record(record, f"{prefix}[{i}]") for i, record in enumerate(items)]

    flats = _flatten_all(rows, prefix, max_depth, naming, flatten_sparse)
    columns = _collect(flats, len(rows), dict(field_names or {}), naming)
    kept = _select(columns, include, exclude, min_presence, len(rows))
    ranked = _rank(kept, order)[:max_fields]
    names = _unique_names(ranked)
    type_defs = {
        name: _type_def(column.values, column.present, types == "v0.3")
        for column, name in zip(ranked, names)
    }
    subs: dict[str, DcpSchema] = {}
    if nest:
        for column, name in zip(ranked, names):
            if len(column.path) == 1 and _is_nestable(column.values):
                subs[name] = infer_schema(
                    _pooled_items(column, prefix),
                    domain=f"{domain}.{name}",
                    version=version,
                    max_depth=0,
                    min_presence=min_presence,
                    order=order,
                    naming=naming,
                    nest=True,  # dcp-wrap nests again inside sub-rows ($R in $R)
                    types=types,
                )
                type_defs[name] = {"type": "array"}
    return DcpSchema(
        id=f"{domain}:v{version}",
        fields=tuple(names),
        types=type_defs,
        paths={name: column.path for column, name in zip(ranked, names)},
        nest=subs,
        description=description,
    )


# --- flatten and collect ---------------------------------------------------------------------


def _flatten_all(
    rows: list[dict[str, Any]],
    prefix: str,
    max_depth: int | None,
    naming: str,
    flatten_sparse: bool,
) -> list[dict[Path, Any]]:
    """Each record as ``{path: value}``, keeping whole the objects that must stay whole."""
    flats = []
    opened: dict[Path, Opened] = {}
    for index, record in enumerate(rows):
        try:
            flats.append(flatten(record, max_depth=max_depth, opened=opened))
        except EncodeTypeError as exc:
            raise exc.relocated(f"{prefix}[{index}]") from None
    whole = _kept_whole(flats, opened, naming, flatten_sparse)
    if not whole:
        return flats
    return [flatten(record, max_depth=max_depth, leaf_paths=whole) for record in rows]


def _kept_whole(
    flats: list[dict[Path, Any]], opened: dict[Path, Opened], naming: str, flatten_sparse: bool
) -> frozenset[Path]:
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
    return frozenset(whole)


def _collect(
    flats: list[dict[Path, Any]], total: int, renames: dict[str, str], naming: str
) -> list[_Column]:
    """One column per path in first-seen order, ``ABSENT`` where a record lacks it."""
    columns: dict[Path, _Column] = {}
    for index, flat in enumerate(flats):
        for path, value in flat.items():
            column = columns.get(path)
            if column is None:
                dotted = ".".join(path)
                name = renames.get(dotted, dotted if naming == "path" else path[-1])
                column = columns[path] = _Column(path, name, [ABSENT] * total, index)
            column.values[index] = value
    return list(columns.values())


# --- select and rank -------------------------------------------------------------------------


def _select(
    columns: list[_Column],
    include: Iterable[str] | None,
    exclude: Iterable[str] | None,
    min_presence: float,
    total: int,
) -> list[_Column]:
    """The columns ``include``/``exclude`` let through whose non-null presence is enough."""
    included = list(include) if include is not None else None
    excluded = list(exclude or [])

    def under(dotted: str, paths: list[str]) -> bool:
        return any(dotted == p or dotted.startswith(p + ".") for p in paths)

    kept = []
    for column in columns:
        dotted = ".".join(column.path)
        if (included is not None and not under(dotted, included)) or under(dotted, excluded):
            continue
        column.present = [v for v in column.values if v is not ABSENT and v is not None]
        presence = len(column.present) / total if total else 0.0
        if presence >= min_presence:
            kept.append(column)
    return kept


def _rank(columns: list[_Column], order: str) -> list[_Column]:
    if order == "source":
        return _tree_order(columns)
    return sorted(
        columns,
        key=lambda c: (_category(c.name, c.present), -len(c.present), _collation_key(c.name)),
    )


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _category(name: str, nonnull: list[Any]) -> int:
    """dcp-wrap's rank: identifier 1, classifier 2, numeric 3, long text 4, other 5."""
    name = name.lower()  # dcp-wrap matches its name hints case-insensitively (ID, Name, URL)
    if name in _IDENTIFIERS:
        return 1
    all_strings = bool(nonnull) and all(isinstance(v, str) for v in nonnull)
    if name in _CLASSIFIERS or (all_strings and len(set(nonnull)) / len(nonnull) < 0.3):
        return 2
    if name in _NUMERICS or (bool(nonnull) and all(_is_number(v) for v in nonnull)):
        return 3
    if all_strings and all(len(v) > 50 for v in nonnull):
        return 4
    return 5


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


# --- collation -------------------------------------------------------------------------------

# JavaScript's ``localeCompare`` (ICU's root collation, which dcp-wrap's ordering relies on),
# reproduced for the characters field names hold, without ICU itself: three levels (base
# letters, then accents, then case and width), the bands of the root order (spaces <
# punctuation < symbols < currency < digits < letters), and the Latin letters that are not a
# plain letter plus accents. Agreement with Node 20's ICU on 90,000 random pairs of names
# mixing ASCII, accented and special Latin letters (ae, o-stroke, sharp s, dotless i, ij),
# fullwidth letters, Greek, Cyrillic, CJK, punctuation, symbols and emoji: 100 % (the
# approximation it replaces: 80-86 %). tests/data/dcp/collation_pairs.json keeps a sample.
# The root order of the punctuation, symbols and currency signs of ASCII and Latin-1 (and a few
# more), as Node's ICU sorts them; other characters of each kind follow in code point order.
_PUNCT = "_-–—,;:!¡?¿.…·'‘’\"“”«»()[]{}§¶@*/\\&#%‰†‡•′″"  # noqa: RUF001 (the characters themselves)
_SYMBOLS = "`´^¯¨¸°©®+±÷×<=>¬|¦~"  # noqa: RUF001
_CURRENCY = "¤¢$£¥€"
_TABLE_RANK = (
    {ch: (1, i) for i, ch in enumerate(_PUNCT)}
    | {ch: (2, i) for i, ch in enumerate(_SYMBOLS)}
    | {ch: (3, i) for i, ch in enumerate(_CURRENCY)}
)
# letters that expand to two (sharp s is "ss", ae is "a" "e"), differing at the third level
_EXPANSIONS = {"ß": "ss", "ẞ": "SS", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE"}
# letters that are a base letter with a mark NFD does not split off (o-stroke is an o)
_MARKED = {"ø": "o", "Ø": "O", "đ": "d", "Đ": "D", "ł": "l", "Ł": "L", "ð": "d", "Ð": "D"}
_STROKE = 40  # their mark's second-level weight: after every accent
# letters of their own, sorted after a base letter (dotless i after i, thorn after z)
_AFTER = {"ı": "i", "þ": "z", "Þ": "Z"}
# second-level weights of accents in the root order (acute before grave, unlike code points)
_ACCENTS = {
    0x301: 1, 0x300: 2, 0x306: 3, 0x302: 4, 0x30C: 5, 0x30A: 6, 0x308: 7, 0x30B: 8,
    0x303: 9, 0x307: 10, 0x327: 11, 0x328: 12, 0x304: 13,
}  # fmt: skip

_Key = tuple[tuple[tuple[int, int], ...], tuple[int, ...], tuple[int, ...]]


def _collation_key(text: str) -> _Key:
    """A sort key that orders names as JavaScript's ``localeCompare`` does (ICU root).

    First level: the band and base letter of each character; second: accents (in the root
    order), third: case and width (``a`` < ``ａ`` < ``A`` < ``Ａ``), left to right.
    """
    primary: list[tuple[int, int]] = []
    secondary: list[int] = []
    tertiary: list[int] = []
    for ch in text:
        variant = 0
        if ch in _EXPANSIONS:
            chars, variant = _EXPANSIONS[ch], 1
        else:
            chars = unicodedata.normalize("NFD", ch)
            compat = unicodedata.normalize("NFKD", ch)
            if compat != chars and any(c.isalnum() for c in compat):
                # fullwidth a, the TM sign, ij, superscript 2: the same letters, a third level
                chars, variant = compat, 1
        for part in chars:
            if unicodedata.combining(part):
                secondary.append(_ACCENTS.get(ord(part), 20 + ord(part) % 20))
                continue
            mark = 0
            if part in _MARKED:
                part, mark = _MARKED[part], _STROKE
            primary.append(_primary(part))
            secondary.append(mark)
            tertiary.append(2 * (part.isupper()) + variant)
    return tuple(primary), tuple(secondary), tuple(tertiary)


def _primary(ch: str) -> tuple[int, int]:
    if ch.isspace() or unicodedata.category(ch).startswith("C"):
        return (0, ord(ch))
    if ch in _TABLE_RANK:
        return _TABLE_RANK[ch]
    if ch in _AFTER:
        return (5, 2 * ord(_AFTER[ch].lower()) + 1)
    if ch.isdigit():
        return (4, unicodedata.digit(ch, 0))
    if ch.isalpha():
        return (5, 2 * ord(ch.lower()))
    category = unicodedata.category(ch)
    if category.startswith("P"):
        return (1, 1000 + ord(ch))
    if category == "Sc":
        return (3, 1000 + ord(ch))
    return (2, 1000 + ord(ch))  # other symbols, emoji among them


def _utf16_key(text: str) -> bytes:
    """JavaScript's default ``Array.prototype.sort`` order (UTF-16 code units)."""
    return text.encode("utf-16-be", "surrogatepass")


# --- name ------------------------------------------------------------------------------------


def _unique_names(columns: list[_Column]) -> list[str]:
    """dcp-wrap's collision renaming: the first holder keeps the name, later ones become
    ``parent_leaf``, then ``parent_leaf_2``, ``parent_leaf_3``... (a top-level path: ``leaf_2``)."""
    taken: set[str] = set()
    names: list[str] = []
    for column in columns:
        name = column.name
        if name in taken:
            candidate = f"{column.path[-2]}_{name}" if len(column.path) > 1 else name
            if candidate in taken:
                n = 2
                while f"{candidate}_{n}" in taken:
                    n += 1
                candidate = f"{candidate}_{n}"
            name = candidate
        taken.add(name)
        names.append(name)
    return names


# --- type ------------------------------------------------------------------------------------

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


# --- nest ------------------------------------------------------------------------------------


def _objects(value: Any) -> bool:
    """A non-empty array of objects: what ``$R`` sub-rows carry."""
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def _is_nestable(values: list[Any]) -> bool:
    """Some record holds a non-empty array of objects here (dcp-wrap's ``$R`` rule: any
    record, not every one, so an empty ``labels`` list in one issue still nests the rest)."""
    return any(_objects(v) for v in values)


def _pooled_items(column: _Column, prefix: str) -> list[dict[str, Any]]:
    """Every item of every record's array of objects in this column, its keys checked."""
    pooled = []
    for index, value in enumerate(column.values):
        for j, item in enumerate(value if _objects(value) else []):
            where = path_join(path_join(f"{prefix}[{index}]", column.path[0]), j)
            for key in check_record(item, where):
                if not isinstance(key, str):
                    raise EncodeTypeError(
                        f"Object keys must be strings, not {type(key).__name__}", where
                    )
            pooled.append(item)
    return pooled
