"""``mcp.server.fastmcp.prompts`` (and mcp 2.x's ``mcp.server.mcpserver.prompts``): prompt messages."""

from .base import AssistantMessage, Message, Prompt, UserMessage

__all__ = ["AssistantMessage", "Message", "Prompt", "UserMessage"]
