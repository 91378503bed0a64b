"""The proxy's DCP schemas as MCP resources (``gcxwire://schemas``), beside the server's own.

The real SDK client reads them through the proxy and decodes them with
``gcxwire.dcp``; the merge rules (pages, shadowing, a server without resources)
are checked on :class:`ServedRegistry` directly, without processes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from gcxwire import dcp
from gcxwire.proxy.codecs import DcpCodec
from gcxwire.proxy.jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND, PendingRequest
from gcxwire.proxy.lifecycle import SchemaLifecycle
from gcxwire.proxy.options import parse_options
from gcxwire.proxy.registry import SCHEMAS_URI, SchemaResources, ServedRegistry, tool_uri

from ..node_deps import NODE_DIR, node_missing
from .helpers import (
    LINE_SERVER,
    SERVERS,
    TABLE_SERVER,
    RawProxy,
    carried_value,
    proxy_params,
    read_text,
    registry_rows,
    run,
)
from .servers.table_server import rows_for, search_for

TOOLS_ONLY_SERVER = [sys.executable, str(SERVERS / "tools_only_server.py")]
CATALOG_SERVER = [sys.executable, str(SERVERS / "catalog_server.py")]
MODERN = {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}


# -- through the proxy, with the real SDK client -------------------------------------------


# The default tier reads the registry in test_sdk_table_server's session (no extra processes).
@pytest.mark.slow
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_an_sdk_client_reads_the_registry_beside_the_servers_own_resources(mode: str) -> None:
    async def scenario() -> None:
        async with Client(proxy_params(TABLE_SERVER), mode=mode) as client:
            rows = await client.call_tool("rows", {"n": 12})  # 12 rows: confirmed from now on
            assert carried_value(rows) == rows_for(12)
            assert carried_value(await client.call_tool("search", {"n": 3})) == search_for(3)
            listed = [str(item.uri) for item in (await client.list_resources()).resources]
            assert listed == [
                "table://readme",  # the server's own first, untouched
                SCHEMAS_URI,
                "gcxwire://schemas/rows",
                "gcxwire://schemas/search",
            ]
            whole = registry_rows(await read_text(client, SCHEMAS_URI))
            assert [(r["id"], r["version"], r["status"]) for r in whole] == [
                ("rows:v2", 2, "confirmed"),
                ("search:v1", 1, "provisional"),
            ]
            confirmed = dcp.DcpSchema.from_entry(whole[0])
            assert confirmed.fields == ("id", "name", "score", "active", "note")
            # The registry's schema decodes what the tool sends with it.
            text = dcp.encode(rows_for(12), confirmed)
            assert dcp.decode(text, schema=confirmed) == rows_for(12)
            one = registry_rows(await read_text(client, "gcxwire://schemas/search"))
            assert one == whole[1:]
            # A read of the server's own resource still goes to the server.
            assert await read_text(client, "table://readme") == "the table server's own resource"
            with pytest.raises(MCPError) as unknown:
                await client.read_resource("gcxwire://schemas/nope")
            assert unknown.value.error.code == INVALID_PARAMS

    run(scenario())


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_a_server_without_resources_gets_the_proxys(mode: str) -> None:
    """The low-level SDK server advertises no resources capability; the proxy adds
    one (legacy: the initialize answer) and answers the lists itself (2026-07-28
    without a discover: the server's -32601 becomes the registry)."""

    async def scenario() -> None:
        direct = StdioServerParameters(command=TOOLS_ONLY_SERVER[0], args=TOOLS_ONLY_SERVER[1:])
        async with Client(direct, mode=mode) as client:
            with pytest.raises(MCPError) as refused:
                await client.list_resources()
            assert refused.value.error.code == METHOD_NOT_FOUND
        async with Client(proxy_params(TOOLS_ONLY_SERVER), mode=mode) as client:
            if mode == "legacy":
                assert client.server_capabilities.resources is not None
            assert carried_value(await client.call_tool("rows", {"n": 4})) == rows_for(4)
            listed = [str(item.uri) for item in (await client.list_resources()).resources]
            assert listed == [SCHEMAS_URI, "gcxwire://schemas/rows"]
            assert (await client.list_resource_templates()).resource_templates == []
            (row,) = registry_rows(await read_text(client, "gcxwire://schemas/rows"))
            assert (row["id"], row["status"]) == ("rows:v1", "provisional")

    run(scenario())


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_a_gateway_serves_every_servers_schemas_under_the_names_the_client_sees(
    tmp_path: Path, mode: str
) -> None:
    servers = {
        "table": {"command": TABLE_SERVER[0], "args": TABLE_SERVER[1:]},
        "cat": {"command": CATALOG_SERVER[0], "args": [*CATALOG_SERVER[1:], "one"]},
        "bare": {"command": TOOLS_ONLY_SERVER[0], "args": TOOLS_ONLY_SERVER[1:]},
    }
    config = tmp_path / "gateway.json"
    config.write_text(json.dumps({"mcpServers": servers}))
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "gcxwire.proxy", "--servers", str(config)]
    )

    async def scenario() -> None:
        async with Client(params, mode=mode) as client:
            await client.call_tool("table__rows", {"n": 3})
            await client.call_tool("bare__rows", {"n": 3})
            listed = [str(item.uri) for item in (await client.list_resources()).resources]
            assert listed == [
                "table://readme",
                "catalog://one/readme",
                "catalog://shared/motd",
                SCHEMAS_URI,
                "gcxwire://schemas/bare__rows",
                "gcxwire://schemas/table__rows",
            ]
            whole = registry_rows(await read_text(client, SCHEMAS_URI))
            assert [row["id"] for row in whole] == ["rows:v1", "rows:v1"]
            (bare,) = registry_rows(await read_text(client, "gcxwire://schemas/bare__rows"))
            assert bare == whole[0]
            assert await read_text(client, "catalog://one/readme") == "readme of one"

    run(scenario())


