"""Typed rows read into their final shape (decode_rows' layout): groups,
constant, infix, prefix and template columns filled in as each row is read."""

from __future__ import annotations

import pytest

from gcxwire import gcx
from gcxwire.errors import DecodeError


def test_sections_alike_but_for_their_constants() -> None:
    # One remembered layout serves both headers; each keeps its own constant.
    text = (
        "GCX1 tool=t fields=a,g.b,c=1 flat=g of=x\n5\t6\n"
        "GCX1 tool=t fields=a,g.b,c=true flat=g of=y\n7\t8\n"
        "GCX1 tool=t fields=a,g.b,c=1.0 flat=g of=z\n9\t10\n"
    )
    got = gcx.decode(text)
    assert got == {
        "x": [{"a": 5, "g": {"b": 6}, "c": 1}],
        "y": [{"a": 7, "g": {"b": 8}, "c": True}],
        "z": [{"a": 9, "g": {"b": 10}, "c": 1.0}],
    }
    assert [type(got[k][0]["c"]) for k in "xyz"] == [int, bool, float]


def test_shape_and_key_order() -> None:
    # A derived column first, a group made where its first member is, a prefixed
    # member inside it, a constant at the end: keys in column order throughout.
    text = (
        "GCX1 tool=t fields=u=x/{n},n,g.a,g.h.b,c=k flat=g,g.h template={} prefix=g.a=p/\n"
        "\t1\tq\t2\n"
        "\t2\n"
    )
    rows = gcx.decode(text)
    assert rows == [
        {"u": "x/1", "n": 1, "g": {"a": "p/q", "h": {"b": 2}}, "c": "k"},
        {"u": "x/2", "n": 2, "g": {"h": {}}, "c": "k"},
    ]
    assert [list(r) for r in rows] == [["u", "n", "g", "c"]] * 2
    assert list(rows[0]["g"]) == ["a", "h"]


def test_first_error_in_line_order() -> None:
    # A derived cell with no source text (line 3) before a bad literal (line 4):
    # the first is named, as a stream of the same text names it.
    text = (
        "GCX1 tool=t fields=n,u=x/{n},g.a,g.b flat=g template={}\n"
        "1\t\t2\t3\n[]\t\t2\t3\n3\t\t[x\t3\n"
    )
    with pytest.raises(DecodeError, match="derived from 'n'") as info:
        gcx.decode(text)
    assert (info.value.lineno, info.value.colno) == (3, 1)
    decoder = gcx.Decoder()
    with pytest.raises(DecodeError, match="derived from 'n'") as streamed:
        decoder.feed(text)
        decoder.close()
    assert (streamed.value.lineno, streamed.value.colno) == (3, 1)


def test_constant_with_a_cell_is_placed() -> None:
    text = "GCX1 tool=t fields=a,c=1,b flat=g\n1\t\t2\n3\t4\t5\n"
    with pytest.raises(DecodeError, match="Constant column 'c' has a cell") as info:
        gcx.decode(text)
    assert (info.value.lineno, info.value.colno) == (3, 1)


def test_member_where_a_group_goes_still_collides() -> None:
    # Such a header gets no layout: the rows are nested after they are read.
    with pytest.raises(DecodeError, match="collides with member 'a'"):
        gcx.decode("GCX1 tool=t fields=a,a.x.y flat=a.x\n1\t2\n")
    assert gcx.decode("GCX1 tool=t fields=a,a.x.y flat=a.x\n\t2\n") == [{"a": {"x": {"y": 2}}}]
