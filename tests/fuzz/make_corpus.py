"""Build the committed seed corpus of the fuzz targets from the goldens and bench cases.

Run from the repository root after a format change: ``python tests/fuzz/make_corpus.py``.
Seeds are cut at a line boundary to at most ``MAX_SEED`` bytes, so the fuzzer spends its
time mutating structure rather than copying long payloads around.

- ``corpus/gcx``: the reference goldens (gortex Go and TS writers) and gcxwire's typed
  encoding of every bench case, plus small hand-made seeds for each header control.
- ``corpus/dcp``: the dcp-wrap / dcp-py goldens and gcxwire's DCP of every bench case, in
  the three dialects.
- ``corpus/json``: compact JSON of the bench cases (what ``gcxwire.decode`` sees most).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from gcxwire import dcp, gcx  # noqa: E402
from gcxwire.errors import EncodeError  # noqa: E402
from tests.fuzz.targets import dcp_registry  # noqa: E402

CORPUS = Path(__file__).parent / "corpus"
MAX_SEED = 4096
DATA = ROOT / "tests" / "data"
BENCH = [ROOT / "bench" / "cases" / "gcxwire", DATA / "gortex" / "cases"]

# Hand-made GCX1 seeds: every header control, comments, CRLF, escapes, literals.
GCX_SEEDS = {
    "controls": "GCX1 tool=t fields=a,b.c,b.d flat=b empty=null float=a\n1\t\\\t2\n\t\\t\\\\\t\n",
    "object": 'GCX1 tool=t fields=a,b is=object\n[1,{"x":[]}]\t""\n',
    "list": 'GCX1 tool=t fields=value is=list\n1\n"s"\n{"k":null}\n\\\n',
    "value": "GCX1 tool=t fields=value is=value\n-1.5e300\n",
    "sections": (
        "GCX1 tool=t fields=id,name total=3 of=items\n# a comment\n1\tx\n"
        "GCX1 tool=t fields=k of=more next=\\#n\r\n\\62\r\n"
    ),
    "foreign": "GCX1 tool=t fields=a rows=2 note=tru\\e\na\\tb\n\\GCX1 x\n",
}


def cut(text: str) -> str:
    """At most MAX_SEED bytes, ending at a line boundary when there is one."""
    data = text.encode("utf-8")
    if len(data) <= MAX_SEED:
        return text
    head = data[:MAX_SEED].decode("utf-8", "ignore")
    return head[: head.rfind("\n")] if "\n" in head else head


def bench_values() -> Iterator[tuple[str, Any]]:
    for folder in BENCH:
        for path in sorted(folder.glob("*.json")):
            case = json.loads(path.read_text(encoding="utf-8"))
            yield path.stem, json.loads(case["input"])
    for path in sorted((DATA / "dcp" / "inputs").glob("*.json")):
        yield path.stem, json.loads(path.read_text(encoding="utf-8"))


def gcx_seeds() -> Iterator[tuple[str, str]]:
    yield from GCX_SEEDS.items()
    for path in sorted((DATA / "gortex").glob("*golden/*.gcx")):
        yield f"{path.parent.name}-{path.stem}", path.read_text(encoding="utf-8")
    for name, value in bench_values():
        try:
            yield f"typed-{name}", gcx.encode(value, tool=name)
            yield f"reference-{name}", gcx.encode(value, tool=name, profile="reference")
        except EncodeError:
            continue


def dcp_seeds() -> Iterator[tuple[str, str]]:
    for path in sorted((DATA / "dcp").glob("*/*/*.txt")):
        text = path.read_text(encoding="utf-8")
        if text.startswith(("[", "{")):  # skip the recorded error messages
            yield "-".join(path.relative_to(DATA / "dcp").with_suffix("").parts), text
    registry = dcp_registry()
    for name, value in bench_values():
        schema = registry.get(f"{name}:v1")
        for dialect in ("gateway", "v0.3", "dcp-py"):
            try:
                yield f"{dialect}-{name}", dcp.encode(value, dialect=dialect)
                if schema is not None:
                    yield f"{dialect}-schema-{name}", dcp.encode(value, schema, dialect=dialect)
            except EncodeError:
                continue


def json_seeds() -> Iterator[tuple[str, str]]:
    for name, value in bench_values():
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        if len(text.encode("utf-8")) <= MAX_SEED:  # cut JSON would not be JSON
            yield name, text


def write(kind: str, seeds: Iterator[tuple[str, str]]) -> int:
    folder = CORPUS / kind
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    seen: set[str] = set()
    for name, text in seeds:
        data = cut(text).encode("utf-8")
        digest = hashlib.sha1(data).hexdigest()[:8]
        if digest not in seen:
            seen.add(digest)
            (folder / f"{name}-{digest}").write_bytes(data)
    return len(seen)


def main() -> None:
    for kind, seeds in (("gcx", gcx_seeds()), ("dcp", dcp_seeds()), ("json", json_seeds())):
        print(f"{kind}: {write(kind, seeds)} seeds")


if __name__ == "__main__":
    main()
