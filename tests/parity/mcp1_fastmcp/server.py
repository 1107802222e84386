"""mcp 1.x FastMCP (mcp.server.fastmcp): lifespan with a typed app context, Context[ServerSession, T]."""

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from mcp.server.fastmcp import Context, FastMCP
from mcp.server.session import ServerSession


@dataclass
class AppContext:
    prefix: str


@asynccontextmanager
async def app_lifespan(server: FastMCP) -> AsyncIterator[AppContext]:
    yield AppContext(prefix="app")


port = int(os.environ.get("PARITY_PORT", "8000"))
mcp = FastMCP("legacy-fastmcp", lifespan=app_lifespan, host="127.0.0.1", port=port)


@mcp.tool()
def tag(name: str, ctx: Context[ServerSession, AppContext]) -> str:
    """Tag a name with the app prefix."""
    return f"{ctx.request_context.lifespan_context.prefix}:{name}"


@mcp.tool()
async def notify(ctx: Context) -> str:
    await ctx.info("info message")
    await ctx.report_progress(0.5, 1.0, "half")
    return "ok"


@mcp.resource("notes://{topic}")
def note(topic: str) -> str:
    return f"note about {topic}"


@mcp.prompt()
def explain(topic: str) -> str:
    return f"Explain {topic}"


if __name__ == "__main__":
    mcp.run(transport="streamable-http" if os.environ.get("PARITY_TRANSPORT") == "http" else "stdio")
