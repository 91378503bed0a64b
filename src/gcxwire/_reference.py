"""The reference (gortex bench) GCX1 encoder, reproduced byte for byte.

This is the shape-sniffing encoder the gortex scorecard measures
(``bench/wire-format/encoders.go``) on top of gcx-go's ``EncodeAny``. It is
lossy by design -- every cell is a string, CR is deleted, ``null``, ``""`` and a
missing key all read back as ``""`` -- and exists so that published figures can
be reproduced and compared. Numbers given as :class:`RawNumber` keep their
literal text, as Go's ``UseNumber`` does; nested cells follow ``json.Marshal``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ._impl import escape
from ._json import go_marshal, go_scalar

__all__ = ["encode_reference"]


def _text(s: str) -> str:
    # The reference escape deletes CR everywhere before escaping.
    return escape(s.replace("\r", ""))


def _cell(value: Any) -> str:
    text = go_scalar(value)
    if text is None:
        text = go_marshal(value)
    return _text(text)


def _header(tool: str, fields: Sequence[str], meta: dict[str, Any]) -> str:
    parts = [f"GCX1 tool={_text(tool)} fields={','.join(_text(f) for f in fields)}"]
    for key in sorted(meta):
        parts.append(f" {_text(key)}={_cell(meta[key])}")
    parts.append("\n")
    return "".join(parts)


def _section(
    out: list[str], tool: str, rows: Sequence[Any], meta: dict[str, Any], *, objects: bool
) -> None:
    """Union-of-keys rows (``objects``) or a single ``value`` column."""
    if objects:
        records = [r for r in rows if isinstance(r, dict)]
        fields = sorted({k for r in records for k in r})
        out.append(_header(tool, fields, meta))
        for r in records:
            out.append("\t".join("" if r.get(f) is None else _cell(r[f]) for f in fields) + "\n")
    else:
        out.append(_header(tool, ["value"], meta))
        for item in rows:
            out.append(("" if item is None else _cell(item)) + "\n")


def _present(obj: dict[str, Any], keys: Iterable[str]) -> dict[str, Any]:
    return {k: obj[k] for k in keys if obj.get(k) is not None}


def _encode_any(out: list[str], tool: str, value: Any) -> None:
    if isinstance(value, dict):
        fields = sorted(value)
        out.append(_header(tool, fields, {}))
        out.append("\t".join("" if value[f] is None else _cell(value[f]) for f in fields) + "\n")
    elif isinstance(value, list):
        objects = bool(value) and all(isinstance(v, dict) for v in value)
        _section(out, tool, value, {"rows": len(value)}, objects=objects)
    else:
        _section(out, tool, [value], {}, objects=False)


def encode_reference(value: Any, tool: str) -> str:
    """GCX1 exactly as the gortex bench encoder writes ``value`` for ``tool``."""
    out: list[str] = []
    v = value
    if isinstance(v, dict) and isinstance(v.get("results"), list):
        rows = v["results"]
        meta = {"rows": len(rows), **_present(v, ("total", "truncated"))}
        _section(out, tool, rows, meta, objects=True)
    elif isinstance(v, dict) and isinstance(v.get("symbols"), list):
        rows = v["symbols"]
        meta = {"rows": len(rows), **_present(v, ("total", "etag"))}
        _section(out, tool, rows, meta, objects=True)
    elif isinstance(v, dict) and isinstance(v.get("nodes"), list):
        nodes = v["nodes"]
        meta = {"rows": len(nodes), **_present(v, ("total_nodes", "total_edges", "truncated"))}
        _section(out, f"{tool}.nodes", nodes, meta, objects=True)
        edges = v.get("edges")
        edges = edges if isinstance(edges, list) else []
        _section(out, f"{tool}.edges", edges, {"rows": len(edges)}, objects=True)
    elif isinstance(v, dict) and isinstance(v.get("edges"), list):
        rows = v["edges"]
        meta = {"rows": len(rows), **_present(v, ("total_edges", "truncated"))}
        _section(out, tool, rows, meta, objects=True)
    elif isinstance(v, dict) and isinstance(v.get("implementations"), list):
        rows = v["implementations"]
        meta = {"rows": len(rows), **_present(v, ("total",))}
        _section(out, tool, rows, meta, objects=True)
    elif isinstance(v, dict) and len(v) >= 2 and all(isinstance(x, list) for x in v.values()):
        for key in sorted(v):
            rows = v[key]
            if not rows:
                out.append(_header(f"{tool}.{key}", ["value"], {"rows": 0}))
            else:
                objects = isinstance(rows[0], dict)
                _section(out, f"{tool}.{key}", rows, {"rows": len(rows)}, objects=objects)
    else:
        _encode_any(out, tool, v)
    return "".join(out)
