"""FastMCP middleware: logging every request, filtering tools/list, refusing a tool, rewriting a result."""

import os

from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.server.middleware import Middleware, MiddlewareContext

seen: list[str] = []


class Recorder(Middleware):
    async def on_request(self, context: MiddlewareContext, call_next):
        seen.append(context.method)
        return await call_next(context)


class HideInternal(Middleware):
    async def on_list_tools(self, context: MiddlewareContext, call_next):
        tools = await call_next(context)
        return [t for t in tools if not t.name.startswith("internal_")]


class Guard(Middleware):
    async def on_call_tool(self, context: MiddlewareContext, call_next):
        if context.message.name == "internal_reset":
            raise ToolError("internal tools cannot be called")
        return await call_next(context)


mcp = FastMCP("middleware-demo", middleware=[Recorder(), HideInternal()])
mcp.add_middleware(Guard())


@mcp.tool
def add(a: int, b: int) -> int:
    return a + b


@mcp.tool
def internal_reset() -> str:
    return "reset"


@mcp.tool
def history() -> list[str]:
    """The methods the recorder saw so far (initialize and notifications excluded)."""
    return [m for m in seen if m in ("tools/list", "tools/call")]


if __name__ == "__main__":
    if os.environ.get("PARITY_TRANSPORT") == "http":
        mcp.run(transport="http", host="127.0.0.1", port=int(os.environ["PARITY_PORT"]), show_banner=False)
    else:
        mcp.run(show_banner=False)
