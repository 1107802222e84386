"""mcp 1.x FastMCP: sampling through the client (ctx.session.create_message), as the SDK documents it."""

import os

from mcp.server.fastmcp import Context, FastMCP
from mcp.types import SamplingMessage, TextContent

port = int(os.environ.get("PARITY_PORT", "8000"))
mcp = FastMCP("sampling", host="127.0.0.1", port=port)


@mcp.tool()
async def summarize(text: str, ctx: Context) -> str:
    """Ask the client's model for a summary."""
    result = await ctx.session.create_message(
        messages=[SamplingMessage(role="user", content=TextContent(type="text", text=f"Summarize: {text}"))],
        max_tokens=50,
    )
    return f"{result.model}: {result.content.text}"


if __name__ == "__main__":
    mcp.run(transport="streamable-http" if os.environ.get("PARITY_TRANSPORT") == "http" else "stdio")
