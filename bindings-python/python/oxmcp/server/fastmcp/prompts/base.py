"""``mcp.server.fastmcp.prompts.base``: ``Message``, ``UserMessage``, ``AssistantMessage``.

As in the SDK, a ``str`` content becomes a ``TextContent`` (``message.content.text`` reads it), and
``Message`` takes its role as a keyword.
"""

from __future__ import annotations

from typing import Any

from ...._results import Message as _Message

__all__ = ["AssistantMessage", "Message", "UserMessage"]


class Message(_Message):
    """A prompt message: ``Message(content, role="user" | "assistant")``."""

    def __init__(self, content: Any, role: str = "user", **_: Any) -> None:
        if isinstance(content, str):
            from ....types import TextContent

            content = TextContent.model_validate({"type": "text", "text": content})
        super().__init__(content, role)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Message) and self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(role={self.role!r}, content={self.content!r})"


class UserMessage(Message):
    """A message from the user."""

    def __init__(self, content: Any, role: str = "user", **kwargs: Any) -> None:
        super().__init__(content, role, **kwargs)


class AssistantMessage(Message):
    """A message from the assistant."""

    def __init__(self, content: Any, role: str = "assistant", **kwargs: Any) -> None:
        super().__init__(content, role, **kwargs)
