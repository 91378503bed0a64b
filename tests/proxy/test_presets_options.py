"""Presets (filters, schema files) and command-line options."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gcxwire.proxy.options import default_server_name, parse_options
from gcxwire.proxy.presets import FieldFilter, PresetError, load_filters, load_schema_defs

ROW = {"id": 1, "node_id": "x", "owner": {"login": "a", "gravatar_id": "", "id": 2}, "name": "n"}


def test_ignore_drops_paths_and_keeps_order() -> None:
    kept = FieldFilter(ignore=frozenset({"node_id", "owner.gravatar_id"})).apply(ROW)
    assert kept == {"id": 1, "owner": {"login": "a", "id": 2}, "name": "n"}


def test_only_wins_over_ignore() -> None:
    both = FieldFilter(only=frozenset({"id", "owner.login"}), ignore=frozenset({"id"}))
    assert both.apply(ROW) == {"id": 1, "owner": {"login": "a"}}


def test_an_ancestor_selects_its_members() -> None:
    assert FieldFilter(only=frozenset({"owner"})).apply(ROW) == {"owner": ROW["owner"]}


def test_max_fields_is_a_hard_cap_in_row_order() -> None:
    assert FieldFilter(max_fields=3).apply(ROW) == {
        "id": 1,
        "node_id": "x",
        "owner": {"login": "a"},
    }


def test_filters_file(tmp_path: Path) -> None:
    (tmp_path / "github.filter.json").write_text(
        json.dumps({"search": {"ignore": ["node_id"]}, "issues": {"only": ["id"], "maxFields": 4}})
    )
    filters = load_filters(str(tmp_path), "github", max_fields=9)
    assert filters["search"] == FieldFilter(ignore=frozenset({"node_id"}), max_fields=9)
    assert filters["issues"] == FieldFilter(only=frozenset({"id"}), max_fields=4)
    assert filters["*"] == FieldFilter(max_fields=9)
    assert load_filters(str(tmp_path), "other", max_fields=None) == {}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "not JSON"),
        ("[]", "expected an object"),
        ('{"t": {"ignore": "node_id"}}', "t.ignore must be a list"),
        ('{"t": {"maxFields": 0}}', "t.maxFields must be a whole number"),
        ('{"t": {"drop": []}}', "unknown key(s) drop"),
    ],
)
def test_bad_filter_files_name_the_file_and_key(tmp_path: Path, content: str, message: str) -> None:
    (tmp_path / "s.filter.json").write_text(content)
    with pytest.raises(PresetError, match="s.filter.json") as caught:
        load_filters(str(tmp_path), "s", None)
    assert message in str(caught.value)


def test_schema_definitions(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(
        json.dumps({"$dcp": "schema", "id": "search:v2", "fields": ["id"]})
    )
    (tmp_path / "s.filter.json").write_text("{}")
    assert list(load_schema_defs(str(tmp_path))) == ["search"]
    (tmp_path / "b.json").write_text(json.dumps([{"id": "x:v1"}]))
    with pytest.raises(PresetError, match=r"b.json\[0\]: not a schema definition"):
        load_schema_defs(str(tmp_path))


@pytest.mark.parametrize(
    ("command", "name"),
    [
        (["uvx", "mcp-server-git", "--repository", "/r"], "mcp-server-git"),
        (["npx", "-y", "@modelcontextprotocol/server-memory"], "server-memory"),
        (["python3", "-m", "mcp_server_time"], "mcp_server_time"),
        (["/usr/bin/python", "servers/table_server.py"], "table_server"),
        (["node", "dist/index.js"], "index"),
        (["/opt/bin/github-mcp-server", "stdio"], "github-mcp-server"),
    ],
)
def test_default_server_names(command: list[str], name: str) -> None:
    assert default_server_name(command) == name


def test_options_defaults_and_values() -> None:
    options = parse_options(["--", "srv", "--format", "x"])
    assert options.command == ("srv", "--format", "x")  # after --, all belongs to the server
    assert (options.format, options.structured, options.hint) == ("auto", "drop", "session")
    assert (options.confirm_after, options.cache_size, options.max_fields) == (10, 128, None)
    options = parse_options(["--env", "A=1=2", "--env", "B=", "--name", "gh", "--", "srv"])
    assert options.env == {"A": "1=2", "B": ""} and options.server_name == "gh"


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--format", "xml", "--", "s"],
        ["--env", "NOEQUALS", "--", "s"],
        ["--cache-size", "0", "--", "s"],
    ],
)
def test_bad_usage_exits_with_status_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        parse_options(argv)
    assert caught.value.code == 2
    assert "gcxwire proxy" in capsys.readouterr().err