# -- the merge rules, on ServedRegistry itself -----------------------------------------------


class Passing:
    """A rewriter that changes nothing (the interceptor's place)."""

    def rewrite(self, request: PendingRequest, response: dict[str, Any]) -> dict[str, Any] | None:
        return None


def served_with(*tools: str) -> ServedRegistry:
    lifecycle = SchemaLifecycle(DcpCodec(dcp).build)
    for tool in tools:
        lifecycle.schema_for(tool, [{"id": 1, "name": tool}])
    return ServedRegistry(Passing(), SchemaResources(lifecycle.schemas))


def request(method: str, request_id: int = 1, **params: Any) -> PendingRequest:
    return PendingRequest(request_id, method, params)


def result_of(response: Any) -> dict[str, Any]:
    assert isinstance(response, dict)
    result: dict[str, Any] = response["result"]
    return result


def uris(result: dict[str, Any]) -> list[str]:
    return [item["uri"] for item in result["resources"]]


def test_the_registry_follows_the_servers_last_page_only() -> None:
    served = served_with("rows")
    hello = {"id": 0, "result": {"capabilities": {"resources": {}}}}
    assert served.rewrite(request("initialize", 0), hello) is None  # it has resources: as sent
    first = {"id": 1, "result": {"resources": [{"uri": "a://1"}], "nextCursor": "2"}}
    assert served.rewrite(request("resources/list"), first) is None  # byte for byte
    last = {"id": 2, "result": {"resources": [{"uri": "a://2"}]}}
    merged = result_of(served.rewrite(request("resources/list", 2, cursor="2"), last))
    assert uris(merged) == ["a://2", SCHEMAS_URI, "gcxwire://schemas/rows"]
    assert served.answer_locally(request("resources/list")) is None  # the server lists


def test_a_server_uri_in_the_proxys_namespace_is_never_shadowed() -> None:
    served = served_with("rows", "search")
    page = {"id": 1, "result": {"resources": [{"uri": "gcxwire://schemas/rows"}]}}
    merged = result_of(served.rewrite(request("resources/list"), page))
    assert uris(merged) == ["gcxwire://schemas/rows", SCHEMAS_URI, "gcxwire://schemas/search"]
    # Reading the server's one goes to the server; the proxy answers its own.
    assert served.answer_locally(request("resources/read", uri="gcxwire://schemas/rows")) is None
    ours = served.answer_locally(request("resources/read", uri="gcxwire://schemas/search"))
    assert ours is not None
    (contents,) = json.loads(ours)["result"]["contents"]
    assert [row["id"] for row in registry_rows(contents["text"])] == ["search:v1"]
    assert served.answer_locally(request("resources/read", uri="file:///x")) is None


def test_without_a_resources_capability_the_proxy_advertises_and_answers_one() -> None:
    served = served_with("rows")
    hello = {"id": 0, "result": {"capabilities": {"tools": {}}, "instructions": "hi"}}
    new = result_of(served.rewrite(request("initialize", 0), hello))
    assert new == {"capabilities": {"tools": {}, "resources": {}}, "instructions": "hi"}
    listed = served.answer_locally(request("resources/list", 3))
    assert listed is not None
    assert uris(json.loads(listed)["result"]) == [SCHEMAS_URI, "gcxwire://schemas/rows"]
    templates = served.answer_locally(request("resources/templates/list", 4, **MODERN))
    assert templates is not None
    assert json.loads(templates)["result"] == {
        "resourceTemplates": [],
        "resultType": "complete",
        "ttlMs": 0,
        "cacheScope": "private",
    }
    refused = served.answer_locally(request("resources/list", 5, cursor="x"))
    assert refused is not None and json.loads(refused)["error"]["code"] == INVALID_PARAMS
    # Other requests still go to the server.
    assert served.answer_locally(request("tools/list")) is None


def test_a_method_not_found_for_resources_list_becomes_the_registry() -> None:
    """A 2026-07-28 client that sent no discover: the proxy learns from the error."""
    served = served_with("rows")
    error = {"id": 7, "error": {"code": METHOD_NOT_FOUND, "message": "Method not found"}}
    got = result_of(served.rewrite(request("resources/list", 7, **MODERN), error))
    assert uris(got) == [SCHEMAS_URI, "gcxwire://schemas/rows"]
    assert got["resultType"] == "complete" and got["ttlMs"] == 0
    assert served.answer_locally(request("resources/list", 8)) is not None  # now it knows
    other = {"id": 9, "error": {"code": -32603, "message": "Internal error"}}
    assert served.rewrite(request("resources/list", 9), other) is None  # a real error stays


