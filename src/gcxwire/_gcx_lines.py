"""Long multi-line texts as sections of their own, one row per line (`form=lines`).

In a cell, each line break of a text is the escape ``\\n``, which JSON writes
too. After a punctuation mark or a space the tokenizers merge a real line
break with that mark (``.\\n`` is one token) but not the escape (``.\\``, ``n``):
a page of scraped text or source code costs a token more per such line in a
cell than in lines of its own. A text that saves more than its section's
header costs moves to a section right after the rows that held it, named by
the cell's path (``of=results[3].raw_content``), and its cell is left blank.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import Any

from . import _gcx_nested as nested
from ._gcx_columns import _at
from ._gcx_header import _listed, _name_list
from ._gcx_model import _CRLF, _FORM, _OF, Header
from ._impl import break_cells, escape
from .errors import DecodeError

# The `form=` value of a lines section.
LINES = "lines"
# Tokens a moved text must save beyond its header's estimate: the estimate is a
# character count, and moving a text that saves nothing only splits the row.
_MARGIN = 4
# A text with fewer line breaks than this stays in its cell, whatever it saves.
_MIN_BREAKS = 8


def line_rows(text: str) -> list[str]:
    """The rows a lines section holds for ``text``: joined by LF they are the text.

    A row cannot be blank (readers skip blank lines), so a line break becomes
    a row break only between two rows that hold more than line breaks: the
    LFs of empty lines stay in the next row as escapes (``\\nShare via``
    after a blank line), or in the last row at the end of the text. Nor does
    a row end in CR (Go's line reader drops a CR before the LF).
    """
    pieces = text.split("\n")
    if "\n\n" not in text and "\r\n" not in text and text[:1] != "\n" and text[-1:] != "\n":
        return pieces  # no empty line, no CR before a break: a row a line
    rows: list[str] = []
    cur = pieces[0]
    held = bool(cur)  # whether the row holds more than line breaks
    at = len(cur)  # where the next LF is
    last = len(text.rstrip("\n"))  # only LFs from here on
    for piece in pieces[1:]:
        if held and cur[-1] != "\r" and at < last:
            rows.append(cur)
            cur, held = piece, bool(piece)
        else:
            cur += "\n" + piece
            held = held or bool(piece)
        at += len(piece) + 1
    rows.append(cur)
    return rows


# Rows (one a line) that a reader would take for a comment or a header.
_GUARDED = re.compile(r"^(?=#|GCX1)", re.MULTILINE)


def _rows_text(rows: list[str]) -> tuple[str, int]:
    """The rows as the section writes them (LF between), and how many got a guard."""
    body = "\n".join(map(escape, rows))  # an escaped row holds no LF: a row a line
    if "#" not in body and "GCX1" not in body:
        return body, 0
    return _GUARDED.subn("\\\\", body)


def _saved(rows: list[str]) -> int:
    """Tokens the row breaks save, estimated low: one for each that follows no letter or digit.

    Measured on source code, Markdown, HTML and prose (cl100k and o200k): a
    break after a letter or digit saves about nothing (``word\\nNext`` and
    ``word`` LF ``Next`` both spend a token on it), one after a punctuation mark
    or a space 1.0 to 1.4 (``.`` LF is one token, ``.\\`` ``n`` two); on 86
    such texts they saved 0.91 to 1.6 times this count, less one for each row
    a guard starts (o200k 0.91 to 2.0).
    """
    return sum(1 for row in rows[:-1] if not row[-1].isalnum())


def _header_cost(header: str) -> int:
    # Headers read at about 3.4 characters a token (cl100k and o200k alike).
    return (len(header) + 2) // 3


def lines_section(
    tool_text: str, name_text: str, of_text: str, text: str, crlf: str = "", bound: int = -1
) -> str | None:
    """The section holding ``text`` (LF, header, rows), or None when it would not pay.

    ``name_text`` is the field as the field list writes it; with ``crlf`` (the
    name as `crlf=` lists it) each line break of the text stands for CR LF
    (the caller took the CRs out). ``bound``, when given, is at least what the
    breaks save (break_cells' count): below the header's cost, no rows are made.
    """
    if text.count("\n") < _MIN_BREAKS or text.endswith("\r"):
        return None
    header = _lines_header(tool_text, name_text, of_text, crlf)
    need = _header_cost(header) + _MARGIN
    if 0 <= bound < need:
        return None
    rows = line_rows(text)
    if len(rows) < _MIN_BREAKS:
        return None
    saved = _saved(rows)
    if saved < need:
        return None
    body, guards = _rows_text(rows)  # a guard costs a token
    if saved - guards < need:
        return None
    return "\n" + header + "\n" + body


def _lines_header(tool_text: str, name_text: str, of_text: str, crlf: str = "") -> str:
    mark = f" {_CRLF}={crlf}" if crlf else ""
    return f"GCX1 tool={tool_text} fields={name_text} {_FORM}={LINES}{mark} {_OF}={of_text}"


def _where(of: str | None, row: int, path: tuple[str, ...]) -> str:
    # The `of=` text naming a cell: its path alone in a record, else its row's too.
    key = ".".join(map(_key_text, path))
    return key if of is None else f"{of}[{row}].{key}"


def _fewest_breaks(
    tool_text: str,
    of: str | None,
    paths: Sequence[tuple[str, ...] | None],
    skip: Collection[int],
) -> int:
    """The fewest ``\\n`` a cell of these columns needs to move: a break saves a token at
    most, and the cheapest header is a column's in the first row (its `of=` is shortest)."""
    needs = [
        _header_cost(_lines_header(tool_text, _listed(path[-1]), _where(of, 0, path))) + _MARGIN
        for k, path in enumerate(paths)
        if path is not None and k not in skip
    ]
    return max(_MIN_BREAKS, min(needs, default=_MIN_BREAKS))


def least_breaks(tool_text: str, of: str | None) -> int:
    """No more than _fewest_breaks, whatever the columns: a column's header is no shorter
    than one naming an empty column at an empty path (escaping only lengthens a name)."""
    least = _header_cost(_lines_header(tool_text, "", _where(of, 0, ("",)))) + _MARGIN
    return max(_MIN_BREAKS, least)


def _key_text(key: str) -> str:
    # A key in an `of=` path, as the writer's _of_text writes one: `\\.`, `\\[` are its own.
    return escape(key).replace(".", "\\.").replace("[", "\\[")


def record_lines(
    row: str,
    tool_text: str,
    whole: dict[str, Any],
    record: dict[str, Any],
    fields: Sequence[str],
    leaves: Sequence[tuple[str, ...]],
    derived: bool,
    empty_null: bool,
    keep: bool,
) -> str:
    """A record section's row (no LF) with the lines sections of the texts that move.

    ``whole`` is the record before its derived members left (``record``):
    a template's source stays in the row. ``keep``: see move_texts.
    """
    skip = sources(whole, fields) if derived else ()
    moved = move_texts(
        row, False, [record], fields, leaves, (tool_text, None), skip, empty_null, keep
    )
    return row if moved is None else moved[0] + moved[1]


def sources(row: dict[str, Any], fields: Sequence[str]) -> set[int]:
    """The columns whose text another string of the row holds: a template's sources among them.

    A source's cell must stay in its row, where the template reads it.
    """
    texts = [(k, v) for k, v in enumerate(map(row.get, fields)) if type(v) is str and v]
    return {k for k, v in texts if any(j != k and v in w for j, w in texts)}


def move_texts(
    text: str,
    header: bool,
    rows: Sequence[Any],
    cells: Sequence[str],
    paths: Sequence[tuple[str, ...] | None],
    place: tuple[str, str | None],
    skip: Collection[int],
    empty_null: bool,
    keep: bool = False,
    groups: bool = True,
    breaks: list[tuple[int, int, int]] | None = None,
) -> tuple[str, str] | None:
    """The written rows with the long texts that pay left blank, and their lines sections.

    ``place`` is the tool text and the table's `of=` text ("" at the top), or
    None for a one-row record, whose members are named by their path alone.
    Group members move only with ``groups`` (not where a group whose cells are
    all blank reads as missing: `optional=`, `nullable=`), and only string
    cells that read back as the row's value (``rows`` are the rows as written,
    or a record by column name); ``skip``: columns whose blank cells mean
    something else (`template=`). With ``keep`` a row keeps one cell at least
    (a record beside tables: its members' place among the object's is read from
    the members it still holds). ``breaks``: the row lines of ``text`` holding
    least_breaks' count of `\\n` escapes, when a look at the text found them
    already (style_marks). None when no text moves.
    """
    start = 1 if header else 0
    tool_text, of = place
    # A text saves a token a break at most: fewer breaks than the cheapest header costs
    # stay. One leaf look at each row line (a memchr for its end and one per backslash;
    # only a line with that many `\\n` escapes is read cell by cell) finds the cells with
    # as many breaks after a mark: most tables have none, and most texts stay (no row is
    # split then; issues-500, CR LF bodies, none moves). It is asked for the fewest any
    # header allows (a column named ""), the columns' own headers read only when it finds
    # a cell: a first look for lines with that many escapes walked every long text again.
    found_cells = break_cells(text, header, least_breaks(tool_text, of), breaks)
    if not found_cells:
        return None
    floor = _fewest_breaks(tool_text, of, paths, skip)
    candidates: dict[int, list[tuple[int, int, int, int]]] = {}
    for row_i, k, begin, end, bound in found_cells:
        if bound >= floor:
            candidates.setdefault(row_i, []).append((k, begin, end, bound))
    if not candidates:
        return None
    lines = text.split("\n")
    blank = "\\" if empty_null else ""
    found: list[str] = []
    for r, line_cells in candidates.items():
        i = r + start
        line = lines[i]
        row = rows[r]
        changed = False
        had = len(found)
        row_cells: list[str] = []
        for k, begin, end, bound in line_cells:
            if k >= len(cells) or k in skip:
                continue
            cell = text[begin:end]
            path = paths[k]
            if path is None or (len(path) > 1 and not groups) or type(row) is not dict:
                continue
            value = row[cells[k]] if cells[k] in row else _at(row, path)
            if type(value) is not str:
                continue
            plain, crlf = value, ""
            if cell != escape(value):  # a `crlf=` column's cell, or a guarded or cut one
                plain, crlf = value.replace("\r\n", "\n"), _name_list(path[-1:])
                if "\r" in plain or cell != escape(plain):
                    continue
            where = _where(of, r, path)
            section = lines_section(tool_text, _listed(path[-1]), where, plain, crlf, bound)
            if section is None:
                continue
            row_cells = row_cells or line.split("\t")
            row_cells[k] = blank
            changed = True
            found.append(section)
        if changed and keep and all(c in ("", "\\") for c in row_cells):
            del found[had:]  # the row would hold no cell: its texts stay
            changed = False
        if changed:
            while row_cells and row_cells[-1] == "":
                row_cells.pop()
            if row_cells and row_cells[-1].endswith("\r"):  # Go would drop it: a cell after
                row_cells.append("")
            lines[i] = "\t".join(row_cells) if row_cells else "\\"
    if not found:
        return None
    return "\n".join(lines), "".join(found)


# ---------------------------------------------------------------------- reading


def is_lines(header: Header) -> bool:
    """Whether the section's rows are the lines of one text (`form=lines`)."""
    return any(key == _FORM and value == LINES for key, value in header.raw_meta)


def _text(header: Header, rows: list[dict[str, Any]], doc: str) -> str:
    # The rows (read as plain strings) joined by LF; under `crlf=` each LF is CR LF.
    if len(header.fields) != 1 or any(k not in (_FORM, _OF, _CRLF) for k, _ in header.raw_meta):
        raise DecodeError("A `form=lines` section holds one field and no other members", doc)
    name = header.fields[0]
    text = "\n".join(row.get(name, "") for row in rows)
    return text.replace("\n", "\r\n") if name in header.crlf else text


def _path(raw: str, doc: str) -> list[str | int]:
    """A lines section's `of=` path, raw: keys joined by `.`, a table row as `[n]`.

    `results[3].raw_content` is member raw_content of row 3 of member results,
    `[3].body` a row's of the top-level table, `body` a record's member; a
    key's own `.` and `[` are written `\\.` and `\\[`.
    """
    steps: list[str | int] = []
    part: list[str] = []
    i, size = 0, len(raw)
    while i < size:
        c = raw[i]
        if c == "\\" and i + 1 < size:
            nxt = raw[i + 1]
            part.append({"t": "\t", "n": "\n"}.get(nxt, nxt))
            i += 2
        elif c == "[":
            end = raw.find("]", i)
            digits = raw[i + 1 : end] if end > i else ""
            if not (digits.isascii() and digits.isdigit()) or raw[end + 1 : end + 2] != ".":
                raise DecodeError(f"Bad row step in `of={raw}`", doc)
            if part or steps:  # `[3].x` alone is a row of the top-level table
                steps.append("".join(part))
            part = []
            steps.append(int(digits))
            i = end + 2
        else:
            if c == ".":
                steps.append("".join(part))
                part = []
            else:
                part.append(c)
            i += 1
    steps.append("".join(part))
    return steps


def _places(columns: tuple[str, ...]) -> dict[str, int]:
    # Each member a row can hold, by the index of its first column: `owner` for
    # `owner.login`, `containers` for a count column `containers[]`.
    found: dict[str, int] = {}
    for at, column in enumerate(columns):
        found.setdefault(column.removesuffix(nested.MARK), at)
        dot = column.find(".")
        while dot >= 0:
            found.setdefault(column[:dot], at)
            dot = column.find(".", dot + 1)
    return found


def _insert(obj: dict[str, Any], key: str, value: str, places: dict[str, int], doc: str) -> None:
    # The member goes where its column stands among the members the row holds.
    at = places.get(key)
    if at is None:
        raise DecodeError(f"A `form=lines` section names {key!r}, no column of its table", doc)
    # Before the first member of a later column; else after the last member of the
    # section's (an object's members from other sections have no column there).
    keys = list(obj)
    cut = next((i for i, k in enumerate(keys) if places.get(k, -1) > at), None)
    if cut is None:
        cut = 1 + max((i for i, k in enumerate(keys) if k in places), default=len(keys) - 1)
    tail = [(k, obj.pop(k)) for k in keys[cut:]]
    obj[key] = value
    obj.update(tail)


Section = tuple[Header, list[dict[str, Any]], list[str]]
# A text to put into the value: its path, the text, and the columns of the section before.
Placed = tuple[list[str | int], str, tuple[str, ...]]


def split(sections: list[Section], doc: str) -> tuple[list[Section], list[Placed]]:
    """The sections without the lines sections, and the texts those hold for the others."""
    kept: list[Section] = []
    placed: list[Placed] = []
    host: Header | None = None
    for section in sections:
        header, rows, _ = section
        if not is_lines(header):
            kept.append(section)
            host = header
            continue
        raw = next((v for k, v in header.raw_meta if k == _OF), None)
        if host is None or raw is None:
            raise DecodeError("A `form=lines` section follows no section, or names no cell", doc)
        placed.append((_path(raw, doc), _text(header, rows, doc), host.columns))
    return kept, placed


def place(value: Any, placed: list[Placed], doc: str) -> None:
    """Put each text at its path: a member of a table row or a record that it left blank."""
    for steps, text, columns in placed:
        # The groups the member is in: the keys after the row step (a record's: all).
        row = max((i for i, step in enumerate(steps) if isinstance(step, int)), default=-1)
        within = ".".join(str(step) for step in steps[row + 1 : -1])
        if within:
            within += "."
            columns = tuple(c[len(within) :] for c in columns if c.startswith(within))
        target = value
        for step in steps[:-1]:
            if isinstance(step, int):
                if type(target) is not list or step >= len(target):
                    raise DecodeError(f"A `form=lines` path names no row {step}", doc)
            elif type(target) is not dict or step not in target:
                raise DecodeError(f"A `form=lines` path names no member {step!r}", doc)
            target = target[step]
        key = steps[-1]
        if type(target) is not dict or not isinstance(key, str) or key in target:
            raise DecodeError("A `form=lines` path names no blank cell of a row", doc)
        _insert(target, key, text, _places(columns), doc)
