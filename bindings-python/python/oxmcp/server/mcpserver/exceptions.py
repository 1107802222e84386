"""``mcp.server.mcpserver.exceptions`` of mcp 2.x: oxmcp's handler errors (``oxmcp.exceptions``) and the
SDK's refinements of them.

``ResourceNotFoundError`` and the ``Unexpected*`` wrappers are ``ResourceError`` / ``ToolError``, so a
handler raising them is answered as those are; the wrappers are what the SDK's component classes raise
around a crash (``__cause__`` holds it), so ``except ResourceError`` catches every read failure.
"""

from ...exceptions import (
    DefinitionError,
    DisabledError,
    FastMCPError,
    McpError,
    MCPServerError,
    NotFoundError,
    OxmcpError,
    PromptError,
    ResourceError,
    ToolError,
    ValidationError,
)

__all__ = ["DefinitionError", "DisabledError", "FastMCPError", "InvalidSignature", "MCPServerError", "McpError",
           "NotFoundError", "OxmcpError", "PromptError", "ResourceError", "ResourceNotFoundError", "ToolError",
           "UnexpectedResourceError", "UnexpectedToolError", "ValidationError"]


class ResourceNotFoundError(ResourceError):
    """No resource at the requested URI."""


class UnexpectedResourceError(ResourceError):
    """A resource function crashed; the message names only the URI, ``__cause__`` is the crash."""


class UnexpectedToolError(ToolError):
    """A tool crashed; the message is only ``Error executing tool <name>``, ``__cause__`` is the crash."""


class InvalidSignature(Exception):
    """A function's signature cannot be turned into a component (the SDK's func-metadata error)."""
