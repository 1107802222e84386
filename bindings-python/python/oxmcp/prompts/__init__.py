"""``fastmcp.prompts``: FastMCP's prompt component (``Prompt``, ``FunctionPrompt``), the standalone
``@prompt`` decorator, ``Message`` and ``PromptResult``."""

from .base import Message, Prompt, PromptArgument, PromptResult
from .function_prompt import FunctionPrompt, prompt

PromptMessage = Message

__all__ = ["FunctionPrompt", "Message", "Prompt", "PromptArgument", "PromptMessage", "PromptResult", "prompt"]
