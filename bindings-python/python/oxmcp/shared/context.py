"""``mcp.shared.context``: ``RequestContext`` (``Server.request_context``'s type, also in annotations
such as ``RequestContext[ServerSession, Any, Any]``)."""

from .._compat_ctx import RequestContext

__all__ = ["RequestContext"]
