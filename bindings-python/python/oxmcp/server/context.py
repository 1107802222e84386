"""``fastmcp.server.context`` / ``mcp.server.mcpserver.context``: the handler ``Context``; and
``mcp.server.context.ServerRequestContext`` (mcp 2.x), what a low-level handler gets as ``ctx``."""

import contextvars
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pydantic import BaseModel

from .._context import TRANSPORT, Context

if TYPE_CHECKING:
    from .lowlevel.server import _LLRequestContext as ServerRequestContext

__all__ = ["CallNext", "Context", "HandlerResult", "ServerMiddleware", "ServerRequestContext", "reset_transport",
           "set_transport"]

#: What a request handler or a middleware returns: a result model, a dict, or None (an empty result).
HandlerResult = BaseModel | dict[str, Any] | None
#: Runs the rest of the chain with the given context.
CallNext = Callable[["ServerRequestContext"], Awaitable[HandlerResult]]

_LifespanT_co = TypeVar("_LifespanT_co", covariant=True)


class ServerMiddleware(Protocol[_LifespanT_co]):
    """Context-tier middleware, ``(ctx, call_next) -> result``, around every request
    (``server.middleware.append``)."""

    async def __call__(self, ctx: Any, call_next: CallNext) -> HandlerResult: ...


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
