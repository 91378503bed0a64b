"""The group list search (_group_list) and its per-path cache give the same answers each time."""

from __future__ import annotations

from typing import Any

import pytest

from gcxwire._gcx_groups import _group_list


def _names(paths: list[tuple[Any, ...]]) -> list[str]:
    return [".".join(map(str, p)) for p in paths]


def test_group_list_writes_groups_and_qualifies_repeats() -> None:
    paths = [("id",), ("user", "name"), ("user", "id"), ("owner", "name"), ("owner", "id")]
    paths.append(("owner", "x", "y"))
    for _ in range(2):  # the second ask reads the cache
        # `id` reads `id` at the top and `id}` in user's group: owner's is qualified.
        assert _group_list(_names(paths), paths, {}) == (
            "id,user{name,id},owner{name,owner.id,x{y}}",
            1,
        )


def test_a_brace_or_a_qualified_reading_refuses_the_list_each_time() -> None:
    for paths in ([("a",), ("b{", "c")], [("a",), ("a", "a.x")]):
        for _ in range(2):
            assert _group_list(_names(paths), paths, {}) is None


def test_constants_and_templates_are_written_in_their_pieces() -> None:
    paths = [("a", "b"), ("a", "c"), ("d",)]
    found = _group_list(_names(paths), paths, {"a.b": "1"}, {"d": "x{a.c}"})
    assert found == ("a{b=1,c},d=x{a.c}", 0)
    assert _group_list(_names(paths), paths, {"a.b": "{"}) is None


def test_an_unhashable_step_is_the_name_error_it_was() -> None:
    # A list step has no cache key: the path is checked without it, and its
    # name fails where the list writes it, as before the cache.
    paths: list[tuple[Any, ...]] = [("a",), ("b", ["c"])]
    with pytest.raises((TypeError, AttributeError)):  # the twins' escape() of a list
        _group_list(["a", "b.c"], paths, {})


def test_an_escaped_name_is_compared_as_it_reads() -> None:
    # `x<TAB>y` is written escaped twice; the pieces are compared as read back
    # (unescaped twice): u's `x<TAB>y}` is read first, so o's is qualified.
    paths = [("x\ty",), ("u", "a"), ("u", "x\ty"), ("o", "b"), ("o", "x\ty")]
    assert _group_list(_names(paths), paths, {}) == ("x\\\\ty,u{a,x\\\\ty},o{b,o.x\\\\ty}", 1)
