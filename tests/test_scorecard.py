"""The scorecard: the gortex reproduction, the median rule, round-trip judging, output."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from bench import scorecard as report
from gcxwire import _measure as scorecard
from gcxwire import tokens
from gcxwire._measure import format_delta, reference_median
from gcxwire.errors import ScorecardError

REPO = Path(__file__).resolve().parent.parent
GOLDEN = REPO / "tests" / "data" / "gortex" / "golden"  # the reference encoder's output
REFERENCE_MD = REPO / "tests" / "data" / "gortex" / "scorecard.md"


@pytest.fixture(scope="module")
def gortex_card() -> scorecard.Scorecard:
    cases = [c for c in scorecard.load_cases(report.CASES) if c.group == "gortex"]
    return scorecard.run(cases, formats=("json", "gcx-ref"))


def test_bundled_gortex_cases_are_the_twenty(gortex_card: scorecard.Scorecard) -> None:
    golden = json.loads((GOLDEN / "_tokens_cl100k.json").read_text())
    assert [r.case.name for r in gortex_card.results] == sorted(golden)
    assert all(r.case.baseline == "go" for r in gortex_card.results)


def test_gortex_rows_reproduce_the_reference_texts_and_token_counts(
    gortex_card: scorecard.Scorecard,
) -> None:
    golden = json.loads((GOLDEN / "_tokens_cl100k.json").read_text())
    for result in gortex_card.results:
        name = result.case.name
        baseline = (GOLDEN / f"{name}.baseline.json").read_text(encoding="utf-8")
        gcx_text = (GOLDEN / f"{name}.gcx").read_text(encoding="utf-8")
        assert result.measures["json"].text == baseline, name
        assert result.measures["gcx-ref"].text == gcx_text, name
        assert result.measures["json"].tokens == golden[name]["json_tokens"], name
        assert result.measures["gcx-ref"].tokens == golden[name]["gcx_tokens"], name
        assert result.measures["gcx-ref"].bytes == len(gcx_text.encode()), name


def test_gortex_median_follows_the_reference_rule(gortex_card: scorecard.Scorecard) -> None:
    golden = json.loads((GOLDEN / "_tokens_cl100k.json").read_text())
    expected = reference_median(
        [(g["json_tokens"] - g["gcx_tokens"]) / g["json_tokens"] * 100 for g in golden.values()]
    )
    summary = gortex_card.summary("gcx-ref", "gortex")
    assert summary.median_tokens == pytest.approx(expected)
    line = next(
        x for x in REFERENCE_MD.read_text().splitlines() if x.startswith("**Summary (cl100k")
    )
    assert f"Median token savings: {format_delta(summary.median_tokens)}." in line


def test_rendered_reproduction_rows_match_the_reference_scorecard(
    gortex_card: scorecard.Scorecard,
) -> None:
    def rows(markdown: str) -> dict[str, list[str]]:
        found = {}
        for line in markdown.splitlines():
            cells = [c.strip() for c in line.strip("|").split("|")]
            if len(cells) == 12 and cells[0][:2].isdigit():
                # bytes and tokens with their deltas; gzip differs (Go's deflate is not zlib's)
                found[cells[0]] = cells[1:8]
        return found

    ours = rows(report.render_markdown(gortex_card))
    theirs = rows(REFERENCE_MD.read_text(encoding="utf-8").split("## Claude")[0])
    assert len(theirs) == 20
    assert ours == theirs


def test_committed_scorecard_comes_from_a_real_run(gortex_card: scorecard.Scorecard) -> None:
    def section(markdown: str) -> str:
        return markdown.split("## Reproduction")[1].split("\n## ")[0]

    committed = (REPO / "bench" / "scorecard.md").read_text(encoding="utf-8")
    assert section(committed) == section(report.render_markdown(gortex_card))


@pytest.mark.parametrize(
    ("values", "median"),
    [([3.0], 3.0), ([4.0, 1.0], 4.0), ([5.0, 1.0, 3.0, 2.0], 3.0), ([-1.0, 2.0, 0.0], 0.0)],
)
def test_reference_median_is_element_n_over_2(values: list[float], median: float) -> None:
    assert reference_median(values) == median


@pytest.mark.parametrize(
    ("saved", "text"),
    [(27.43, "−27.4%"), (0.0, "−0.0%"), (-3.4, "+3.4%"), (-0.04, "+0.0%"), (None, "n/a")],
)
def test_format_delta(saved: float | None, text: str) -> None:
    assert format_delta(saved) == text


def write_case(folder: Path, name: str, value: object, **extra: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    case = {"tool": extra.pop("tool", "t"), "description": "d", "input": json.dumps(value), **extra}
    (folder / f"{name}.json").write_text(json.dumps(case), encoding="utf-8")


def test_round_trip_is_judged_on_values_types_and_key_order(tmp_path: Path) -> None:
    value = [{"b": 1, "a": "x"}, {"b": 2, "a": "y"}]
    write_case(tmp_path / "g", "go", value, baseline="go")
    write_case(tmp_path / "g", "plain", value)
    card = scorecard.run(scorecard.load_cases(tmp_path), formats=("json", "gcx-ref", "gcx"))
    go, plain = card.results
    assert go.measures["json"].text == '[{"a":"x","b":1},{"a":"y","b":2}]'
    assert go.measures["json"].roundtrip == "order"  # Go sorts keys
    assert plain.measures["json"].roundtrip == "exact"
    assert plain.measures["gcx"].roundtrip == "exact"
    summary = card.summary("json")
    assert (summary.exact, summary.reordered) == (1, 1)


def test_a_format_that_cannot_encode_is_reported_not_raised(tmp_path: Path) -> None:
    write_case(tmp_path, "bad_tool", [1, 2], tool="has space")
    (result,) = scorecard.run(scorecard.load_cases(tmp_path), formats=("json", "gcx")).results
    assert result.measures["gcx"].text is None
    assert result.measures["gcx"].error
    assert result.savings("gcx") is None


def test_plain_tsv_yardstick_only_for_flat_tables(tmp_path: Path) -> None:
    write_case(tmp_path, "a_flat", [{"a": 1, "b": None}, {"a": True, "c": "x y"}])
    write_case(tmp_path, "b_nested", [{"a": [1]}])
    write_case(tmp_path, "c_tab", [{"a": "x\ty"}])
    write_case(tmp_path, "d_object", {"a": 1})
    card = scorecard.run(scorecard.load_cases(tmp_path), formats=("json", "tsv"))
    texts = [r.measures["tsv"].text for r in card.results]
    assert texts == ["a\tb\tc\n1\t\t\ntrue\t\tx y", None, None, None]
    assert card.results[0].measures["tsv"].roundtrip == "none"


def test_load_cases_errors(tmp_path: Path) -> None:
    with pytest.raises(ScorecardError, match="not a directory"):
        scorecard.load_cases(tmp_path / "missing")
    with pytest.raises(ScorecardError, match="no \\*.json"):
        scorecard.load_cases(tmp_path)
    (tmp_path / "x.json").write_text('{"tool": "t"}')
    with pytest.raises(ScorecardError, match='"input"'):
        scorecard.load_cases(tmp_path)
    (tmp_path / "x.json").write_text("{")
    with pytest.raises(ScorecardError, match="cannot read"):
        scorecard.load_cases(tmp_path)


def test_groups_and_summaries(tmp_path: Path) -> None:
    rows = [{"id": i, "name": f"item {i}", "score": i / 4} for i in range(12)]
    write_case(tmp_path / "one", "rows", rows)
    write_case(tmp_path / "two", "single", {"id": 1, "name": "x"})
    card = scorecard.run(scorecard.load_cases(tmp_path), formats=("json", "gcx", "auto"))
    assert card.groups() == ["one", "two"]
    rows_result, single = card.results
    # auto never grows a response and keeps every value
    for result in card.results:
        assert result.measures["auto"].tokens <= result.measures["json"].tokens
        assert result.measures["auto"].roundtrip == "exact"
    assert card.summary("auto").worse == 0
    assert card.summary("gcx", "one").median_tokens == pytest.approx(rows_result.savings("gcx"))

    doc = json.loads(report.render_json(card))
    assert [c["id"] for c in doc["cases"]] == ["one/rows", "two/single"]
    assert doc["cases"][0]["results"]["gcx"]["tokens"] == rows_result.measures["gcx"].tokens
    assert doc["summary"]["all"]["auto"]["worse"] == 0
    assert set(doc["summary"]) == {"all", "one", "two"}


def test_shape_totals_sum_tokens_by_shape_and_render(tmp_path: Path) -> None:
    rows = [{"id": i, "name": f"item {i}"} for i in range(6)]
    write_case(tmp_path / "real", "a", rows, shape="flat")
    write_case(tmp_path / "real", "b", rows[:4], shape="flat")
    write_case(tmp_path / "real", "c", {"id": 1, "name": "x"}, shape="single-object")
    write_case(tmp_path / "other", "d", rows)  # no shape: no shape table for its group
    card = scorecard.run(scorecard.load_cases(tmp_path), formats=("json", "gcx", "auto"))
    assert report.shape_totals(card, "other") == []
    flat, single, every = report.shape_totals(card, "real")
    assert (flat.shape, single.shape, every.shape) == ("flat", "single-object", "")
    by_name = {r.case.name: r.measures for r in card.results}
    assert flat.compact == by_name["a"]["json"].tokens + by_name["b"]["json"].tokens
    assert flat.auto == by_name["a"]["auto"].tokens + by_name["b"]["auto"].tokens
    assert every.cases == 3 and every.auto == flat.auto + single.auto
    assert flat.pretty == sum(tokens.count(json.dumps(v, indent=2)) for v in (rows, rows[:4]))
    assert every.exact == 3 and every.worse == 0
    text = report.render_markdown(card)
    assert "### real by shape: auto against JSON, totals of tokens" in text
    assert "### other by shape" not in text
    assert f"| flat | 2 | {flat.compact} | {flat.pretty} | {flat.auto} |" in text


def test_progress_bar_appears_only_after_a_second() -> None:
    now = [0.0]
    out = io.StringIO()
    bar = report.Progress(4, out, clock=lambda: now[0])
    bar.step(1, "a")
    assert out.getvalue() == ""
    now[0] = 1.5
    bar.step(2, "b")
    bar.close()
    assert out.getvalue().startswith("\r[" + "#" * 15 + "-" * 15 + "] 2/4 b")
    assert out.getvalue().endswith("\n")


def test_plot_writes_a_png(tmp_path: Path) -> None:
    write_case(tmp_path / "g", "rows", [{"id": i, "v": "x"} for i in range(5)])
    card = scorecard.run(scorecard.load_cases(tmp_path), formats=("json", "gcx", "auto"))
    target = tmp_path / "savings.png"
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        with pytest.raises(ScorecardError, match="pip install matplotlib"):
            report.plot(card, target)
        return
    report.plot(card, target)
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_toon_column_is_left_out_cleanly_without_toon_format(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scorecard, "_toon", lambda: None)  # as if toon-format were not installed
    assert "toon" not in scorecard.available_formats()
    write_case(tmp_path, "rows", [{"id": i} for i in range(3)])
    card = scorecard.run(scorecard.load_cases(tmp_path))
    assert "toon" not in card.formats and card.meta["toon_format"] is None
    markdown = report.render_markdown(card)
    assert "`toon-format` is not installed" in markdown
    assert "TOON" not in markdown.split("## Summary")[1]


def test_the_registry_section_measures_50_distinct_real_schemas_as_committed() -> None:
    cases = [c for c in scorecard.load_cases(report.CASES) if c.group in report.REGISTRY_GROUPS]
    schemas = report.registry_schemas(cases)
    assert len(schemas) == report.REGISTRY_SIZE == len({schema.id for schema in schemas})
    costs, exact = report.registry_cost(schemas)
    assert exact and [cost.form.split(",")[0] for cost in costs] == [
        "DCP (dcp-schemas:v1)",
        "DcpSchemaDef JSON",
        "DcpSchemaDef JSON",
    ]

    def section(markdown: str) -> str:
        return markdown.split("## A schema registry")[1].split("\n## ")[0]

    committed = (REPO / "bench" / "scorecard.md").read_text(encoding="utf-8")
    assert section(committed) == section("\n".join(report.registry_section(cases)))
