"""GCX1: a header line per section, then one TAB-separated row per record.

``encode`` / ``decode`` are the one-shot API; :class:`Encoder` and
:class:`Decoder` hold options for reuse and stream row by row. The normative
grammar, typing rule and shape mapping are in docs/wire-format.md.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Sequence
from typing import Any, Literal

from . import _layout_gcx
from ._gcx_decode import _build, _Lines, _sections
from ._gcx_encode import _encode_typed, go_readable
from ._gcx_header import _field_text, _header_line, _tool_text
from ._gcx_model import _NO_FLOATS, _QUOTED, Header, Section
from ._gcx_quoted import mark_quoted
from ._impl import encode_row
from ._json import RawNumber, go_marshal, loads_exact
from ._layout_check import OnDrift, screen
from ._layout_model import Layout
from ._reference import encode_reference
from ._values import MAX_DEPTH, path_join, with_default
from .errors import DecodeError, EncodeValueError
from .limits import DEFAULT_LIMITS, Limits, as_text

__all__ = [
    "Profile",
    "Header",
    "Section",
    "Encoder",
    "Decoder",
    "encode",
    "decode",
    "parse",
    "reference_json",
    "loads_exact",
    "RawNumber",
]

Profile = Literal["typed", "reference"]


def _encode_unchecked(value: Any, tool: str, profile: Profile = "typed") -> str:
    """:func:`encode` without a layout or Go's line check (``auto`` leaves such a text out)."""
    if profile == "typed":
        try:
            return mark_quoted(_encode_typed(value, tool))
        except RecursionError:
            raise EncodeValueError(f"Nesting deeper than {MAX_DEPTH} levels (or a cycle)") from None
    if profile == "reference":
        _tool_text(tool)
        return encode_reference(value, tool)
    raise ValueError(f"Unknown profile {profile!r}: use 'typed' or 'reference'")


def encode(
    value: Any,
    /,
    *,
    tool: str,
    profile: Profile = "typed",
    layout: Layout | None = None,
    on_drift: OnDrift = "raise",
    default: Callable[[Any], Any] | None = None,
) -> str:
    """Encode a JSON value as GCX1 text.

    ``profile="typed"`` (default) is lossless: ``decode(encode(v)) == v``.
    ``profile="reference"`` reproduces the gortex bench encoder byte for byte
    (strings only; pair it with :func:`loads_exact` to keep number literals).

    With ``layout`` (a :class:`gcxwire.layouts.Layout` of ``tool``; typed profile) the records
    are written in exactly the layout's fields and markers (docs/layouts.md). A value that does
    not fit raises ``DriftError`` naming the path, tool and version; with
    ``on_drift="fallback"`` (or a function, called with the ``Drift``) it is written as
    without a layout instead.

    Raises EncodeError, naming the value's path, for what JSON cannot carry; ``default``,
    as in ``json.dumps``, is called instead for each object of a type JSON has no form for
    (a datetime, a UUID...) and returns a JSON value for it.
    """
    if default is not None:
        value = with_default(value, default)
    return go_readable(_encode(value, tool, profile, layout, on_drift))


def _encode(
    value: Any, tool: str, profile: Profile, layout: Layout | None, on_drift: OnDrift
) -> str:
    if layout is None:
        return _encode_unchecked(value, tool, profile)
    if not isinstance(layout, Layout):
        raise TypeError(f"layout must be a Layout, not {type(layout).__name__}")
    if profile != "typed":
        raise ValueError("A layout is written by the typed profile")
    if tool != layout.tool:
        raise EncodeValueError(f"Tool {tool!r} is not layout {layout.id!r}'s tool", "tool")
    if not screen(layout, value, on_drift):
        return _encode_unchecked(value, tool, profile)
    try:
        return mark_quoted(_layout_gcx.encode(value, layout))
    except RecursionError:
        raise EncodeValueError(f"Nesting deeper than {MAX_DEPTH} levels (or a cycle)") from None


def reference_json(value: Any, /) -> str:
    """The JSON the reference scorecard measures: Go ``json.Marshal`` of the value.

    Compact, keys sorted, ``<`` ``>`` ``&`` U+2028 U+2029 escaped, number literals kept.
    """
    return go_marshal(value)


# ---------------------------------------------------------------------- decoding


def parse(text: str | bytes, /, *, limits: Limits = DEFAULT_LIMITS) -> list[Section]:
    """Parse GCX1 into sections of strings, exactly as the reference decoders read it."""
    doc = as_text(text)
    return [
        Section(h.tool, list(h.fields), dict(h.meta), rows, comments)
        for h, rows, comments in _sections(doc, False, limits)
    ]


def decode(
    text: str | bytes,
    /,
    *,
    typed: bool = True,
    limits: Limits = DEFAULT_LIMITS,
    layout: Layout | None = None,
) -> Any:
    """Decode GCX1 text.

    ``typed=True`` (default) returns the JSON value ``encode`` was given, and
    reads reference payloads with the same typing rule. ``typed=False`` returns
    what reference decoders return, every cell a string:
    ``{"tool": ..., "sections": [{"tool", "fields", "meta", "rows"}, ...]}``.

    With ``layout`` the payload must be what ``encode(..., layout=layout)`` writes: its
    table section's header names the layout's tool, fields and markers, else DecodeError at
    that header (a fallback encoding is refused: decode it without the layout).

    Raises DecodeError (UnsupportedVersionError for ``GCX2`` and later) with line
    and column, also for input past one of the ``limits``.
    """
    doc = as_text(text)
    if layout is not None:
        if not isinstance(layout, Layout):
            raise TypeError(f"layout must be a Layout, not {type(layout).__name__}")
        _layout_gcx.check_header(doc, layout, limits)
    if not typed:
        sections = parse(doc, limits=limits)
        return {
            "tool": sections[0].tool,
            "sections": [
                {"tool": s.tool, "fields": s.fields, "meta": s.meta, "rows": s.rows}
                for s in sections
            ],
        }
    try:
        renames: dict[int, list[str]] = {}  # the top table's child lists, filled in place
        return _build(doc, _sections(doc, True, limits, renames), limits, renames)
    except RecursionError:
        raise DecodeError("Input is nested too deeply", doc) from None


