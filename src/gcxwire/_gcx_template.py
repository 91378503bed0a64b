"""Derived columns (`template=name=text{source}text`): cells another column of a row spells out."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import compress
from typing import Any

from ._gcx_columns import _PROBES, Path, _at, _Columns
from ._gcx_groups import _grouped_names
from ._gcx_header import _CACHE_SIZE, _name_text
from ._gcx_model import (
    _SPACE,
    _TEMPLATE,
)
from ._gcx_prefix import _PREFIX_ROWS
from ._impl import (
    escape,
    template_probes,
)
from ._values import ABSENT, int_to_str, too_many_digits

# A column is derived from another (`template=`) only when this many rows and
# at least half of its rows follow the template, and its cells there are long.
_TEMPLATE_ROWS = 3


_TEMPLATE_MIN = 12


# Cell text a template may repeat: a source column's name holds none of these.
_PLACEHOLDER_BAD = frozenset("{}\\=,")


def _LISTABLE(text: str) -> bool:
    # Whether a template's fixed text can stand in a field list (_listed_templates).
    return "," not in text and "{" not in text and "}" not in text


# A derived column: (source column index, text before, text after the source's).
Derived = tuple[int, str, str]


def _source_text(value: Any) -> str | None:
    # What a source cell puts into a template: a string, or an int's digits.
    if type(value) is str:
        return value
    if type(value) is int and not too_many_digits(value):  # else its cell reports it
        return int_to_str(value)
    return None


_SOURCE_NAME: dict[str, bool] = {}


def _may_be_source(name: str) -> bool:
    # Whether a template may name this column: no placeholder-breaking character (cached).
    ok = _SOURCE_NAME.get(name)
    if ok is None:
        ok = bool(name) and not _PLACEHOLDER_BAD.intersection(name)
        if len(_SOURCE_NAME) < _CACHE_SIZE:
            _SOURCE_NAME[name] = ok
    return ok


def _templates(
    rows: Sequence[Any],
    fields: Sequence[str],
    paths: Sequence[Path],
    held: Iterable[str],
    prefixes: dict[int, str],
    cols: _Columns | None = None,
    order: list[int] | None = None,
) -> dict[int, Derived]:
    """Columns that repeat another column's text inside a fixed one: index -> derivation.

    ``…/users/octocat/followers`` beside ``login`` = ``octocat`` is
    ``template=followers_url=…/users/{login}/followers``; the rows then leave
    that cell blank. The template is the first row's; rows that do not follow
    it keep their cell. Every row must hold the column (a blank cell there is
    the derived value, so an absent key could not be told from it), and a
    derived column is no source, nor a source a derived column.
    """
    # Every row must be a dict, but a look at each is not needed: a row that is
    # not reads as absent, and _follow counts nothing where a row lacks the column.
    if not rows or type(rows[0]) is not dict:
        return {}
    skip = set(held)
    first = rows[0]
    starts = [first.get(p[0], ABSENT) if len(p) == 1 else _at(first, p) for p in paths]
    # Only a long first string can be derived: most tables have no target at all.
    targets = [
        k
        for k, start in enumerate(starts)
        if type(start) is str and len(start) >= _TEMPLATE_MIN and fields[k] not in skip
    ]
    if not targets:
        return {}
    if order is not None:  # the targets tried in this order
        targets = order
    elif len(rows) < _TEMPLATE_ROWS and len(targets) > 2:
        # In one or two rows most columns pay to derive, and the first tried may take
        # the column others derive from (a repository's `url`): try the columns that
        # longer texts hold last too, and keep what saves more.
        last = sorted(targets, key=lambda k: _held_by_longer(k, targets, starts))
        if last != targets:
            trials: list[tuple[int, dict[int, Derived], dict[int, str]]] = []
            for tried in (targets, last):
                left = dict(prefixes)
                trial = _templates(rows, fields, paths, held, left, cols, tried)
                trials.append((_saved(trial, starts, fields), trial, left))
            _, best_trial, left = max(trials, key=lambda t: t[0])  # the first on a tie
            prefixes.clear()
            prefixes.update(left)
            return dict(sorted(best_trial.items()))  # in column order
    texts: list[str | None] = [
        (_source_text(start) or None) if name not in skip and _may_be_source(name) else None
        for name, start in zip(fields, starts, strict=True)
    ]
    found: dict[int, Derived] = {}
    sources: set[int] = set()
    if cols is None:  # each column read once, whichever candidates ask for it
        cols = _Columns(rows)
    for k in targets:
        if k in sources:
            continue
        start = starts[k]
        path = paths[k]
        # A header token holds no whitespace: the text around the placeholder must
        # lie after the first space and before the last (found once, not per slice).
        space = _SPACE.search(start)
        first_space = space.start() if space is not None else len(start)
        space = _SPACE.search(start[::-1]) if space is not None else None
        last_space = len(start) - 1 - space.start() if space is not None else -1
        best: tuple[int, int, int, str, str] | None = None  # (matches, source length, …)
        for s, text in enumerate(texts):
            # Only a source whose first cell the target's holds can be its placeholder.
            if text is None or s == k or s in found or text not in start:
                continue
            left, right = start.find(text), start.rfind(text)
            for at in (left,) if left == right else {left, right} - {-1}:  # its order, as before
                if first_space < at or last_space >= at + len(text):
                    continue
                before, after = start[:at], start[at + len(text) :]
                # Row 0 follows its own template: one row is one match.
                matches = (
                    1
                    if len(rows) == 1
                    else _follow(rows, path, paths[s], before, after, best[0] if best else 0, cols)
                )
                if matches and (best is None or (matches, len(text)) > best[:2]):
                    best = (matches, len(text), s, before, after)
        if best is None:
            continue
        name = fields[k]
        _, _, s, before, after = best
        # It pays when the cells it blanks (as they would be written: after a
        # prefix) are twice the template's length; rows not following it keep theirs.
        cut = len(prefixes.get(k, ""))
        if len(rows) == 1:  # the one row follows its own template
            blanked = len(start) - cut
        else:
            hits = cols.matches(path, paths[s], before, after) or []  # a count found rows
            follow = [hit == 1 for hit in hits]  # exact strs that follow it
            blanked = sum(map(len, compress(cols.values(path), follow))) - cut * sum(follow)
        cost = 2 * (len(before) + len(after) + len(fields[s]) + 2)
        if len(rows) < _TEMPLATE_ROWS:  # the header's repeated name, shared by few cells
            # (where the field list holds it, `name=text{source}`, only its `template={}`)
            # A plain copy (`{email}`) saves too little to drop that.
            listable = (before or after) and _LISTABLE(before + after)
            named = len(" template={}") if listable else len(name) + len(_TEMPLATE) + 2
            cost = (cost + 2 * named // len(rows)) * 3 // 4
        if blanked >= cost:
            found[k] = (s, before, after)
            sources.add(s)
    # A derived column keeps its prefix only for the three strings a prefix needs.
    for k, (s, before, after) in found.items():
        if k in prefixes:
            hits = cols.matches(paths[k], paths[s], before, after) or []
            # The exact strs that do not follow it (a cell that does, 1, is an exact str).
            kept = list(map(type, cols.values(paths[k]))).count(str) - hits.count(1)
            if kept < _PREFIX_ROWS:
                del prefixes[k]
    return found


def _held_by_longer(k: int, targets: Sequence[int], starts: Sequence[Any]) -> int:
    # How many longer texts of the targets hold target k's (a copy does not count).
    text = starts[k]
    return sum(1 for j in targets if len(starts[j]) > len(text) and text in starts[j])


def _saved(found: dict[int, Derived], starts: Sequence[Any], fields: Sequence[str]) -> int:
    # The characters the templates take out of the first row, less their texts.
    return sum(
        len(starts[k]) - len(before) - len(after) - len(fields[s]) - 2
        for k, (s, before, after) in found.items()
    )


def _follow(
    rows: Sequence[dict[str, Any]],
    path: Path,
    source: Path,
    before: str,
    after: str,
    beat: int,
    cols: _Columns | None = None,
) -> int:
    """How many rows hold ``before + source text + after`` at ``path``.

    0 when a row lacks the column, or as soon as the rest of the rows cannot
    give more than ``beat`` matches, ``_TEMPLATE_ROWS`` and half of the rows.
    """
    size = len(rows)
    need = max(beat + 1, min(size, _TEMPLATE_ROWS), (size + 1) // 2)
    # A template half the rows follow holds in half of a spread sample.
    if size > 2 * _PROBES and not template_probes(rows, path, source, before, after, _PROBES):
        return 0
    if cols is None:
        cols = _Columns(rows)
    held = cols.matches(path, source, before, after)  # a leaf, kept for the drop
    if held is None:  # a row lacks the column
        return 0
    misses = size - held.count(1)
    # Short of `need`, with some row not following: what a row-by-row stop would say
    # (a table every row of which follows counts whole, `need` or not).
    return 0 if misses and misses > size - need else size - misses


def _template_text(name: str, source: str, before: str, after: str) -> str:
    # `template=name=before{source}after`: literal braces in the text are `\{` `\}`.
    return f"{escape(_name_text(name))}={_template_body(source, before, after)}"


def _template_body(source: str, before: str, after: str) -> str:
    # `before{source}after` as a `template=` value holds it (or, under `template={}`,
    # the field list once its value is unescaped): the text's own braces `\{` `\}`.
    def literal(text: str) -> str:
        return escape(text).replace("{", "\\{").replace("}", "\\}")

    return f"{literal(before)}{{{escape(source)}}}{literal(after)}"


def _listed_templates(
    fields: Sequence[str], templates: dict[int, Derived], constants: dict[str, str]
) -> dict[str, str] | None:
    """The templates the field list can hold (`url={login}/x`): name -> text, or None.

    A text holding a comma would split the field in reference decoders; those
    stay `template=` pairs. None when there are none, or when a constant holds a
    brace (under `template={}` it would read as a template).
    """
    if any("{" in text or "}" in text for text in constants.values()):
        return None
    found = {
        fields[k]: body
        for k, (s, before, after) in templates.items()
        if "," not in (body := _template_body(fields[s], before, after))
        and "{" not in before + after
        and "}" not in before + after
    }
    return found or None


def _drop_derived(
    rows: Sequence[dict[str, Any]],
    paths: Sequence[Path],
    templates: dict[int, Derived],
    cols: _Columns | None = None,
    owned: bool = False,
) -> list[dict[str, Any]]:
    """The rows without each cell its template gives (those rows, and objects on the way, copied).

    A source is never derived, so which cells go is read off the rows as given. With
    ``owned`` (every row is the caller's own copy, as child sections leave them) the
    cells leave the rows themselves: the objects inside are still copied.
    """
    if cols is None:
        cols = _Columns(rows)
    drops = [
        (paths[k], _derived_rows(cols, paths[k], paths[s], before, after))
        for k, (s, before, after) in templates.items()
    ]
    out: list[dict[str, Any]] = []
    if len(drops) == 1 and len(drops[0][0]) == 1:  # the common case: one top-level member
        key, dropped = drops[0][0][0], drops[0][1]
        if owned:
            for row in compress(rows, dropped):
                del row[key]
            return list(rows)
        for row, drop in zip(rows, dropped, strict=True):
            if drop:
                row = row.copy()
                del row[key]
            out.append(row)
        return out
    for i, row in enumerate(rows):
        hit = [path for path, dropped in drops if dropped[i]]
        if hit:
            if not owned:
                row = dict(row)
            for path in hit:
                target = row
                for key in path[:-1]:
                    target[key] = inner = dict(target[key])
                    target = inner
                del target[path[-1]]
        out.append(row)
    return out


def _derived_rows(cols: _Columns, path: Path, source: Path, before: str, after: str) -> list[bool]:
    # Per row, whether its cell at path is what the template gives (an absent one is not).
    held = cols.matches(path, source, before, after)
    if held is not None:
        return list(map(bool, held))  # 1 or 2: a cell the template gives
    return [
        text is not None and value == before + text + after
        for value, text in zip(cols.values(path), cols.texts(source), strict=True)
    ]


def _derive_record(
    obj: dict[str, Any], keys: list[str]
) -> tuple[dict[str, Any], dict[int, Derived]]:
    """A one-row record without the members a template gives, and those templates."""
    paths: list[Path] = [(k,) for k in keys]
    templates = _templates([obj], keys, paths, (), {})
    if not templates:
        return obj, {}
    record = obj.copy()  # its one row follows each template: every derived member goes
    for k in templates:
        del record[keys[k]]
    return record, templates


def _written_templates(
    fields: Sequence[str],
    paths: Sequence[Path],
    templates: dict[int, Derived],
    constants: dict[str, str],
    names: str | None,
) -> tuple[list[tuple[str, str]], str | None, dict[str, str] | None]:
    """How a section writes its templates: (header pairs, field list, listed templates).

    Those the field list can hold go there (`forks_url={url}/forks`, with
    `template={}` among the pairs); a grouped field list (``names``) is written
    again with them, and where it cannot be, every template stays a pair.
    """
    listed = _listed_templates(fields, templates, constants)
    if listed is not None and names is not None:  # the groups hold them too
        grouped = _grouped_names(fields, paths, constants, listed)
        listed, names = (None, names) if grouped is None else (listed, grouped)
    pairs = [
        (_TEMPLATE, _template_text(fields[k], fields[s], before, after))
        for k, (s, before, after) in templates.items()
        if listed is None or fields[k] not in listed
    ]
    if listed is not None:
        pairs.append((_TEMPLATE, "{}"))
    return pairs, names, listed
