"""Header text of typed GCX1: the tool, names, field lists and meta pairs."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ._gcx_model import (
    _CONTROL,
    _HEADER_KEYS,
    _LOST_NAMES,
    _NO_FLOATS,
    _SPACE,
    _VALUE,
)
from ._impl import (
    encode_row,
    escape,
)
from .errors import EncodeError, EncodeValueError


def _tool_text(tool: str) -> str:
    if not isinstance(tool, str) or not tool:
        raise EncodeValueError("The tool name must be a non-empty string", "tool")
    text = escape(tool)
    if _SPACE.search(text):
        raise EncodeValueError(
            f"Tool name {tool!r} holds whitespace, which GCX1 headers cannot carry", "tool"
        )
    return text


def _name_text(name: str) -> str:
    # A field name as it stands in the list once the header value is unescaped:
    # escaped, with `=` escaped too, since `name=text` there is a constant column.
    return escape(name).replace("=", "\\=")


# Tools send the same field names call after call: their header texts are
# remembered (a bounded cache; at 5 rows these were a fifth of an encode).
_LISTED: dict[str, str] = {}


_FIELD_TEXT: dict[str, str | None] = {}


_CACHE_SIZE = 4096

# The two name caches above hold this many names: a table's columns are looked up
# several times each, and a cache emptied when full missed every name of a table
# wider than it (10,000 columns: 680 ns a name, 4x the ns per cell of 1,000).
_NAMES_CACHE_SIZE = 1 << 15


def _listed(name: str) -> str:
    # A field name as the header's field list writes it (escaped twice).
    text = _LISTED.get(name) if type(name) is str else None
    if text is None:
        text = escape(_name_text(name))
        if type(name) is str:
            if len(_LISTED) >= _NAMES_CACHE_SIZE:
                _LISTED.clear()
            _LISTED[name] = text
    return text


def _name_list(names: Iterable[str]) -> str:
    # A meta value listing columns or groups (`float=`, `flat=`, `str=`, `crlf=`):
    # read like the fields list, so each name is escaped twice.
    return ",".join(escape(escape(name)) for name in names)


def _field_text(name: str) -> str | None:
    # Reference decoders unescape the fields value, split on ",", then unescape
    # each name again; so names are escaped twice and may not hold a comma.
    if type(name) is str and name in _FIELD_TEXT:
        return _FIELD_TEXT[name]
    text: str | None = _listed(name)
    if text is not None and ("," in text or _SPACE.search(text) or name in _LOST_NAMES):
        text = None
    if type(name) is str:
        if len(_FIELD_TEXT) >= _NAMES_CACHE_SIZE:
            _FIELD_TEXT.clear()
        _FIELD_TEXT[name] = text
    return text


def _header_line(
    tool_text: str,
    fields: Sequence[str],
    pairs: Iterable[tuple[str, str]],
    constants: dict[str, str] | None = None,
    names: str | None = None,
) -> str:
    return _header_start(tool_text, fields, constants, names) + _meta_text(pairs) + "\n"


def _header_start(
    tool_text: str,
    fields: Sequence[str],
    constants: dict[str, str] | None = None,
    names: str | None = None,
) -> str:
    # A header line up to its meta pairs: `GCX1 tool=... fields=...`; `names`, when
    # given, is the field list already written (in groups: `owner{login,id}`).
    if names is not None:
        pass
    elif constants:
        names = ",".join(
            escape(_name_text(f) + "=" + constants[f]) if f in constants else _listed(f)
            for f in fields
        )
    else:
        names = ",".join(map(_listed, fields))
    return f"GCX1 tool={tool_text} fields={names}"


def _meta_text(pairs: Iterable[tuple[str, str]]) -> str:
    return "".join(f" {k}={v}" for k, v in pairs)


def _meta_pair(key: str, value: Any, path: str) -> tuple[str, str] | None:
    """The raw ``key=value`` of an object member, or None if a header cannot hold it."""
    if not key or "=" in key or key in _HEADER_KEYS or key in _LOST_NAMES:
        return None
    key_text = escape(key)
    if _SPACE.search(key_text):
        return None
    if key_text in _CONTROL:
        key_text = "\\" + key_text
    try:
        value_text = "" if value is None else _one_cell(value)
    except EncodeError as exc:
        raise exc.relocated(path) from None
    if _SPACE.search(value_text):
        return None
    return key_text, value_text


def _one_cell(value: Any) -> str:
    # A single value as a one-cell row (the row guards apply); paths start at `$`.
    try:
        return encode_row({"value": value}, _VALUE, False, _NO_FLOATS)
    except EncodeError as exc:
        raise type(exc)(exc.reason, "$" + exc.path[len("$.value") :]) from None
