"""Every `gcxwire` subcommand, run as a real subprocess."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SAMPLE = Path(__file__).resolve().parent.parent / "src" / "gcxwire" / "samples"
ROWS = [
    {"id": 1, "name": "alpha", "score": 0.5, "tags": ["x"], "note": None},
    {"id": 2, "name": "beta\tgamma", "score": 1.25, "tags": [], "note": "multi\nline"},
    {"id": 3, "name": "δέλτα", "score": -3.0, "tags": ["y", "z"], "note": ""},
] * 3


def gcxwire(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gcxwire", *args],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )


def assert_user_error(result: subprocess.CompletedProcess[str], fragment: str) -> None:
    assert result.returncode == 2, result
    assert result.stderr.startswith("gcxwire: error:") or result.stderr.startswith("usage:")
    assert fragment in result.stderr
    assert "Traceback" not in result.stderr


@pytest.fixture
def rows_file(tmp_path: Path) -> Path:
    path = tmp_path / "list_rows.json"
    path.write_text(json.dumps(ROWS, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.mark.parametrize("fmt", ["auto", "gcx", "dcp", "json"])
def test_encode_then_decode_gives_the_value_back(rows_file: Path, fmt: str) -> None:
    encoded = gcxwire("encode", "--format", fmt, str(rows_file))
    assert encoded.returncode == 0, encoded.stderr
    decoded = gcxwire("decode", "-", stdin=encoded.stdout)
    assert decoded.returncode == 0, decoded.stderr
    assert json.loads(decoded.stdout) == ROWS


def test_encode_formats_and_tool_name(rows_file: Path) -> None:
    gcx = gcxwire("encode", "--format", "gcx", "--tool", "search", str(rows_file)).stdout
    assert gcx.startswith("GCX1 tool=search fields=")
    named = gcxwire("encode", "--format", "gcx", str(rows_file)).stdout
    assert named.startswith("GCX1 tool=list_rows ")  # the file's name by default
    assert gcxwire("encode", "--format", "dcp", str(rows_file)).stdout.startswith('["$S",')
    compact = gcxwire("encode", "--format", "json", "-", stdin='{"a": [1, 2]}').stdout
    assert compact == '{"a":[1,2]}\n'
    # auto picks a table for nine rows: fewer tokens than JSON
    assert not gcxwire("encode", str(rows_file)).stdout.startswith("[")


def test_decode_pretty_prints(tmp_path: Path) -> None:
    result = gcxwire("decode", "--indent", "2", "-", stdin="GCX1 tool=t fields=a,b\n1\tx\n")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [{"a": 1, "b": "x"}]
    assert result.stdout.startswith("[\n  {")


def test_check_passes_on_the_bundled_sample() -> None:
    result = gcxwire("check")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "search_results.json: json ok, gcx ok, dcp ok, auto ok" in result.stdout


def test_check_reports_the_first_difference(tmp_path: Path) -> None:
    sparse = tmp_path / "sparse.json"
    sparse.write_text('[{"a": 1}, {"a": 2, "b": 3}]')
    # DCP's gateway dialect writes null for an absent key (docs/dcp.md): a real loss
    result = gcxwire("check", str(sparse), str(SAMPLE / "search_results.json"))
    assert result.returncode == 1
    first, second = result.stdout.splitlines()
    assert "dcp MISMATCH at $[0].b" in first
    assert "gcx ok" in first and "auto ok" in first
    assert "MISMATCH" not in second


def test_stats_lists_every_format(rows_file: Path) -> None:
    result = gcxwire("stats", str(rows_file))
    assert result.returncode == 0, result.stderr
    table = {line.split("|")[1].strip(): line for line in result.stdout.splitlines() if "|" in line}
    assert {"JSON", "GCX1 typed", "DCP gateway", "auto"} <= set(table)
    json_tokens = int(table["JSON"].split("|")[3])
    auto_tokens = int(table["auto"].split("|")[3])
    assert auto_tokens < json_tokens


BENCH_SCORECARD = Path(__file__).resolve().parents[1] / "bench" / "scorecard.py"


def bench_scorecard(*args: str) -> subprocess.CompletedProcess[str]:
    """The full report, bench/scorecard.py, as `gcxwire scorecard` runs it from a checkout.

    Called directly: an install that is not editable (CI's) has no bench/ beside the package.
    """
    return subprocess.run(
        [sys.executable, str(BENCH_SCORECARD), *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
    )


def write_cases(folder: Path) -> Path:
    group = folder / "mine"
    group.mkdir(parents=True)
    cases: dict[str, Any] = {"rows": ROWS, "single": {"id": 7, "ok": True}}
    for name, value in cases.items():
        case = {"tool": name, "description": name, "input": json.dumps(value)}
        (group / f"{name}.json").write_text(json.dumps(case), encoding="utf-8")
    return folder


def test_scorecard_markdown_and_json(tmp_path: Path) -> None:
    cases = write_cases(tmp_path / "cases")
    markdown = bench_scorecard(str(cases))
    assert markdown.returncode == 0, markdown.stderr
    assert "### mine (2 cases)" in markdown.stdout
    assert "| mine/rows |" in markdown.stdout

    machine = bench_scorecard(str(cases), "--format", "json")
    assert machine.returncode == 0, machine.stderr
    doc = json.loads(machine.stdout)
    assert [c["id"] for c in doc["cases"]] == ["mine/rows", "mine/single"]
    assert doc["summary"]["all"]["auto"]["worse"] == 0


@pytest.mark.slow  # matplotlib's import and a render: seconds of CPU
def test_scorecard_plot(tmp_path: Path) -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        pytest.fail("matplotlib is part of the test environment (the plot extra)")
    cases = write_cases(tmp_path / "cases")
    result = bench_scorecard(str(cases), "--format", "json", "--plot", str(tmp_path / "p.png"))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "p.png").read_bytes()[:4] == b"\x89PNG"


@pytest.fixture(scope="module")
def bundled_report() -> subprocess.CompletedProcess[str]:
    """The full report of the bundled cases, run once for the tests that read it."""
    return bench_scorecard("--quiet")


def test_scorecard_of_the_bundled_cases_reproduces_the_gortex_median(
    bundled_report: subprocess.CompletedProcess[str],
) -> None:
    assert bundled_report.returncode == 0, bundled_report.stderr
    summary = "**Summary (cl100k_base):** 20/20 cases. Median token savings: −27.4%."
    assert summary in bundled_report.stdout


def test_scorecard_without_the_bench_prints_a_plain_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from gcxwire import cli

    monkeypatch.setattr(cli, "_bench", lambda: None)  # as installed from a wheel
    monkeypatch.chdir(tmp_path)  # no bench/cases here either: the bundled sample is measured
    assert cli.main(["scorecard", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "1 cases" in out and "| auto |" in out and "bench/scorecard.py" in out
    assert cli.main(["scorecard", str(write_cases(tmp_path / "cases"))]) == 0
    assert "2 cases" in capsys.readouterr().out
    write_cases(tmp_path / "bench" / "cases")  # a checkout's cases, found from its root
    assert cli.main(["scorecard", "--quiet"]) == 0
    assert "2 cases" in capsys.readouterr().out
    assert cli.main(["scorecard", "--format", "json"]) == 2
    assert "full report" in capsys.readouterr().err


def test_scorecard_output_names_no_internal_targets(
    bundled_report: subprocess.CompletedProcess[str],
) -> None:
    from gcxwire import cli

    # From a checkout `gcxwire scorecard` runs that same report; installed, its plain summary.
    outputs = [bundled_report]
    if cli._bench() is None:
        outputs.append(gcxwire("scorecard", "--quiet"))
    for result in outputs:
        assert result.returncode == 0, result.stderr
        assert "## Targets" not in result.stdout and "(target" not in result.stdout
        assert not re.search(r"issue \d", result.stdout, re.I)


def test_user_errors_are_one_line_without_traceback(tmp_path: Path) -> None:
    assert_user_error(gcxwire("encode", str(tmp_path / "missing.json")), "Cannot read")
    assert_user_error(gcxwire("encode", "-", stdin='{"a": '), "not JSON")
    assert_user_error(gcxwire("decode", "-", stdin="GCX1 tool=t fields=a,b\n1\t2\t3\n"), "line 2")
    assert_user_error(gcxwire("encode", "--format", "gcx", "--tool", "a b", "-", stdin="[1]"), "")
    assert_user_error(gcxwire("scorecard", str(tmp_path)), "no *.json case files")
    assert_user_error(gcxwire("encode", "--format", "yaml"), "invalid choice")
    assert_user_error(gcxwire(), "required")


def test_values_json_cannot_carry_are_refused_not_rewritten() -> None:
    assert_user_error(gcxwire("encode", "-", stdin='[{"a": NaN}]'), "Float nan is not valid JSON")
    assert_user_error(gcxwire("encode", "--format", "json", "-", stdin="[Infinity]"), "$[0]")


def test_a_lone_surrogate_in_gcx_output_is_a_clean_error() -> None:
    result = gcxwire("encode", "--format", "gcx", "-", stdin='["\\ud800"]')
    assert_user_error(result, "lone surrogate")
    assert gcxwire("encode", "--format", "json", "-", stdin='["\\ud800"]').stdout == '["\\ud800"]\n'


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
def test_a_full_disk_is_a_clean_error(tmp_path: Path) -> None:
    source = tmp_path / "rows.json"
    source.write_text(json.dumps(ROWS), encoding="utf-8")
    with open("/dev/full", "w") as full:
        result = subprocess.run(
            [sys.executable, "-m", "gcxwire", "encode", str(source)],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert result.returncode == 1
    assert result.stderr == "gcxwire: error: cannot write the output: No space left on device\n"


def test_help_has_examples() -> None:
    result = gcxwire("--help")
    assert result.returncode == 0
    assert "examples:" in result.stdout
    for command in ("encode", "decode", "check", "stats", "scorecard", "proxy"):
        assert command in result.stdout
    assert "example:" in gcxwire("scorecard", "--help").stdout


def test_proxy_arguments_go_to_the_proxy_untouched() -> None:
    result = gcxwire("proxy", "--help")
    assert result.returncode == 0, result.stderr
    assert "usage: gcxwire proxy" in result.stdout