def test_tool_names_are_percent_encoded_in_uris() -> None:
    assert tool_uri("git/log") == "gcxwire://schemas/git%2Flog"
    served = served_with("git/log")
    answer = served.answer_locally(request("resources/read", uri="gcxwire://schemas/git%2Flog"))
    assert answer is not None and "result" in json.loads(answer)


@pytest.mark.slow  # node and two Python processes: several seconds
def test_the_typescript_sdk_client_reads_the_registry() -> None:
    missing = node_missing()
    if missing is not None:
        pytest.skip(missing)
    spec = {
        "command": sys.executable,
        "args": ["-m", "gcxwire.proxy", "--", *TABLE_SERVER],
        "calls": [{"name": "rows", "arguments": {"n": 4}}],
        "reads": [SCHEMAS_URI, "gcxwire://schemas/rows", "table://readme"],
    }
    done = subprocess.run(
        ["node", str(NODE_DIR / "mcp_client.mjs"), json.dumps(spec)],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    report = json.loads(done.stdout)
    listed = [item["uri"] for item in report["resources"]]
    assert listed == ["table://readme", SCHEMAS_URI, "gcxwire://schemas/rows"]
    whole, one, own = (read["contents"][0]["text"] for read in report["reads"])
    assert registry_rows(whole) == registry_rows(one)
    assert [row["id"] for row in registry_rows(whole)] == ["rows:v1"]
    assert own == "the table server's own resource"


def test_the_servers_pages_pass_as_sent_and_the_registry_follows_its_last() -> None:
    """Byte level, with the scripted line server: its first page is relayed byte for
    byte, its URI in the proxy's namespace shadows the proxy's, reads stay its own."""
    server = [*LINE_SERVER, "--advertise-resources", "--resources=a://1,a://2,gcxwire://schemas/t"]
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t"}}
    table = json.dumps([{"id": i, "name": f"n{i}"} for i in range(6)], indent=2)

    async def scenario() -> None:
        async with RawProxy(server) as proxy:
            await proxy.send(raw_request(0, "initialize", hello))
            assert "resources" in (await proxy.recv())["result"]["capabilities"]
            await proxy.send(
                raw_request(1, "tools/call", {"name": "t", "arguments": {"text": table}})
            )
            await proxy.recv()
            await proxy.send(raw_request(2, "resources/list", {}))
            first = {"resources": [{"uri": "a://1"}, {"uri": "a://2"}], "nextCursor": "2"}
            sent = {"jsonrpc": "2.0", "id": 2, "result": first}
            assert await proxy.recv_line() == json.dumps(sent, separators=(",", ":")).encode()
            await proxy.send(raw_request(3, "resources/list", {"cursor": "2"}))
            last = (await proxy.recv())["result"]
            assert uris(last) == ["gcxwire://schemas/t", SCHEMAS_URI]  # no second .../t
            await proxy.send(raw_request(4, "resources/read", {"uri": "gcxwire://schemas/t"}))
            assert (await proxy.recv())["result"]["by"] == "line"  # the server's own
            await proxy.send(raw_request(5, "resources/read", {"uri": SCHEMAS_URI}))
            (contents,) = (await proxy.recv())["result"]["contents"]
            assert [row["id"] for row in registry_rows(contents["text"])] == ["t:v1"]
            await proxy.send(raw_request(6, "resources/read", {"uri": "a://2"}))
            read = {"by": "line", "method": "resources/read", "params": {"uri": "a://2"}}
            sent = {"jsonrpc": "2.0", "id": 6, "result": read}
            assert await proxy.recv_line() == json.dumps(sent, separators=(",", ":")).encode()

    run(scenario())


def raw_request(rid: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}


def test_no_registry_is_an_option() -> None:
    assert parse_options(["--", "s"]).registry is True
    assert parse_options(["--no-registry", "--", "s"]).registry is False


@pytest.mark.slow
def test_a_gateway_of_servers_without_resources_answers_both_lists_in_2026(
    tmp_path: Path,
) -> None:
    """No server has resources or templates: the 2026-07-28 client still gets valid
    lists (the SDK requires ttlMs and cacheScope), the registry in one of them."""
    config = tmp_path / "gateway.json"
    bare = {"command": TOOLS_ONLY_SERVER[0], "args": TOOLS_ONLY_SERVER[1:]}
    config.write_text(json.dumps({"mcpServers": {"bare": bare}}))
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "gcxwire.proxy", "--servers", str(config)]
    )

    async def scenario() -> None:
        async with Client(params, mode="2026-07-28") as client:
            await client.call_tool("bare__rows", {"n": 3})
            listed = [str(item.uri) for item in (await client.list_resources()).resources]
            assert listed == [SCHEMAS_URI, "gcxwire://schemas/bare__rows"]
            assert (await client.list_resource_templates()).resource_templates == []

    run(scenario())
