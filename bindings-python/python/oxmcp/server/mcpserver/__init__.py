"""``mcp.server.mcpserver`` of mcp 2.x: ``MCPServer``, ``Context`` and the names it re-exports."""

from ..._context import Context
from ..._fastmcp import MCPServer
from ..._results import Audio, Image
from ...types import Icon
from ..fastmcp.prompts.base import AssistantMessage, Message, UserMessage

__all__ = ["AssistantMessage", "Audio", "Context", "Icon", "Image", "MCPServer", "Message", "UserMessage"]
