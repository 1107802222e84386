"""``fastmcp.prompts.base``: FastMCP's prompt component (``Prompt``, ``Prompt.from_function``),
``Message`` and ``PromptResult``.

A ``Prompt`` is a definition a server registers with ``mcp.add_prompt(prompt)``, the same way as
``@mcp.prompt`` (a ``PromptEntry``, the core's registry). ``await prompt.render(arguments)`` renders it
outside a request: registered on a private server and got through the core's dispatch, so argument
checks and result conversion are the core's, as for a client's ``prompts/get``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel

from .._results import Message as _CoreMessage
from .._results import content_block
from ..utilities.components import FastMCPComponent, dump_all

if TYPE_CHECKING:
    from .function_prompt import FunctionPrompt

__all__ = ["Message", "Prompt", "PromptArgument", "PromptResult"]


def _types() -> Any:
    from .._fastmcp_client import model_types

    return model_types()


def _content_model(block: dict[str, Any]) -> Any:
    from pydantic import TypeAdapter

    t = _types()
    return TypeAdapter(t.ContentBlock).validate_python(block) if hasattr(t, "ContentBlock") else block


class Message(_CoreMessage):
    """A prompt message: ``role`` and one content block. A string is text, a content block passes
    through, any other value (dict, list, model) becomes its JSON text."""

    def __init__(self, content: Any, role: str = "user") -> None:
        if isinstance(content, (str, BaseModel)) and (isinstance(content, str) or getattr(content, "type", None)):
            block = content_block(content)
        else:
            import pydantic_core

            block = {"type": "text", "text": pydantic_core.to_json(content, fallback=str).decode()}
        super().__init__(_content_model(block), role)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _CoreMessage):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return f"Message(role={self.role!r}, content={self.content!r})"

    def to_mcp_prompt_message(self) -> Any:
        return _types().PromptMessage.model_validate(self.to_dict())


class PromptArgument(BaseModel):
    """An argument of a prompt, as ``prompts/list`` lists it."""

    name: str
    title: str | None = None
    description: str | None = None
    required: bool = False


class PromptResult:
    """A prompt's full result: messages (a string is one user message), ``description``, ``meta``."""

    def __init__(self, messages: str | list[_CoreMessage] | list[Message], description: str | None = None,
                 meta: dict[str, Any] | None = None) -> None:
        if isinstance(messages, str):
            messages = [Message(messages)]
        elif not isinstance(messages, list):
            raise TypeError(f"messages must be str or list[Message], got {type(messages).__name__}")
        for i, item in enumerate(messages):
            if not isinstance(item, _CoreMessage):
                raise TypeError(f"messages[{i}] must be Message, got {type(item).__name__}. "
                                f"Use Message({item!r}) to wrap the value.")
        self.messages = messages
        self.description = description
        self.meta = meta

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"messages": [m.to_dict() for m in self.messages]}
        if self.description is not None:
            out["description"] = self.description
        if self.meta:
            out["_meta"] = self.meta
        return out

    def to_mcp_prompt_result(self) -> Any:
        return _types().GetPromptResult.model_validate(self.to_dict())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PromptResult):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return f"PromptResult(messages={self.messages!r}, description={self.description!r}, meta={self.meta!r})"

    @classmethod
    def _from_wire(cls, result: dict[str, Any]) -> PromptResult:
        messages = []
        for m in result.get("messages") or []:
            msg = Message.__new__(Message)
            _CoreMessage.__init__(msg, _content_model(m["content"]), m.get("role", "user"))
            messages.append(msg)
        meta = {k: v for k, v in (result.get("_meta") or {}).items() if not k.startswith("io.modelcontextprotocol/")}
        return cls(messages, description=result.get("description"), meta=meta or None)


