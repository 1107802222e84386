"""``fastmcp.exceptions`` / ``mcp.server.mcpserver.exceptions``: the errors a handler raises."""

from ._errors import DefinitionError, McpError, OxmcpError, PromptError, ResourceError, ToolError

FastMCPError = OxmcpError
MCPServerError = OxmcpError


class NotFoundError(OxmcpError):
    """A component was not found."""


class ValidationError(OxmcpError):
    """Invalid parameters or return value."""


class DisabledError(OxmcpError):
    """A component is disabled."""


class ResourceSecurityError(ResourceError):
    """A resource read refused by a security rule (a path outside the allowed root, a URI scheme or
    a host the resource may not reach): FastMCP's subclass of :class:`ResourceError`."""


class FastMCPDeprecationWarning(DeprecationWarning):
    """FastMCP's deprecation warning (a ``DeprecationWarning``, so the standard filters apply)."""


__all__ = [
    "DefinitionError",
    "DisabledError",
    "FastMCPDeprecationWarning",
    "FastMCPError",
    "MCPServerError",
    "McpError",
    "NotFoundError",
    "OxmcpError",
    "PromptError",
    "ResourceError",
    "ResourceSecurityError",
    "ToolError",
    "ValidationError",
]
