from collections.abc import Iterable, Sequence
from typing import Any

def escape(s: str, /) -> str: ...
def unescape(s: str, /) -> str: ...
def format_cell(value: object, /) -> str: ...
def parse_cell(raw: str, /) -> Any: ...
def encode_row(
    row: dict[str, Any], fields: Sequence[str], empty_null: bool, floats: frozenset[str], /
) -> str: ...
def decode_row(
    line: str, fields: Sequence[str], typed: bool, empty_null: bool, floats: frozenset[str], /
) -> dict[str, Any]: ...
def scan_style(
    rows: Iterable[dict[str, Any]], fields: Sequence[str], /
) -> tuple[bool, frozenset[str]]: ...
def decode_rows(
    text: str,
    start: int,
    fields: Sequence[str],
    typed: bool,
    empty_null: bool,
    floats: frozenset[str],
    max_line: int,
    max_depth: int,
    max_digits: int,
    max_padding: int,
    /,
) -> tuple[list[dict[str, Any]], list[str], int, int]: ...
def shared_keys(rows: Iterable[Any], /) -> tuple[str, ...] | None: ...
def nest_rows(
    rows: Iterable[dict[str, Any]], plan: Iterable[tuple[str, tuple[str, ...], str]], /
) -> list[dict[str, Any]]: ...
def encode_table(
    rows: Iterable[dict[str, Any]],
    fields: Sequence[str],
    paths: Sequence[tuple[Any, ...] | None],
    head: str | None,
    tail: str,
    keys: Sequence[str] | None,
    cuts: Sequence[int] | None = None,
    /,
) -> tuple[str, bool, frozenset[str]] | None: ...
def dict_column(rows: Iterable[Any], name: str, /) -> list[dict[str, Any]] | None: ...
def constant_columns(
    rows: Sequence[dict[str, Any]], paths: Sequence[tuple[Any, ...]], /
) -> dict[int, Any]: ...
def column_prefixes(
    rows: Iterable[Any], paths: Sequence[Sequence[Any] | None], least: int, /
) -> list[tuple[str, int, int] | None]: ...
def key_order(rows: Iterable[Any], /) -> list[str] | None: ...
