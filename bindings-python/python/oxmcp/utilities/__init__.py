"""``fastmcp.utilities``: the content helpers under FastMCP's module path."""
