"""gcxwire: token-cheap, lossless wire formats for MCP tool responses."""

from ._version import __version__
from .errors import (
    DecodeError,
    EncodeError,
    EncodeTypeError,
    EncodeValueError,
    GcxwireError,
    UnsupportedVersionError,
)
from .gcx import Decoder, Encoder, Section, decode, encode, parse, reference_json

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
]
