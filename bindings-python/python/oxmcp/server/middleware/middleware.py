"""``fastmcp.server.middleware.middleware``: the middleware base class and its context (FastMCP's
module path of ``Middleware``, ``MiddlewareContext`` and ``CallNext``)."""

from . import CallNext, Middleware, MiddlewareContext

__all__ = ["CallNext", "Middleware", "MiddlewareContext"]
