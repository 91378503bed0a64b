"""Column styles found in a written table: `tree=`, `lists=`, `str=`, `crlf=` and `json=raw`."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from ._gcx_columns import _PROBES, Path, _at, _column
from ._gcx_header import _name_list
from ._gcx_model import (
    _CRLF,
    _JSON,
    _STR,
    _TREE,
    _WORDS,
)
from ._gcx_trees import is_tree, leaves, tree_text
from ._impl import (
    crlf_cells,
    crlf_only,
    drop_crlf,
    escape,
    find_text,
    style_marks,
    text_marks,
)
from ._values import ABSENT, NUMBER

# The row lines holding a number of `\n` escapes: (row, start, end) each.
Lines = list[tuple[int, int, int]]


def _cell_styles(
    text: str,
    header: bool,
    rows: Sequence[dict[str, Any]],
    cells: Sequence[str],
    paths: Sequence[Path | None],
) -> tuple[str, list[tuple[str, str]]]:
    """The written rows in the cell styles that pay, and their marks (`json=raw`, `str=`...)."""
    text, marks, _ = _styles_and_lines(text, header, rows, cells, paths, 0)
    return text, marks


def _styles_and_lines(
    text: str,
    header: bool,
    rows: Sequence[dict[str, Any]],
    cells: Sequence[str],
    paths: Sequence[Path | None],
    floor: int,
) -> tuple[str, list[tuple[str, str]], Lines | None]:
    """_cell_styles, and (``floor`` 1 or more) the row lines of the text it gives that hold
    ``floor`` `\\n` escapes, found in the same look at the text (break_cells' ``lines``);
    None when a style rewrote the text, or for a ``floor`` below 1."""
    marks: list[tuple[str, str]] = []
    # A JSON cell holding an empty object as a member writes `":{}`; without one
    # there is no key tree. Key lists come first: json=raw then sees them as the
    # `{` cells they are, and keeps their backslashes single too.
    # Both searches below look for a `"`: one memchr rules them out on text with none
    # (a two- to four-character search scans at ~0.7 ns a character: 0.8 ms on issues-500,
    # ~1.5 on JSON text, where find_text takes ~0.1).
    quoted = '"' in text
    trees = None
    if quoted and _holds(text, '":{}'):
        trees = _key_trees(text, header, rows, cells, paths)
    if trees is not None:  # `tree=f`: this column's objects of empty objects as key lists
        text, names_text = trees
        marks.append((_TREE, names_text))
    words = None
    if quoted and _holds(text, '","'):
        words = _word_lists(text, header, rows, cells, paths)
    if words is not None:  # `lists=tags`: this column's lists of texts, a space between items
        text, names_text = words
        marks.append((_WORDS, names_text))
    # Each style drops a backslash (`\\` in JSON, a guard's, `\r\n`'s): text with
    # none has nothing to drop. A one-character search is a memchr; two-character
    # searches scan at ~1 ns a character (65 µs on symbols-500, 600 on issues-500).
    if "\\" not in text:  # no escape at all: no line holds one
        return text, marks, (None if marks or floor < 1 else [])
    # One leaf pass says which passes can find anything, and which cells hold a raw
    # CR. Neither pass changes what the next one looks for: json=raw rewrites only
    # JSON cells, which start with `[` or `{` and hold no raw CR; str= only cells
    # that read as numbers or words.
    doubled, guarded, crlf_seen, cr_cells, lines = style_marks(text, header, floor)
    raw = _raw_json(text, header) if doubled else None
    if raw is not None:  # JSON cells as JSON: `json=raw` says their backslashes are single
        text = raw
        marks.append((_JSON, "raw"))
    unguarded = _unguarded(text, header, rows, cells, paths) if guarded else None
    if unguarded is not None:  # `str=a,b`: these columns' number-like strings unguarded
        text, names_text = unguarded
        marks.append((_STR, names_text))
    crlf = _crlf(text, header, rows, cells, paths, cr_cells) if crlf_seen else None
    if crlf is not None:  # `crlf=body`: this column's line breaks are all CR LF, written \n
        text, names_text = crlf
        marks.append((_CRLF, names_text))
    return text, marks, (None if marks else lines)  # a style that pays rewrote the text


def _holds(text: str, needle: str) -> bool:
    return find_text(text, needle, 0, len(text)) >= 0


# `str=` names a column when it drops this many guards from its cells.
_STR_MIN = 4


_GUARDED = re.compile(r"(?:^|\t)(?:\\[-0-9]|tru\\e|fals\\e|nul\\l)", re.MULTILINE)


_UNGUARD = {"tru\\e": "true", "fals\\e": "false", "nul\\l": "null"}


def _has_guard(text: str) -> bool:
    """Whether a cell of the text starts with a guard: ``_GUARDED.search(text)``, found faster.

    That regex starts with an alternation (line start or TAB), so the engine
    tries it at every position (122 ms on a 5.7 MB issues payload); the
    ``text_marks`` leaf looks only at backslashes.
    """
    return text_marks(text)[1]


def _unguarded(
    text: str,
    header: bool,
    rows: Sequence[dict[str, Any]],
    cells: Sequence[str],
    paths: Sequence[Path | None],
) -> tuple[str, str] | None:
    """The rows with guards dropped in columns that hold only strings, and their `str=` list.

    A string that reads as a number or a word is written ``\\62``, ``tru\\e``
    (§3); in a column where every value is a string, ``str=`` says so once and
    its cells drop the guard. None when no column drops ``_STR_MIN`` guards.
    """
    if not _has_guard(text):
        return None
    lines = text.split("\n")
    body = lines[1:] if header else lines
    split = [line.split("\t") for line in body]
    counts = [0] * len(cells)
    for row_cells in split:
        for k, cell in enumerate(row_cells):
            if cell in _UNGUARD or (cell[:1] == "\\" and cell[1:2] in _DIGITS_MINUS):
                counts[k] += 1
    chosen = [
        k
        for k, n in enumerate(counts)
        if n >= _STR_MIN
        and cells[k]  # a marker's name list cannot hold an empty name (§5)
        and (path := paths[k]) is not None
        and all(type(v) is str or v is ABSENT for v in (_at(row, path) for row in rows))
    ]
    if not chosen:
        return None
    for row_cells in split:
        for k in chosen:
            if k < len(row_cells):
                cell = row_cells[k]
                if cell in _UNGUARD:
                    row_cells[k] = _UNGUARD[cell]
                elif cell[:1] == "\\" and NUMBER.fullmatch(cell, 1):
                    row_cells[k] = cell[1:]
    body = ["\t".join(c) for c in split]
    out = "\n".join([lines[0], *body] if header else body)
    return out, _name_list(cells[k] for k in chosen)


_DIGITS_MINUS = frozenset("-0123456789")


# `crlf=` names a column when it drops this many raw CRs from its cells.
_CRLF_MIN = 4


def _crlf(
    text: str,
    header: bool,
    rows: Sequence[dict[str, Any]],
    cells: Sequence[str],
    paths: Sequence[Path | None],
    held: set[int] | None = None,
) -> tuple[str, str] | None:
    """The rows without the CR of each CR LF in columns where every line break is CR LF.

    Text written with Windows line ends keeps a raw CR before each ``\\n``; in
    a column of strings whose every CR starts a CR LF and every LF ends one,
    ``crlf=`` says so once and the cells write ``\\n`` alone. None when no
    column drops ``_CRLF_MIN`` CRs. ``held``: crlf_cells(text, header), when known.
    """
    if "\r\\n" not in text:
        return None
    chosen: list[int] = []
    size = len(rows)
    # Only a string's cell keeps its CRs raw (a JSON cell writes `\r`), so a column
    # whose strings hold CR LFs is among these; the others need no look at their rows.
    if held is None:
        held = crlf_cells(text, header)
    for k, path in enumerate(paths):
        if path is None or k >= len(cells) or not cells[k] or k not in held:
            continue
        # A spread sample first: one non-string or lone CR/LF there rules the column out.
        sample = [_at(rows[i * size // _PROBES], path) for i in range(min(size, _PROBES))]
        if not all(v is ABSENT or (type(v) is str and _crlf_only(v)) for v in sample):
            continue
        values = _strings(rows, path)
        if values is None:
            continue
        joined = " ".join(values)  # the space keeps a CR and the next cell's LF apart
        if crlf_only(joined) and joined.count("\r") >= _CRLF_MIN:  # each CR is a CR LF
            chosen.append(k)
    if not chosen:
        return None
    return drop_crlf(text, header, chosen), _name_list(cells[k] for k in chosen)


def _strings(rows: Sequence[Any], path: Path) -> list[str] | None:
    # The column's strings, absent cells left out; None at its first other value
    # (a null body ends the look there, not after reading the whole column).
    values: list[str] = []
    key = path[0] if len(path) == 1 else None
    for row in rows:
        if key is not None:
            v = row.get(key, ABSENT) if type(row) is dict else ABSENT
        else:
            v = _at(row, path)
        if type(v) is str:
            values.append(v)
        elif v is not ABSENT:
            return None
    return values


def _crlf_only(text: str) -> bool:
    # Whether every CR in the text starts a CR LF and every LF ends one (a leaf:
    # str.count("\r\n") scans at ~1 ns a character).
    return crlf_only(text)


# `json=raw` costs its header token; it is written when it drops this many backslashes.
_RAW_JSON_MIN = 4


def _raw_json(text: str, header: bool) -> str | None:
    """The row lines with each JSON cell's backslashes single again, or None if few are doubled.

    A JSON text holds no TAB or LF, so escaping a JSON cell only doubled its
    backslashes; a cell that starts with ``[`` or ``{`` is always a JSON
    literal (a string starting so is written ``\\[``).
    """
    if "\\\\" not in text:
        return None
    lines = text.split("\n")
    dropped = 0
    for i in range(1 if header else 0, len(lines)):
        line = lines[i]
        if "\\\\" in line:
            cells = line.split("\t")
            for k, cell in enumerate(cells):
                if cell[:1] in ("[", "{") and "\\\\" in cell:
                    dropped += cell.count("\\\\")
                    cells[k] = cell.replace("\\\\", "\\")
            lines[i] = "\t".join(cells)
    return "\n".join(lines) if dropped >= _RAW_JSON_MIN else None


# `tree=` names a column when its key lists leave out this many `{}` leaves (about
# three tokens each; a name in the marker costs about seven).
_TREE_MIN = 4


def _key_trees(
    text: str,
    header: bool,
    rows: Sequence[dict[str, Any]],
    cells: Sequence[str],
    paths: Sequence[Path | None],
) -> tuple[str, str] | None:
    """The rows with each object of empty objects written as a key list, and the `tree=` list.

    A column qualifies when every object in it is such a tree (Kubernetes'
    ``fieldsV1``) and they hold ``_TREE_MIN`` leaves or more; its other cells
    (strings, lists, numbers) stay as they are. None when no column qualifies.
    """
    return _rewritten(text, header, rows, cells, paths, _tree_cells, _tree_leaves, _tree_cell)


def _tree_leaves(values: Sequence[Any]) -> int | None:
    # The `{}` leaves a column's key lists leave out; None when one object is no tree.
    count = 0
    for value in values:
        if type(value) is dict:
            if not is_tree(value):
                return None
            count += leaves(value)
    return count if count >= _TREE_MIN else None


def _tree_cell(k: int, value: Any) -> str | None:
    return escape(tree_text(value)) if type(value) is dict and value else None


def _tree_cells(lines: list[str], start: int) -> set[int]:
    # The cell indexes that hold `":{}` (a JSON cell with an empty object member) in some line.
    found: set[int] = set()
    for i in range(start, len(lines)):
        line = lines[i]
        size = len(line)
        at = find_text(line, '":{}', 0, size)
        tabs = counted = 0  # the TABs before `counted`: each hit counts on from the last
        while at >= 0:
            tabs += line.count("\t", counted, at)
            counted = at
            found.add(tabs)
            end = line.find("\t", at)
            at = -1 if end < 0 else find_text(line, '":{}', end, size)
    return found


# `lists=` names a column when its lists hold this many items (a quote pair
# and a comma each, against a space; the marker costs about four tokens).
_WORDS_MIN = 6
# What an item of a `lists=` list may not hold or start with: the list is read
# back by splitting on spaces, and a cell `null`, `[]` or one that starts like
# a JSON literal would read as something else.
_NOT_A_WORD = re.compile(r"[\s\x00-\x1f\x7f\ufeff]|^[\[{\"]|^null$")


def _word_lists(
    text: str,
    header: bool,
    rows: Sequence[dict[str, Any]],
    cells: Sequence[str],
    paths: Sequence[Path | None],
) -> tuple[str, str] | None:
    """The rows with each list of texts written as its items with a space between, and the
    `lists=` list.

    A column qualifies when every value in it is such a list (or null, or
    absent), no item is empty or holds whitespace, and they hold ``_WORDS_MIN``
    items or more (Sentry's `features`, OAuth scopes, Kubernetes image names).
    None when no column qualifies.
    """
    return _rewritten(text, header, rows, cells, paths, _list_cells, _word_items, _word_cell)


def _word_items(values: Sequence[Any]) -> int | None:
    # The items of a column's lists of texts; None when one value is no such list.
    count = 0
    for value in values:
        if value is None or value is ABSENT:
            continue
        if type(value) is not list or not all(
            type(item) is str and item and _NOT_A_WORD.search(item) is None for item in value
        ):
            return None
        count += len(value)
    return count if count >= _WORDS_MIN else None


def _word_cell(k: int, value: Any) -> str | None:
    if type(value) is not list or not value:
        return None
    cell = escape(" ".join(value))
    return "\\" + cell if k == 0 and cell.startswith(("#", "GCX1")) else cell  # the row guard (§3)


# Up to this many rows, _rewritten reads a column's values before the written text
# (a big record's JSON cell: splitting it into lines cost more than its few members).
_FEW_ROWS = 2


def _rewritten(
    text: str,
    header: bool,
    rows: Sequence[dict[str, Any]],
    cells: Sequence[str],
    paths: Sequence[Path | None],
    held: Callable[[list[str], int], set[int]],
    units: Callable[[Sequence[Any]], int | None],
    cell_text: Callable[[int, Any], str | None],
) -> tuple[str, str] | None:
    """The rows with the cells of each column that takes a form rewritten, and those columns'
    names as a marker lists them; None when no column takes it.

    ``held`` finds the cells worth a look in the written lines, ``units`` says
    what a column's values save in the form (None: they refuse it, or too
    little), ``cell_text`` writes a value in it (None: the cell stays).
    """
    named = [  # a marker's name list cannot hold an empty name
        k for k, path in enumerate(paths) if path is not None and k < len(cells) and cells[k]
    ]
    few = len(rows) <= _FEW_ROWS
    if few:  # a record's values first: a member that refuses the form needs no look at its text
        named = [k for k in named if units(_column(rows, paths[k])) is not None]  # type: ignore[arg-type]
        if not named:
            return None
    lines = text.split("\n")
    start = 1 if header else 0
    if len(lines) - start != len(rows):
        return None
    looked = held(lines, start)
    chosen = [
        k
        for k in named
        if k in looked and (few or units(_column(rows, paths[k])) is not None)  # type: ignore[arg-type]
    ]
    if not chosen:
        return None
    for i, row in enumerate(rows):
        row_cells = lines[start + i].split("\t")
        for k in chosen:
            written = cell_text(k, _at(row, paths[k]))  # type: ignore[arg-type]
            if written is not None and k < len(row_cells):
                row_cells[k] = written
        lines[start + i] = "\t".join(row_cells)
    return "\n".join(lines), _name_list(cells[k] for k in chosen)


def _list_cells(lines: list[str], start: int) -> set[int]:
    # The cell indexes that start a JSON list of texts (`["`) in some line.
    found: set[int] = set()
    for i in range(start, len(lines)):
        line = lines[i]
        if line.startswith('["'):
            found.add(0)
        size = len(line)
        at = find_text(line, '\t["', 0, size)
        tabs = counted = 0  # the TABs before `counted`: each hit counts on from the last
        while at >= 0:
            tabs += line.count("\t", counted, at + 1)
            counted = at + 1
            found.add(tabs)
            at = find_text(line, '\t["', at + 1, size)
    return found
