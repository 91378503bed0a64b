"""gcxwire: token-cheap, lossless wire formats for MCP tool responses.

``encode``/``decode`` pick and recognise the format (``format="auto"`` keeps the
fewest-token lossless form); ``gcxwire.gcx`` and ``gcxwire.dcp`` are the codecs;
``gcxwire.mcp`` encodes MCP tool results and reads them back (loaded on first use).
"""

from typing import Any

from ._version import __version__
from .errors import (
    DecodeError,
    EncodeError,
    EncodeTypeError,
    EncodeValueError,
    GcxwireError,
    UnsupportedVersionError,
)
from .gcx import Decoder, Encoder, Section, parse, reference_json
from .select import decode, encode

__all__ = [
    "__version__",
    "encode",
    "decode",
    "parse",
    "reference_json",
    "Encoder",
    "Decoder",
    "Section",
    "GcxwireError",
    "EncodeError",
    "EncodeTypeError",
    "EncodeValueError",
    "DecodeError",
    "UnsupportedVersionError",
    "mcp",
]


def __getattr__(name: str) -> Any:
    # gcxwire.mcp is imported on first use: the codecs and the proxy never need it.
    if name == "mcp":
        import importlib

        return importlib.import_module(".mcp", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
