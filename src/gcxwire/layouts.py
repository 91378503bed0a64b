"""Declared layouts: a tool's record fields, frozen per version, one model for GCX1 and DCP.

::

    layout = layouts.load("search_repositories.v1.layout.json")
    text = gcx.encode(result, tool="search_repositories", layout=layout)   # that field order
    text = dcp.encode(result, schema=layout)                               # the same fields
    layout.check(result)                    # [] or the Drifts: new field, type change, ...

A value that does not fit raises ``DriftError`` naming the path, tool and version, or with
``on_drift="fallback"`` is written in the inferred encoding and the drift reported.
``Layout.infer`` freezes what a tool sends today; ``Registry`` holds many layouts and is
itself one DCP table (``dcp.encode(registry.entries(), dcp.REGISTRY_SCHEMA)``).
The file format is specified in docs/layouts.md; the parts live by job in ``_layout_model``
(the model), ``_layout_file`` (files, the registry), ``_layout_check`` (drift) and
``_layout_infer`` (inference).
"""

from __future__ import annotations

from ._dcp_schema import STATUSES, Status
from ._layout_check import Drift, DriftKind, OnDrift
from ._layout_file import LAYOUT_SUFFIX, REGISTRY_SUFFIX, Registry, load, save
from ._layout_model import FORMAT_VERSION, JSON_TYPES, UNSET, Field, JsonType, Layout, Template
from .errors import DriftError, LayoutError

__all__ = [
    "FORMAT_VERSION",
    "JSON_TYPES",
    "LAYOUT_SUFFIX",
    "REGISTRY_SUFFIX",
    "STATUSES",
    "UNSET",
    "Drift",
    "DriftError",
    "DriftKind",
    "Field",
    "JsonType",
    "Layout",
    "LayoutError",
    "OnDrift",
    "Registry",
    "Status",
    "Template",
    "load",
    "save",
]
