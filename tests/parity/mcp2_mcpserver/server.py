"""The official SDK's MCPServer (mcp 2.x): tools, structured output, resources, prompts, Context logging."""

import os

from pydantic import BaseModel

from mcp.server.mcpserver import Context, MCPServer

mcp = MCPServer("Demo")


class Forecast(BaseModel):
    city: str
    high: int


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two numbers"""
    return a + b


@mcp.tool()
def forecast(city: str) -> Forecast:
    return Forecast(city=city, high=24)


@mcp.tool()
async def chatty(ctx: Context) -> str:
    await ctx.info("hello from the tool")
    await ctx.report_progress(1, 2)
    await ctx.report_progress(2, 2)
    return "talked"


@mcp.tool()
def fail(x: int) -> int:
    raise RuntimeError(f"failed with {x}")


@mcp.resource("greeting://{name}")
def greeting(name: str) -> str:
    """A greeting"""
    return f"Hello, {name}!"


@mcp.resource("config://app", mime_type="application/json")
def app_config() -> str:
    return '{"debug": false}'


@mcp.prompt()
def greet_user(name: str, style: str = "friendly") -> str:
    """Write a greeting"""
    return f"Write a {style} greeting for {name}."


if __name__ == "__main__":
    if os.environ.get("PARITY_TRANSPORT") == "http":
        mcp.run(transport="streamable-http", host="127.0.0.1", port=int(os.environ["PARITY_PORT"]))
    else:
        mcp.run()
