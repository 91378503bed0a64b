"""The per-tool schema lifecycle of the dcp-gateway design.

::

    first rows ............ infer provisional v1, encode with it at once
    N rows seen ........... confirmed v(n+1): fields null in every row left out
    new field / new type .. provisional v(n+1) inferred from the rows that drifted

:class:`SchemaValidator` does the bookkeeping for one tool and knows nothing about
codecs. :class:`SchemaLifecycle` keeps one validator and the current
:class:`SchemaVersion` per tool in an LRU cache, and asks a ``build`` callback
(the DCP adapter) for the codec's schema object of each new version.

Fields are dot paths into the rows (``user.login``); a nested object is both a
field of kind ``object`` and the parent of its members' paths, so a member
appearing deep inside a row counts as a new field.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Literal

__all__ = [
    "Event",
    "SchemaLifecycle",
    "SchemaValidator",
    "SchemaVersion",
    "Status",
    "field_kinds",
]

Status = Literal["provisional", "confirmed", "preset", "declared"]
Row = dict[str, Any]
# build(tool, version, rows, exclude) -> the codec's schema object for that version
SchemaBuilder = Callable[[str, int, Sequence[Row], Sequence[str]], Any]

# Rows kept per tool for re-inference; enough for a representative schema,
# bounded so a tool returning 100k rows per call costs no memory.
MAX_KEPT_ROWS = 256


class Event(Enum):
    SAMPLED = "sampled"  # rows counted, nothing changed
    PROMOTE = "promote"  # enough rows: confirm the schema now
    DRIFT = "drift"  # a new field or a new type: re-infer


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"  # 1 and 1.5 share a column without drift
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def field_kinds(row: Row, prefix: str = "") -> Iterator[tuple[str, str]]:
    """``(path, kind)`` for every field of ``row``, nested objects included."""
    for key, value in row.items():
        path = f"{prefix}{key}"
        yield path, _kind(value)
        if isinstance(value, dict):
            yield from field_kinds(value, path + ".")


Shapes = list[tuple[Row, int, list[tuple[str, str]]]]


def shapes(rows: Sequence[Row]) -> Shapes:
    """The rows grouped by shape, in order of first appearance: ``(first row,
    rows of that shape, its field_kinds)``. Rows with the same keys in the same
    order and the same value types have the same field kinds, so a table's
    bookkeeping walks each shape once instead of every row."""
    groups: dict[tuple[Any, ...], list[Any]] = {}
    for row in rows:
        types = tuple(map(type, row.values()))
        key: tuple[Any, ...] = (tuple(row), types)
        if dict in types:  # nested objects: their own fields are part of the shape
            key = (key, tuple(field_kinds(row)))
        group = groups.get(key)
        if group is None:
            groups[key] = [row, 1, None]
        else:
            group[1] += 1
    return [(row, count, list(field_kinds(row))) for row, count, _ in groups.values()]


class SchemaValidator:
    """Count rows for one tool, detect drift, and say when to confirm.

    ``observe(rows)`` answers :attr:`Event.DRIFT` when a row has a field never
    seen before or a non-null value of a new type (the rows are then *not*
    counted; call :meth:`restart` with them), :attr:`Event.PROMOTE` once, when the
    rows seen so far reach ``confirm_after``, and :attr:`Event.SAMPLED` otherwise.
    """

    def __init__(self, confirm_after: int = 10) -> None:
        if confirm_after < 1:
            raise ValueError("confirm_after must be >= 1")
        self.confirm_after = confirm_after
        self.samples = 0
        self.promoted = False
        self._kinds: dict[str, set[str]] = {}  # non-null kinds seen per path
        self._non_null: dict[str, int] = {}  # rows where the path had a value
        self._seen_once = False

    def observe(self, rows: Sequence[Row], shaped: Shapes | None = None) -> Event:
        """``shaped``: ``shapes(rows)``, when the caller has it already."""
        shaped = shapes(rows) if shaped is None else shaped
        if self._seen_once and self._drifts(shaped):
            return Event.DRIFT
        self._count(len(rows), shaped)
        if not self.promoted and self.samples >= self.confirm_after:
            self.promoted = True
            return Event.PROMOTE
        return Event.SAMPLED

    def restart(self, rows: Sequence[Row]) -> Event:
        """Forget every sample and start counting again from ``rows``."""
        self.samples = 0
        self.promoted = False
        self._kinds.clear()
        self._non_null.clear()
        self._seen_once = False
        return self.observe(rows)

    def always_null(self) -> list[str]:
        """Paths that were null or absent in every row seen (null rate 1.0).

        Members of a path that is itself always null are not listed separately.
        """
        return [
            path
            for path in self._kinds
            if self._non_null.get(path, 0) == 0
            and not _under_any(path, self._kinds, self._non_null)
        ]

    def _drifts(self, shaped: Shapes) -> bool:
        for _, _, kinds in shaped:
            for path, kind in kinds:
                known = self._kinds.get(path)
                if known is None:
                    return True  # a new field
                if kind != "null" and known and kind not in known:
                    return True  # a type change
        return False

    def _count(self, rows: int, shaped: Shapes) -> None:
        self._seen_once = True
        self.samples += rows
        for _, count, fields in shaped:
            for path, kind in fields:
                kinds = self._kinds.setdefault(path, set())
                if kind != "null":
                    kinds.add(kind)
                    self._non_null[path] = self._non_null.get(path, 0) + count

    def null_to_value(
        self, rows: Sequence[Row], paths: Sequence[str], shaped: Shapes | None = None
    ) -> bool:
        """Whether any of ``paths`` (fields left out as always null) has a value now."""
        if not paths:
            return False
        dropped = set(paths)
        return any(
            kind != "null" and path in dropped
            for _, _, kinds in (shapes(rows) if shaped is None else shaped)
            for path, kind in kinds
        )


def _under_any(path: str, kinds: dict[str, set[str]], non_null: dict[str, int]) -> bool:
    """Whether an ancestor of ``path`` is also always null (list the ancestor only)."""
    parts = path.split(".")
    for end in range(1, len(parts)):
        ancestor = ".".join(parts[:end])
        if ancestor in kinds and non_null.get(ancestor, 0) == 0:
            return True
    return False


@dataclass(frozen=True)
class SchemaVersion:
    """One version of a tool's schema, as used to encode one result."""

    tool: str
    version: int
    status: Status
    schema: Any = None  # the codec's schema object
    dropped: tuple[str, ...] = ()  # paths left out because they were always null
    layout: Any = None  # the declared layout (gcxwire.layouts.Layout) it was made from

    @property
    def id(self) -> str:
        return f"{self.tool}:v{self.version}"


