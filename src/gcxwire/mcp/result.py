"""Server side: a tool's return value as one encoded text block, and the ``format`` argument.

The encoded text goes out once: no ``structuredContent`` copy of it (clients that
prefer that field would show the model JSON-escaped GCX1), and ``_meta`` names
the encoding. The framework adapters (:mod:`.mcpserver`, :mod:`.middleware`)
share :func:`encode_return` and :func:`format_property`, so both make the same
choices.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Final, Literal, cast

from .. import _auto
from .._auto import FORMATS, Format
from .._values import difference
from ..errors import DecodeError, EncodeError, EncodeValueError
from .hint import reading_hint

__all__ = [
    "ENCODING_META",
    "FORMAT_ARG",
    "FORMAT_DESCRIPTION",
    "Format",
    "HintMode",
    "encode_result",
    "encode_return",
    "format_property",
    "json_value",
    "tool_result",
]

# Where the reading hint goes: once in the server's instructions, in every
# encoded result, or nowhere.
HintMode = Literal["instructions", "result", "none"]

#: The ``_meta`` key naming the encoding of a result: ``"gcx"``, ``"dcp"`` or ``"json"``.
ENCODING_META: Final = "gcxwire/encoding"
#: The optional argument a tool's input schema gains.
FORMAT_ARG: Final = "format"
FORMAT_DESCRIPTION: Final = (
    "Encoding of the result: auto (fewest tokens, the default), gcx (GCX1), dcp or json."
)


def format_property(default: Format = "auto") -> dict[str, Any]:
    """The JSON schema of the ``format`` argument, as it appears in ``inputSchema``."""
    return {
        "type": "string",
        "enum": list(FORMATS),
        "default": default,
        "description": FORMAT_DESCRIPTION,
    }


def check_format(value: Any) -> Format:
    """``value`` as a format name; ValueError names the choices otherwise."""
    if value not in FORMATS:
        raise ValueError(f"Format must be one of {', '.join(FORMATS)}; got {value!r}")
    return cast(Format, value)


def json_value(value: Any, /) -> Any:
    """The JSON value of a tool's return: pydantic models and dataclasses become objects.

    Keys keep their order; pydantic models use their aliases, as MCP SDKs write them.
    """
    try:
        import pydantic_core
    except ImportError:
        return _plain(value)
    return pydantic_core.to_jsonable_python(value, by_alias=True)


def _plain(value: Any) -> Any:
    # Without pydantic: dataclasses, tuples and mappings, recursively.
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def encode_result(
    value: Any, /, *, tool: str, format: Format = "auto", hint: bool = False
) -> dict[str, Any]:
    """The ``CallToolResult`` JSON for ``value``: one text block, encoded, and ``_meta``.

    ``hint=True`` puts a block with the reading hint for this payload's markers
    first (none for JSON). EncodeError names the path of what cannot be encoded,
    or says that the asked-for format cannot carry the value exactly (DCP has no
    "absent" apart from null, for one); ``"auto"`` never raises it for that.
    """
    return _encode(json_value(value), tool, format, hint)


def _encode(data: Any, tool: str, format: Format, hint: bool) -> dict[str, Any]:
    text = _auto.encode(data, tool=tool, format=format)
    if format in ("gcx", "dcp") and not _reads_back(text, data):
        # "auto" keeps only exact encodings; an asked-for one must be exact as well.
        raise EncodeValueError(f"Format {format!r} cannot carry this value exactly; JSON can")
    content = [{"type": "text", "text": text}]
    explained = reading_hint(text) if hint else ""
    if explained:
        content.insert(0, {"type": "text", "text": explained})
    return {"content": content, "_meta": {ENCODING_META: _auto.detect(text)}}


def tool_result(value: Any, /, *, tool: str, format: Format = "auto", hint: bool = False) -> Any:
    """:func:`encode_result` as the SDK's ``CallToolResult`` when one is installed.

    Tries ``mcp_types`` (``mcp`` 2.x, ``fastmcp``), then ``mcp.types`` (``mcp`` 1.x);
    without either it returns the JSON dict, which MCP servers can send as is.
    """
    result = encode_result(value, tool=tool, format=format, hint=hint)
    model = sdk_call_tool_result()
    return result if model is None else model.model_validate(result)


def sdk_call_tool_result() -> Any:
    """The installed SDK's ``CallToolResult`` class, or ``None``."""
    try:
        from mcp_types import CallToolResult
    except ImportError:
        try:
            from mcp.types import CallToolResult
        except ImportError:
            return None
    return CallToolResult


def _reads_back(text: str, data: Any) -> bool:
    try:
        return difference(data, _auto.decode(text)) is None
    except DecodeError:
        return False


def encode_return(
    value: Any, /, *, tool: str, format: Format, hint: bool = False
) -> dict[str, Any] | None:
    """The encoded result for what a tool returned, or ``None`` to leave it to the framework.

    Encoded: lists and objects (also pydantic models, dataclasses) when the
    caller asked for a format, or, under ``"auto"``, when they have a tabular
    shape (the proxy's rule: rows, a wrapper around rows, several tables, a
    wide object). Left alone: text, content blocks and SDK results, small
    objects and scalar lists under ``"auto"``. A value the asked format
    cannot carry exactly goes out as JSON, and ``_meta`` says so.
    """
    if _is_sdk_object(value):
        return None
    try:
        data = json_value(value)
    except ValueError:  # pydantic cannot serialise it: the framework reports it its own way
        return None
    if not isinstance(data, list | dict):
        return None
    # Imported here: the proxy package imports gcxwire.mcp for its hints.
    from ..proxy.tabular import find_table

    if format == "auto" and find_table(data) is None:
        return None
    try:
        return _encode(data, tool, format, hint)
    except EncodeError:
        if format in ("auto", "json"):
            raise  # JSON itself cannot carry it: the tool's error, as the framework reports it
        return _encode(data, tool, "json", hint)


def _is_sdk_object(value: Any) -> bool:
    # Content blocks, CallToolResult, Image/Audio helpers: the tool built its own reply.
    items = value if isinstance(value, list | tuple) else [value]
    return any(type(item).__module__.split(".")[0] in _SDK_PACKAGES for item in items)


_SDK_PACKAGES: Final = frozenset({"mcp", "mcp_types", "fastmcp"})
