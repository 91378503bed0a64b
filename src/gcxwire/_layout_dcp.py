"""DCP read with a declared layout: what the dialect cannot tell apart, the layout can.

The gateway dialect writes absent as ``null`` and the others write null as ``"-"``, which
reads back as absent. A layout knows which fields take null and which may be absent, so
:func:`restore` puts back what the records held: an optional field that never holds null
was absent, a required field that may be null was null, and an object holding fields is
there even when all its members were absent. A field that may be both null and absent stays
as read.
"""

from __future__ import annotations

from typing import Any

from ._layout_check import _Node, tree_of
from ._layout_model import Layout

__all__ = ["restore"]


def restore(decoded: Any, layout: Layout) -> Any:
    """``decoded`` (records, or a wrapper of them) with null and absent put back by ``layout``."""
    tree = tree_of(layout)
    if isinstance(decoded, list):
        return [_record(tree, r) if type(r) is dict else r for r in decoded]
    if isinstance(decoded, dict):
        arrays = [k for k, v in decoded.items() if isinstance(v, list)]
        if len(arrays) == 1:
            key = arrays[0]
            rows = [_record(tree, r) if type(r) is dict else r for r in decoded[key]]
            return {k: (rows if k == key else v) for k, v in decoded.items()}
    return decoded


def _record(node: _Node, obj: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in node.order:
        leaf = node.leaves.get(key)
        if leaf is None:  # an object holding fields, there in every record
            value = obj.get(key, {})
            out[key] = _record(node.children[key], value) if type(value) is dict else value
            continue
        item, items = leaf
        if key in obj:
            value = obj[key]
            if value is None and not item.nullable and not item.required:
                continue  # the gateway's null for an absent key
            if items is not None and type(value) is list:
                value = [_record(items, e) if type(e) is dict else e for e in value]
            out[key] = value
        elif item.required and item.nullable:
            out[key] = None  # "-" for a null
    for key, value in obj.items():  # what the layout does not name stays as read
        if key not in node.order:
            out[key] = value
    return out
