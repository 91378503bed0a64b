"""`quoted=json`: the mark of a section that writes strings as JSON string literals.

The typed profile writes the empty string as `""` (an empty cell is an absent
key) and a string ending in CR in a row's last cell as its JSON literal (Go's
line reader drops a CR before LF). Reference decoders read such a cell as its
JSON text, two quote characters for the empty string, so the section's header
says `quoted=json`: a cell (or a constant, or a header member) starting with
`"` is a JSON string. Other strings starting with `"` are written `\\"`.
"""

from __future__ import annotations

from ._gcx_model import _QUOTED
from ._impl import find_text

_MARK = f" {_QUOTED}=json"


def mark_quoted(text: str) -> str:
    """``text`` (a typed payload) with `quoted=json` on each header whose section needs it."""
    # A JSON string literal holds `""` (the empty string, also as a constant or a
    # header value) or ends `\\r"` (a string ending in CR, as a row's last cell or
    # a header value): without either, no section needs the mark. The first test
    # is a memchr; most payloads end there. The second holds a backslash: a memchr
    # for one rules it out (find_text: str.find is slow on JSON text, every
    # character in five a quote).
    size = len(text)
    if '"' not in text or (
        find_text(text, '""', 0, size) < 0
        and ("\\" not in text or find_text(text, '\\\\r"', 0, size) < 0)
    ):
        return text
    out: list[str] = []
    start = 0
    while start < size:
        # rows never start `GCX1` (they are written `\GCX1`)
        nxt = find_text(text, "\nGCX1", start, size)
        end = size if nxt < 0 else nxt + 1
        head = text.find("\n", start, end)
        head = end if head < 0 else head
        # A `form=lines` section's rows are plain text, never JSON: `""` there is two quotes.
        lines = find_text(text, " form=lines", start, head) >= 0
        if not lines and _quotes(text, start, head, end):
            out.append(text[start:head])
            out.append(_MARK)
            out.append(text[head:end])
        else:
            out.append(text[start:end])
        start = end
    return "".join(out)


def _quotes(text: str, start: int, head: int, end: int) -> bool:
    # Whether the section text[start:end] (its header ends at `head`) holds a JSON
    # string literal: a header value or constant (`k=""`, `a,b="",c`), a cell `""`,
    # or a last cell `"…\\r"`. Every cell follows a TAB or an LF (rows hold no raw
    # TAB or LF inside a cell; the header's LF precedes the first row), and any
    # other string starting with `"` is written `\\"`, so these are all there are.
    if text.find('"', start, end) < 0:
        return False
    if find_text(text, '="', start, head) >= 0 and _header_quotes(text[start:head]):
        return True
    at = find_text(text, '""', head, end)
    while at >= 0:  # a whole cell `""`, not one inside a JSON cell
        if text[at - 1] in "\t\n" and (at + 2 == end or text[at + 2] in "\t\n"):
            return True
        at = find_text(text, '""', at + 2, end)
    return text.find("\\", head, end) >= 0 and _cr_literal(text, head, end)


def _cr_literal(text: str, start: int, end: int) -> bool:
    # Whether text[start:end] holds a row whose last cell is `"…\\r"`: a string
    # ending in CR (its JSON text ends `\r"`; the text of any other string
    # holding those characters starts with `\\`, not `"`).
    at = find_text(text, '\\\\r"\n', start, end)
    while at >= 0:
        if _starts_quoted(text, start, at):
            return True
        at = find_text(text, '\\\\r"\n', at + 4, end)
    return text.endswith('\\\\r"', start, end) and _starts_quoted(text, start, end - 4)


def _starts_quoted(text: str, start: int, at: int) -> bool:
    # Whether the cell holding position `at` starts with `"`.
    cell = max(text.rfind("\t", start, at), text.rfind("\n", start, at)) + 1
    return text[cell] == '"'


def _header_quotes(line: str) -> bool:
    for token in line.split(" ")[1:]:
        key, _, value = token.partition("=")
        if key == "fields":
            if any(piece.partition("=")[2].startswith('"') for piece in value.split(",")):
                return True
        elif value.startswith('"'):
            return True
    return False
