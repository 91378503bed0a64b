"""GCX1 shared vocabulary: reserved header keys and the Header and Section records."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

# Header tokens are split on spaces and the line is trimmed, so no header
# token may hold whitespace; TAB and LF never appear raw (they are escaped).
# U+FEFF too: the TypeScript decoder trims it (String.prototype.trim).
_SPACE: Final = re.compile(r"[\s\ufeff]")
# What Go's strings.TrimSpace trims from a header line (unicode.IsSpace). Not
# Python's str.strip(): that also trims U+001C-U+001F, which Go keeps.
_GO_SPACE: Final = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
# Names no header may carry: the TypeScript decoder builds plain objects, where
# a field or meta key `__proto__` is lost.
_LOST_NAMES: Final = frozenset(["__proto__"])
_VALUE: Final = ("value",)
# Reserved meta keys of the typed profile; a member with such a name is written `\of`.
_OF: Final = "of"  # of=NAME: this section's rows are member NAME of the top-level object
_IS: Final = "is"  # is=object|list|value: what the section's rows stand for
_EMPTY: Final = "empty"  # empty=null: an empty cell is null here, and `\` is absent
_FLOAT: Final = "float"  # float=a,b: numbers in these columns are floats ("1" for 1.0)
_FLAT: Final = "flat"  # flat=owner: columns `owner.x` are the members of an object `owner`
_FORM: Final = "form"  # form=columns: parallel arrays; form=lines: a text, one row a line
_PREFIX: Final = "prefix"  # prefix=col=text: every string in column col starts with text
_TEMPLATE: Final = "template"  # template=col=a{src}b: col's blank cells are a + src's text + b
_INFIX: Final = "infix"  # infix=col=text: the … in a string of column col stands for text
# What an infixed column's cells write where the infix stands (U+2026 HORIZONTAL
# ELLIPSIS): a model reads it as "text left out here", and the header says which.
_INFIX_MARK: Final = "\u2026"
_JSON: Final = "json"  # json=raw: cells starting with [ or { are JSON text, backslashes not doubled
_STR: Final = "str"  # str=a,b: these columns hold strings only, written without guards (02134)
_CRLF: Final = "crlf"  # crlf=a,b: in these columns each line break is CR LF, written \n
_TREE: Final = "tree"  # tree=a,b: {…} cells list keys only, {a,b{c}} for {"a":{},"b":{"c":{}}}
_WORDS: Final = "lists"  # lists=a,b: these columns' cells are lists of texts, a space between
_OPTIONAL: Final = "optional"  # optional=g: a row whose group g cells are all blank lacks g
_NULLABLE: Final = "nullable"  # nullable=g: a row whose group g cells are all blank holds g null
_QUOTED: Final = "quoted"  # quoted=json: a cell starting with `"` is a JSON string (`""`: empty)
_CONTROL: Final = (
    _OF, _IS, _EMPTY, _FLOAT, _FLAT, _FORM, _PREFIX, _TEMPLATE, _JSON, _STR, _CRLF, _TREE,
    _WORDS, _OPTIONAL, _NULLABLE, _INFIX, _QUOTED,
)  # fmt: skip
# Objects nested this deep at most are spread over `a.b.c` columns.
_FLAT_DEPTH: Final = 3
_NO_FLOATS: Final[frozenset[str]] = frozenset()
# Members with these names cannot be meta: reference decoders read them as header keys.
_HEADER_KEYS: Final = ("tool", "fields")


@dataclass(frozen=True)
class Header:
    """One section header: tool, field names and meta, all as unescaped strings."""

    tool: str
    fields: tuple[str, ...]
    meta: dict[str, str] = field(default_factory=dict)
    #: The meta pairs as written (raw, still escaped), in order; typed decoding reads these.
    raw_meta: tuple[tuple[str, str], ...] = ()
    #: Typed reading of rows: does an empty cell mean null (``empty=null``) rather than absent?
    empty_null: bool = False
    #: Typed reading of rows: columns whose numbers are floats (``float=...``).
    floats: frozenset[str] = frozenset()
    #: Typed reading of rows: objects spread over dotted columns (``flat=...``).
    flat: frozenset[str] = frozenset()
    #: Typed reading: the column names in order; a ``name=text`` field is the
    #: constant column ``name`` (reference decoders see one field ``name=text``).
    columns: tuple[str, ...] = ()
    #: Typed reading: the constant columns as written, ``(name, raw cell text)``.
    constants: tuple[tuple[str, str], ...] = ()
    #: Typed reading: ``(column, prefix)`` for each ``prefix=`` column: its strings start so.
    prefixes: tuple[tuple[str, str], ...] = ()
    #: Typed reading: ``(column, text)`` for each ``infix=`` column: its ``…`` stands for text.
    infixes: tuple[tuple[str, str], ...] = ()
    #: Typed reading: ``(column, source, before, after)`` for each ``template=`` column.
    templates: tuple[tuple[str, str, str, str], ...] = ()
    #: Typed reading: ``json=raw``, JSON literal cells hold their backslashes once.
    raw_json: bool = False
    #: Typed reading: ``str=...`` columns, whose number-like and word cells are strings.
    strings: frozenset[str] = frozenset()
    #: Typed reading: ``crlf=...`` columns, where each ``\n`` reads as CR LF.
    crlf: frozenset[str] = frozenset()
    #: Typed reading: ``tree=...`` columns, whose ``{…}`` cells are key trees (``{a,b{c}}``).
    trees: frozenset[str] = frozenset()
    #: Typed reading: ``lists=...`` columns, whose cells are lists of texts (``a b c``).
    words: frozenset[str] = frozenset()
    #: Typed reading: ``(group, null)`` for each ``optional=`` (null False) and
    #: ``nullable=`` group: a row whose cells there are all blank lacks it, or holds null.
    missing: tuple[tuple[str, bool], ...] = ()


@dataclass
class Section:
    """A parsed section, every cell a string, exactly as reference decoders see it."""

    tool: str
    fields: list[str]
    meta: dict[str, str]
    rows: list[dict[str, str]]
    comments: list[str]
