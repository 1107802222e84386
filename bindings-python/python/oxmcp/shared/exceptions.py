"""``mcp.shared.exceptions``: ``McpError(ErrorData(...))``.

The low-level SDK's rules, which oxmcp keeps: raised from a ``call_tool`` handler it becomes an
``isError`` result carrying its message (like any exception there); raised from any other handler
it becomes the JSON-RPC error it carries (code, message, data).
"""

from __future__ import annotations

from typing import Any

from .._errors import McpError as _OxmcpMcpError
from ..types import ElicitRequestURLParams, ErrorData  # the SDK module re-exports them

__all__ = ["ElicitRequestURLParams", "ErrorData", "MCPDeprecationWarning", "MCPError", "McpError",
           "NoBackChannelError", "UrlElicitationRequiredError"]


class MCPDeprecationWarning(UserWarning):
    """mcp 2.x's warning category for a retired protocol feature (``mcp.MCPDeprecationWarning``): a
    ``UserWarning``, so it is shown by default, and ``filterwarnings("error::mcp.MCPDeprecationWarning")``
    names a category that exists."""


class McpError(_OxmcpMcpError):
    """``McpError(ErrorData(code=..., message=..., data=...))`` (mcp 1.x), also ``McpError(code, message,
    data)`` and mcp 2.x's ``MCPError(code=..., message=..., data=...)``."""

    def __init__(self, error: Any = None, message: str | None = None, data: Any = None, *,
                 code: int | None = None) -> None:
        if error is None:
            if code is None:
                raise TypeError("McpError(ErrorData(...)) or McpError(code=..., message=...)")
            error = code
        if isinstance(error, int):
            from ..types import ErrorData

            error = ErrorData(code=error, message=message or "", data=data)
        self.error = error
        super().__init__(int(error.code), str(error.message), getattr(error, "data", None))


MCPError = McpError


class NoBackChannelError(McpError):
    """A request of the server's that no channel can deliver to the client (a 2026-07-28 request, a
    sessionless or JSON-answered HTTP request): ``INVALID_REQUEST`` naming the method."""

    def __init__(self, method: str) -> None:
        super().__init__(code=-32600, message=f"Cannot send {method!r}: this transport context has no "
                                              "back-channel for server-initiated requests.")
        self.method = method


class UrlElicitationRequiredError(McpError):
    def __init__(self, elicitations: list[Any], message: str | None = None) -> None:
        from ..types import ErrorData

        msg = message or "URL elicitation required"
        super().__init__(ErrorData(code=-32042, message=msg,
                                   data={"elicitations": [e.model_dump(by_alias=True, exclude_none=True, mode="json")
                                                          if hasattr(e, "model_dump") else e for e in elicitations]}))
        self.elicitations = elicitations

    @classmethod
    def from_error(cls, error: Any) -> UrlElicitationRequiredError:
        """The typed error back from a -32042 answer's ``ErrorData`` (its ``elicitations`` as models)."""
        from ..types import ElicitRequestURLParams

        data = getattr(error, "data", None) or {}
        elicitations = [ElicitRequestURLParams.model_validate(e) for e in data.get("elicitations", [])]
        return cls(elicitations, getattr(error, "message", None))
