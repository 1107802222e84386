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


__all__ = ["DefinitionError", "DisabledError", "FastMCPError", "MCPServerError", "McpError", "NotFoundError",
           "OxmcpError", "PromptError", "ResourceError", "ToolError", "ValidationError"]
