"""``mcp.types`` read as the types of the ``mcp`` generation a server is written for.

mcp 1.x's models name their fields as the wire does and hold a resource's URI as a pydantic ``AnyUrl``.
mcp 2.x's (``mcp_types``) name them in snake_case with the wire's names as aliases, so a dump by field
name is snake_case (and params so dumped are not the wire's: its server refuses them); they hold the
URI as the string given and keep a result's ``resultType`` as read. The same script, a server and the
SDK's own client in one process, runs on the real SDK (the peer venvs of scripts/setup.sh) and on
oxmcp's mirrors under the import hook, which takes the generation from the installed ``mcp``: both
must print the same.
"""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path

import pytest

import oxmcp

ROOT = Path(__file__).resolve().parents[2]
PEER_V1 = ROOT / ".cache" / "peers-py" / "v1" / "bin" / "python"  # mcp 1.30.0
PEER_V2 = ROOT / ".cache" / "peers-py" / "v2" / "bin" / "python"  # mcp 2.3.0
ON_OXMCP = ("import runpy, sys; from oxmcp._dropin import install; install(); "
            "runpy.run_path(sys.argv[1], run_name='__main__')")

MCP1 = """\
    import json

    import anyio
    from mcp import types
    from mcp.server.fastmcp import FastMCP
    from mcp.shared.memory import create_connected_server_and_client_session

    app = FastMCP("gen")


    @app.resource("resource://init")
    def init() -> str:
        return "ready"


    @app.prompt()
    def review(code: str) -> str:
        return f"review {code}"


    @app.tool()
    def echo() -> str:
        return "hi"


    async def main() -> None:
        out = {}
        async with create_connected_server_and_client_session(app._mcp_server) as client:
            init_result = await client.initialize()
            (resource,) = (await client.list_resources()).resources
            out["uri"] = [type(resource.uri).__name__, resource.uri == "resource://init", str(resource.uri)]
            out["caps"] = sorted(init_result.capabilities.model_dump(exclude_none=True)["tools"])
            prompt = await client.get_prompt("review", {"code": "x"})
            out["prompt"] = sorted(prompt.model_dump(mode="json", by_alias=True, exclude_none=True))
            read = await client.read_resource(resource.uri)
            out["read"] = sorted(read.contents[0].model_dump(exclude_none=True))
            result = await client.call_tool("echo", {})
            out["call"] = sorted(result.model_dump(by_alias=True, exclude_none=True))
            out["call_names"] = sorted(result.model_dump())
        built = types.TextResourceContents(uri="file:///a", text="x", _meta={"k": 1})
        out["built"] = [type(built.uri).__name__, sorted(built.model_dump())]
        print(json.dumps(out, sort_keys=True))


    anyio.run(main)
"""

