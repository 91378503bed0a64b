"""Key trees: objects whose every leaf is an empty object, written as key lists.

Kubernetes writes which fields each manager owns (``managedFields[].fieldsV1``)
as such objects: ``{"f:labels":{".":{},"f:app":{}}}``. In a ``tree=`` column a
cell that starts with ``{`` lists the keys only, ``{f:labels{.,f:app}}``: a key
followed by ``{…}`` holds those members, a key alone holds ``{}``. A key that
is empty or holds a brace, bracket, quote, comma, backslash, whitespace or a
control character is written as a JSON string (``"k:{\\"uid\\":\\"57cc\\"}"``).
The text holds no TAB or LF, and is escaped as any cell (§2 of the spec), so
under ``json=raw`` its backslashes are single as a JSON cell's are.

Bare keys hold no ``[``, ``]``, ``{`` or ``}``, so a tree nests exactly as deep
as its brackets say (the depth checks of JSON cells apply to it unchanged).
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from .errors import DecodeError

# What a bare key may not hold; such a key is written as a JSON string.
_QUOTED = re.compile(r'[\s{}\[\]",\\\x00-\x1f\x7f\x85\u2028\u2029\ufeff]')
# One unit of a tree: a brace, a comma, a JSON string, or a bare key (which may
# end in `:` and a flat JSON object, `k:{"name":"web"}`).
_UNIT = re.compile(
    r'[{},]|"(?:[^"\\]|\\.)*"'
    r'|[^\s{}\[\]",\\]*:\{(?:[^{}\[\]"]|"(?:[^"\\]|\\.)*")*\}|[^\s{}\[\]",\\]+'
)


def is_tree(value: Any) -> bool:
    """Whether ``value`` is an object whose every leaf is an empty object (``{}`` included)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if type(item) is not dict:
            return False
        stack.extend(item.values())
    return True


def leaves(value: dict[str, Any]) -> int:
    """The number of empty objects below ``value`` (a tree): what the key list saves on."""
    count, stack = 0, list(value.values())
    while stack:
        item = stack.pop()
        if item:
            stack.extend(item.values())
        else:
            count += 1
    return count


def tree_text(value: dict[str, Any]) -> str:
    """The key list of a tree (``{a,b{c}}``), unescaped; no TAB or LF in it."""
    out: list[str] = []
    # Each frame is an object's remaining members; "}" closes it.
    stack: list[Any] = [iter(value.items())]
    out.append("{")
    first = True
    while stack:
        member = next(stack[-1], None)
        if member is None:
            stack.pop()
            out.append("}")
            first = False
            continue
        key, inner = member
        if not first:
            out.append(",")
        out.append(_key_text(key))
        first = True
        if inner:
            out.append("{")
            stack.append(iter(inner.items()))
        else:
            first = False
    return "".join(out)


def _key_text(key: str) -> str:
    if key and _QUOTED.search(key) is None and key[-1] != ":":
        return key
    head, brace, rest = key.partition(":{")
    if brace and _BARE_JSON.fullmatch(key) is not None:  # `k:{"name":"web"}` as it is
        return key
    return orjson.dumps(key).decode()


# A key that is a bare name ending in `:` and a flat JSON object (Kubernetes'
# `k:{"containerPort":53,"protocol":"TCP"}`, which names a list item by its
# keys) is written as it is: the object's braces close it, its strings hold no
# brace or quote that a reader has to look for, and it nests one level only.
_BARE_JSON = re.compile(
    r'[^\s{}\[\]",\\]*:\{(?:"[^"\\\s{}\[\]\x00-\x1f]*":'
    r'(?:"[^"\\\s{}\[\]\x00-\x1f]*"|-?[0-9]+|true|false|null)'
    r'(?:,"[^"\\\s{}\[\]\x00-\x1f]*":'
    r'(?:"[^"\\\s{}\[\]\x00-\x1f]*"|-?[0-9]+|true|false|null))*)?\}'
)


def tree_json(text: str) -> str:
    """The JSON text of a key list, unescaped (``{a,b{c}}`` -> ``{"a":{},"b":{"c":{}}}``).

    Raises DecodeError (``pos`` the offset in ``text``) where the list is malformed;
    a quoted key is copied as written, so the JSON reading checks it.
    """
    out: list[str] = []
    depth, pos, size = 0, 0, len(text)
    want = "{"  # what may come next: "{" (a tree), "key" (after { or ,), "after" (a key or })
    while pos < size:
        found = _UNIT.match(text, pos)
        if found is None:
            raise DecodeError.at("Malformed key tree", text, pos)
        unit = found.group()
        if unit == "{":
            if want not in ("{", "after"):
                raise DecodeError.at("Malformed key tree: a `{` needs a key before it", text, pos)
            if want == "after":  # a key's members follow: undo its `{}`
                out[-1] = out[-1][:-2]
            out.append("{")
            depth += 1
            want = "key-or-end"
        elif unit == "}":
            if want == "key" or depth == 0 or want == "{":
                raise DecodeError.at("Malformed key tree: unexpected `}`", text, pos)
            out.append("}")
            depth -= 1
            want = "after-tree"
        elif unit == ",":
            if want not in ("after", "after-tree") or depth == 0:
                raise DecodeError.at("Malformed key tree: unexpected `,`", text, pos)
            out.append(",")
            want = "key"
        else:
            if want not in ("key", "key-or-end"):
                raise DecodeError.at("Malformed key tree: a key needs a `,` before it", text, pos)
            key = unit if unit[0] == '"' else orjson.dumps(unit).decode()
            out.append(key + ":{}")
            want = "after"
        pos = found.end()
        if depth == 0:
            break
    if depth or pos != size or not out:
        raise DecodeError.at("Malformed key tree: unbalanced braces", text, pos)
    return "".join(out)
