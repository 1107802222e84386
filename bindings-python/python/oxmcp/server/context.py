"""``fastmcp.server.context`` / ``mcp.server.mcpserver.context``: the handler ``Context``; and
``mcp.server.context.ServerRequestContext`` (mcp 2.x), what a low-level handler gets as ``ctx``."""

from typing import TYPE_CHECKING, Any

from .._context import Context

if TYPE_CHECKING:
    from .lowlevel.server import _LLRequestContext as ServerRequestContext

__all__ = ["Context", "ServerRequestContext"]


def __getattr__(name: str) -> Any:
    if name == "ServerRequestContext":
        from .lowlevel.server import _LLRequestContext

        return _LLRequestContext
    raise AttributeError(f"module 'oxmcp.server.context' has no attribute {name!r}")
