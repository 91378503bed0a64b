"""Objects and scalars: a JSON object as a record, its tables as sections."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from typing import Any

from . import _gcx_lines as lines
from ._gcx_cell_styles import _cell_styles
from ._gcx_columns import Path, _at
from ._gcx_groups import _grouped_names, _spread_groups
from ._gcx_header import _field_text, _header_line, _meta_pair, _name_list, _one_cell
from ._gcx_model import (
    _FLAT,
    _IS,
    _OF,
    _SPACE,
    _VALUE,
)
from ._gcx_plan import _style, _style_pairs, _table_fields
from ._gcx_section import Below, Table, _columnar, _columnar_section, _table, _uniform_section
from ._gcx_template import _derive_record, _written_templates
from ._impl import (
    encode_row,
    escape,
)
from ._values import ABSENT, path_join
from .errors import EncodeError, EncodeTypeError


def _write_value(out: list[str], tool_text: str, value: Any) -> None:
    """The catch-all shape: one ``value`` cell per list element, or one for the whole value."""
    if isinstance(value, (list, tuple)):
        out.append(_header_line(tool_text, _VALUE, [(_IS, "list")]))
        for i, item in enumerate(value):
            try:
                out.append(_one_cell(item))
            except EncodeError as exc:
                raise exc.relocated(path_join("$", i)) from None
            out.append("\n")
    else:
        out.append(_header_line(tool_text, _VALUE, [(_IS, "value")]))
        out.append(_one_cell(value))
        out.append("\n")


# Tables are looked for this many objects deep below a top-level member.
_DEEP = 3


def _member_table(value: Any, where: str, below: Below | None = None) -> list[str] | Table | None:
    """A member as a table section: its fields, its whole section, or None."""
    if isinstance(value, (list, tuple)):
        found: list[str] | Table | None = _uniform_section(value, where, below)
        return found if found is not None else _table_fields(value, where)
    columns = _columnar(value)
    return None if columns is None else _columnar_section(columns, where, None)


def _holds_table(value: Any, depth: int) -> bool:
    """Does this object hold a table member (within _DEEP objects), so that it is opened?

    Only objects whose keys can all be group members are opened (no dot, no
    comma, no whitespace), so that a dotted path names one place only.
    """
    if type(value) is not dict or not value or depth > _DEEP:
        return False
    if not all(type(k) is str and k and "." not in k and _field_text(k) for k in value):
        return False
    for member in value.values():
        if type(member) is dict:
            if _columnar(member) is not None or _holds_table(member, depth + 1):
                return True
        elif isinstance(member, (list, tuple)) and len(member) > 1:  # one row: JSON is as short
            try:
                if _table_fields(member, "$") is not None:
                    return True
            except EncodeError:
                continue
    return False


Member = tuple[tuple[str, ...], Any]


def _members(obj: dict[str, Any]) -> list[Member]:
    """The object's members by path, depth first, opening objects that hold tables."""
    out: list[Member] = []
    dotted = sorted(k for k in obj if isinstance(k, str) and "." in k)

    def walk(value: dict[str, Any], path: tuple[str, ...]) -> None:
        for key, member in value.items():
            if not isinstance(key, str):
                raise EncodeTypeError(f"Object key {key!r} is not a string", "$")
            here = (*path, key)
            closed = not path and (  # a top-level name no group can carry
                "." in key or _field_text(key) is None or _prefixes_one(dotted, key + ".")
            )
            if not closed and _columnar(member) is None and _holds_table(member, len(here)):
                walk(member, here)
            else:
                out.append((here, member))

    walk(obj, ())
    return out


def _prefixes_one(names: list[str], start: str) -> bool:
    # Whether a name of the sorted list starts with `start`: the names that do
    # follow one another from where `start` would go (a scan of every name per
    # top-level key was quadratic in an object's members).
    at = bisect_left(names, start)
    return at < len(names) and names[at].startswith(start)


def _where(path: tuple[str, ...]) -> str:
    where = "$"
    for key in path:
        where = path_join(where, key)
    return where


