"""FastMCP elicitation (scalar, choices, dataclass; accept/decline) and sampling, plus the client's roots."""

import os
from dataclasses import dataclass

from fastmcp import Context, FastMCP

mcp = FastMCP("elicit-demo")


@dataclass
class Meeting:
    title: str
    minutes: int


@mcp.tool
async def ask_name(ctx: Context) -> str:
    result = await ctx.elicit("What is your name?", response_type=str)
    if result.action == "accept":
        return f"Hello, {result.data}!"
    return f"no name ({result.action})"


@mcp.tool
async def ask_count(ctx: Context) -> str:
    result = await ctx.elicit("How many?", response_type=int)
    return f"{result.action}: {result.data!r}" if result.action == "accept" else result.action


@mcp.tool
async def pick_color(ctx: Context) -> str:
    result = await ctx.elicit("Pick a color", response_type=["red", "green", "blue"])
    return f"{result.action}: {getattr(result, 'data', None)}"


@mcp.tool
async def plan_meeting(ctx: Context) -> str:
    result = await ctx.elicit("Describe the meeting", response_type=Meeting)
    if result.action != "accept":
        return result.action
    return f"{result.data.title} for {result.data.minutes} min"


@mcp.tool
async def refuse(ctx: Context) -> str:
    result = await ctx.elicit("Do you decline?", response_type=str)
    return result.action


@mcp.tool
async def summarize(text: str, ctx: Context) -> str:
    response = await ctx.sample(f"Summarize: {text}", max_tokens=50)
    return response.text


@mcp.tool
async def roots(ctx: Context) -> list[str]:
    return [str(r.uri) for r in await ctx.list_roots()]


if __name__ == "__main__":
    if os.environ.get("PARITY_TRANSPORT") == "http":
        mcp.run(transport="http", host="127.0.0.1", port=int(os.environ["PARITY_PORT"]), show_banner=False)
    else:
        mcp.run(show_banner=False)
