"""mcp 2.x's Extension API (``MCPServer(extensions=[...])``, SEP-2133): the same server file run on
the SDK and, unchanged, through ``oxmcp run``, driven over stdio by the official client in both
eras, gives the same answers: the extension's tool and resource, its vendor method (served at the
versions its binding admits), its ``tools/call`` interceptor, its declared settings, and
``require_client_extension``'s -32021."""

from __future__ import annotations

import asyncio
import os
import textwrap
from pathlib import Path
from typing import Any

import pytest

import oxmcp

ROOT = Path(__file__).resolve().parents[2]
PEER_V2 = ROOT / ".cache" / "peers-py" / "v2" / "bin" / "python"  # mcp 2.3.0
OXMCP_PATH = str(Path(oxmcp.__file__).resolve().parents[1])

SERVER = """\
    from typing import Any, Literal

    import mcp_types as types
    from mcp.server.extension import Extension, MethodBinding, ResourceBinding, ToolBinding
    from mcp.server.mcpserver import Context, MCPServer, require_client_extension
    from mcp.server.mcpserver.resources import TextResource
    from mcp_types import CallToolResult, TextContent


    class PingParams(types.RequestParams):
        pass


    class PingResult(types.Result):
        pong: bool


    async def pong(ctx: Any, params: PingParams) -> PingResult:
        return PingResult(pong=True)


    class Demo(Extension):
        identifier = "com.example/demo"

        def settings(self) -> dict[str, Any]:
            return {"level": 2}

        def tools(self):
            def guarded(ctx: Context) -> str:
                require_client_extension(ctx.request_context, "com.example/needed")
                return "ok"

            def ext_tool() -> str:
                \"\"\"The extension's own tool.\"\"\"
                return "from the extension"

            return [ToolBinding(fn=ext_tool, meta={"com.example/marker": 1}), ToolBinding(fn=guarded)]

        def resources(self):
            return [ResourceBinding(resource=TextResource(uri="ext://greeting", name="greeting", text="hello"))]

        def methods(self):
            return [MethodBinding("com.example/ping", PingParams, pong),
                    MethodBinding("com.example/pinned", PingParams, pong, frozenset({"2026-07-28"}))]

        async def intercept_tool_call(self, params, ctx, call_next):
            if params.name == "echo" and (params.arguments or {}).get("text") == "block":
                return CallToolResult(content=[TextContent(type="text", text="intercepted")])
            return await call_next(ctx)


    server = MCPServer("ext", extensions=[Demo()])


    @server.tool(structured_output=False)  # an interceptor's answer has no structured content
    def echo(text: str) -> str:
        return text


    if __name__ == "__main__":
        server.run()
"""


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": OXMCP_PATH, "PYTHONUNBUFFERED": "1"}
    env.pop("VIRTUAL_ENV", None)
    return env


