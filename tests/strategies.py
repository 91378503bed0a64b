"""Hypothesis strategies for JSON values, with the strings that trip wire formats."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

# Strings that look like other things on a GCX1 line or a header.
TRICKY = st.sampled_from(
    [
        "",
        " ",
        "true",
        "false",
        "null",
        "12",
        "-3.5e7",
        "0",
        "007",
        '"q"',
        "[x",
        "{y",
        "#c",
        "GCX1 tool=x fields=a",
        "\\",
        "\\t",
        "a\\",
        "t",
        "n",
        "\t",
        "\n",
        "\r",
        "a\r",
        "\r\n",
        "x=y",
        "a,b",
        "of",
        "is",
        "tool",
        "fields",
        "\u2028",
        "\x00",
        "é\u00a0",
        "😀",
        "\\62",
    ]
)
TEXT = st.one_of(TRICKY, st.text(max_size=12))
KEYS = st.one_of(
    st.sampled_from(["id", "name", "of", "is", "tool", "a b", "x,y", "", "k=v"]),
    st.text(max_size=6),
)

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.floats(allow_nan=False, allow_infinity=False),
    TEXT,
)


def json_values(max_leaves: int = 25) -> st.SearchStrategy[Any]:
    return st.recursive(
        SCALARS,
        lambda inner: st.one_of(
            st.lists(inner, max_size=5),
            st.dictionaries(KEYS, inner, max_size=5),
        ),
        max_leaves=max_leaves,
    )


# Columns that lean on the per-section styles: integral floats, and many nulls.
COLUMN = {
    "score": st.one_of(
        st.sampled_from([1.0, 2.0, -0.0, 0.5, 1e15, 1e16, -3.0, None]),
        st.floats(allow_nan=False, allow_infinity=False),
    ),
    "tags": st.one_of(st.none(), st.none(), TEXT),
    # Nested objects, spread over dotted columns when every row has one.
    "path": st.recursive(
        st.dictionaries(st.sampled_from(["login", "id", "a.b", "", "x,y"]), SCALARS, max_size=3),
        lambda inner: st.dictionaries(st.sampled_from(["site", "id", "login"]), inner, max_size=3),
        max_leaves=6,
    ),
}


@st.composite
def tables(draw: st.DrawFn, styled: bool = False) -> list[dict[str, Any]]:
    """Lists of objects over a few columns, with sparse keys and shuffled key orders.

    ``styled`` tables always hold the columns that trigger the per-section
    styles (floats, nulls, nested objects) in every row.
    """
    if styled:
        columns = ["id", "score", "tags", "path"]
        rows = []
        for _ in range(draw(st.integers(min_value=3, max_value=8))):
            rows.append({c: draw(COLUMN.get(c, json_values(2))) for c in columns})
        return rows
    columns = draw(
        st.lists(
            st.sampled_from(["id", "name", "line", "path", "score", "tags"]),
            min_size=1,
            max_size=5,
            unique=True,
        )
    )
    rows = []
    dense = draw(st.booleans())  # every row has every column: no absent keys
    for _ in range(draw(st.integers(min_value=1, max_value=8))):
        present = [c for c in columns if dense or draw(st.integers(0, 9)) > 0]
        if draw(st.booleans()) and len(present) > 1:
            present = draw(st.permutations(present))
        rows.append({c: draw(COLUMN.get(c, json_values(4))) for c in present})
    if draw(st.booleans()):  # a column holding one value in every row (written once)
        name = draw(st.sampled_from(columns))
        value = draw(st.one_of(SCALARS, COLUMN.get(name, json_values(1))))
        for row in rows:
            row[name] = value
    return rows


@st.composite
def responses(draw: st.DrawFn) -> dict[str, Any]:
    """Objects shaped like MCP tool responses: scalars around one or two tables."""
    out: dict[str, Any] = {}
    for _ in range(draw(st.integers(0, 2))):
        out[draw(KEYS)] = draw(SCALARS)
    out[draw(st.sampled_from(["items", "results", "nodes"]))] = draw(tables())
    for _ in range(draw(st.integers(0, 2))):
        out[draw(KEYS)] = draw(st.one_of(SCALARS, tables()))
    return out


def same(a: Any, b: Any) -> bool:
    """Equality that also checks types (1 != 1.0 != True) and dict key order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        return repr(a) == repr(b)
    return bool(a == b)
