"""What the user docs point at exists: files, links and test names in this repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
DOCS = sorted(
    [ROOT / "README.md", ROOT / "DEVELOP.md", ROOT / "CHANGELOG.md", ROOT / "bench" / "README.md"]
    + list((ROOT / "docs").glob("*.md"))
)
# A repository path in backticks: `tests/proxy/servers/rogue_server.py`, `bench/cases/`.
_PATH = re.compile(r"`((?:src|tests|bench|docs|scripts|\.ci)/[\w./-]*)`")
_LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)\s]*)?\)")
_TEST = re.compile(r"`(test_\w+)`")


def _ids(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _exists(text: str) -> bool:
    path = ROOT / text.rstrip("/")
    if path.exists():
        return True
    # `bench/speed/workloads.twin` names a function of a module.
    module = ROOT / (text.rsplit(".", 1)[0] + ".py")
    return "." in text and module.is_file()


@pytest.mark.parametrize("doc", DOCS, ids=_ids)
def test_cited_paths_exist(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    missing = [p for p in _PATH.findall(text) if not _exists(p)]
    missing += [
        link
        for link in _LINK.findall(text)
        if not link.startswith(("http://", "https://")) and not (doc.parent / link).exists()
    ]
    assert missing == []


def test_cited_test_names_exist() -> None:
    defined = set()
    for folder in (ROOT / "tests", ROOT / "bench"):
        for source in folder.rglob("*.py"):
            defined.update(re.findall(r"def (test_\w+)", source.read_text(encoding="utf-8")))
    cited = {name for doc in DOCS for name in _TEST.findall(doc.read_text(encoding="utf-8"))}
    assert sorted(cited - defined) == []


def test_every_header_marker_is_in_the_wire_format_doc() -> None:
    from gcxwire._gcx_model import _CONTROL

    spec = (ROOT / "docs" / "wire-format.md").read_text(encoding="utf-8")
    assert [key for key in _CONTROL if f"`{key}=" not in spec] == []