async def _session(args: list[str], mode: str) -> dict[str, Any]:
    from typing import Literal

    import mcp_types as types
    from mcp import Client, StdioServerParameters
    from mcp.shared.exceptions import MCPError

    class PingRequest(types.Request[types.RequestParams, Literal["com.example/ping"]]):
        method: Literal["com.example/ping"] = "com.example/ping"
        params: types.RequestParams

    class PinnedRequest(types.Request[types.RequestParams, Literal["com.example/pinned"]]):
        method: Literal["com.example/pinned"] = "com.example/pinned"
        params: types.RequestParams

    class PingResult(types.Result):
        pong: bool

    async def error_of(call: Any) -> Any:
        try:
            await call
        except MCPError as e:
            return (e.error.code, e.error.data)
        return None

    params = StdioServerParameters(command=str(PEER_V2), args=args, env=_env())
    out: dict[str, Any] = {}
    async with Client(params, mode=mode, read_timeout_seconds=30) as client:  # type: ignore[arg-type]
        tools = (await client.list_tools()).tools
        out["tools"] = sorted((t.name, (t.meta or {}).get("com.example/marker")) for t in tools)
        out["resources"] = [str(r.uri) for r in (await client.list_resources()).resources]
        out["ext_tool"] = (await client.call_tool("ext_tool", {})).content[0].text
        out["echo"] = (await client.call_tool("echo", {"text": "hi"})).content[0].text
        out["blocked"] = (await client.call_tool("echo", {"text": "block"})).content[0].text
        out["ping"] = (await client.session.send_request(PingRequest(params=types.RequestParams()), PingResult)).pong
        out["pinned"] = await error_of(client.session.send_request(PinnedRequest(params=types.RequestParams()),
                                                                   PingResult))
        out["guarded"] = await error_of(client.call_tool("guarded", {}))
        out["extensions"] = client.server_capabilities.extensions
    return out


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_extension_as_the_sdk(tmp_path: Path, mode: str) -> None:
    assert PEER_V2.exists(), f"{PEER_V2} missing: run scripts/setup.sh"
    server = tmp_path / "server.py"
    server.write_text(textwrap.dedent(SERVER))
    original = asyncio.run(asyncio.wait_for(_session([str(server)], mode), 60))
    ported = asyncio.run(asyncio.wait_for(_session(["-m", "oxmcp", "run", str(server)], mode), 60))
    assert ported == original
    assert original["tools"] == [("echo", None), ("ext_tool", 1), ("guarded", None)]
    assert (original["echo"], original["blocked"], original["ping"]) == ("hi", "intercepted", True)
    assert original["guarded"] == (-32021, {"requiredCapabilities": {"extensions": {"com.example/needed": {}}}})
    if mode == "auto":  # the 2026-07-28 era: the settings in server/discover, the pinned method served
        assert original["extensions"] == {"com.example/demo": {"level": 2}}
        assert original["pinned"] is None
    else:  # the 2025 initialize result has no extensions; the pinned method is unknown there
        assert original["extensions"] is None
        assert original["pinned"] == (-32601, "com.example/pinned")


def test_extension_options_refused_as_the_sdk() -> None:
    from oxmcp.server.extension import Extension, MethodBinding
    from oxmcp.server.mcpserver import MCPServer
    from oxmcp.types import RequestParams

    async def handler(ctx: Any, params: Any) -> Any:
        return {}

    with pytest.raises(TypeError):
        type("Bad", (Extension,), {"identifier": "noprefix"})
    with pytest.raises(ValueError, match="spec method"):
        MethodBinding("tools/list", RequestParams, handler)
    with pytest.raises(ValueError, match="empty protocol_versions"):
        MethodBinding("com.example/x", RequestParams, handler, frozenset())

    class One(Extension):
        identifier = "com.example/one"

        def methods(self) -> list[MethodBinding]:
            return [MethodBinding("com.example/x", RequestParams, handler)]

    class Two(One):
        identifier = "com.example/two"

    with pytest.raises(ValueError, match="already registered"):
        MCPServer("x", extensions=[One(), Two()])
    with pytest.raises(ValueError, match="twice"):
        MCPServer("x", extensions=[One(), One()])
    with pytest.raises(TypeError, match="no identifier"):
        MCPServer("x", extensions=[type("NoId", (Extension,), {})()])


def test_client_extensions_it_cannot_serve_are_refused() -> None:
    """``Client(extensions=[...])`` declares what it is given; an extension that binds notifications
    would go unserved, so it is refused rather than declared, and so is a repeated identifier or
    result type (result claims are served: tests/python/test_mcp_apps.py)."""
    from oxmcp.client import Client, ClientExtension, advertise
    from oxmcp.server.mcpserver import MCPServer

    class Notified(ClientExtension):
        identifier = "com.example/notified"

        def notifications(self) -> Any:
            return [object()]

    with pytest.raises(TypeError, match="notification bindings are not supported"):
        Client(MCPServer("x"), extensions=[Notified()])
    with pytest.raises(ValueError, match="passed more than once"):
        Client(MCPServer("x"), extensions=[advertise("com.example/a"), advertise("com.example/a")])
    with pytest.raises(TypeError):
        advertise("noprefix")
