"""``mcp.server.lowlevel``: the SDK's low-level ``Server`` and ``NotificationOptions``."""

from .helper_types import ReadResourceContents
from .server import NotificationOptions, Server, request_ctx

__all__ = ["NotificationOptions", "ReadResourceContents", "Server", "request_ctx"]
