"""gcxwire: token-cheap, lossless wire formats for MCP tool responses.

``encode``/``decode`` pick and recognise the format (``format="auto"`` keeps the
fewest-token lossless form); ``gcxwire.gcx`` and ``gcxwire.dcp`` are the codecs;
``gcxwire.layouts`` declares a tool's fields once for both; ``gcxwire.mcp`` encodes MCP tool
results and reads them back (loaded on first use).
docs/api.md lists every public name.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

from . import dcp, gcx, layouts
from ._auto import decode, encode
from ._version import __version__
from .errors import (
    ConfigError,
    DecodeError,
    DriftError,
    EncodeError,
    EncodeTypeError,
    EncodeValueError,
    GatewayConfigError,
    GcxwireError,
    LayoutError,
    PresetError,
    TokenizerUnavailableError,
    UnsupportedVersionError,
)
from .limits import Limits

__all__ = [
    "__version__",
    "encode",
    "decode",
    "Limits",
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
    "gcx",
    "dcp",
    "layouts",
    "mcp",
]

# GCX1-only names that older code imported from the top level; they live in gcxwire.gcx.
_MOVED_TO_GCX = frozenset({"Encoder", "Decoder", "Section", "parse", "reference_json"})


def __getattr__(name: str) -> Any:
    # gcxwire.mcp is imported on first use: the codecs and the proxy never need it.
    if name == "mcp":
        return importlib.import_module(".mcp", __name__)
    if name in _MOVED_TO_GCX:
        warnings.warn(
            f"gcxwire.{name} is deprecated: use gcxwire.gcx.{name}",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(gcx, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
