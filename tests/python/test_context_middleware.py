"""mcp 2.x's context-tier middleware (``server.middleware.append(fn)``, ``fn(ctx, call_next)``) on
``MCPServer`` and the low-level ``Server``: the same file run on the SDK and, unchanged, through
``oxmcp run``, driven over stdio by the official client, gives the same answers."""

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

# A middleware that refuses an unknown tool with -32602 before the server looks it up, one that
# rewrites a result, and one that records the methods it saw (read back through a tool).
COMMON = """\
    from typing import Any

    from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
    from mcp.shared.exceptions import MCPError
    from mcp.types import INVALID_PARAMS

    seen: list[str] = []


    async def record(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        seen.append(ctx.method)
        return await call_next(ctx)


    async def refuse_unknown(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.method == "tools/call" and (ctx.params or {}).get("name") not in ("echo", "seen_methods"):
            raise MCPError(code=INVALID_PARAMS, message=f"Unknown tool: {ctx.params['name']}")
        return await call_next(ctx)


    async def shout(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        result = await call_next(ctx)
        if ctx.method == "tools/call" and (ctx.params or {}).get("name") == "echo":
            body = result if isinstance(result, dict) else result.model_dump(by_alias=True, exclude_none=True)
            body["content"][0]["text"] = body["content"][0]["text"].upper()
            return body
        return result
"""

MCPSERVER = COMMON + """\

    from mcp.server.mcpserver import MCPServer

    server = MCPServer("mw", middleware=[record])
    server.middleware.append(refuse_unknown)
    server.middleware.append(shout)


    @server.tool()
    def echo(text: str) -> str:
        return text


    @server.tool()
    def seen_methods() -> str:
        return ",".join(m for m in seen if m.startswith("tools/"))


    if __name__ == "__main__":
        server.run()
"""

LOWLEVEL = COMMON + """\

    import anyio
    from mcp.server import Server
    from mcp.server.stdio import stdio_server
    from mcp.types import CallToolResult, ListToolsResult, TextContent, Tool


    async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
        return ListToolsResult(tools=[Tool(name="echo", input_schema={"type": "object"}),
                                      Tool(name="seen_methods", input_schema={"type": "object"})])


    async def call_tool(ctx: Any, params: Any) -> CallToolResult:
        if params.name == "echo":
            return CallToolResult(content=[TextContent(type="text", text=params.arguments["text"])])
        return CallToolResult(content=[TextContent(type="text", text=",".join(m for m in seen if m.startswith("tools/")))])


    server = Server("mw", on_list_tools=list_tools, on_call_tool=call_tool)
    server.middleware.append(record)
    server.middleware.append(refuse_unknown)
    server.middleware.append(shout)


    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())


    if __name__ == "__main__":
        anyio.run(main)
"""


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": OXMCP_PATH, "PYTHONUNBUFFERED": "1"}
    env.pop("VIRTUAL_ENV", None)
    return env


async def _session(args: list[str]) -> Any:
    from mcp import Client, StdioServerParameters
    from mcp.shared.exceptions import MCPError

    params = StdioServerParameters(command=str(PEER_V2), args=args, env=_env())
    async with Client(params, mode="legacy", read_timeout_seconds=30) as client:
        echoed = (await client.call_tool("echo", {"text": "hi"})).content[0].text
        try:
            await client.call_tool("missing", {})
            refused: Any = None
        except MCPError as e:
            refused = (e.error.code, e.error.message)
        names = sorted(t.name for t in (await client.list_tools()).tools)
        seen = (await client.call_tool("seen_methods", {})).content[0].text
        return echoed, refused, names, seen


@pytest.mark.parametrize("source", [MCPSERVER, LOWLEVEL], ids=["mcpserver", "lowlevel"])
def test_context_tier_middleware_as_the_sdk(tmp_path: Path, source: str) -> None:
    assert PEER_V2.exists(), f"{PEER_V2} missing: run scripts/setup.sh"
    server = tmp_path / "server.py"
    server.write_text(textwrap.dedent(source))
    original = asyncio.run(asyncio.wait_for(_session([str(server)]), 60))
    ported = asyncio.run(asyncio.wait_for(_session(["-m", "oxmcp", "run", str(server)]), 60))
    assert ported == original
    assert original[:2] == ("HI", (-32602, "Unknown tool: missing"))
    # The middleware saw every tools/* request, the refused one too (the client lists the tools
    # itself before a call, so the count of lists is the client's).
    assert original[3].split(",").count("tools/call") == 3 and "tools/list" in original[3]


def test_middleware_added_after_the_server_started_is_refused() -> None:
    from oxmcp.server.mcpserver import MCPServer

    server = MCPServer("late")
    server._build_native()
    with pytest.raises(RuntimeError, match="before the server starts serving"):
        server.middleware.append(lambda ctx, call_next: call_next(ctx))
