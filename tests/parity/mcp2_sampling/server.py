"""mcp 2.x MCPServer: sampling through the client (ctx.session.create_message)."""

import os

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import SamplingMessage, TextContent

mcp = MCPServer("sampling")


@mcp.tool()
async def summarize(text: str, ctx: Context) -> str:
    """Ask the client's model for a summary."""
    result = await ctx.session.create_message(
        messages=[SamplingMessage(role="user", content=TextContent(type="text", text=f"Summarize: {text}"))],
        max_tokens=50,
    )
    return f"{result.model}: {result.content.text}"


if __name__ == "__main__":
    if os.environ.get("PARITY_TRANSPORT") == "http":
        mcp.run(transport="streamable-http", host="127.0.0.1", port=int(os.environ["PARITY_PORT"]))
    else:
        mcp.run()
