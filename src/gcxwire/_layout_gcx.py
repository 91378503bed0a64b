"""GCX1 with a declared layout: the table section written from the layout, and checked on read.

The section's field list is the layout's, in its order (dotted fields as ``flat=`` groups);
its markers are the ones the layout declares (constant columns, ``prefix=``, ``template=``),
never inferred ones, so a tool's header is the same on every call; only the reading styles
(``empty=null``, ``float=``, ``json=raw``, ``str=``) follow the rows. A wrapper's other
members are written as without a layout.
"""

from __future__ import annotations

from typing import Any

from ._dcp_schema import unwrap
from ._gcx_cell_styles import _cell_styles
from ._gcx_decode import _marker, _of_path, _parse_header
from ._gcx_groups import _grouped_names
from ._gcx_header import _field_text, _header_start, _meta_text, _name_list, _tool_text
from ._gcx_model import _FLAT, _FORM, _IS, _OF, _PREFIX, _SPACE, _TEMPLATE, Header
from ._gcx_plan import _style_pairs
from ._gcx_prefix import _cut_prefixes, _prefix_text
from ._gcx_record import _write_object
from ._gcx_template import _drop_derived, _template_text
from ._impl import encode_table, escape, format_cell
from ._layout_model import UNSET, Layout, per_layout
from .errors import DecodeError, EncodeError, EncodeValueError
from .limits import Limits

__all__ = ["check_header", "encode"]

Path = tuple[str, ...]


class _Plan:
    """What a layout's section header holds: fields, paths, groups, constants, prefixes."""

    def __init__(self, layout: Layout) -> None:
        self.fields = [f.path for f in layout.fields]
        self.paths: list[Path] = [f.segments for f in layout.fields]
        where = f"layout {layout.id}"
        for name in self.fields:
            if _field_text(name) is None:
                raise EncodeValueError(f"Field {name!r} of {where} cannot be a GCX1 field name")
        self.groups = list(
            dict.fromkeys(".".join(p[:n]) for p in self.paths for n in range(1, len(p)))
        )
        self.constants: dict[str, str] = {}
        for f in layout.fields:
            if f.constant is not UNSET:
                text = format_cell(f.constant)
                if "," in text or _SPACE.search(escape(text)):
                    raise EncodeValueError(
                        f"The constant of {f.path!r} in {where} cannot be written in a GCX1 header"
                    )
                self.constants[f.path] = text
        if len(self.constants) == len(self.fields):  # a row line needs one real cell
            del self.constants[self.fields[0]]
        self.prefixes: dict[int, str] = {}
        for k, f in enumerate(layout.fields):
            if f.prefix is not None:
                if _SPACE.search(_prefix_text(f.path, f.prefix)):
                    raise EncodeValueError(
                        f"The prefix of {f.path!r} in {where} cannot be written in a GCX1 header"
                    )
                self.prefixes[k] = f.prefix
        self.templates: dict[int, tuple[int, str, str]] = {}
        index = {name: k for k, name in enumerate(self.fields)}
        for k, f in enumerate(layout.fields):
            if f.template is not None:
                t = f.template
                if _SPACE.search(t.before + t.after):
                    raise EncodeValueError(
                        f"The template of {f.path!r} in {where} cannot be written in a GCX1 header"
                    )
                self.templates[k] = (index[t.source], t.before, t.after)
        self.names = None
        if self.groups:  # `owner{login,id}` where it reads the same, else `flat=owner`
            self.names = _grouped_names(self.fields, self.paths, self.constants)


@per_layout
def _plan(layout: Layout) -> _Plan:
    return _Plan(layout)


