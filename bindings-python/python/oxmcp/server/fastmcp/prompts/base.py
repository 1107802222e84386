"""``mcp.server.fastmcp.prompts.base`` (and mcp 2.x's ``mcp.server.mcpserver.prompts.base``): the
prompt messages and the ``Prompt`` component class.

As in the SDK, a ``str`` content becomes a ``TextContent`` (``message.content.text`` reads it), and
``Message`` takes its role as a keyword. ``Prompt.from_function(fn)`` gives the prompt's listing
(arguments from the signature) and ``await prompt.render(arguments)`` its messages.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pydantic_core
from pydantic import BaseModel, ConfigDict, Field, validate_call

from ...._errors import McpError
from ...._loops import run_sync
from ...._results import Audio, Image
from ...._results import Message as _Message
from ....types import Icon, InputRequiredResult, TextContent

__all__ = ["AssistantMessage", "Message", "Prompt", "PromptArgument", "TextContent", "UserMessage"]


class Message(_Message):
    """A prompt message: ``Message(content, role="user" | "assistant")``."""

    def __init__(self, content: Any, role: str = "user", **_: Any) -> None:
        if isinstance(content, str):
            content = TextContent.model_validate({"type": "text", "text": content})
        elif isinstance(content, (Image, Audio)):
            from ...._results import content_block

            content = _content_model(content_block(content))
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


def _content_model(block: dict[str, Any]) -> Any:
    """A content block dict as its ``oxmcp.types`` model (``TextContent``, ``ImageContent`` ...)."""
    from .... import types

    model = {"text": "TextContent", "image": "ImageContent", "audio": "AudioContent",
             "resource": "EmbeddedResource", "resource_link": "ResourceLink"}.get(block.get("type", ""))
    return getattr(types, model).model_validate(block) if model else block


def _as_message(item: Any) -> Message:
    """One item of a prompt function's value as a message: a message as it is, a ``{"role", "content"}``
    dict as that message, bare content (text, a content block, an image) as a user message."""
    if isinstance(item, Message):
        return item
    if isinstance(item, _Message):
        return Message(item.content, role=item.role)
    if isinstance(item, dict) and set(item) >= {"role", "content"}:
        cls = AssistantMessage if item["role"] == "assistant" else UserMessage
        content = item["content"]
        return cls(_content_model(content) if isinstance(content, dict) else content, role=item["role"])
    if isinstance(item, (str, Image, Audio)) or (isinstance(item, BaseModel) and hasattr(item, "type")):
        return UserMessage(item)
    return UserMessage(pydantic_core.to_json(item, fallback=str, indent=2).decode())


class PromptArgument(BaseModel):
    """An argument of a prompt, as listed."""

    name: str
    description: str | None = None
    required: bool = False


class Prompt(BaseModel):
    """A prompt: its listing fields, and :meth:`render` calling ``fn`` with the client's arguments."""

    name: str
    title: str | None = None
    description: str | None = None
    arguments: list[PromptArgument] | None = None
    fn: Callable[..., Any] = Field(exclude=True)
    icons: list[Icon] | None = None
    context_kwarg: str | None = Field(None, exclude=True)

    @classmethod
    def from_function(cls, fn: Callable[..., Any], name: str | None = None, title: str | None = None,
                      description: str | None = None, icons: list[Icon] | None = None,
                      context_kwarg: str | None = None) -> Prompt:
        from ...._schema import analyze_function

        fn_name = name or fn.__name__
        if fn_name == "<lambda>":
            raise ValueError("You must provide a name for lambda functions")
        info = analyze_function(fn, name=fn_name, output_schema=False)
        schema = info.input_schema
        required = set(schema.get("required", []))
        arguments = [PromptArgument(name=pname, description=prop.get("description"), required=pname in required)
                     for pname, prop in schema.get("properties", {}).items()]
        return cls(name=fn_name, title=title, description=description or fn.__doc__ or "", arguments=arguments,
                   fn=validate_call(config=ConfigDict(arbitrary_types_allowed=True))(fn), icons=icons,
                   context_kwarg=context_kwarg if context_kwarg is not None else info.context_param)

    async def render(self, arguments: dict[str, Any] | None = None, context: Any = None) -> list[Message]:
        """The prompt's messages for these arguments; a missing required argument or a failing
        function is a ``ValueError`` (an ``McpError`` the function raised passes as it is)."""
        missing = {a.name for a in self.arguments or () if a.required} - set(arguments or {})
        if missing:
            raise ValueError(f"Missing required arguments: {missing}")
        kwargs = dict(arguments or {})
        if self.context_kwarg is not None and context is not None:
            kwargs[self.context_kwarg] = context
        try:
            if inspect.iscoroutinefunction(self.fn) or inspect.iscoroutinefunction(getattr(self.fn, "__wrapped__", None)):
                value = await self.fn(**kwargs)
            else:
                value = await run_sync(lambda: self.fn(**kwargs))
                if inspect.iscoroutine(value):
                    value = await value
            if isinstance(value, InputRequiredResult):
                return value  # type: ignore[return-value]  # the 2026-07-28 retry flow, passed as it is
            items = value if isinstance(value, (list, tuple)) else [value]
            return [_as_message(item) for item in items]
        except McpError:
            raise
        except Exception as exc:
            raise ValueError(f"Error rendering prompt {self.name}: {exc}") from exc
