"""The reference (gortex bench) GCX1 encoder, reproduced byte for byte.

This is the shape-sniffing encoder the gortex scorecard measures
(``bench/wire-format/encoders.go``) on top of gcx-go's ``EncodeAny``. It is
lossy by design -- every cell is a string, CR is deleted, ``null``, ``""`` and a
missing key all read back as ``""`` -- and exists so that published figures can
be reproduced and compared. Numbers given as :class:`RawNumber` keep their
literal text, as Go's ``UseNumber`` does; nested cells follow ``json.Marshal``.

Where the bench would write what the reference decoders misread -- a header
token holding a space, a field name with a backslash or a comma, a first cell
starting with ``#`` (read as a comment) or ``GCX1`` (read as a header) -- this
profile refuses with EncodeValueError instead of copying it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal

from ._impl import escape
from ._json import go_marshal, go_scalar, go_sprint
from ._values import path_join
from .errors import EncodeError, EncodeValueError

__all__ = ["encode_reference"]


def _text(s: str) -> str:
    # The reference escape deletes CR everywhere before escaping.
    return escape(s.replace("\r", ""))


def _cell(value: Any, path: str) -> str:
    # go_scalar writes null (and so an absent key) as the empty cell.
    try:
        text = go_scalar(value)
        if text is None:
            text = go_marshal(value)
    except EncodeError as exc:
        raise exc.relocated(path) from None
    return _text(text)


def _token(text: str, what: str, path: str) -> str:
    # Header tokens are split on spaces: one holding a space breaks the payload.
    if " " in text:
        raise EncodeValueError(f"{what} holds a space, which reference decoders misread", path)
    return text


def _header(tool: str, fields: Sequence[str], meta: dict[str, Any], path: str) -> str:
    for name in fields:
        # Reference decoders split the field list on "," and unescape each name twice.
        if "\\" in name or "," in name:
            raise EncodeValueError(
                f"Field name {name!r} holds a backslash or comma, which reference decoders misread",
                path_join(path, name),
            )
    names = ",".join(_token(_text(f), f"Field name {f!r}", path_join(path, f)) for f in fields)
    parts = [f"GCX1 tool={_token(_text(tool), 'The tool name', 'tool')} fields={names}"]
    for key in sorted(meta):
        at = path_join("$", key)  # meta members sit beside the rows, at the top
        value = _token(_cell(meta[key], at), f"Member {key!r}", at)
        parts.append(f" {_token(_text(key), f'Member name {key!r}', at)}={value}")
    parts.append("\n")
    return "".join(parts)


def _row(cells: list[str], path: str) -> str:
    # A first cell starting with `#` is read as a comment, one with `GCX1` as a header.
    if cells and (cells[0].startswith("#") or cells[0].startswith("GCX1")):
        raise EncodeValueError(
            f"A first cell starting {cells[0][:4]!r} is misread by reference decoders", path
        )
    line = "\t".join(cells)
    # One empty cell is a blank line, which reference decoders skip: a lost row.
    if not line:
        raise EncodeValueError(
            "An empty one-column row is a blank line, which reference decoders skip", path
        )
    return line + "\n"


Items = Literal["value", "rows", "objects"]


def _section(
    out: list[str],
    tool: str,
    rows: Sequence[Any],
    meta: dict[str, Any],
    path: str,
    *,
    items: Items,
) -> None:
    """One section of ``rows``: a single ``value`` column, or union-of-keys rows.

    In union-of-keys rows the bench writes an item that is not an object as its
    ``fmt.Sprint`` text in the first cell (``rows``), except in the nodes and
    edges sections, which skip such items (``objects``).
    """
    if items == "value":
        out.append(_header(tool, ["value"], meta, path))
        for i, item in enumerate(rows):
            at = path_join(path, i)
            out.append(_row([_cell(item, at)], at))
        return
    records = [r for r in rows if isinstance(r, dict)]
    fields = sorted({k for r in records for k in r})
    # The bench refuses a non-object item when there are no fields; rows of
    # no cells would be blank lines, which reference decoders skip.
    if not fields and (records if items == "objects" else rows):
        raise EncodeValueError("A row list without object keys has no fields", path)
    out.append(_header(tool, fields, meta, path))
    for i, r in enumerate(rows):
        at = path_join(path, i)
        if isinstance(r, dict):
            out.append(_row([_cell(r.get(f), path_join(at, f)) for f in fields], at))
        elif items == "rows":
            try:
                text = go_sprint(r)
            except EncodeError as exc:
                raise exc.relocated(at) from None
            out.append(_row([_text(text)] + [""] * (len(fields) - 1), at))


def _present(obj: dict[str, Any], keys: Iterable[str]) -> dict[str, Any]:
    return {k: obj[k] for k in keys if obj.get(k) is not None}


def _encode_any(out: list[str], tool: str, value: Any) -> None:
    if isinstance(value, dict):
        fields = sorted(value)
        out.append(_header(tool, fields, {}, "$"))
        out.append(_row([_cell(value[f], path_join("$", f)) for f in fields], "$"))
    elif isinstance(value, list):
        objects = bool(value) and all(isinstance(v, dict) for v in value)
        _section(out, tool, value, {"rows": len(value)}, "$", items="rows" if objects else "value")
    else:  # one value row, at the top
        out.append(_header(tool, ["value"], {}, "$"))
        out.append(_row([_cell(value, "$")], "$"))


def encode_reference(value: Any, tool: str) -> str:
    """GCX1 exactly as the gortex bench encoder writes ``value`` for ``tool``."""
    out: list[str] = []
    v = value
    if isinstance(v, dict) and isinstance(v.get("results"), list):
        rows = v["results"]
        meta = {"rows": len(rows), **_present(v, ("total", "truncated"))}
        _section(out, tool, rows, meta, "$.results", items="rows")
    elif isinstance(v, dict) and isinstance(v.get("symbols"), list):
        rows = v["symbols"]
        meta = {"rows": len(rows), **_present(v, ("total", "etag"))}
        _section(out, tool, rows, meta, "$.symbols", items="rows")
    elif isinstance(v, dict) and isinstance(v.get("nodes"), list):
        nodes = v["nodes"]
        meta = {"rows": len(nodes), **_present(v, ("total_nodes", "total_edges", "truncated"))}
        _section(out, f"{tool}.nodes", nodes, meta, "$.nodes", items="objects")
        edges = v.get("edges")
        edges = edges if isinstance(edges, list) else []
        _section(out, f"{tool}.edges", edges, {"rows": len(edges)}, "$.edges", items="objects")
    elif isinstance(v, dict) and isinstance(v.get("edges"), list) and "nodes" not in v:
        # The edges-only rule: the bench asks for no `nodes` key at all.
        rows = v["edges"]
        meta = {"rows": len(rows), **_present(v, ("total_edges", "truncated"))}
        _section(out, tool, rows, meta, "$.edges", items="rows")
    elif isinstance(v, dict) and isinstance(v.get("implementations"), list):
        rows = v["implementations"]
        meta = {"rows": len(rows), **_present(v, ("total",))}
        _section(out, tool, rows, meta, "$.implementations", items="rows")
    elif isinstance(v, dict) and len(v) >= 2 and all(isinstance(x, list) for x in v.values()):
        for key in sorted(v):
            rows = v[key]
            at = path_join("$", key)
            if not rows:
                out.append(_header(f"{tool}.{key}", ["value"], {"rows": 0}, at))
            else:
                items: Items = "rows" if isinstance(rows[0], dict) else "value"
                _section(out, f"{tool}.{key}", rows, {"rows": len(rows)}, at, items=items)
    else:
        _encode_any(out, tool, v)
    return "".join(out)
