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


def create_proxy(target: Any, *, mode: str | None = None, **settings: Any) -> Any:
    """FastMCP's ``create_proxy``: a server that serves another one's tools, resources and prompts.

    A FastMCP server object in this process is served by a new server (``settings``: its ``name``,
    ...) as that server's own components, live (a mount without a prefix): the front connection's
    era is the backend's, as FastMCP's default (``mode=None``) mirrors it. A URL, a transport, a
    client or a configuration is refused, as is a pinned ``mode``: oxmcp does not forward requests
    to another server."""
    from .._fastmcp import FastMCP

    if not isinstance(target, FastMCP):
        raise TypeError("create_proxy: oxmcp does not proxy servers; mount the server object itself "
                        "(FastMCP.mount), or serve it and connect a client to it")
    if mode is not None:
        raise TypeError(f"create_proxy(mode={mode!r}): a server in this process is served in the "
                        "front connection's era; leave mode unset")
    proxy = FastMCP(**settings)
    proxy.mount(target)
    return proxy