# ---------------------------------------------------------------- reusable classes


class Encoder:
    """Reusable GCX1 encoder; also writes a table a row at a time.

    >>> enc = Encoder()
    >>> enc.header("t", ["a", "b"]) + enc.row({"a": 1, "b": "x"})
    'GCX1 tool=t fields=a,b quoted=json\\n1\\tx\\n'
    """

    def __init__(self, *, profile: Profile = "typed") -> None:
        if profile not in ("typed", "reference"):
            raise ValueError(f"Unknown profile {profile!r}: use 'typed' or 'reference'")
        self.profile: Profile = profile
        self._fields: tuple[str, ...] = ()

    def encode(
        self,
        value: Any,
        /,
        *,
        tool: str,
        layout: Layout | None = None,
        on_drift: OnDrift = "raise",
    ) -> str:
        """Encode a whole value, as :func:`encode` does (a layout with the typed profile)."""
        return encode(value, tool=tool, profile=self.profile, layout=layout, on_drift=on_drift)

    def header(self, tool: str, fields: Sequence[str]) -> str:
        """Start a streamed table: the header line; rows then follow with :meth:`row`."""
        texts = [_field_text(f) for f in fields]
        if not fields or any(t is None for t in texts):
            raise EncodeValueError(f"Field names {list(fields)!r} cannot be written in a header")
        self._fields = tuple(fields)
        # The rows are not known yet: any may write a JSON string literal (`""`), so the
        # header says `quoted=json` for reference readers whether or not one comes.
        return go_readable(_header_line(_tool_text(tool), self._fields, [(_QUOTED, "json")]))

    def row(self, record: dict[str, Any], /) -> str:
        """One streamed row line for the current header (keys it lacks are written absent)."""
        if not self._fields:
            raise EncodeValueError("Call header() before row()")
        extra = [k for k in record if k not in self._fields]
        if extra:
            raise EncodeValueError(
                f"Key {extra[0]!r} is not a field of the header", path_join("$", extra[0])
            )
        return go_readable(encode_row(record, self._fields, False, _NO_FLOATS) + "\n")


class Decoder:
    """Reusable GCX1 decoder that also reads a stream in arbitrary chunks.

    :meth:`feed` takes the next chunk (str or UTF-8 bytes, split anywhere) and
    returns the rows whose lines it completed, each with its section header;
    :meth:`close` flushes a final line that had no LF. Memory stays O(one line).
    """

    def __init__(self, *, typed: bool = True, limits: Limits = DEFAULT_LIMITS) -> None:
        self.typed = typed
        self.limits = limits
        self._state = _Lines("", typed, limits)
        self._utf8 = codecs.getincrementaldecoder("utf-8")()
        # The unfinished line, in pieces: joining only at its LF keeps feeding O(n).
        self._pending: list[str] = []
        self._pending_len = 0
        self._pos = 0
        self._line = 1
        self.headers: list[Header] = []

    def decode(self, text: str | bytes, /) -> Any:
        """Decode a whole payload, as :func:`decode` does."""
        return decode(text, typed=self.typed, limits=self.limits)

    def feed(self, chunk: str | bytes, /) -> list[tuple[Header, dict[str, Any]]]:
        """Take the next chunk; return the rows it completed."""
        if isinstance(chunk, str):
            text = chunk
        else:
            try:
                text = self._utf8.decode(chunk)
            except UnicodeDecodeError as exc:
                raise DecodeError(f"Input is not UTF-8: {exc.reason}", "", self._pos) from None
        self._state.padding += len(text)  # short rows may fill in one cell per character
        if "\n" not in text:
            self._pending.append(text)
            self._pending_len += len(text)
            if self._pending_len > self.limits.max_line:
                msg = f"Line is longer than {self.limits.max_line} characters"
                raise DecodeError(msg, "", self._pos, self._line, 1)
            return []
        lines = text.split("\n")
        if self._pending:
            lines[0] = "".join(self._pending) + lines[0]
        tail = lines.pop()
        self._pending = [tail] if tail else []
        self._pending_len = len(tail)
        return self._take(lines)

    def close(self) -> list[tuple[Header, dict[str, Any]]]:
        """End of input: the final unterminated line's row, if any."""
        try:
            tail = "".join(self._pending) + self._utf8.decode(b"", final=True)
        except UnicodeDecodeError as exc:  # the stream ended inside a UTF-8 sequence
            raise DecodeError(f"Input is not UTF-8: {exc.reason}", "", self._pos) from None
        self._pending = []
        self._pending_len = 0
        rows = self._take([tail] if tail else [])
        if not self.headers:
            raise DecodeError("Input holds no `GCX1` header", "", self._pos)
        return rows

    def _take(self, lines: list[str]) -> list[tuple[Header, dict[str, Any]]]:
        out: list[tuple[Header, dict[str, Any]]] = []
        state = self._state
        for text in lines:
            # Errors carry this line as their document; positions count from the stream start.
            state.doc = text
            try:
                item = state.line(text, 0)
            except DecodeError as exc:
                raise type(exc)(exc.msg, text, self._pos + exc.pos, self._line, exc.colno) from None
            if isinstance(item, Header):
                self.headers.append(item)
            elif item is not None:
                assert state.header is not None
                out.append((state.header, item))
            self._pos += len(text) + 1
            self._line += 1
        return out
