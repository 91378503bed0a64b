"""Small pieces both speedup twins share: the absent-key marker, number grammar, big ints."""

from __future__ import annotations

import re
from typing import Final

__all__ = ["ABSENT", "NUMBER", "int_to_str", "str_to_int", "path_join"]


class _Absent:
    """The marker for "this row has no such key" (distinct from None, which is null)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"

    def __reduce__(self) -> str:
        return "ABSENT"


ABSENT: Final = _Absent()

# The JSON number grammar (RFC 8259 section 6), matched against whole cells.
NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")

# CPython 3.11+ refuses int<->str conversions over 4300 digits by default
# (sys.int_max_str_digits); above that we convert in halves so any size works.
_SAFE_DIGITS: Final = 4000


def int_to_str(n: int) -> str:
    """Decimal text of ``n`` for ints of any size."""
    if n.bit_length() < 13000:  # < 4000 decimal digits
        return str(n)
    if n < 0:
        return "-" + int_to_str(-n)
    half = n.bit_length() * 3 // 20  # about half of its decimal digits
    hi, lo = divmod(n, 10**half)
    return int_to_str(hi) + int_to_str(lo).rjust(half, "0")


def str_to_int(text: str) -> int:
    """Parse the decimal text of an int of any size (``text`` matches the int grammar)."""
    if len(text) <= _SAFE_DIGITS:
        return int(text)
    if text[0] == "-":
        return -str_to_int(text[1:])
    half = len(text) // 2
    scale: int = 10 ** (len(text) - half)
    return str_to_int(text[:half]) * scale + str_to_int(text[half:])


_IDENT: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def path_join(path: str, key: str | int) -> str:
    """Extend a JSONPath: ``$`` + ``"a"`` -> ``$.a``; + ``3`` -> ``$[3]``."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    if _IDENT.fullmatch(key):
        return f"{path}.{key}"
    return f"{path}[{key!r}]"
