"""Hypothesis strategies for declared layouts and the records that fit them."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from gcxwire.layouts import JSON_TYPES, STATUSES, UNSET, Field, JsonType, Layout, Template

from .strategies import SCALARS, TEXT

# Keys a dot path can name (no ".", not empty), some of them awkward in a GCX1 header.
KEYS = st.one_of(
    st.sampled_from(["id", "name", "owner", "login", "url", "kind", "of", "is", "tool", "é", "x"]),
    st.text(min_size=1, max_size=5).filter(lambda k: "." not in k),
)
# Keys a GCX1 field list can carry too (no comma, whitespace or brace; not __proto__).
PLAIN_KEYS = st.one_of(
    st.sampled_from(["id", "name", "owner", "login", "url", "kind", "of", "is", "tool", "é", "x"]),
    st.text(
        st.characters(blacklist_characters=".,{}=", blacklist_categories=("Zs", "Cc", "Zl", "Zp")),
        min_size=1,
        max_size=5,
    ),
)
TOOLS = st.sampled_from(["search", "list_issues", "get_callers", "db.query", "a:b", "ü"])
PREFIXES = st.sampled_from(["https://api.github.com/repos/", "src/", "x", "urn:a:"])

_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "string": TEXT,
    "integer": st.integers(min_value=-(10**20), max_value=10**20),
    "number": st.one_of(st.floats(allow_nan=False, allow_infinity=False), st.integers()),
    "boolean": st.booleans(),
    "null": st.none(),
    "array": st.lists(SCALARS, max_size=3),
    "object": st.dictionaries(st.sampled_from(["a", "b c", ""]), SCALARS, max_size=2),
}
_PLAIN_CONSTANTS: dict[str, st.SearchStrategy[Any]] = {
    "string": st.sampled_from(["User", "calls", "a=b", "\\", "12", "true", "é"]),
    "integer": st.integers(-5, 5),
    "number": st.sampled_from([1.0, -0.0, 0.5, 3]),
    "boolean": st.booleans(),
    "null": st.none(),
}
_CONSTANTS: dict[str, st.SearchStrategy[Any]] = {
    "string": TEXT,
    "integer": st.integers(-5, 5),
    "number": st.sampled_from([1.0, -0.0, 0.5, 3]),
    "boolean": st.booleans(),
    "null": st.none(),
}


@st.composite
def fields(
    draw: st.DrawFn, depth: int = 2, items: bool = True, plain: bool = False
) -> tuple[Field, ...]:
    """One object level's fields, in tree order: leaves and objects holding fields.

    ``plain``: no field is both nullable and optional (DCP cannot tell such a null from
    absence), and keys, types and markers are ones a GCX1 header can carry.
    """
    keys = draw(st.lists(PLAIN_KEYS if plain else KEYS, min_size=1, max_size=4, unique=True))
    out: list[Field] = []
    for key in keys:
        if depth > 0 and draw(st.integers(0, 3)) == 0:
            for sub in draw(fields(depth - 1, items, plain)):
                out.append(_moved(sub, key))
            continue
        out.append(draw(leaf(key, items, plain)))
    return _with_template(draw, out)


def _with_template(draw: st.DrawFn, out: list[Field]) -> tuple[Field, ...]:
    """Maybe derive one plain string field from another field of the level."""
    sources = {f.template.source for f in out if f.template is not None}
    derived = {i for i, f in enumerate(out) if f.template is not None}
    free = [i for i, f in enumerate(out) if f.constant is UNSET and f.prefix is None]
    strings = [
        i
        for i in free
        if "string" in out[i].types and i not in derived and out[i].path not in sources
    ]
    if len(out) < 2 or not strings or draw(st.integers(0, 2)):
        return tuple(out)
    k = draw(st.sampled_from(strings))
    others = [i for i in range(len(out)) if i != k and i not in derived]
    if not others:
        return tuple(out)
    source = draw(st.sampled_from(others))
    before, after = draw(st.sampled_from([("", "/x"), ("https://h/", ""), ("a{", "}b")]))
    f = out[k]
    out[k] = Field(
        f.path, f.type, True, f.constant, f.prefix, f.items, f.description,
        Template(out[source].path, before, after),
    )  # fmt: skip
    return tuple(out)


def _moved(item: Field, key: str) -> Field:
    template = item.template
    if template is not None:
        template = Template(f"{key}.{template.source}", template.before, template.after)
    return Field(
        f"{key}.{item.path}",
        item.type,
        item.required,
        item.constant,
        item.prefix,
        item.items,
        item.description,
        template,
    )


@st.composite
def leaf(draw: st.DrawFn, path: str, items: bool = True, plain: bool = False) -> Field:
    types: list[JsonType] = draw(
        st.lists(st.sampled_from(JSON_TYPES), min_size=1, max_size=3, unique=True)
    )
    required = draw(st.booleans()) or (plain and "null" in types)
    constant: Any = UNSET
    prefix = None
    sub = None
    scalar = [t for t in types if t in _CONSTANTS]
    mark = draw(st.integers(0, 5))
    if mark == 0 and scalar:
        constant = draw((_PLAIN_CONSTANTS if plain else _CONSTANTS)[draw(st.sampled_from(scalar))])
        required = True
    elif mark == 1 and "string" in types:
        prefix = draw(PREFIXES)
    elif mark == 2 and "array" in types and items:
        sub = draw(fields(1, items=False, plain=plain))
    description = draw(st.sampled_from(["", "the id", "ü\nx"]))
    kind: Any = types[0] if len(types) == 1 else tuple(types)
    return Field(path, kind, required, constant, prefix, sub, description)


@st.composite
def layouts(draw: st.DrawFn, plain: bool = False) -> Layout:
    return Layout(
        tool=draw(TOOLS),
        version=draw(st.integers(1, 30)),
        fields=draw(fields(plain=plain)),
        status=draw(st.sampled_from(STATUSES)),
        description=draw(st.sampled_from(["", "Repositories", "a\tb"])),
    )


@st.composite
def record(draw: st.DrawFn, level: tuple[Field, ...]) -> dict[str, Any]:
    """A record that fits ``level``: every object on a field's path is there."""
    out: dict[str, Any] = {}
    for item in level:
        if not item.required and draw(st.integers(0, 3)) == 0:
            value: Any = _ABSENT
        else:
            value = draw(fitting(item))
        target = out
        *parents, last = item.segments
        for key in parents:
            target = target.setdefault(key, {})
        if value is not _ABSENT:
            target[last] = value
    for item in level:  # most derived fields follow their template
        template = item.template
        if template is None or not draw(st.integers(0, 3)):
            continue
        source = _get(out, template.source.split("."))
        if type(source) is str or (type(source) is int and not isinstance(source, bool)):
            *parents, last = item.segments
            target = out
            for key in parents:
                target = target[key]
            target[last] = template.before + str(source) + template.after
    return out


def _get(obj: dict[str, Any], path: list[str]) -> Any:
    for key in path:
        if not isinstance(obj, dict) or key not in obj:
            return _ABSENT
        obj = obj[key]
    return obj


_ABSENT = object()


@st.composite
def fitting(draw: st.DrawFn, item: Field) -> Any:
    if item.constant is not UNSET:
        return item.constant
    kind = draw(st.sampled_from(item.types))
    if item.prefix is not None and kind == "string":
        return item.prefix + draw(TEXT)
    if item.items is not None and kind == "array":
        return draw(st.lists(record(item.items), max_size=3))
    return draw(_VALUES[kind])


@st.composite
def batches(draw: st.DrawFn, layout: Layout, min_size: int = 0) -> list[dict[str, Any]]:
    return draw(st.lists(record(layout.fields), min_size=min_size, max_size=5))
