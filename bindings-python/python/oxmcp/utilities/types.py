"""``fastmcp.utilities.types`` / ``mcp.server.mcpserver.utilities.types``: Image, Audio, File."""

from .._results import Audio, File, Image

__all__ = ["Audio", "File", "Image"]