def encode(value: Any, layout: Layout) -> str:
    """GCX1 of ``value`` (which fits ``layout``) with the layout's section."""
    tool_text = _tool_text(layout.tool)
    plan = _plan(layout)
    members, key, records = unwrap(value)
    pairs: list[tuple[str, str]] = []
    if plan.groups:
        groups = _name_list(plan.groups)
        pairs.append((_FLAT, "{}" if plan.names is not None else groups))
    rows = records
    if plan.templates:  # the cells a template gives are left blank
        rows = _drop_derived(rows, plan.paths, plan.templates)
        pairs.extend(
            (_TEMPLATE, _template_text(plan.fields[k], plan.fields[s], before, after))
            for k, (s, before, after) in plan.templates.items()
        )
    cuts: list[int] | None = None
    if plan.prefixes:  # every string has it (checked): the writer cuts top-level members
        if all(len(plan.paths[k]) == 1 for k in plan.prefixes):
            cuts = [len(plan.prefixes.get(k, "")) for k in range(len(plan.fields))]
        else:  # members of spread objects: cut in copies of the rows
            rows = _cut_prefixes(rows, plan.paths, plan.prefixes)
        pairs.extend((_PREFIX, _prefix_text(plan.fields[k], t)) for k, t in plan.prefixes.items())
    fields, constants = plan.fields, plan.constants
    cells: list[str] = fields
    cell_paths: list[Path | None] = list(plan.paths)
    if constants:  # their cells stay empty; the trailing run leaves the rows
        cell_paths = [None if f in constants else p for f, p in zip(fields, plan.paths)]
        n = len(fields)
        while fields[n - 1] in constants:
            n -= 1
        cells, cell_paths = fields[:n], cell_paths[:n]
        cuts = None if cuts is None else cuts[:n]
    where = "$" if key is None else f"$.{key}" if key.isidentifier() else f"$[{key!r}]"
    if members is None:
        head = _header_start(tool_text, fields, constants, plan.names)
        text = _rows(rows, cells, cell_paths, head, _meta_text(pairs) + "\n", where, cuts)[0]
        text, marks = _cell_styles(text, True, rows, cells, cell_paths)
        if marks:  # the header is the text's first line
            cut = text.index("\n") if "\n" in text else len(text)
            text = text[:cut] + _meta_text(marks) + text[cut:]
        return text.removesuffix("\n")
    if not escape(key or "") or _SPACE.search(escape(key or "")):
        raise EncodeValueError("The member holding the records cannot be named in a GCX1 header")
    text, empty_null, floats = _rows(rows, cells, cell_paths, None, "", where, cuts)
    text, marks = _cell_styles(text, False, rows, cells, cell_paths)
    styled = [*_style_pairs(fields, empty_null, floats), *pairs, *marks]
    table = (fields, styled, text, constants, plan.names)
    out: list[str] = []
    assert isinstance(value, dict) and key is not None
    _write_object(out, tool_text, value, ((key,), table))
    if out and out[-1] == "\n":
        out.pop()
    return "".join(out).removesuffix("\n")


def _rows(
    rows: list[Any],
    cells: list[str],
    paths: list[Path | None],
    head: str | None,
    tail: str,
    where: str,
    cuts: list[int] | None,
) -> tuple[str, bool, frozenset[str]]:
    try:
        written = encode_table(rows, cells, paths, head, tail, None, cuts)
    except EncodeError as exc:
        raise exc.relocated(where) from None
    assert written is not None  # only a keys check gives None
    return written


# --- reading ---------------------------------------------------------------------------------


def _headers(doc: str, limits: Limits) -> list[tuple[Header, int]]:
    """Every header line with its offset: lines starting ``GCX1`` (a row never does), found
    by searching, not by walking the rows."""
    starts = [0] if doc.startswith("GCX1") else []
    at = doc.find("\nGCX1")
    while at >= 0:
        starts.append(at + 1)
        at = doc.find("\nGCX1", at + 1)
    found = []
    for pos in starts:
        end = doc.find("\n", pos)
        line = doc[pos : len(doc) if end < 0 else end].removesuffix("\r")
        found.append((_parse_header(line, doc, pos, limits), pos))
    return found


def _is_layout_table(header: Header) -> bool:
    if any(k == _FORM for k, _ in header.raw_meta):
        return False
    marker = _marker(header)
    if marker is None:
        return True
    kind, raw = marker
    return kind == _OF and len(_of_path(raw)) == 1


def check_header(doc: str, layout: Layout, limits: Limits) -> None:
    """Raise ``DecodeError`` (at the header) unless ``doc``'s table section is the one
    :func:`encode` writes for ``layout``: its tool, fields, groups and declared markers."""
    headers = _headers(doc, limits)
    tables = [(h, pos) for h, pos in headers if _is_layout_table(h)]
    where = f"layout {layout.id}"
    if len(tables) != 1:
        pos = headers[0][1] if headers else 0
        raise DecodeError.at(f"The payload holds {len(tables)} tables, {where} one", doc, pos)
    header, pos = tables[0]
    end = doc.find("\n", pos)
    line = doc[pos : len(doc) if end < 0 else end]

    def fail(problem: str, token: str) -> DecodeError:
        at = line.find(" " + token)
        return DecodeError.at(f"{problem}, {where} says otherwise", doc, pos + max(at + 1, 0))

    if header.tool != layout.tool:
        raise fail(f"The header names tool {header.tool!r}", "tool=")
    plan = _plan(layout)
    if list(header.columns) != plan.fields:
        got = ",".join(header.columns)
        raise fail(f"The header's fields are {got!r}, not {','.join(plan.fields)!r}", "fields=")
    if set(header.flat) != set(plan.groups):
        raise fail(f"The header groups {sorted(header.flat)!r}", "fields=")
    if dict(header.constants) != plan.constants:
        raise fail(f"The header's constant columns are {dict(header.constants)!r}", "fields=")
    prefixes = {plan.fields[k]: text for k, text in plan.prefixes.items()}
    if dict(header.prefixes) != prefixes:
        raise fail("The header's prefixed columns differ", _PREFIX + "=")
    templates = {
        (plan.fields[k], plan.fields[s], before, after)
        for k, (s, before, after) in plan.templates.items()
    }
    if set(header.templates) != templates:
        raise fail("The header's derived columns differ", _TEMPLATE + "=")
    if any(k == _IS for k, _ in header.raw_meta):
        raise fail("The section is a record", _IS + "=")
