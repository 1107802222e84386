"""FastMCP Context: logging, progress, reading resources, request identity."""

import os

from fastmcp import Context, FastMCP

mcp = FastMCP("context-demo")


@mcp.resource("data://config")
def config() -> str:
    return "debug=true"


@mcp.resource("users://{user_id}/name")
def user_name(user_id: str) -> str:
    return f"user-{user_id}"


@mcp.tool
async def process(items: int, ctx: Context) -> str:
    """Log at each level and report progress."""
    await ctx.debug("starting")
    await ctx.info(f"processing {items} items")
    for i in range(items):
        await ctx.report_progress(progress=i + 1, total=items)
    await ctx.warning("almost done")
    await ctx.error("not really an error")
    return "done"


@mcp.tool
async def read_config(ctx: Context) -> str:
    """Read this server's own resources."""
    result = await ctx.read_resource("data://config")
    templated = await ctx.read_resource("users://7/name")
    return f"{result.contents[0].content} / {templated.contents[0].content}"


@mcp.tool
async def identity(ctx: Context) -> dict:
    return {
        "request_id_is_str": isinstance(ctx.request_id, str),
        "session_id_is_str": isinstance(ctx.session_id, str),
        "client_id": ctx.client_id,
        "transport": ctx.transport,
    }


@mcp.tool
async def log_generic(ctx: Context) -> str:
    await ctx.log("generic message", level="notice")
    return "ok"


if __name__ == "__main__":
    if os.environ.get("PARITY_TRANSPORT") == "http":
        mcp.run(transport="http", host="127.0.0.1", port=int(os.environ["PARITY_PORT"]), show_banner=False)
    else:
        mcp.run(show_banner=False)
