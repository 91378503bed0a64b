"""Group field lists (`owner{login,id}`) and the objects spread over them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._gcx_columns import Path, _at
from ._gcx_header import _CACHE_SIZE, _LISTED, _field_text, _listed, _name_text
from ._gcx_model import (
    _FLAT_DEPTH,
)
from ._impl import (
    escape,
    unescape,
)
from ._values import NUMBER


def _grouped_names(
    fields: Sequence[str],
    paths: Sequence[Path],
    constants: dict[str, str],
    templates: dict[str, str] | None = None,
) -> str | None:
    """The field list with spread objects as groups, ``owner{login,id}``, or None.

    ``templates``: derived columns the list writes as ``name=text{source}``.
    """
    found = _group_list(fields, paths, constants, templates)
    return None if found is None else found[0]


def _group_list(
    fields: Sequence[str],
    paths: Sequence[Path],
    constants: dict[str, str],
    templates: dict[str, str] | None = None,
) -> tuple[str, int] | None:
    """The grouped field list and how many of its pieces are qualified, or None.

    Reference decoders read the list split on `,` and keep the last cell of a
    repeated field, so each piece must read as a name of its own. Where a piece
    would repeat another (``user{id,name}`` and ``assignee{id,name}`` both give
    ``name}``), it is *qualified*: its name is written after the names of its
    innermost groups (``assignee.name}``), as few as make it new.
    None when a name or constant holds a brace, when a name inside a group
    starts with one of its groups' names and a dot (it would read qualified),
    or when qualifying cannot make a piece new.
    """
    pieces: list[tuple[tuple[str, ...], str]] = []  # (groups around the piece, its text)
    chain: tuple[str, ...] = ()
    for name, path in zip(fields, paths, strict=True):
        text = constants.get(name, "") if constants else ""
        if not _groupable(path) or "{" in text or "}" in text:
            return None
        if templates and name in templates:  # its braces are the template's own
            text = templates[name]
        inner = len(path) - 1
        member = path[-1]
        if name in constants or (templates is not None and name in templates):
            cell = escape(_name_text(member) + "=" + text)
        else:  # the header's cache first: a call less per piece
            cell = (_LISTED.get(member) if type(member) is str else None) or _listed(member)
        if inner == len(chain) and path[:-1] == chain:  # a sibling of the last piece
            pieces.append((chain, cell))
            continue
        keep = 0
        while keep < len(chain) and keep < inner and chain[keep] == path[keep]:
            keep += 1
        if pieces and keep < len(chain):
            outer, last = pieces[-1]
            pieces[-1] = (outer, last + "}" * (len(chain) - keep))
        if keep < inner:  # the groups this piece opens
            cell = "".join([*(_listed(k) + "{" for k in path[keep:-1]), cell])
        pieces.append((path[:keep], cell))
        chain = path[:-1]
    if pieces:
        outer, last = pieces[-1]
        pieces[-1] = (outer, last + "}" * len(chain))
    return _unrepeated(pieces)


# Whether a path can stand in a group list, by path: a spread plan asks again
# for each object it tries to open (a bounded cache, like the header's names).
_GROUPABLE: dict[Path, bool] = {}


def _groupable(path: Path) -> bool:
    # No brace in a key, and no name inside groups that would read qualified.
    try:
        found = _GROUPABLE.get(path)
    except TypeError:  # an unhashable step: asked each time
        return _groupable_path(path)
    if found is None:
        found = _groupable_path(path)
        if len(_GROUPABLE) >= _CACHE_SIZE:
            _GROUPABLE.clear()
        _GROUPABLE[path] = found
    return found


def _groupable_path(path: Path) -> bool:
    return not any("{" in k or "}" in k for k in path) and not (
        len(path) > 1 and _reads_qualified(path)
    )


def _reads_qualified(path: Path) -> bool:
    # Whether a name inside groups would read as qualified (`owner.x` in `owner{…}`).
    return any("." in k and k.split(".", 1)[0] in path[:i] for i, k in enumerate(path) if i)


def _unrepeated(pieces: Sequence[tuple[tuple[str, ...], str]]) -> tuple[str, int] | None:
    """The pieces joined, each that reads like an earlier one qualified, and how many were.

    Top-level pieces cannot be qualified: their readings are taken first.
    """
    seen = {_reading(text) for outer, text in pieces if not outer}
    parts: list[str] = []
    qualified = 0
    for outer, text in pieces:
        if not outer:
            parts.append(text)
            continue
        plain = reading = _reading(text)
        k = 0
        while reading in seen:
            k += 1
            if k > len(outer):
                return None
            reading = ".".join(outer[-k:]) + "." + plain
        if k:
            text = ".".join(_listed(g) for g in outer[-k:]) + "." + text
            qualified += 1
        seen.add(reading)
        parts.append(text)
    return ",".join(parts), qualified


def _reading(text: str) -> str:
    # A piece as reference decoders read it, unescaped twice; text without a
    # backslash reads as written (a memchr says so, two leaf calls less).
    return unescape(unescape(text)) if "\\" in text else text


# A record without groups spreads its objects only when that adds this many
# columns: the `flat={}` mark costs about three tokens (Jira's four `avatarUrls`
# sizes cost one more than their JSON cell).
_SPREAD_MIN = 4


# Spreading a record's objects checks the whole field list each time: this
# many field-list entries read in all, then the rest stays in JSON cells.
_SPREAD_BUDGET = 20_000


def _spread_plan(record: dict[str, Any], paths: list[Path]) -> tuple[list[str], list[Path]] | None:
    """A one-row record's columns (``paths`` into ``record``) with its member objects in groups,
    or None: _spread_groups without the field list."""
    found = _spread_groups(record, paths)
    return None if found is None else (found[0], found[1])


def _spread_groups(
    record: dict[str, Any], paths: list[Path]
) -> tuple[list[str], list[Path], str] | None:
    """A one-row record's columns (``paths`` into ``record``) with its member
    objects in groups, or None.

    In one row a group list (``billing_details{address{city,…},email}``) is
    shorter than the JSON cell's quoted keys. Objects are opened in member
    order, outer ones first, each only if the names reference decoders then
    read (``billing_details{address{city``, ``email``, ``tax_id}``) are still
    all different: they keep one cell per name, so an object whose member
    would read like another field stays one JSON cell, and its siblings may
    still open. None when no object opens.
    """
    size = len(paths)
    opened = any(len(p) > 1 for p in paths)  # the section has groups already
    budget = _SPREAD_BUDGET
    qualified = 0
    names = ""  # the field list of the plan taken last: the search wrote it already
    i = 0
    while i < len(paths) and budget > 0:
        path = paths[i]
        value = _at(record, path)
        if _can_open(record, path, value):
            trial = [*paths[:i], *((*path, k) for k in value), *paths[i + 1 :]]
            budget -= len(trial)
            found = _group_list([".".join(p) for p in trial], trial, {})
            if found is not None and _qualifying_pays(found[1] - qualified, len(value)):
                paths, qualified, names = trial, found[1], found[0]
                continue  # its first member is next: inner objects open in member order
        i += 1
    if len(paths) - size < (1 if opened else _SPREAD_MIN):  # `flat={}` must pay for itself
        return None
    return [".".join(p) for p in paths], paths, names


def _qualifying_pays(added: int, members: int) -> bool:
    # In one row a qualified name (`organization.url`) costs about what its
    # member's quoted JSON key does: an object most of whose members would be
    # qualified stays one JSON cell. (Added can be negative: a later piece
    # may take the bare reading an earlier qualified one had to avoid.)
    return 2 * added <= members


def _can_open(record: dict[str, Any], path: Path, value: Any) -> bool:
    # An object a group can hold: within the group depth, members that can be
    # field names, and no sibling named `key.…` (two dotted names would collide).
    if type(value) is not dict or not value or len(path) > _FLAT_DEPTH:
        return False
    key = path[-1]
    if (
        not key
        or "." in key
        or any(type(k) is not str or not k or _field_text(k) is None for k in value)
    ):
        return False
    parent = _at(record, path[:-1]) if len(path) > 1 else record
    if any(type(k) is str and k.startswith(key + ".") for k in parent):
        return False
    # Each member saves about a token of JSON quoting (an object member, whose
    # own members open next, more), the braces cost one, and a string that
    # needs a guard (`\0.29`, `tru\e`) costs one more than its quotes.
    score = 0
    for v in value.values():
        if type(v) is dict:
            score += 2
        elif type(v) is str and _needs_guard(v):
            score -= 1
        else:
            score += 1
    return score > 1


def _needs_guard(text: str) -> bool:
    # Whether a string cell would read as something else unguarded (§3).
    return text in ("true", "false", "null") or NUMBER.fullmatch(text) is not None
