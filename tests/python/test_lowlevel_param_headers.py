"""A low-level ``Server``'s tools get the core's 2026-07-28 ``tools/call`` rules over real HTTP: the
``Mcp-Param-*`` headers of a tool its ``tools/list`` handler lists with ``x-mcp-header`` are checked
as a registered tool's are (400 + -32020), and a call without a name, with arguments that are not an
object, or with a ``clientInfo`` that is not an object, is -32602 before the handler runs.
tests/node/lowlevel-param-headers.test.mjs runs the same cases on Node's low-level Server."""

from __future__ import annotations

import json
import textwrap
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from procs import META, start_script, stop

SERVER = textwrap.dedent('''
    import sys
    import uvicorn
    from oxmcp import types
    from oxmcp.server.lowlevel import Server

    server = Server("ll-headers")
    calls = []

    @server.list_tools()
    async def list_tools():
        return [types.Tool(name="deploy", inputSchema={"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"}, "note": {"type": "string"}}})]

    @server.call_tool()
    async def call_tool(name, arguments):
        calls.append(name)
        return [types.TextContent(type="text", text=f"{name} {arguments!r} after {len(calls)} calls")]

    uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
''')


def _post(port: int, method: str, params: dict[str, Any], headers: dict[str, str] | None = None,
          meta: dict[str, Any] = META) -> tuple[int, dict[str, Any]]:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": meta}}).encode()
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
         "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method, **(headers or {})}
    req = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=body, method="POST", headers=h)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


@pytest.fixture
def port(tmp_path: Path) -> Any:
    proc, port = start_script(tmp_path, SERVER)
    try:
        yield port
    finally:
        stop(proc)


def test_mcp_param_headers_of_a_listed_tool_are_checked(port: int) -> None:
    status, listed = _post(port, "tools/list", {})
    assert status == 200 and [t["name"] for t in listed["result"]["tools"]] == ["deploy"], listed
    call = {"name": "deploy", "arguments": {"region": "eu-west", "note": "n"}}
    status, ok = _post(port, "tools/call", call, {"Mcp-Name": "deploy", "Mcp-Param-Region": "eu-west"})
    assert status == 200 and "after 1 calls" in ok["result"]["content"][0]["text"], ok
    for headers, why in (({}, "missing"), ({"Mcp-Param-Region": "us-east"}, "does not match")):
        status, refused = _post(port, "tools/call", call, {"Mcp-Name": "deploy", **headers})
        assert status == 400 and refused["error"]["code"] == -32020, refused
        assert why in refused["error"]["message"]
    # No header is expected for an argument that is absent.
    status, ok = _post(port, "tools/call", {"name": "deploy", "arguments": {"note": "n"}}, {"Mcp-Name": "deploy"})
    assert status == 200 and "after 2 calls" in ok["result"]["content"][0]["text"], ok


def test_call_shape_and_client_info_are_checked_before_the_handler(port: int) -> None:
    _, no_name = _post(port, "tools/call", {"arguments": {}})
    assert no_name["error"]["code"] == -32602, no_name
    _, bad_args = _post(port, "tools/call", {"name": "deploy", "arguments": [1]}, {"Mcp-Name": "deploy"})
    assert bad_args["error"]["code"] == -32602, bad_args
    meta = {**META, "io.modelcontextprotocol/clientInfo": "not an object"}
    status, bad_info = _post(port, "tools/list", {}, meta=meta)
    assert status == 400 and bad_info["error"]["code"] == -32602, bad_info
    status, ok = _post(port, "tools/call", {"name": "deploy", "arguments": {}}, {"Mcp-Name": "deploy"})
    assert status == 200 and "after 1 calls" in ok["result"]["content"][0]["text"], "no refused call reached it"


LOOKUP = textwrap.dedent('''
    import sys
    import uvicorn
    from oxmcp import types
    from oxmcp.server.lowlevel import Server

    listed = []

    async def list_tools(ctx, params):
        listed.append(1)
        # What the listing says is not what the calls are checked against: the lookup is.
        return types.ListToolsResult(tools=[types.Tool(name=n, input_schema={"type": "object"})
                                            for n in ("deploy", "broken", "free")])

    async def call_tool(ctx, params):
        return types.CallToolResult(content=[types.TextContent(
            type="text", text=f"{params.name} ran; {len(listed)} listings")])

    def lookup(name):
        if name == "broken":
            raise RuntimeError("no schema store")
        if name == "deploy":
            return {"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}
        return None

    server = Server("ll-lookup", on_list_tools=list_tools, on_call_tool=call_tool, get_tool_input_schema=lookup)
    uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
''')


def test_a_schema_lookup_by_name_is_what_the_headers_are_checked_against(tmp_path: Path) -> None:
    proc, port = start_script(tmp_path, LOOKUP)
    try:
        call = {"name": "deploy", "arguments": {"region": "eu-west"}}
        # No listing first: the lookup gives the schema.
        status, refused = _post(port, "tools/call", call, {"Mcp-Name": "deploy", "Mcp-Param-Region": "us-east"})
        assert status == 400 and refused["error"]["code"] == -32020, refused
        status, missing = _post(port, "tools/call", call, {"Mcp-Name": "deploy"})
        assert status == 400 and "missing" in missing["error"]["message"], missing
        status, ok = _post(port, "tools/call", call, {"Mcp-Name": "deploy", "Mcp-Param-Region": "eu-west"})
        assert status == 200 and ok["result"]["content"][0]["text"] == "deploy ran; 0 listings", ok
        # A lookup that raises, or gives no schema, leaves the call unchecked (the SDK's fail-open).
        for name in ("broken", "free"):
            status, ok = _post(port, "tools/call", {"name": name, "arguments": {"region": "x"}},
                               {"Mcp-Name": name, "Mcp-Param-Region": "y"})
            assert status == 200 and ok["result"]["content"][0]["text"] == f"{name} ran; 0 listings", ok
    finally:
        stop(proc)
