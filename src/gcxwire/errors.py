"""Every exception gcxwire raises on purpose, in one place.

Shared by both twins of the speedups, every codec, the token counter and the proxy's
configuration loaders. Messages start with a capital letter and end without a period.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._layout_check import Drift

__all__ = [
    "GcxwireError",
    "EncodeError",
    "EncodeTypeError",
    "EncodeValueError",
    "DriftError",
    "DecodeError",
    "UnsupportedVersionError",
    "TokenizerUnavailableError",
    "ConfigError",
    "GatewayConfigError",
    "PresetError",
    "LayoutError",
    "ScorecardError",
    "HttpUnavailable",
    "ClientGone",
    "UpstreamGone",
]


class GcxwireError(Exception):
    """Base class of every error gcxwire raises on purpose."""


class EncodeError(GcxwireError):
    """A value cannot be carried by the chosen format.

    ``reason`` says why and ``path`` says where, as a JSONPath such as
    ``$.results[3].line``.
    """

    def __init__(self, reason: str, path: str = "$") -> None:
        self.reason = reason
        self.path = path
        super().__init__(f"{reason} - at `{path}`")

    def __reduce__(self) -> tuple[type[EncodeError], tuple[str, str]]:
        return (type(self), (self.reason, self.path))

    def relocated(self, prefix: str) -> EncodeError:
        """The same error with ``prefix`` put in front of a path relative to it.

        Row-level code reports paths such as ``$.line``; the caller that knows
        the row's place turns that into ``$.results[3].line``.
        """
        return type(self)(self.reason, prefix + self.path[1:])


class EncodeTypeError(EncodeError, TypeError):
    """The value's type has no encoding (a set, bytes, a non-str key...)."""


class EncodeValueError(EncodeError, ValueError):
    """The value's type is fine but this value is not (NaN, too deep...)."""


class DriftError(EncodeValueError):
    """A value does not fit the declared layout it was encoded with.

    ``drift`` (a :class:`gcxwire.layouts.Drift`) says how, where, and which layout (tool and
    version); the message names all three, never the value itself.
    """

    def __init__(self, drift: Drift) -> None:
        self.drift = drift
        super().__init__(drift.message, drift.path)

    def __reduce__(self) -> tuple[type[DriftError], tuple[Drift]]:  # type: ignore[override]
        return (type(self), (self.drift,))

    def relocated(self, prefix: str) -> DriftError:
        return type(self)(replace(self.drift, path=prefix + self.path[1:]))


class DecodeError(GcxwireError, ValueError):
    """The text is not a well-formed payload.

    Carries ``msg``, ``doc`` (the text, when known), ``pos`` (0-based character
    offset), and 1-based ``lineno`` and ``colno``.
    """

    def __init__(self, msg: str, doc: str = "", pos: int = 0, lineno: int = 1, colno: int = 1):
        self.msg = msg
        self.doc = doc
        self.pos = pos
        self.lineno = lineno
        self.colno = colno
        super().__init__(f"{msg} (line {lineno}, column {colno})")

    @classmethod
    def at(cls, msg: str, doc: str, pos: int) -> DecodeError:
        """Build the error for character offset ``pos`` of ``doc``."""
        lineno = doc.count("\n", 0, pos) + 1
        colno = pos - (doc.rfind("\n", 0, pos) + 1) + 1
        return cls(msg, doc, pos, lineno, colno)

    def __reduce__(self) -> tuple[type[DecodeError], tuple[str, str, int, int, int]]:
        return (type(self), (self.msg, self.doc, self.pos, self.lineno, self.colno))


class UnsupportedVersionError(DecodeError):
    """The payload is a GCX version other than GCX1."""


class TokenizerUnavailableError(GcxwireError, RuntimeError):
    """No verified copy of the encoding's ranks can be loaded offline."""


class ConfigError(GcxwireError, ValueError):
    """A proxy configuration file or option cannot be used; the message names the file and key."""


class GatewayConfigError(ConfigError):
    """A ``--servers`` file is unreadable or describes a server the gateway cannot start."""


class PresetError(ConfigError):
    """A field-filter or DCP schema file given to the proxy is unreadable or malformed."""


class LayoutError(ConfigError):
    """A declared layout, or a layout file, is malformed.

    ``reason`` says why, ``where`` names the member as a JSONPath into the document
    (``$.fields[3].type``) and ``segments`` is the same place as keys and indexes
    (``("fields", 3, "type")``); for a file, ``file``, ``line`` and ``column`` (1-based) say
    where it is, and the message starts with them.
    """

    def __init__(
        self,
        reason: str,
        where: str = "$",
        file: str | None = None,
        line: int = 0,
        column: int = 0,
        segments: tuple[str | int, ...] = (),
    ) -> None:
        self.reason = reason
        self.where = where
        self.segments = segments
        self.file = file
        self.line = line
        self.column = column
        place = "" if file is None else f"{file}, line {line}, column {column}: "
        super().__init__(f"{place}{reason} - at `{where}`")

    def __reduce__(
        self,
    ) -> tuple[type[LayoutError], tuple[str, str, str | None, int, int, tuple[str | int, ...]]]:
        return (
            type(self),
            (self.reason, self.where, self.file, self.line, self.column, self.segments),
        )


class ScorecardError(GcxwireError):
    """A scorecard case folder or case file is missing or malformed."""


class HttpUnavailable(GcxwireError, RuntimeError):
    """``gcxwire proxy --url`` needs the optional HTTP client: ``pip install "gcxwire[http]"``."""


class ClientGone(GcxwireError, ConnectionError):
    """The proxy's client closed its end of the output: nothing written can reach it
    (``proxy.framing.LineWriter`` raises it; the proxy then stops)."""


class UpstreamGone(GcxwireError, ConnectionError):
    """The proxied server's stdin is closed: it exited or crashed
    (``proxy.upstream.Upstream`` raises it; open calls get an error answer)."""
