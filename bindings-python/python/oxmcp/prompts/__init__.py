"""``fastmcp.prompts``: prompt messages."""

from .._results import Message

PromptMessage = Message

__all__ = ["Message", "PromptMessage"]
