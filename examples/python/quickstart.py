"""The README quick-start: a FastMCP-style server in a dozen lines.

    python examples/python/quickstart.py                       # stdio
    python examples/python/quickstart.py --http 127.0.0.1:8000 # Streamable HTTP at /mcp
"""

from oxmcp import Context, Server

server = Server("quickstart", version="1.0.0", instructions="Arithmetic and greetings.")


@server.tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool
async def countdown(n: int, ctx: Context) -> str:
    """Count down from n, reporting progress.

    Args:
        n: where to start (at most 100)
    """
    for i in range(n):
        await ctx.progress(i + 1, n)
    return "liftoff"


@server.resource("greeting://{name}")
def greeting(name: str) -> str:
    """A personalised greeting."""
    return f"Hello, {name}!"


@server.prompt
def review(code: str) -> str:
    """Ask for a code review."""
    return f"Please review this code:\n\n{code}"


if __name__ == "__main__":
    server.main()
