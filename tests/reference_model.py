"""A small, deliberately plain model of the reference (gcx-go) decoder.

Written from the documented behaviour (shared notes, section 2-3), independent
of gcxwire's own parser, so tests can check that what gcxwire writes reads
back the same in a reference decoder. Returns the golden ``.json`` shape.

Checked against the real decoders (gortex `pkg/wire` at 907027b2 built with
Go 1.19, `packages/wire-ts` 0.1.0 on node 20; docs/reliability.md): they read
all payloads of that run as this model does, with one addition seen there: Go's
line reader (bufio.Scanner, 4 MiB buffer) refuses a line of 4,194,304 UTF-8
bytes or more, counting a CR before the LF ("bufio.Scanner: token too long");
a line one byte shorter reads. The TypeScript decoder has no such limit.
"""

from __future__ import annotations

from typing import Any

_GO_SPACE = (
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


# Go's bufio.Scanner buffer in gcx-go's NewDecoder: a line must be shorter than this, in bytes.
MAX_LINE_BYTES = 4 * 1024 * 1024


class ReferenceError(Exception):
    pass


def unescape(s: str) -> str:
    if "\\" not in s:
        return s
    out = []
    i = 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            nxt = s[i + 1]
            out.append({"t": "\t", "n": "\n"}.get(nxt, nxt))
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _header(line: str) -> dict[str, Any]:
    if not line.startswith("GCX1"):
        raise ReferenceError(f"expected header prefix GCX1, got {line[:10]!r}")
    tool = ""
    fields = None
    meta: dict[str, str] = {}
    # Go's strings.TrimSpace: Unicode spaces, but not U+001C-U+001F (str.strip() trims those).
    for token in line[4:].strip(_GO_SPACE).split(" "):
        if token == "":
            continue
        if "=" not in token:
            raise ReferenceError(f"malformed header token {token!r}")
        key, value = token.split("=", 1)
        key = unescape(key)
        if key == "tool":
            tool = unescape(value)
        elif key == "fields":
            fields = [unescape(f) for f in unescape(value).split(",")]
        else:
            meta[key] = unescape(value)
    if tool == "":
        raise ReferenceError("empty tool")
    if fields is None:
        raise ReferenceError("missing fields")
    return {"tool": tool, "fields": fields, "meta": meta, "rows": []}


def decode(payload: str) -> dict[str, Any]:
    """Go decoder semantics: split on LF, CR before LF dropped, blank and # lines skipped."""
    lines = payload.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for line in lines:  # a line under a quarter of the limit in characters cannot reach it
        if len(line) * 4 >= MAX_LINE_BYTES and len(line.encode("utf-8")) >= MAX_LINE_BYTES:
            raise ReferenceError("bufio.Scanner: token too long")
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
    if not lines:
        raise ReferenceError("unexpected EOF")
    sections = [_header(lines[0])]
    for line in lines[1:]:
        if line == "" or line.startswith("#"):
            continue
        if line.startswith("GCX1"):
            sections.append(_header(line))
            continue
        section = sections[-1]
        cells = line.split("\t")
        if len(cells) > len(section["fields"]):
            raise ReferenceError("row has too many values")
        cells += [""] * (len(section["fields"]) - len(cells))
        row = {}
        for name, cell in zip(section["fields"], cells):
            row[name] = unescape(cell)
        section["rows"].append(row)
    return {"tool": sections[0]["tool"], "sections": sections}


def by_column(row: dict[str, str], fields: list[str], columns: tuple[str, ...]) -> dict[str, str]:
    """A row the model read, keyed by gcxwire's column names instead of the reference's.

    The reference reads a grouped field list `owner{login,id}` as the names
    `owner{login` and `id}`, and a constant column as `kind=calls`; ``columns``
    (gcxwire's reading of the same header) names them `owner.login`,
    `owner.id`, `kind`. Cells are unchanged.
    """
    return {column: row[name] for name, column in zip(fields, columns)}