def _of_text(path: tuple[str, ...]) -> str:
    # `of=query.search`: a table inside member objects; a dot inside a key is `\.`,
    # a `[` is `\[` (`[]` is a list step: child sections, _gcx_nested).
    return ".".join(escape(key).replace(".", "\\.").replace("[", "\\[") for key in path)


def _below(tool_text: str, path: tuple[str, ...]) -> Below | None:
    # A member table's place for child sections; a member named "" has the
    # top-level table's `of=` text (""), so it gets none.
    of = _of_text(path)
    return (tool_text, of, 0) if of else None


def _write_object(
    out: list[str],
    tool_text: str,
    obj: dict[str, Any],
    fixed: tuple[tuple[str, ...], Table] | None = None,
) -> None:
    # `fixed`: a member's table section written beforehand (a declared layout's), by path.
    columns = _columnar(obj)
    if columns is not None:  # the whole object is parallel arrays: one table
        out.extend((_columnar_section(columns, "$", tool_text)[2], "\n"))
        return
    # Split the members into tables (lists of objects) and runs of other members;
    # members of objects that hold tables are taken one by one, by path.
    # A table is its fields, or already its section when the fast path wrote it.
    segments: list[tuple[tuple[str, ...], Any, list[str] | Table] | list[Member]] = []
    run: list[Member] = []
    for path, value in _members(obj):
        found: list[str] | Table | None = None
        key = path[-1]
        if fixed is not None and path == fixed[0]:
            found = fixed[1]
        elif escape(key) and not _SPACE.search(escape(key)):
            found = _member_table(value, _where(path), _below(tool_text, path))
        if found is None:
            run.append((path, value))
            continue
        if run:
            segments.append(run)
            run = []
        segments.append((path, value, found))
    if run:
        segments.append(run)

    if not any(isinstance(s, tuple) for s in segments):
        keys = list(obj)
        if keys and all(_field_text(k) is not None for k in keys):
            record, fields, names, spread_pair = obj, keys, None, []
            leaves: list[Path] = [(k,) for k in keys]
            spread = _spread_groups(obj, leaves) if dict in map(type, obj.values()) else None
            # Member objects in groups, one column per member path, in the field list
            # the search wrote (a brace in any name keeps the plain list: no plan).
            if spread is not None:
                fields, leaves, names = spread
                record = _by_path(obj, fields, leaves)
                spread_pair = [(_FLAT, "{}")]
            whole = record
            record, templates = _derive_record(record, fields)  # `_links.self={url}` too
            derived, names, listed = _written_templates(fields, leaves, templates, {}, names)
            style = _style([record], fields)
            try:
                row = encode_row(record, fields, *style)
            except EncodeError as exc:  # a grouped member named by its path: `$.owner.id`
                raise _by_member(exc, fields, leaves) from None
            paths: list[Path | None] = [(k,) for k in fields]
            row, marks = _cell_styles(row, False, [record], fields, paths)  # json=raw, crlf=
            # Long texts in lines sections of their own: only a row with a `\n` has
            # one, and a memchr for the backslash rules most out (a JSON cell of a
            # big object is long).
            if "\\" in row:
                row = lines.record_lines(
                    row, tool_text, whole, record, fields, leaves, bool(templates), style[0], False
                )
            pairs = [*_style_pairs(fields, *style), *spread_pair, *derived, *marks, (_IS, "object")]
            out.append(_header_line(tool_text, fields, pairs, listed, names))
            out.extend((row, "\n"))  # the payload's final LF drops without a copy
        else:
            _write_value(out, tool_text, obj)
        return

    # Each section: header pairs and rows. Runs of top-level members that fit in
    # a header ride on the neighbouring table's header, in member order around
    # its `of=` marker; members inside opened objects form records (`flat=`).
    sections: list[
        tuple[list[str], list[tuple[str, str]], list[str], dict[str, str], str | None]
    ] = []
    last_table: list[tuple[str, str]] | None = None
    waiting: list[tuple[str, str]] = []
    for seg in segments:
        if isinstance(seg, tuple):
            path, value, found = seg
            if isinstance(found, tuple):
                fields, pairs, text, constants, names = found
            else:
                below = _below(tool_text, path)
                fields, pairs, text, constants, names = _table(value, found, _where(path), below)
            pairs.extend([*waiting, (_OF, _of_text(path))])
            waiting = []
            # The LF is its own element, so the payload's final LF drops without a copy.
            sections.append((fields, pairs, [text, "\n"], constants, names))
            last_table = pairs
            continue
        nested = any(len(path) > 1 for path, _ in seg)
        if not nested:
            meta = [_meta_pair(p[0], v, _where(p)) for p, v in seg]
            if all(m is not None for m in meta):
                target = last_table if last_table is not None else waiting
                target.extend(m for m in meta if m is not None)
                continue
        keys = [".".join(p) for p, _ in seg]
        if not all(_field_text(k) is not None for k in keys):
            out.clear()
            _write_value(out, tool_text, obj)
            return
        seg_paths = [p for p, _ in seg]
        spread = _spread_groups(obj, seg_paths)
        names = None
        if spread is not None:
            keys, seg_paths, names = spread  # member objects in groups
            record = _by_path(obj, keys, seg_paths)
        else:
            # The opened objects' members in groups too (`spec{template{spec{dnsPolicy,…}}}`)
            # where they read so, instead of dotted names.
            deep = sum(len(p) > 1 for p in seg_paths)
            names = _grouped_names(keys, seg_paths, {}) if deep >= _GROUPS_MIN else None
            record = dict(zip(keys, (v for _, v in seg), strict=True))
        whole = record
        record, templates = _derive_record(record, keys)
        derived, names, listed = _written_templates(keys, seg_paths, templates, {}, names)
        style = _style([record], keys)
        try:
            line = encode_row(record, keys, *style) + "\n"
        except EncodeError as exc:  # name the member by its path: `$.query.total`
            raise _by_member(exc, keys, seg_paths) from None
        pairs = _style_pairs(keys, *style)
        groups = sorted({".".join(p[:i]) for p in seg_paths for i in range(1, len(p))})
        if names is not None:
            pairs.append((_FLAT, "{}"))
        elif groups:
            pairs.append((_FLAT, _name_list(groups)))
        line, marks = _record_styles(line, record, keys)
        if "\\" in line and "\\n" in line:  # long texts in lines sections; the row keeps a cell
            held = (whole, record, keys, seg_paths, bool(templates), style[0], True)
            line = lines.record_lines(line[:-1], tool_text, *held) + "\n"
        pairs = [*pairs, *derived, *marks, (_IS, "object")]
        sections.append((keys, pairs, [line], listed or {}, names))
        last_table = None
    for fields, pairs, body, constants, names in sections:
        out.append(_header_line(tool_text, fields, pairs, constants, names))
        out.extend(body)


