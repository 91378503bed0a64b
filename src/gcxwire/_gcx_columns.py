"""Column access for the writer's searches: a value at a path, row by row."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ._impl import column_at, source_texts, template_matches
from ._values import ABSENT

Path = tuple[str, ...]


def _at(row: Any, path: Path) -> Any:
    for key in path:
        if type(row) is not dict:
            return ABSENT
        row = row.get(key, ABSENT)
    return row


def _column(rows: Sequence[Any], path: Path) -> list[Any]:
    """``[_at(row, path) for row in rows]`` in one leaf (a call per row cost most passes)."""
    return column_at(rows, path)


def _parent_copy(row: dict[str, Any], path: Path) -> dict[str, Any] | None:
    """The object holding ``path``'s last key in ``row`` (the caller's own copy), each
    object on the way copied so that writing there leaves the input alone; None where
    the path crosses a value that is no object."""
    target = row
    for key in path[:-1]:
        inner = target.get(key)
        if type(inner) is not dict:
            return None
        target[key] = inner = dict(inner)
        target = inner
    return target


def _source_texts(values: Iterable[Any]) -> list[str | None]:
    # _source_text of each value.
    return source_texts(values)


class _Columns:
    """A section's columns, each read from its rows once and kept while the passes ask."""

    def __init__(self, rows: Sequence[Any]) -> None:
        self.rows = rows
        self._values: dict[Path, list[Any]] = {}
        self._texts: dict[Path, list[str | None]] = {}
        self._matches: dict[tuple[Path, Path, str, str], list[int] | None] = {}

    def values(self, path: Path) -> list[Any]:
        got = self._values.get(path)
        if got is None:
            got = self._values[path] = _column(self.rows, path)
        return got

    def texts(self, path: Path) -> list[str | None]:
        # Each row's _source_text at the path.
        got = self._texts.get(path)
        if got is None:
            got = self._texts[path] = _source_texts(self.values(path))
        return got

    def matches(self, path: Path, source: Path, before: str, after: str) -> list[int] | None:
        # Per row, whether the value at path is before + source text + after (1: a str
        # that is, 2: another value equal to it, 0: not); None when a row lacks the path.
        key = (path, source, before, after)
        if key not in self._matches:
            values, texts = self.values(path), self.texts(source)
            self._matches[key] = template_matches(values, texts, before, after, ABSENT)
        return self._matches[key]


_PROBES = 8  # rows of a long table a candidate template is tried on first
