"""The reading hint: what a model needs to know to read a GCX1 or DCP payload.

One line per marker, and only the markers a payload uses, so a hint costs what
it explains. Every hint opens with :data:`HINT_OPENING`, so readers can tell it
from data, and no line of it starts like a GCX1 header or a DCP line: a client
that joins all text blocks sees prose, never a broken payload.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from typing import Final

import orjson

from .. import _auto
from .._gcx_decode import _parse_header
from .._gcx_model import _CONTROL
from ..errors import DecodeError

__all__ = ["HINT_OPENING", "MARKERS", "hint_markers", "is_hint", "reading_hint"]

HINT_OPENING: Final = "How to read gcxwire results:"

# Marker id -> the line that explains it, in the order a hint lists them.
MARKERS: Final[dict[str, str]] = {
    "gcx": (
        "A `GCX1 tool=T fields=a,b,...` line starts a table; each line below it is one row,"
        " TAB-separated cells in field order. Empty cell: absent key; null, true, false,"
        ' numbers and cells starting with " [ { are JSON; the rest is text'
        " (\\t TAB, \\n newline, \\\\ backslash)."
    ),
    "of": (
        "of=NAME: the rows are the list in member NAME of an object (of=query.search: member"
        " search of member query); the header's other key=value pairs are that object's"
        " other members, in the order written."
    ),
    "child": (
        "of=items[].tags: each row is one item of the list tags in a row of the table"
        " of=items; its first cell is that row's number (0 is the first), and the table's"
        " column tags[] says how many items each row has."
    ),
    "is=object": "is=object: the one row is an object; the fields are its member names.",
    "is=list": "is=list: each row is one element of a list.",
    "is=value": "is=value: the one cell is the whole value.",
    "empty=null": "empty=null: in this table an empty cell is null and a lone \\ is an absent key.",
    "float": "float=a,b: numbers in these columns are floats (1 means 1.0).",
    "flat": (
        "flat=owner: the columns owner.x, owner.y are members of a nested object owner;"
        " with flat={} the field list writes them owner{x,y}, and owner{x,owner.id} is"
        " owner's member id."
    ),
    "form=columns": (
        "form=columns: the rows are an object of parallel arrays: each column is one array,"
        " item n of each in row n."
    ),
    "form=lines": (
        "form=lines of=results[3].body: the rows are the lines of one text, member body of"
        " row 3 (0 is the first) of the table of=results, whose cell is blank there (of=body:"
        " the object's member body); each row is text, escaped as a cell is (a \\n in it is"
        " one more line break, \\# a #)."
    ),
    "prefix": (
        "prefix=col=text: every text in column col starts with text, written once here:"
        " the cell issues/12 under prefix=url=https://x/ is https://x/issues/12."
    ),
    "infix": (
        "infix=col=text: in column col a \u2026 stands for text, written once here:"
        " the cell a1/\u2026/b2 under infix=img=rs:fit:32/g:ce is a1/rs:fit:32/g:ce/b2."
    ),
    "template": (
        "template=col=text{other}: a blank cell in column col is text with the row's value of"
        " column other in place of {other} (\\{ \\} are braces); a filled cell is as written."
        " With template={}, fields= writes such a column col=text{other}."
    ),
    "json=raw": (
        "json=raw: in this table a cell starting with [ or { is JSON text exactly as written"
        " (its backslashes are JSON's own, not doubled)."
    ),
    "quoted=json": (
        'quoted=json: in this table a cell (or header value) starting with " is a JSON string:'
        ' "" is the empty text.'
    ),
    "str": "str=a,b: columns a, b hold text only: a cell 12 or true there is the text 12, true.",
    "crlf": "crlf=a: in column a each \\n is a Windows line end, CR LF.",
    "tree": (
        "tree=a: in column a a cell {x,y{z}} is an object of empty objects, keys only:"
        ' {"x":{},"y":{"z":{}}}; a key in quotes is a JSON string.'
    ),
    "lists": (
        'lists=a: a cell in column a is a list of texts, a space between items: x y is ["x","y"].'
    ),
    "optional": (
        "optional=owner: a row whose owner columns are all blank has no member owner"
        " (a row with owner holds a cell there)."
    ),
    "nullable": "nullable=owner: a row whose owner columns are all blank has owner null.",
    "constant": (
        "A field written name=value in fields= is a column holding that value in every row;"
        " its cells are left blank."
    ),
    "guard": (
        "A \\ before a cell keeps it text: \\62 is the text 62, \\-1 the text -1, \\[x the text"
        " [x; a lone \\ is an absent key."
    ),
    "words": "tru\\e, fals\\e and nul\\l are the words true, false and null as text.",
    "data-key": "A header pair \\of=1 is a member named of holding 1, not the marker of=.",
    "dcp": (
        'DCP: the ["$S",schema,name,...] line names the columns; each array after it is one'
        " row, values in that order."
    ),
    "dcp-wrapper": (
        'A {...} line before it holds the other members of the object around the rows; "$S"'
        " marks the member holding them (else the member named like the schema)."
    ),
    "dcp-dotted": "A dotted column name owner.login is member login of a nested object owner.",
    "dcp-mask": "A #hex after the schema id only records which of its fields are present.",
    "dcp-nested": 'A ["$R",schema,...] or ["$N",schema,...] value is a nested row of that schema.',
}

_GCX_MARKERS: Final = tuple(m for m in MARKERS if not m.startswith("dcp"))
_DCP_MARKERS: Final = tuple(m for m in MARKERS if m.startswith("dcp"))
_BY_FORMAT: Final[dict[str, tuple[str, ...]]] = {
    "gcx": _GCX_MARKERS,
    "dcp": _DCP_MARKERS,
    "auto": _GCX_MARKERS + _DCP_MARKERS,
    "json": (),
}
# Header keys whose raw spelling is a marker (a data member of that name is written `\of`).
_STYLE_KEYS: Final = {
    "of": "of", "float": "float", "flat": "flat", "str": "str", "crlf": "crlf", "tree": "tree",
    "lists": "lists",
    "optional": "optional", "nullable": "nullable",
}  # fmt: skip
# A cell that a backslash keeps as text (not an escaped TAB, LF or backslash, not a word).
# These are found from their backslash, which the regex engine skips ahead to
# (a pattern that opens with ``(?:^|\t)`` is tried at every character: 4 ms
# each on a 5,000-row table); that a cell starts there is checked after.
_GUARD: Final = re.compile(r"\\(?:$|\t|(?![tn\\]|false(?:\t|$)))", re.MULTILINE)
_WORDS_E: Final = re.compile(r"\\e(?:\t|$)", re.MULTILINE)  # after tru, fals
_WORDS_L: Final = re.compile(r"\\l(?:\t|$)", re.MULTILINE)  # after nul
# The proxy's first hints opened with the format name and a colon, which no payload does.
_OLD_OPENINGS: Final = ("GCX1: ", "DCP: ")


def reading_hint(format_or_text: str, /, *, explained: Collection[str] = ()) -> str:
    """How to read a payload, as text for the model; ``""`` when nothing needs saying.

    ``format_or_text`` is a format name (``"gcx"``, ``"dcp"``, ``"auto"`` for
    both, ``"json"``), which explains every marker of that format (for a
    server's ``instructions``), or a payload, which explains the markers it
    uses. Markers in ``explained`` (ids from :func:`hint_markers`) are left out,
    so a session can explain each one once.
    """
    lines = [MARKERS[m] for m in hint_markers(format_or_text) if m not in explained]
    if not lines:
        return ""
    return "\n".join([HINT_OPENING, *("- " + line for line in lines)])


def hint_markers(format_or_text: str, /) -> tuple[str, ...]:
    """The marker ids (keys of :data:`MARKERS`) :func:`reading_hint` explains, in hint order.

    For a format name, every marker of that format; for a GCX1 or DCP payload,
    the markers it uses; for anything else, none.
    """
    of_format = _BY_FORMAT.get(format_or_text)
    if of_format is not None:
        return of_format
    text = format_or_text
    found = set(_gcx_markers(text) if _auto.detect(text) == "gcx" else ())
    if not found and _auto.detect(text) == "dcp":
        found.update(_dcp_markers(text))
    return tuple(m for m in MARKERS if m in found)


def is_hint(text: str, /) -> bool:
    """Is this text block a reading hint (this module's, or the proxy's first one-liners)?"""
    return text.startswith(HINT_OPENING) or text.startswith(_OLD_OPENINGS)


def _gcx_markers(text: str) -> Iterator[str]:
    yield "gcx"
    # Most payloads have one section: its header is the first line, and no
    # other line can start with GCX1 when the text holds it only there.
    lines = (
        text.splitlines() if text.find("GCX1", 1) >= 0 else text.partition("\n")[0].splitlines()[:1]
    )
    for line in lines:
        if line.startswith("GCX1"):
            found = _HEADER_MARKERS.get(line)
            if found is None:
                found = tuple(_header_markers(line))
                if len(line) <= _HEADER_KEPT_LENGTH:
                    if len(_HEADER_MARKERS) >= _HEADERS_KEPT:
                        _HEADER_MARKERS.clear()
                    _HEADER_MARKERS[line] = found
            yield from found
    if _starts_cell(_GUARD, text):
        yield "guard"
    if _starts_cell(_WORDS_E, text, ("tru", "fals")) or _starts_cell(_WORDS_L, text, ("nul",)):
        yield "words"


# A tool's results repeat their header lines: the markers each one uses, parsed
# once (up to this many lines of at most this many characters each).
_HEADER_MARKERS: dict[str, tuple[str, ...]] = {}
_HEADERS_KEPT: Final = 256
_HEADER_KEPT_LENGTH: Final = 4096


def _header_markers(line: str) -> Iterator[str]:
    """The markers one GCX1 header line uses (none for a line that does not parse)."""
    try:
        header = _parse_header(line, line, 0)
    except DecodeError:
        return  # a hint is no validator: decoding reports it
    text_lines = ("form", "lines") in header.raw_meta
    for key, value in header.raw_meta:
        if key == "of" and text_lines:  # the form=lines line says what this of= names
            continue
        if key in _STYLE_KEYS:
            yield _STYLE_KEYS[key]
            if key == "of" and "[]." in value:
                yield "child"
        elif key == "is" and f"is={value}" in MARKERS:
            yield f"is={value}"
        elif key == "empty" and value == "null":
            yield "empty=null"
        elif key in ("form", "json", "quoted") and f"{key}={value}" in MARKERS:
            yield f"{key}={value}"
        elif key in ("prefix", "template", "infix"):
            yield key
        elif key.startswith("\\") and key[1:] in _CONTROL:  # a data member named like one
            yield "data-key"
    if header.constants:
        yield "constant"


def _starts_cell(pattern: re.Pattern[str], text: str, words: tuple[str, ...] = ("",)) -> bool:
    """Whether ``pattern`` matches right after one of ``words`` that starts a
    cell (at the start of a line or after a TAB)."""
    for found in pattern.finditer(text):
        for word in words:
            at = found.start() - len(word)
            if at >= 0 and text.startswith(word, at) and (at == 0 or text[at - 1] in "\t\n"):
                return True
    return False


def _dcp_markers(text: str) -> Iterator[str]:
    yield "dcp"
    lines = text.splitlines()
    if lines[0].startswith("{"):
        yield "dcp-wrapper"
        lines = lines[1:]
    try:
        header = orjson.loads(lines[0])
    except orjson.JSONDecodeError:
        return
    if isinstance(header, list):
        if len(header) > 1 and "#" in str(header[1]):
            yield "dcp-mask"
        if any(isinstance(name, str) and "." in name for name in header[2:]):
            yield "dcp-dotted"
    if '["$R",' in text or '["$N",' in text:
        yield "dcp-nested"