# A record of dotted names writes them in groups from this many: `flat={}` and the
# braces cost about what a few repeated `spec.template.` prefixes do.
_GROUPS_MIN = 4


def _record_styles(
    line: str, record: dict[str, Any], keys: list[str]
) -> tuple[str, list[tuple[str, str]]]:
    """A record section's row (ending in LF) in the cell styles that pay, and their marks.

    The records beside an object's tables hold the same cells a lone record
    does (Kubernetes' `last-applied-configuration` annotation, JSON text inside
    a JSON cell): `json=raw`, `tree=`, `str=` and `crlf=` apply to them alike.
    """
    paths: list[Path | None] = [(k,) for k in keys]
    row, marks = _cell_styles(line[:-1], False, [record], keys, paths)
    return row + "\n", marks


def _by_member(exc: EncodeError, names: Sequence[str], paths: Sequence[Path]) -> EncodeError:
    """A record row's error at a dotted column (`$['query.total']`) named by its path."""
    for name, path in zip(names, paths, strict=True):
        cell = path_join("$", name)
        if exc.path == cell or exc.path.startswith((cell + ".", cell + "[")):
            return type(exc)(exc.reason, _where(path) + exc.path[len(cell) :])
    return exc


def _by_path(record: dict[str, Any], fields: list[str], paths: list[Path]) -> dict[str, Any]:
    # The record's members by column name (`owner.login`), absent ones left out.
    found = ((f, _at(record, p)) for f, p in zip(fields, paths, strict=True))
    return {f: v for f, v in found if v is not ABSENT}