@dataclass
class _ToolEntry:
    current: SchemaVersion
    validator: SchemaValidator
    rows: list[Row] = field(default_factory=list)  # the latest rows, for re-inference
    # The first row to show each field, so a confirmed schema, inferred long after
    # that row left ``rows``, still has the field.
    exemplars: list[Row] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)

    def keep(self, rows: Sequence[Row], shaped: Shapes) -> None:
        for row, _, kinds in shaped:  # a shape's later rows add no field
            paths = {path for path, _ in kinds}
            if not paths <= self.seen:
                self.exemplars.append(row)
                self.seen |= paths
        self.rows.extend(rows)
        del self.rows[:-MAX_KEPT_ROWS]

    def sample(self) -> list[Row]:
        kept = {id(row) for row in self.rows}
        return [row for row in self.exemplars if id(row) not in kept] + self.rows


class SchemaLifecycle:
    """Schema versions of every tool of one server, in an LRU cache.

    ``schema_for(tool, rows)`` returns the version to encode this result with,
    then counts the rows; a promotion it triggers applies from the next result
    on, as in the dcp-gateway ("the client sees a more compact $S from call N+1").
    """

    def __init__(
        self,
        build: SchemaBuilder,
        *,
        confirm_after: int = 10,
        cache_size: int = 128,
        presets: dict[str, SchemaVersion] | None = None,
    ) -> None:
        self._build = build
        self._confirm_after = confirm_after
        self._cache_size = cache_size
        self._presets = dict(presets or {})
        self._entries: OrderedDict[str, _ToolEntry] = OrderedDict()

    def __contains__(self, tool: str) -> bool:
        return tool in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def current(self, tool: str) -> SchemaVersion | None:
        entry = self._entries.get(tool)
        return None if entry is None else entry.current

    def schemas(self) -> list[tuple[str, SchemaVersion]]:
        """Every tool's schema now: the presets, then the learned ones (the
        current version of each tool in the cache, which no preset covers)."""
        learned = [
            (tool, entry.current)
            for tool, entry in list(self._entries.items())
            if tool not in self._presets
        ]
        return [*self._presets.items(), *learned]

    def preset(self, tool: str) -> SchemaVersion | None:
        """The schema the user gave for ``tool`` (a preset or a declared layout)."""
        return self._presets.get(tool)

    def schema_for(self, tool: str, rows: Sequence[Row]) -> SchemaVersion:
        preset = self._presets.get(tool)
        if preset is not None:  # a preset is the user's choice: used as it is
            return preset
        entry = self._entries.get(tool)
        shaped = shapes(rows)  # walked once for every step below
        if entry is None:
            entry = self._new_entry(tool, rows, version=1)
            used = entry.current
            self._remember(tool, entry, rows, shaped)
            return used
        self._entries.move_to_end(tool)
        event = entry.validator.observe(rows, shaped)
        if event is Event.SAMPLED and entry.validator.null_to_value(
            rows, entry.current.dropped, shaped
        ):
            event = Event.DRIFT
        if event is Event.DRIFT:
            version = entry.current.version + 1
            entry = self._new_entry(tool, rows, version=version)
            used = entry.current
            self._remember(tool, entry, rows, shaped)
            return used
        used = entry.current
        self._sample(entry, rows, shaped, event)
        return used

    def _new_entry(self, tool: str, rows: Sequence[Row], *, version: int) -> _ToolEntry:
        return _ToolEntry(
            self._version(tool, version, rows, ()), SchemaValidator(self._confirm_after)
        )

    def _remember(self, tool: str, entry: _ToolEntry, rows: Sequence[Row], shaped: Shapes) -> None:
        self._entries[tool] = entry
        self._entries.move_to_end(tool)
        while len(self._entries) > self._cache_size:
            self._entries.popitem(last=False)
        self._sample(entry, rows, shaped, entry.validator.observe(rows, shaped))

    def _sample(self, entry: _ToolEntry, rows: Sequence[Row], shaped: Shapes, event: Event) -> None:
        entry.keep(rows, shaped)
        if event is Event.PROMOTE:
            dropped = tuple(entry.validator.always_null())
            entry.current = self._version(
                entry.current.tool, entry.current.version + 1, entry.sample(), dropped, "confirmed"
            )

    def _version(
        self,
        tool: str,
        version: int,
        rows: Sequence[Row],
        dropped: tuple[str, ...],
        status: Status = "provisional",
    ) -> SchemaVersion:
        schema = self._build(tool, version, rows, dropped)
        return SchemaVersion(tool, version, status, schema, dropped)
