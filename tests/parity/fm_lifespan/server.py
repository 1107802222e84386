"""FastMCP lifespan: an async context manager receiving the server; handlers read what it yielded."""

import os
from contextlib import asynccontextmanager

from fastmcp import Context, FastMCP


class Database:
    def __init__(self) -> None:
        self.rows = {"1": "alice", "2": "bob"}

    def get(self, key: str) -> str:
        return self.rows.get(key, "missing")


@asynccontextmanager
async def lifespan(server: FastMCP):
    db = Database()
    try:
        yield {"db": db, "server_name": server.name}
    finally:
        db.rows.clear()


mcp = FastMCP("lifespan-demo", lifespan=lifespan)


@mcp.tool
def lookup(key: str, ctx: Context) -> str:
    """Look a row up in the database the lifespan opened."""
    return ctx.lifespan_context["db"].get(key)


@mcp.tool
def lookup_sdk_style(key: str, ctx: Context) -> str:
    return ctx.request_context.lifespan_context["db"].get(key)


@mcp.tool
def server_name(ctx: Context) -> str:
    return ctx.lifespan_context["server_name"]


if __name__ == "__main__":
    if os.environ.get("PARITY_TRANSPORT") == "http":
        mcp.run(transport="streamable-http", host="127.0.0.1", port=int(os.environ["PARITY_PORT"]),
                path="/mcp", show_banner=False, log_level="warning")
    else:
        mcp.run(transport="stdio", show_banner=False)
