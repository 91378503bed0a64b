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

_MARK = f" {_QUOTED}=json"


def mark_quoted(text: str) -> str:
    """``text`` (a typed payload) with `quoted=json` on each header whose section needs it."""
    # A JSON string literal holds `""` (the empty string, also as a constant or a
    # header value) or ends `\\r"` (a string ending in CR, as a row's last cell or
    # a header value): without either, no section needs the mark. The first test
    # is a memchr; most payloads end there.
    if '"' not in text or ('""' not in text and '\\\\r"' not in text):
        return text
    out: list[str] = []
    start = 0
    size = len(text)
    while start < size:
        nxt = text.find("\nGCX1", start)  # rows never start `GCX1` (they are written `\GCX1`)
        end = size if nxt < 0 else nxt + 1
        head = text.find("\n", start, end)
        head = end if head < 0 else head
        # A `form=lines` section's rows are plain text, never JSON: `""` there is two quotes.
        lines = text.find(" form=lines", start, head) >= 0
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
    if text.find('="', start, head) >= 0 and _header_quotes(text[start:head]):
        return True
    at = text.find('""', head, end)
    while at >= 0:  # a whole cell `""`, not one inside a JSON cell
        if text[at - 1] in "\t\n" and (at + 2 == end or text[at + 2] in "\t\n"):
            return True
        at = text.find('""', at + 2, end)
    return _cr_literal(text, head, end)


def _cr_literal(text: str, start: int, end: int) -> bool:
    # Whether text[start:end] holds a row whose last cell is `"…\\r"`: a string
    # ending in CR (its JSON text ends `\r"`; the text of any other string
    # holding those characters starts with `\\`, not `"`).
    at = text.find('\\\\r"\n', start, end)
    while at >= 0:
        if _starts_quoted(text, start, at):
            return True
        at = text.find('\\\\r"\n', at + 4, end)
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
