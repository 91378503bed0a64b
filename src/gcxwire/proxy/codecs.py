"""The proxy's only door to the codecs: it never formats a table itself.

``gcxwire.encode`` picks among compact JSON, GCX1 and DCP; ``gcxwire.dcp`` (when
this build has it) encodes with the per-tool schemas of :mod:`.lifecycle`.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Sequence
from types import ModuleType
from typing import Any

import orjson

from .. import _auto, tokens
from .._auto import Format
from .._impl import plain_json
from .._values import difference, dumps_valid, has_long_digits, same
from .._values import loads as _exact_loads
from ..limits import DEFAULT_LIMITS, digit_limit, long_json_number
from .lifecycle import SchemaVersion
from .tabular import Table

__all__ = [
    "DcpCodec",
    "Format",
    "compact",
    "count_part",
    "count_tokens",
    "decode",
    "detect",
    "difference",
    "encode",
    "estimate_tokens",
    "loads",
    "optional_codec",
    "quick_tokens",
    "reads_back",
    "registry_table",
    "same",
    "spread_of_total",
    "stats_tokens",
]


def loads(text: str, *, long_digits: bool = True) -> Any:
    """A result's JSON text, exactly (ints past 64 bits too), as the proxy reads it.

    A number past the interpreter's digit limit raises ``ValueError`` (the result then
    passes through as it came): reading one costs more than linear time, so one long
    number from a server could hold the proxy for a minute (12.8 M digits: 54 s).
    ``long_digits=False`` says the caller knows the text holds no run of 16 digits
    (its answer line is plain, ``jsonrpc.LineNumbers.plain``): no search for one.
    """
    if not (long_digits and has_long_digits(text)):
        return _exact_loads(text, scan=False)
    if long_json_number(text, digit_limit(DEFAULT_LIMITS)) >= 0:
        raise ValueError("A number has more digits than the interpreter's limit")
    return _exact_loads(text)


@functools.lru_cache(maxsize=4)
def count_tokens(text: str) -> int:
    """``tokens.count``, remembered for the last few texts: one result's compact
    JSON is counted as the baseline and again as a candidate."""
    return tokens.count(text)


count_part = tokens.count  # not remembered: the many small parts of a sample

# Stats and candidates are counted exactly up to this many characters; a longer
# text is estimated from a sample (tokens.estimate: 16 windows, 1 % of the text
# and at least 1,024 characters) and counted only where estimates cannot decide.
# Counting costs about 150 ns a character: a 50-row result's four texts (as
# sent, compact, GCX1, DCP) took 2 ms in full, more than the rest of the rewrite.
EXACT_STATS = 1 << 11


@functools.lru_cache(maxsize=4)
def estimate_tokens(text: str) -> tuple[float, float]:
    """``tokens.estimate``, remembered as ``count_tokens`` is (the compact JSON
    is estimated as the baseline and again as a candidate)."""
    return tokens.estimate(text)


# On a call a remembered verdict decides (interceptor.VERDICT_MARGIN), texts
# are estimated from a smaller sample: the verdict was won by a wide margin, and
# a close call is still counted exactly. 128 characters in 4 windows: about
# 0.04 ms a text, where the 16 windows of 1,024 of ``estimate_tokens`` take
# 0.25-0.4 ms (a 50-row table's three texts: 5,356, 3,555 and 1,380 characters).
QUICK_SAMPLE = 128
QUICK_WINDOWS = 4


@functools.lru_cache(maxsize=4)
def quick_tokens(text: str) -> tuple[float, float]:
    """``tokens.estimate`` from a sample of at least ``QUICK_SAMPLE`` characters;
    counted (spread 0) up to ``EXACT_STATS`` characters, as other texts are:
    counting such a text by its remembered pieces costs less than sampling it
    (a 50-row table's GCX1, 1,359 characters: 3.7 us against 9.8)."""
    if len(text) <= EXACT_STATS:
        return float(count_tokens(text)), 0.0
    return tokens.estimate(text, sample=QUICK_SAMPLE, windows=QUICK_WINDOWS)


def stats_tokens(text: str) -> tuple[int, bool]:
    """Tokens of a baseline for the stats: ``(count, exact)``."""
    if len(text) <= EXACT_STATS:
        return count_tokens(text), True
    return round(estimate_tokens(text)[0]), False


def reads_back(value: Any, decoded: Any, value_json: bytes | None) -> bool:
    """``same(value, decoded, value_json)`` for a ``value`` this proxy parsed
    from JSON text (``loads``: no NaN or infinity in it). Where orjson writes
    both alike, only a NaN or infinity of ``decoded`` (written ``null``) could
    still differ: a walk in C for non-finite floats (``plain_json``) says so
    in place of ``==`` over the whole value (4 us against 10-20 at 50 rows)."""
    if value_json is not None:
        try:
            if orjson.dumps(decoded) != value_json:
                return False
        except (orjson.JSONEncodeError, TypeError):
            return same(value, decoded, value_json)  # ints past 64 bits: the exact walk
        if b"null" not in value_json or plain_json(decoded):
            return True
    return same(value, decoded, value_json)


encode = _auto.encode
decode = _auto.decode
detect = _auto.detect
spread_of_total = _auto._spread_of_total  # the standard error of a total from sampled rows


def compact(value: Any) -> str:
    """Compact JSON of a value parsed from JSON text (``loads``): orjson writes
    it as it is, with no walk to check it first (``encode(format="json")``
    walks it: 6 ms for 5,000 rows); ints past 64 bits take the exact writer."""
    return dumps_valid(value)


def optional_codec(name: str) -> ModuleType | None:
    """``gcxwire.<name>``, or ``None`` while this build does not have it."""
    try:
        return importlib.import_module(f"gcxwire.{name}")
    except ModuleNotFoundError as exc:
        if exc.name == f"gcxwire.{name}":
            return None
        raise


def registry_table(entries: Sequence[dict[str, Any]]) -> str:
    """Schema registry rows (``DcpSchema.to_entry``) as one DCP table with the
    schema-of-schemas, ``dcp.REGISTRY_SCHEMA``."""
    from .. import dcp  # only called where the proxy has DCP schemas at all

    text: str = dcp.encode(list(entries), dcp.REGISTRY_SCHEMA)
    return text


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

    def from_layout(self, layout: Any) -> SchemaVersion:
        """A declared layout (``gcxwire.layouts.Layout``) as its DCP schema, ``tool:vN``."""
        return SchemaVersion(
            layout.tool, layout.version, "declared", layout.to_dcp(), layout=layout
        )

    def encode(self, table: Table, schema: SchemaVersion) -> str:
        """The table's value (rows, or the wrapper around them) encoded with ``schema``."""
        text: str = self._dcp.encode(table.value, schema.schema)
        return text
