"""The low-level server an SDK server object carries: mcp 1.x ``FastMCP._mcp_server`` and mcp 2.x
``MCPServer._lowlevel_server``.

In the SDK that is a low-level ``Server`` the high-level one registers its handlers on. On oxmcp both
are the same core server, so the view is the server itself (every attribute is the server's) plus
what only the low-level ``Server`` has: ``run(read_stream, write_stream, options)`` over message
streams, within the server's lifespan, and ``create_initialization_options()``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["LowLevelView"]


class LowLevelView:
    def __init__(self, server: Any) -> None:
        object.__setattr__(self, "_server", server)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._server, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._server, name, value)

    def create_initialization_options(self, notification_options: Any = None,
                                      experimental_capabilities: dict[str, dict[str, Any]] | None = None) -> Any:
        """What ``initialize`` reports: the server's name, version, capabilities and instructions."""
        from .. import types
        from .models import InitializationOptions

        server = self._server
        caps = dict(server._sdk_capabilities())
        caps["experimental"] = experimental_capabilities or caps.get("experimental") or {}
        return InitializationOptions(server_name=server.name, server_version=server.version,
                                     capabilities=types.ServerCapabilities.model_validate(caps),
                                     instructions=server.instructions)

    async def run(self, read_stream: Any, write_stream: Any, initialization_options: Any = None,
                  raise_exceptions: bool = False, stateless: bool = False) -> None:
        """Serve the client at the other end of the message streams until it closes them, within the
        server's lifespan (as the SDK's low-level ``run``). ``initialization_options`` are the ones
        ``create_initialization_options()`` gives: what the server reports already."""
        from .lowlevel._streams import serve_streams

        async with self._server._lifespan_running():
            await serve_streams(self._server, read_stream, write_stream, raise_exceptions)
