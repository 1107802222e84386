"""``mcp.server.session``: ``ServerSession`` (used in annotations such as ``Context[ServerSession, T]``)."""

from .._compat_ctx import Session as ServerSession

__all__ = ["ServerSession"]
