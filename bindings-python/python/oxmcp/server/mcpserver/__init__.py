"""``mcp.server.mcpserver`` of mcp 2.x: ``MCPServer`` and ``Context``."""

from ..._context import Context
from ..._fastmcp import MCPServer
from ..._results import Audio, Image

__all__ = ["Audio", "Context", "Image", "MCPServer"]
