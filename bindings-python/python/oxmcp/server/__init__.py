"""``oxmcp.server``: the module paths of the SDKs' server packages (``mcp.server``, ``fastmcp.server``).

``oxmcp.server.lowlevel.Server`` is the SDK's low-level server; ``oxmcp.server.stdio.stdio_server`` its
stdio streams; ``oxmcp.server.dependencies`` / ``oxmcp.server.context`` / ``oxmcp.server.middleware``
FastMCP's.
"""

from __future__ import annotations

from typing import Any

__all__ = ["FastMCP", "InitializationOptions", "MCPServer", "NotificationOptions", "Server", "ServerRequestContext", "create_proxy"]


def __getattr__(name: str) -> Any:
    if name in ("Server", "NotificationOptions"):
        from . import lowlevel

        return getattr(lowlevel, name)
    if name == "ServerRequestContext":
        from .context import ServerRequestContext

        return ServerRequestContext
    if name == "MCPServer":
        from .._mcpserver import MCPServer

        return MCPServer
    if name == "InitializationOptions":
        from .models import InitializationOptions

        return InitializationOptions
    if name == "FastMCP":
        from .._fastmcp import FastMCP

        return FastMCP
    raise AttributeError(f"module 'oxmcp.server' has no attribute {name!r}")


def create_proxy(target: Any, **_: Any) -> Any:
    """FastMCP's ``create_proxy``: a server that forwards every request to another one. oxmcp does
    not proxy servers (as ``mount(as_proxy=True)``), so this refuses with the way to do it."""
    raise TypeError("create_proxy: oxmcp does not proxy servers; mount the server object itself "
                    "(FastMCP.mount), or serve it and connect a client to it")
