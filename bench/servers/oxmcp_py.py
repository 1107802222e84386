"""oxmcp (Python binding) benchmark server: the same two tools as every peer.

    python bench/servers/oxmcp_py.py                        # stdio
    python bench/servers/oxmcp_py.py --http 127.0.0.1:8000  # Streamable HTTP at /mcp

Tools: add(a: int, b: int) -> int (text "3" for 1+2), echo(text: str) -> str.
Plain `def` tools, written as a user would write them (no tuning).
"""

from oxmcp import Server

server = Server("bench-oxmcp-python", version="0.1.0")


@server.tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool
def echo(text: str) -> str:
    """Echo the text back."""
    return text


if __name__ == "__main__":
    server.main()
