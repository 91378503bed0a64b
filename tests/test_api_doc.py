"""docs/api.md lists exactly each module's ``__all__``, with the signatures the code has."""

from __future__ import annotations

import importlib
import inspect
import re
import warnings
from pathlib import Path
from typing import Any

import pytest

import gcxwire

DOCS = Path(__file__).resolve().parent.parent / "docs"
API = (DOCS / "api.md").read_text(encoding="utf-8")
MODULES = ["gcxwire", "gcxwire.gcx", "gcxwire.dcp", "gcxwire.layouts", "gcxwire.tokens"]


def _sections() -> dict[str, list[str]]:
    """Module name -> the headings (``### `...` ``) written under its ``## `module` ``."""
    found: dict[str, list[str]] = {}
    current = None
    for line in API.splitlines():
        if m := re.fullmatch(r"## `([\w.]+)`", line):
            current = found.setdefault(m.group(1), [])
        elif (m := re.fullmatch(r"#{3,4} `(.+)`", line)) and current is not None:
            current.append(m.group(1))
    return found


SECTIONS = _sections()


def _name(heading: str) -> str:
    return heading.split("(", 1)[0]


def _split_params(text: str) -> list[str]:
    """Top-level comma-separated parameters, defaults and annotations dropped."""
    params, depth, part = [], 0, ""
    for ch in text + ",":
        if ch == "," and depth == 0:
            if part.strip():
                params.append(re.split(r"[=:]", part.strip(), maxsplit=1)[0].strip())
            part = ""
            continue
        depth += ch in "([{"
        depth -= ch in ")]}"
        part += ch
    return params


def _code_params(obj: Any) -> list[str]:
    """The parameter list as docs write it: names, with ``/`` and ``*`` markers."""
    out: list[str] = []
    star = False
    params = [p for p in inspect.signature(obj).parameters.values() if p.name != "self"]
    for i, p in enumerate(params):
        if p.kind is p.KEYWORD_ONLY and not star:
            out.append("*")
            star = True
        out.append(p.name)
        last_positional_only = p.kind is p.POSITIONAL_ONLY and (
            i + 1 == len(params) or params[i + 1].kind is not p.POSITIONAL_ONLY
        )
        if last_positional_only:
            out.append("/")
    return out


@pytest.mark.parametrize("module", MODULES)
def test_api_doc_lists_exactly_all(module: str) -> None:
    mod = importlib.import_module(module)
    documented = {_name(h) for h in SECTIONS[module] if "." not in _name(h)}
    assert documented == set(mod.__all__)


@pytest.mark.parametrize(
    "module, heading",
    [(m, h) for m in MODULES for h in SECTIONS.get(m, []) if "(" in h],
)
def test_api_doc_signatures_match_the_code(module: str, heading: str) -> None:
    obj: Any = importlib.import_module(module)
    for part in _name(heading).split("."):
        obj = getattr(obj, part)
    written = _split_params(heading[heading.index("(") + 1 : heading.rindex(")")])
    assert written == _code_params(obj)


def test_mcp_names_are_documented() -> None:
    # gcxwire.mcp has its own guide; each name is in it or in api.md's short mcp section.
    docs = (DOCS / "mcp.md").read_text(encoding="utf-8") + API
    missing = [n for n in gcxwire.mcp.__all__ if f"`{n}" not in docs and f"mcp.{n}" not in docs]
    assert not missing


def test_moved_gcx_names_still_import_with_a_deprecation() -> None:
    with pytest.warns(DeprecationWarning, match=r"gcxwire\.gcx\.Encoder"):
        assert gcxwire.Encoder is gcxwire.gcx.Encoder
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gcxwire.encode is importlib.import_module("gcxwire._auto").encode


def test_api_doc_lists_every_error() -> None:
    # gcxwire.errors documents only what gcxwire does not re-export.
    errors = importlib.import_module("gcxwire.errors")
    documented = {_name(h) for h in SECTIONS["gcxwire.errors"] + SECTIONS["gcxwire"]}
    assert sorted(set(errors.__all__) - documented) == []


def test_every_public_exception_lives_in_errors() -> None:
    errors = importlib.import_module("gcxwire.errors")
    config = [
        "gcxwire.proxy.gateway_config",
        "gcxwire.proxy.presets",
        "gcxwire.proxy.http_upstream",
        "gcxwire.proxy.framing",
        "gcxwire.proxy.upstream",
    ]
    for module in [*MODULES, *config]:
        mod = importlib.import_module(module)
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name)
            if isinstance(obj, type) and issubclass(obj, BaseException):
                assert obj.__module__ == "gcxwire.errors", name
                assert issubclass(obj, errors.GcxwireError), name
