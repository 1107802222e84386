"""FastMCP session state: set_state/get_state (session-scoped on legacy connections, per request on modern)."""

import os

from fastmcp import Context, FastMCP

mcp = FastMCP("state-demo")


@mcp.tool
async def remember(key: str, value: str, ctx: Context) -> str:
    await ctx.set_state(key, value)
    return f"stored {key}"


@mcp.tool
async def recall(key: str, ctx: Context) -> str:
    value = await ctx.get_state(key)
    return f"{key}={value}"


@mcp.tool
async def scratch(ctx: Context) -> str:
    """Request-scoped, non-serializable state."""
    await ctx.set_state("conn", object(), serializable=False)
    here = await ctx.get_state("conn")
    return f"within the request: {here is not None}"


@mcp.tool
async def scratch_after(ctx: Context) -> str:
    return f"next request: {await ctx.get_state('conn')}"


if __name__ == "__main__":
    if os.environ.get("PARITY_TRANSPORT") == "http":
        mcp.run(transport="http", host="127.0.0.1", port=int(os.environ["PARITY_PORT"]), show_banner=False)
    else:
        mcp.run(show_banner=False)