class Prompt(FastMCPComponent):
    """FastMCP's prompt definition. ``Prompt.from_function(fn, ...)`` gives a :class:`FunctionPrompt`;
    a subclass may define ``async render(arguments)`` itself."""

    KEY_PREFIX: ClassVar[str] = "prompt"

    def __init__(self, *, name: str, description: str | None = None, title: str | None = None,
                 arguments: list[PromptArgument] | None = None, icons: list[Any] | None = None,
                 tags: set[str] | None = None, meta: dict[str, Any] | None = None, enabled: bool = True,
                 auth: Any = None, version: Any = None) -> None:
        self.name = name
        self.description = description
        self.title = title
        self.arguments = arguments
        self.icons = icons
        self.tags = set(tags or ())
        self.meta = meta
        self.enabled = enabled
        self.auth = auth
        self.version = None if version is None else str(version)

    @classmethod
    def from_function(cls, fn: Callable[..., Any], **kwargs: Any) -> FunctionPrompt:
        from .function_prompt import FunctionPrompt

        return FunctionPrompt.from_function(fn, **kwargs)

    @property
    def key(self) -> str:
        return f"{self.KEY_PREFIX}:{self.name}@{self.version or ''}"

    def to_mcp_prompt(self, **overrides: Any) -> Any:
        icons = dump_all(self.icons)
        spec: dict[str, Any] = {"name": self.name, "title": self.title, "description": self.description,
                                "icons": icons, "_meta": self.meta,
                                "arguments": [a.model_dump(exclude_none=True) for a in self.arguments or []]}
        for key, value in overrides.items():
            spec["_meta" if key == "meta" else key] = value
        return _types().Prompt.model_validate({k: v for k, v in spec.items() if v is not None})

    async def render(self, arguments: dict[str, Any] | None = None) -> Any:
        raise NotImplementedError("Subclasses must implement render()")

    def convert_result(self, raw_value: Any) -> PromptResult:
        """A render's return as a :class:`PromptResult` (a string, a list of messages or strings)."""
        if isinstance(raw_value, PromptResult):
            return raw_value
        if isinstance(raw_value, str):
            return PromptResult(raw_value, description=self.description)
        if isinstance(raw_value, (list, tuple)):
            messages = []
            for i, item in enumerate(raw_value):
                if isinstance(item, _CoreMessage):
                    messages.append(item)
                elif isinstance(item, str):
                    messages.append(Message(item))
                else:
                    raise TypeError(f"messages[{i}] must be Message or str, got {type(item).__name__}. "
                                    f"Use Message({item!r}) to wrap the value.")
            return PromptResult(messages, description=self.description)
        raise TypeError(f"Prompt must return str, list[Message | str], or PromptResult, got "
                        f"{type(raw_value).__name__}")

    # -- registration (oxmcp) -------------------------------------------------------------------------
    def _registration(self) -> tuple[Callable[..., Any], dict[str, Any]]:
        """The function and ``add_prompt`` keywords that register this prompt (as ``@mcp.prompt``).
        A subclass's ``render`` gets the arguments as given."""
        prompt = self

        async def render(**arguments: Any) -> Any:
            return _as_wire(prompt.convert_result(await prompt.render(arguments)))

        render.__name__ = self.name
        return render, self._common_kwargs()

    def _common_kwargs(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "title": self.title, "description": self.description,
                               "meta": self.meta, "tags": self.tags, "enabled": self.enabled, "auth": self.auth}
        if self.icons:
            out["icons"] = dump_all(self.icons)
        return {k: v for k, v in out.items() if v is not None}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, title={self.title!r}, description={self.description!r})"



def _as_wire(result: PromptResult) -> dict[str, Any]:
    return result.to_dict()


async def render_through_core(server: Any, name: str, arguments: dict[str, Any] | None) -> PromptResult:
    """A ``prompts/get`` of ``server``'s prompt as a client's, answered as a :class:`PromptResult`."""
    from .._client import Client
    from ..shared.exceptions import MCPError

    params = {k: v if isinstance(v, str) else _json(v) for k, v in (arguments or {}).items()}
    try:
        async with Client(server) as client:
            result = await client.get_prompt(name, params)
    except MCPError:
        raise
    except Exception as exc:
        from .._errors import McpError

        if isinstance(exc, McpError):
            raise MCPError(exc.code, exc.message, exc.data) from None
        raise
    return PromptResult._from_wire(result)


def _json(value: Any) -> str:
    import pydantic_core

    return pydantic_core.to_json(value).decode()
