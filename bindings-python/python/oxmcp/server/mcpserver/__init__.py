"""``mcp.server.mcpserver`` of mcp 2.x: ``MCPServer``, ``Context`` and the names it re-exports."""

from ..._mcpserver import MCPServer
from ..._results import Audio, Image
from ...types import Icon
from ..extension import require_client_extension
from ..fastmcp.prompts.base import AssistantMessage, Message, UserMessage
from ..request_state import RequestStateSecurity
from .context import Context
from .resolve import (
    AcceptedElicitation,
    CancelledElicitation,
    DeclinedElicitation,
    Elicit,
    ElicitationResult,
    ListRoots,
    Resolve,
    Sample,
)
from .resources import DEFAULT_RESOURCE_SECURITY, ResourceSecurity

__all__ = ["DEFAULT_RESOURCE_SECURITY", "AcceptedElicitation", "AssistantMessage", "Audio", "CancelledElicitation",
           "Context", "DeclinedElicitation", "Elicit", "ElicitationResult", "Icon", "Image", "ListRoots", "MCPServer",
           "Message", "RequestStateSecurity", "Resolve", "ResourceSecurity", "Sample", "UserMessage",
           "require_client_extension"]
