"""``mcp.server.fastmcp`` of mcp 1.x: its ``FastMCP`` (the SDK's rules, see ``oxmcp.MCPServer``) and ``Context``."""

from ..._context import Context
from ..._mcpserver import LegacyFastMCP as FastMCP
from ..._results import Audio, Image
from ...types import Icon
from .settings import Settings

__all__ = ["Audio", "Context", "FastMCP", "Icon", "Image", "Settings"]
