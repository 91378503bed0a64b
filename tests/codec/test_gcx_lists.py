"""`lists=` columns: lists of texts written as their items with a space between.

Sentry's `features`, a JSON schema's `required`, Kubernetes image names: the
strategies build items that look like other cells (numbers, `#`, `GCX1`,
backslashes) and columns that break the form with one item holding a space,
an empty item, a non-text, or an item a cell would read as something else.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import strategies as st

from gcxwire import gcx

from .. import reference_model
from ..strategies import TEXT, same
from ..tiers import prove
from . import contract
from .gcx_checks import reference_sections, roundtrip
from .test_gcx_transforms import reads_new_forms

WORDS = st.one_of(
    st.sampled_from(
        ["monitors", "sso-basic", "12", "-3", "true", "#x", "GCX1", "a\\b", "é", "x,y", "a=b"]
    ),
    st.from_regex(r"[a-z0-9:/._-]{1,10}", fullmatch=True),
)
DEFEATS = st.sampled_from(["a b", "", "null", "[x", "{y", '"q"', "a\tb", 7, None, "\u00a0"])


@st.composite
def word_tables(draw: st.DrawFn) -> Any:
    """Rows with a column of lists of texts; one item may break the form."""
    rows: list[dict[str, Any]] = []
    for i in range(draw(st.integers(min_value=1, max_value=5))):
        row: dict[str, Any] = {"tags": draw(st.lists(WORDS, max_size=6)), "id": i}
        if draw(st.integers(0, 5)) == 0:
            row["tags"] = None
        elif draw(st.integers(0, 5)) == 0:
            del row["tags"]
        rows.append(row)
    k = draw(st.integers(0, len(rows) - 1))
    if draw(st.booleans()) and type(rows[k].get("tags")) is list:
        rows[k]["tags"] = [*rows[k]["tags"], draw(DEFEATS)]
    elif draw(st.integers(0, 3)) == 0:
        rows[k]["tags"] = draw(TEXT)  # a text where the others hold lists
    if draw(st.booleans()):  # a record: the single object's member holds the list
        return {"name": "web", "required": rows[0].get("tags"), "n": 1}
    return rows


def test_word_lists_round_trip() -> None:
    prove(10, roundtrip, word_tables())


def test_reference_decoder_reads_word_list_sections() -> None:
    prove(10, reads_new_forms, word_tables(), st.just("t"))


def test_the_reference_contract_holds_on_word_list_sections() -> None:
    # Every string cell outside the marked column reads as the same string there.
    prove(8, lambda value: contract.holds(value, gcx.encode(value, tool="t")), word_tables())


FEATURES = [
    {"slug": "sentry", "features": ["monitors", "sso-basic", "discover-query"]},
    {"slug": "kamil-test", "features": ["open-membership", "relay", "12", "#x"]},
]


def test_a_column_of_texts_lists_is_written_with_spaces() -> None:
    text = roundtrip(FEATURES)
    assert text == (
        "GCX1 tool=t fields=slug,features lists=features\n"
        "sentry\tmonitors sso-basic discover-query\n"
        "kamil-test\topen-membership relay 12 #x"
    )
    # Reference decoders read the items joined by spaces (the column is marked).
    assert reference_model.decode(text)["sections"][0]["rows"][1]["features"] == (
        "open-membership relay 12 #x"
    )
    assert reference_sections(text)


def test_a_first_column_of_words_keeps_the_row_guard() -> None:
    rows = [{"f": ["#a", "b", "c"]}, {"f": ["GCX1", "x", "y"]}, {"f": []}, {"f": None}]
    assert roundtrip(rows).split("\n")[1:] == ["\\#a b c", "\\GCX1 x y", "[]", "null"]


@pytest.mark.parametrize("item", ["a b", "", "null", "[x", "{y", '"q"', 7, "a\u2028b"])
def test_one_item_a_cell_cannot_carry_keeps_the_column_json(item: Any) -> None:
    rows = [dict(row, features=[*row["features"], item]) for row in FEATURES]
    assert "lists=" not in roundtrip(rows)


def test_few_items_are_not_worth_a_marker() -> None:
    assert "lists=" not in roundtrip([{"f": ["a", "b"]}, {"f": ["c", "d", "e"]}])


def test_a_stream_reads_word_lists_row_by_row() -> None:
    text = roundtrip(FEATURES)
    decoder = gcx.Decoder()
    streamed = [row for line in text.split("\n") for _, row in decoder.feed(line + "\r\n")]
    assert same(streamed + [row for _, row in decoder.close()], FEATURES)
    assert same(gcx.decode(text.replace("\n", "\r\n")), FEATURES)


def test_a_record_and_a_two_row_table_read_their_values_before_the_text() -> None:
    # Up to two rows, the members' values are looked at first: those that refuse the form
    # (an object holding `","`, a list with a spaced item) need no look at the written text.
    record = {
        "features": ["monitors", "sso-basic", "discover-query", "relay", "12", "#x"],
        "config": {"names": ["a", "b"], "deep": [{"x": ["c", "d"]}]},
        "spaced": ["a b", "c"],
    }
    text = roundtrip(record)
    assert text.split("\n")[0].endswith(" lists=features is=object")
    assert "lists=" not in roundtrip({"config": record["config"], "spaced": ["a b", "c"]})
    rows = [dict(record, id=1), dict(record, id=2, features=["x", "y"])]
    assert " lists=features" in roundtrip(rows).split("\n")[0]
    assert "lists=" not in roundtrip([dict(row, features=["a b"]) for row in rows])
