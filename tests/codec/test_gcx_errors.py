"""Bad input: DecodeError with line and column; EncodeError naming the value's path."""

from __future__ import annotations

from typing import Any

import pytest

from gcxwire import gcx
from gcxwire.errors import (
    DecodeError,
    EncodeError,
    EncodeTypeError,
    EncodeValueError,
    UnsupportedVersionError,
)

BAD_PAYLOADS = [
    # (payload, message fragment, line, column)
    ("", "no `GCX1` header", 1, 1),
    ("\n\n", "no `GCX1` header", 3, 1),
    ("hello", "Expected a `GCX1` header", 1, 1),
    ("# note\nGCX1 tool=t fields=a\n", "Expected a `GCX1` header", 1, 1),
    ("GCX1 fields=a\n1\n", "no `tool=`", 1, 1),
    ("GCX1 tool=t\n1\n", "no `fields=`", 1, 1),
    ("GCX1 tool=t fields=a oops\n", "Malformed header token 'oops'", 1, 22),
    ("GCX1 tool=t fields=a,b\n1\t2\n1\t2\t3\n", "Row has 3 cells", 3, 4),
    ("GCX1 tool=t fields=a,b\n1\t[1,2\n", "not a valid JSON literal", 2, 3),
    ("GCX1 tool=t fields=a\n{bad}\n", "not a valid JSON literal", 2, 1),
    ("GCX1 tool=t fields=a is=value\n1\n2\n", "holds 2 rows", 1, 1),
    ("GCX1 tool=t fields=a,a.x flat=a\n1\t2\n", "group is also a field", 1, 1),
    ("GCX1 tool=t fields=a,a.x.y flat=a.x\n1\t2\n", "collides with member 'a'", 2, 1),
]


@pytest.mark.parametrize(("payload", "fragment", "line", "col"), BAD_PAYLOADS)
def test_decode_errors_carry_line_and_column(
    payload: str, fragment: str, line: int, col: int
) -> None:
    with pytest.raises(DecodeError, match=fragment) as info:
        gcx.decode(payload)
    err = info.value
    assert isinstance(err, ValueError)
    assert (err.lineno, err.colno) == (line, col)
    assert f"(line {line}, column {col})" in str(err)


def test_gcx2_is_unsupported_version() -> None:
    with pytest.raises(UnsupportedVersionError, match="GCX2"):
        gcx.decode("GCX2 tool=t fields=a\n1\n")
    with pytest.raises(UnsupportedVersionError):
        gcx.parse("GCX99\n")


def test_untyped_decoding_reports_row_errors_too() -> None:
    with pytest.raises(DecodeError, match="Row has 2 cells") as info:
        gcx.parse("GCX1 tool=t fields=a\nx\ty\n")
    assert (info.value.lineno, info.value.colno) == (2, 2)


def test_invalid_utf8_bytes() -> None:
    with pytest.raises(DecodeError, match="not UTF-8"):
        gcx.decode(b"GCX1 tool=t fields=a\n\xff\n")


def test_deeply_nested_literal_cell_is_a_decode_error() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(DecodeError):
        gcx.decode(f"GCX1 tool=t fields=a\n{deep}\n")


class Custom:
    pass


def _cycle() -> Any:
    a: list[Any] = []
    a.append(a)
    return a


BAD_VALUES = [
    ({"results": [{"line": float("nan")}]}, EncodeValueError, "$.results[0].line"),
    ([{"a": 1}, {"a": float("inf")}], EncodeValueError, "$[1].a"),
    ([{"tags": {1, 2}}], EncodeTypeError, "$[0].tags"),
    ([{"blob": b"x"}], EncodeTypeError, "$[0].blob"),
    ([{"obj": Custom()}], EncodeTypeError, "$[0].obj"),
    ({"x": {1: "a"}}, EncodeTypeError, "$.x"),
    ([{"n": [1, {"deep": float("-inf")}]}], EncodeValueError, "$[0].n[1].deep"),
    ({"loop": _cycle()}, EncodeValueError, "$.loop"),
    ({3: "non-str key"}, EncodeTypeError, "$"),
    ([{"a": 1}, {2: 1}], EncodeTypeError, "$[1]"),
]


@pytest.mark.parametrize(("value", "kind", "path"), BAD_VALUES)
def test_encode_errors_name_the_path(value: Any, kind: type[EncodeError], path: str) -> None:
    with pytest.raises(kind) as info:
        gcx.encode(value, tool="t")
    assert info.value.path.startswith(path)
    assert f"at `{info.value.path}`" in str(info.value)


@pytest.mark.parametrize("profile", ["typed", "reference"])
def test_tool_names_a_header_cannot_carry(profile: Any) -> None:
    for tool in ["", "my tool", "tab\u00a0bed"]:
        with pytest.raises(EncodeValueError):
            gcx.encode([{"a": 1}], tool=tool, profile=profile)


def test_unknown_profile() -> None:
    with pytest.raises(ValueError, match="Unknown profile"):
        gcx.encode([], tool="t", profile="fast")  # type: ignore[arg-type]


def test_errors_pickle() -> None:
    import pickle

    err = DecodeError.at("Boom", "ab\ncd", 4)
    again = pickle.loads(pickle.dumps(err))
    assert (again.lineno, again.colno, str(again)) == (2, 2, str(err))
    enc = EncodeValueError("Bad", "$.a")
    assert str(pickle.loads(pickle.dumps(enc))) == str(enc)