MCP2 = """\
    import json

    import anyio
    from mcp import Client
    from mcp.server import Server, ServerRequestContext
    from mcp.server.mcpserver import MCPServer
    from mcp.types import CallToolRequestParams, CallToolResult, ListToolsResult, TextContent, Tool
    import mcp_types
    from mcp.shared.message import SessionMessage
    from mcp.types import ClientCapabilities, Implementation, InitializeRequestParams, JSONRPCRequest
    from pydantic import TypeAdapter

    app = MCPServer("gen")


    @app.resource("resource://init")
    def init() -> str:
        return "ready"


    @app.prompt()
    def review(code: str) -> str:
        return f"review {code}"


    async def list_tools(ctx: ServerRequestContext, params: object) -> ListToolsResult:
        return ListToolsResult(tools=[Tool(name="echo", input_schema={"type": "object"})])


    async def call_tool(ctx: ServerRequestContext, params: CallToolRequestParams) -> CallToolResult:
        return CallToolResult(content=[TextContent(type="text", text="hi")])


    low = Server("low", on_list_tools=list_tools, on_call_tool=call_tool)


    def strip(dump: dict) -> dict:
        meta = {k: v for k, v in (dump.pop("_meta", None) or {}).items() if not k.startswith("io.modelcontextprotocol/")}
        return {**dump, **({"_meta": meta} if meta else {})}


    async def initialize_by_field_names() -> list:
        # A message built in process from params dumped by field name (snake_case).
        to_server, server_in = anyio.create_memory_object_stream(10)
        server_out, from_server = anyio.create_memory_object_stream(10)
        async with anyio.create_task_group() as tg:
            tg.start_soon(low.run, server_in, server_out, low.create_initialization_options())
            params = InitializeRequestParams(protocol_version="2025-06-18", capabilities=ClientCapabilities(),
                                             client_info=Implementation(name="c", version="1"))
            dumped = TypeAdapter(InitializeRequestParams).dump_python(params)
            await to_server.send(SessionMessage(JSONRPCRequest(jsonrpc="2.0", id=1, method="initialize", params=dumped)))
            answer = (await from_server.receive()).message
            tg.cancel_scope.cancel()
        # The SDK reads params by their wire names only: these are refused.
        return [sorted(dumped), answer.error.code]


    async def main() -> None:
        out = {"initialize": await initialize_by_field_names()}
        async with Client(app) as client:
            (resource,) = (await client.list_resources()).resources
            out["uri"] = [type(resource.uri).__name__, resource.uri == "resource://init"]
            out["caps"] = client.server_capabilities.model_dump(exclude_none=True)
            prompt = await client.get_prompt("review", {"code": "x"})
            out["prompt"] = strip(prompt.model_dump(mode="json", by_alias=True, exclude_none=True))
            read = await client.read_resource("resource://init")
            out["read"] = sorted(read.contents[0].model_dump(exclude_none=True))
        async with Client(low) as client:
            result = await client.call_tool("echo", {})
            out["call"] = strip(result.model_dump(by_alias=True, exclude_none=True))
            out["call_names"] = sorted(result.model_dump())
        out["built"] = [type(mcp_types.Resource(name="r", uri="file:///a").uri).__name__,
                        sorted(mcp_types.ServerCapabilities(tools=mcp_types.ToolsCapability(list_changed=True))
                               .model_dump(exclude_none=True)["tools"])]
        print(json.dumps(out, sort_keys=True))


    anyio.run(main)
"""


def _run(peer: Path, script: Path, *hook: str) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(Path(oxmcp.__file__).resolve().parents[1]), "PYTHONUNBUFFERED": "1"}
    env.pop("VIRTUAL_ENV", None)
    run = subprocess.run([str(peer), *hook, str(script)], env=env, capture_output=True, text=True, timeout=90,
                         check=False)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


@pytest.mark.parametrize(("peer", "source"), [(PEER_V1, MCP1), (PEER_V2, MCP2)], ids=["mcp1", "mcp2"])
def test_types_read_as_the_installed_generation(tmp_path: Path, peer: Path, source: str) -> None:
    assert peer.exists(), f"{peer} missing: run scripts/setup.sh"
    script = tmp_path / "types_generation.py"
    script.write_text(textwrap.dedent(source))
    original = _run(peer, script)
    ported = _run(peer, script, "-c", ON_OXMCP)
    assert ported == original
    if peer is PEER_V2:
        assert original["uri"] == ["str", True]
        assert original["caps"]["tools"] == {"list_changed": True}  # type: ignore[index]
        assert original["prompt"]["resultType"] == "complete"  # type: ignore[index]
        assert original["call"]["isError"] is False  # type: ignore[index]
        assert original["initialize"] == [["capabilities", "client_info", "meta", "protocol_version"], -32602]
    else:
        assert original["uri"][0] == "AnyUrl" and original["caps"] == ["listChanged"]  # type: ignore[index]
        assert "meta" in original["built"][1]  # type: ignore[index]


def test_an_unknown_generation_is_refused() -> None:
    from oxmcp import _dropin

    with pytest.raises(ValueError, match="mcp 3.x"):
        _dropin.install(3)
    assert not _dropin.installed()
