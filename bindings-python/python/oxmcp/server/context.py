"""``fastmcp.server.context`` / ``mcp.server.mcpserver.context``: the handler ``Context``; and
``mcp.server.context.ServerRequestContext`` (mcp 2.x), what a low-level handler gets as ``ctx``."""

import contextvars
from typing import TYPE_CHECKING, Any

from .._context import TRANSPORT, Context

if TYPE_CHECKING:
    from .lowlevel.server import _LLRequestContext as ServerRequestContext

__all__ = ["Context", "ServerRequestContext", "reset_transport", "set_transport"]


def set_transport(transport: str) -> contextvars.Token[str | None]:
    """Name the transport ``ctx.transport`` reports for code run in this context (FastMCP's hook)."""
    return TRANSPORT.set(transport)


def reset_transport(token: contextvars.Token[str | None]) -> None:
    TRANSPORT.reset(token)


def __getattr__(name: str) -> Any:
    if name == "ServerRequestContext":
        from .lowlevel.server import _LLRequestContext

        return _LLRequestContext
    raise AttributeError(f"module 'oxmcp.server.context' has no attribute {name!r}")
