"""The proxy's only door to the codecs: it never formats a table itself.

``gcxwire.encode`` picks among compact JSON, GCX1 and DCP; ``gcxwire.dcp`` (when
this build has it) encodes with the per-tool schemas of :mod:`.lifecycle`.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import orjson

from .. import _auto, tokens
from .._auto import Format
from .lifecycle import SchemaVersion
from .tabular import Table

__all__ = [
    "DcpCodec",
    "Format",
    "count_tokens",
    "decode",
    "detect",
    "encode",
    "loads",
    "optional_codec",
    "same_value",
]

# orjson reads integer literals beyond 64 bits as floats; those texts take the
# exact (slower) standard-library path so no digit is ever lost.
_LONG_DIGIT_RUN = re.compile(rb"\d{19}")

count_tokens = tokens.count
encode = _auto.encode
decode = _auto.decode
detect = _auto.detect


def loads(text: str) -> Any:
    """Parse JSON text exactly; raises ``ValueError`` when it is not JSON."""
    data = text.encode()
    if _LONG_DIGIT_RUN.search(data):
        return json.loads(text, parse_constant=_reject_constant)
    return orjson.loads(data)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def same_value(got: Any, want: Any) -> bool:
    """Equal as JSON values, types and key order included (``1`` is not ``1.0``)."""
    return _auto.first_difference(got, want) is None


def optional_codec(name: str) -> ModuleType | None:
    """``gcxwire.<name>``, or ``None`` while this build does not have it."""
    try:
        return importlib.import_module(f"gcxwire.{name}")
    except ModuleNotFoundError as exc:
        if exc.name == f"gcxwire.{name}":
            return None
        raise


class DcpCodec:
    """DCP with an explicit, versioned schema per tool (the ``build`` of :mod:`.lifecycle`).

    Schemas name fields by their dot paths in source order and make no ``$R``
    sub-schemas: a model (or any decoder) reading the text has only the header,
    never our cache, so the header alone must say where every value belongs.
    """

    def __init__(self, module: ModuleType) -> None:
        self._dcp = module

    def build(
        self, tool: str, version: int, rows: Sequence[dict[str, Any]], exclude: Sequence[str]
    ) -> Any:
        return self._dcp.infer_schema(
            list(rows),
            domain=tool,
            version=version,
            exclude=list(exclude),
            min_presence=0.0,
            order="source",
            naming="path",
            nest=False,
        )

    def from_def(self, definition: dict[str, Any]) -> SchemaVersion:
        """A preset ``DcpSchemaDef``, used as it is from the first call of its tool."""
        schema = self._dcp.DcpSchema.from_def(definition)
        return SchemaVersion(schema.domain, schema.version, "preset", schema)

    def encode(self, table: Table, schema: SchemaVersion) -> str:
        """The table's value (rows, or the wrapper around them) encoded with ``schema``."""
        text: str = self._dcp.encode(table.value, schema.schema)
        return text
