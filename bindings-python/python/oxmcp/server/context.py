"""``fastmcp.server.context`` / ``mcp.server.mcpserver.context``: the handler ``Context``."""

from .._context import Context

__all__ = ["Context"]
