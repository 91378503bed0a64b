"""Derived columns in the field list (`template={}`, `forks_url={url}/forks`).

Round trips on both twins, inside groups and beside constants, with rows built
to break the template; the reference-decoder model reads the same columns,
each derived cell blank.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import strategies as st

from gcxwire import gcx
from gcxwire.errors import DecodeError

from .. import reference_model
from ..strategies import TEXT
from ..tiers import prove
from .gcx_checks import roundtrip
from .test_gcx_transforms import reads_new_forms

TAILS = st.sampled_from(["/repos", "/repos,x", "/keys{/key_id}", "", "/a=b"])


@st.composite
def grouped_rows(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Rows whose `owner.repos_url` repeats `owner.url`, and `html` repeats `login`."""
    tail = draw(TAILS)
    kind = draw(st.sampled_from(["plain", "brace", "none"]))  # a constant beside them
    rows: list[dict[str, Any]] = []
    for i in range(draw(st.integers(min_value=1, max_value=5))):
        login = draw(st.one_of(TEXT, st.sampled_from(["octocat", "a,b", "x}y", "{z"])))
        url = "https://api.example.test/users/" + login
        row: dict[str, Any] = {"login": login, "id": i}
        row["owner"] = {"login": login, "url": url, "repos_url": url + tail}
        row["html"] = "https://example.test/people/" + login + "/page"
        if kind != "none":
            row["kind"] = "{user}" if kind == "brace" else "user-account"
        rows.append(row)
    k = draw(st.integers(0, len(rows) - 1))
    defeat = draw(st.sampled_from(["none", "breaks", "null", "source"]))
    if defeat == "breaks":  # one row does not follow the template
        rows[k]["owner"]["repos_url"] = draw(TEXT)
    elif defeat == "null":
        rows[k]["html"] = None
    elif defeat == "source":
        rows[k]["owner"]["url"] = 7
    return rows


@st.composite
def listed_payloads(draw: st.DrawFn) -> Any:
    rows = draw(grouped_rows())
    if len(rows) == 1 and draw(st.booleans()):
        return rows[0]  # a one-row record
    return rows


def test_listed_templates_round_trip() -> None:
    # Default tier only: the slow tier is CI's critical path.
    prove(15, roundtrip, listed_payloads())


def test_reference_decoder_reads_listed_templates() -> None:
    # Default tier only: the slow tier is CI's critical path.
    prove(15, reads_new_forms, listed_payloads(), st.just("t"))


USERS: list[dict[str, Any]] = [
    {
        "id": i,
        "owner": {
            "login": n,
            "url": f"https://api.github.com/users/{n}",
            "repos_url": f"https://api.github.com/users/{n}/repos",
            "page": f"https://api.github.com/users/{n}/page",
        },
    }
    for i, n in enumerate(["octocat", "hubot", "monalisa"])
]


def test_a_template_inside_a_group_is_one_piece_of_it() -> None:
    text = roundtrip(USERS)
    assert text.split("\n")[0] == (
        "GCX1 tool=t fields=id,owner{login,url,repos_url={owner.url}/repos,"
        "page={owner.url}/page} flat={} template={} prefix=owner.url=https://api.github.com/"
    )
    model = reference_model.decode(text)["sections"][0]
    assert model["fields"][-2:] == ["repos_url={owner.url}/repos", "page={owner.url}/page}"]
    assert model["rows"][0]["repos_url={owner.url}/repos"] == ""


def test_a_constant_holding_a_brace_keeps_the_templates_as_pairs() -> None:
    rows = [dict(r, kind="{user}") for r in USERS]
    text = roundtrip(rows)
    assert " template={}" not in text
    assert "template=owner.repos_url={owner.url}/repos" in text


def test_a_template_whose_text_holds_a_comma_stays_a_pair() -> None:
    names = ("octocat", "hubot", "monalisa", "defunkt")
    rows = [
        {
            "n": n,
            "u": f"https://x.test/people/{n}/search?q=a,b",
            "v": f"https://x.test/people/{n}/p",
        }
        for n in names
    ]
    text = roundtrip(rows)
    assert text.split("\n")[0] == (
        "GCX1 tool=t fields=n,u,v=https://x.test/people/{n}/p"
        " template=u=https://x.test/people/{n}/search?q=a,b template={}"
    )


def test_without_the_mark_a_listed_text_with_braces_is_a_constant() -> None:
    assert gcx.decode("GCX1 tool=t fields=a,b=x{a}\nq") == [{"a": "q", "b": "x{a}"}]
    assert gcx.decode("GCX1 tool=t fields=a,b=x{a} template={}\nq") == [{"a": "q", "b": "xq"}]
    assert gcx.decode("GCX1 tool=t fields=a,b=x{a} template={}\nq\tz") == [{"a": "q", "b": "z"}]


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ("GCX1 tool=t fields=a,b=x{c} template={}\nq", "names no source column"),
        ("GCX1 tool=t fields=a,b=x{a}{a} template={}\nq", "needs one `{column}` place"),
        ("GCX1 tool=t fields=g{a,b=x{g.a}}} flat={} template={}\nq", "closes no group"),
        ("GCX1 tool=t fields=g{a,b=x{g.a} flat={} template={}\nq", "is not closed"),
    ],
)
def test_listed_templates_refuse_what_they_cannot_apply(payload: str, message: str) -> None:
    with pytest.raises(DecodeError, match=message):
        gcx.decode(payload)
