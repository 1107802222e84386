"""A tool that reports progress slowly enough for a client to draw it (tests/*/cli tests)."""

import asyncio

from oxmcp import Context, Server

server = Server("progress", version="1.0.0")


@server.tool
async def countdown(n: int, ctx: Context) -> str:
    """Count down from n, one progress step every 100 ms."""
    for i in range(n):
        await asyncio.sleep(0.1)
        await ctx.progress(i + 1, n)
    await asyncio.sleep(0.1)
    return "liftoff"
