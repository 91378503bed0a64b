"""DCP codec: ``["$S",id,field...]`` header, positional rows, ``$R``/``$N`` sub-rows, cutdown masks.

Three dialects are written and read:

- ``gateway``: dcp-wrap 0.3.1, the dcp-gateway README's output: no field count, absent -> ``null``,
  nested marker ``$R``, compact JSON.
- ``v0.3``: dcp-wrap HEAD / spec v0.3: field count after the id, absent and null -> ``"-"``,
  nested marker ``$N``, compact JSON.
- ``dcp-py``: dcp-py 0.3.0: field count (header density L2), ``"-"``, ``$R``, scalar arrays
  comma-joined, ``json.dumps`` spacing and ASCII escapes; densities L0..L4.

This module is the face; the parts live by job in ``_dcp_encode`` (writing), ``_dcp_decode``
(reading), ``_dcp_schema`` (the schema, its files, the registry) and ``_dcp_infer`` (dcp-wrap's
schema inference). See docs/dcp.md for what a round trip keeps and loses in each dialect.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import _dcp_decode, _dcp_encode, _layout_dcp
from ._dcp_encode import Dialect
from ._dcp_infer import infer_schema
from ._dcp_schema import REGISTRY_SCHEMA, DcpSchema, SchemaRegistry
from ._layout_check import OnDrift, screen
from ._layout_file import Registry
from ._layout_model import Layout
from ._values import difference, with_default
from .errors import DecodeError, EncodeValueError
from .limits import DEFAULT_LIMITS, Limits

__all__ = [
    "REGISTRY_SCHEMA",
    "DcpSchema",
    "Dialect",
    "SchemaRegistry",
    "decode",
    "encode",
    "infer_schema",
]


def encode(
    records: Any,
    /,
    schema: DcpSchema | Layout | None = None,
    *,
    dialect: Dialect = "gateway",
    domain: str | None = None,
    density: int | None = None,
    text_key: str | None = None,
    exact: bool = False,
    on_drift: OnDrift = "raise",
    default: Callable[[Any], Any] | None = None,
) -> str:
    """Encode a list of records (or a ``{..., "items": [...]}`` wrapper) as DCP text.

    With ``schema`` the rows follow it (fields it lacks are dropped, paths it maps are read).
    Without one, a lossless schema is inferred on the fly: fields named by their dot paths in
    first-seen order, nothing dropped, so ``decode(text)`` rebuilds the records (see
    docs/dcp.md for the exceptions). ``domain`` names that schema (default: the wrapper's array
    key, else ``"data"``). ``density`` (0..4) is dcp-py's header density (dcp-py dialect only).
    ``text_key`` (a dot path) writes that string after each row as a raw text line, as dcp-py's
    ``text_key=`` does; decode it with the same ``text_key``. ``exact=True`` decodes the result
    and raises ``EncodeValueError`` unless it gives back exactly ``records`` (types, key order,
    null vs absent).

    ``schema`` may be a declared :class:`gcxwire.layouts.Layout`: the rows follow its DCP schema
    (``Layout.to_dcp``) once the records are checked against it; records that do not fit raise
    ``DriftError`` naming the path, tool and version, or with ``on_drift="fallback"`` (or a
    function, called with the ``Drift``) are written with the inferred schema instead.

    Raises ``EncodeError`` for anything that is not a list of objects or a wrapper, and for
    values JSON cannot carry (NaN, non-string keys, sets...); ``default``, as in
    ``json.dumps``, is called instead for each object of a type JSON has no form for (a
    datetime, a UUID...) and returns a JSON value for it.
    """
    if default is not None:
        records = with_default(records, default)
    reader: DcpSchema | Layout | None = schema  # what exact=True decodes with
    if isinstance(schema, Layout):
        fits = screen(schema, records, on_drift)
        schema = schema.to_dcp() if fits else None
        reader = reader if fits else None
    try:
        text = _dcp_encode.encode(
            records, schema, dialect=dialect, domain=domain, density=density, text_key=text_key
        )
        if exact:
            _require_exact(records, text, reader, text_key)
    except RecursionError:
        raise EncodeValueError("Value is nested too deeply") from None
    return text


def _require_exact(
    value: Any, text: str, schema: DcpSchema | Layout | None, text_key: str | None
) -> None:
    try:
        back = decode(text, schema=schema, text_key=text_key)
    except DecodeError as exc:  # a bug if it happens: say so rather than pass the text on
        raise EncodeValueError(f"DCP output does not decode: {exc}") from None
    diff = difference(value, back)
    if diff is not None:
        raise EncodeValueError(f"DCP round trip is not exact ({diff[1]})", diff[0])


def decode(
    text: str | bytes | bytearray,
    /,
    *,
    schema: DcpSchema | SchemaRegistry | Layout | Registry | None = None,
    dialect: Dialect | None = None,
    expand_paths: bool = True,
    text_key: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> Any:
    """Decode DCP text (any of the three dialects) back to JSON values.

    Returns a list of records, or the wrapper object when the text starts with a metadata line.
    ``schema`` may also be a declared ``Layout`` (the header must be its DCP schema's: id
    ``tool:vN``, its fields; null and absent are then told apart by the layout, which the
    dialects cannot do) or a ``layouts.Registry`` (the same, with the layout the header names).
    With ``schema`` (or a registry holding the header's id) the original nesting is rebuilt from
    the mapping paths and ``$R``/``$N`` sub-rows are expanded; without one, records are keyed by
    the header names, and dotted names (``owner.login``) are expanded into nested objects when
    ``expand_paths`` is true and they form a consistent tree.

    ``dialect`` forces how ``"-"`` reads (absent in ``v0.3``/``dcp-py``, a string in
    ``gateway``); by default a field count or dcp-py spacing in the header means ``"-"`` is
    absent. With ``text_key`` every row is followed by a raw text line, put back at that path.
    Raises ``DecodeError`` with line and column on any malformed input, and past ``limits``
    (size, line length, JSON nesting per line).
    """
    layout = schema if isinstance(schema, Layout) else None
    if isinstance(schema, Registry):
        sid = _dcp_decode.header_id(text)
        layout = None if sid is None else schema.find(sid)
    if isinstance(schema, (Layout, Registry)):
        schema = schema.to_dcp()
    decoded = _dcp_decode.decode(
        text,
        schema=schema,
        dialect=dialect,
        expand_paths=expand_paths,
        text_key=text_key,
        limits=limits,
    )
    return decoded if layout is None else _layout_dcp.restore(decoded, layout)
