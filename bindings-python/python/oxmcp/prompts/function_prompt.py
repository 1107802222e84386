"""``fastmcp.prompts.function_prompt``: ``FunctionPrompt`` (a prompt from a Python function) and the
standalone ``@prompt`` decorator, which marks a function for ``mcp.add_prompt(fn)``."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from types import MethodType
from typing import Any, Literal, Protocol, TypeVar

from ..utilities.components import ComponentMeta
from .base import Prompt, PromptArgument, PromptResult, render_through_core

__all__ = ["DecoratedPrompt", "FunctionPrompt", "PromptMeta", "prompt"]

F = TypeVar("F", bound=Callable[..., Any])


class DecoratedPrompt(Protocol):
    """A function the standalone ``@prompt`` marked (its settings in ``__fastmcp__``)."""

    __fastmcp__: PromptMeta

    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...


@dataclass(frozen=True, kw_only=True)
class PromptMeta(ComponentMeta):
    """The settings ``@prompt(...)`` attaches to a function, for ``mcp.add_prompt(fn)`` to register with."""

    type: Literal["prompt"] = field(default="prompt", init=False)
    enabled: bool = True


class FunctionPrompt(Prompt):
    """A prompt whose body is a Python function: its arguments are the ones ``@mcp.prompt`` lists."""

    def __init__(self, *, fn: Callable[..., Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.fn = fn

    @classmethod
    def from_function(cls, fn: Callable[..., Any], *, metadata: PromptMeta | None = None,  # type: ignore[override]
                      name: str | None = None, version: str | int | None = None, title: str | None = None,
                      description: str | None = None, icons: list[Any] | None = None,
                      tags: set[str] | None = None, meta: dict[str, Any] | None = None, auth: Any = None,
                      enabled: bool = True) -> FunctionPrompt:
        from ..tools.function_tool import get_fastmcp_meta

        if metadata is None and isinstance(get_fastmcp_meta(fn), PromptMeta):
            metadata = get_fastmcp_meta(fn)
        if metadata is not None:
            name, version = name or metadata.name, version or metadata.version
            title = title or metadata.title
            description = description if description is not None else metadata.description
            icons, tags, meta = icons or metadata.icons, tags or metadata.tags, meta or metadata.meta
            auth, enabled = auth or metadata.auth, enabled and metadata.enabled
        if not callable(fn):
            raise TypeError(f"{fn!r} is not a callable object")
        if isinstance(fn, staticmethod):
            fn = fn.__func__
        inner = fn
        while isinstance(inner, functools.partial):
            inner = inner.func
        fn_name = name or getattr(inner, "__name__", None) or type(inner).__name__
        if fn_name == "<lambda>":
            raise ValueError("You must provide a name for lambda functions")
        for p in _parameters(fn):
            if p.kind is inspect.Parameter.VAR_POSITIONAL:
                raise ValueError("Functions with *args are not supported as prompts")
            if p.kind is inspect.Parameter.VAR_KEYWORD:
                raise ValueError("Functions with **kwargs are not supported as prompts")
            if p.kind is inspect.Parameter.POSITIONAL_ONLY:
                # Arguments are passed by name: a positional-only parameter could never be given.
                raise ValueError("Functions with positional-only parameters are not supported as prompts; "
                                 "use standard parameters")
        if description is None and not inspect.isroutine(fn) and not isinstance(fn, functools.partial):
            description = inspect.getdoc(type(fn))
        from .._fastmcp import FastMCP
        from .._fastmcp_rules import fastmcp_prompt_arguments
        from .._handlers import PromptEntry

        # The entry `@mcp.prompt` builds for the same function, on FastMCP's rules.
        entry = PromptEntry(fn, FastMCP, name=fn_name, description=description)
        fastmcp_prompt_arguments(entry)
        arguments = [PromptArgument(**a) for a in entry.arguments]
        return cls(fn=fn, name=entry.name, title=title, description=entry.info.description, arguments=arguments,
                   icons=icons, tags=tags, meta=meta, enabled=enabled, auth=auth, version=version)

    async def render(self, arguments: dict[str, Any] | None = None) -> PromptResult:
        from .._fastmcp import FastMCP
        from ..shared.exceptions import MCPError

        server = FastMCP("prompt-render")
        server.add_prompt(self)
        try:
            return await render_through_core(server, self.name, arguments)
        except MCPError as exc:
            raise self._component_error(exc, arguments or {}) from None

    def _component_error(self, exc: Any, arguments: dict[str, Any]) -> Exception:
        """The core's -32602 for a render as FastMCP's component raises it: a missing argument as
        its ``ValidationError``, an argument that does not convert as a ``PromptError`` naming the
        value and the parameter's type. Any other error as it is."""
        from ..exceptions import PromptError, ValidationError

        if exc.code != -32602:
            return exc
        if str(exc.message).startswith("Missing required argument"):
            return ValidationError(exc.message)
        violations = (exc.data or {}).get("violations") if isinstance(exc.data, dict) else None
        pointer = str((violations or [{}])[0].get("pointer") or "")
        name = pointer.split("/")[1] if pointer.count("/") >= 1 else ""
        parameter = next((p for p in _parameters(self.fn) if p.name == name), None)
        if parameter is None or name not in arguments:
            return exc
        annotation = parameter.annotation
        shown = annotation.__name__ if isinstance(annotation, type) else str(annotation)
        return PromptError(f"Could not convert argument '{name}' with value '{arguments[name]}' to expected "
                           f"type {shown}. Error: {violations[0].get('message')}")  # type: ignore[index]

    def _registration(self) -> tuple[Callable[..., Any], dict[str, Any]]:
        return self.fn, self._common_kwargs()


def _parameters(fn: Any) -> list[inspect.Parameter]:
    try:
        return list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return []


def prompt(name_or_fn: Any = None, *, name: str | None = None, version: str | int | None = None,
           title: str | None = None, description: str | None = None, icons: list[Any] | None = None,
           tags: set[str] | None = None, meta: dict[str, Any] | None = None, auth: Any = None) -> Any:
    """Mark a function as a prompt (``mcp.add_prompt(fn)`` registers it with these settings); the
    function itself is returned unchanged."""
    if isinstance(name_or_fn, classmethod):
        raise TypeError("To decorate a classmethod, use @classmethod above @prompt. "
                        "See https://gofastmcp.com/servers/prompts#using-with-methods")

    def attach(fn: F, prompt_name: str | None) -> F:
        settings = PromptMeta(name=prompt_name, version=version, title=title, description=description,
                              icons=icons, tags=tags, meta=meta, auth=auth)
        target = fn.__func__ if isinstance(fn, (staticmethod, MethodType)) else fn
        setattr(target, "__fastmcp__", settings)  # noqa: B010  a function attribute mypy does not know
        return fn

    if inspect.isroutine(name_or_fn):
        return attach(name_or_fn, name)
    if isinstance(name_or_fn, str):
        if name is not None:
            raise TypeError("Cannot specify name both as first argument and keyword")
        prompt_name: str | None = name_or_fn
    elif name_or_fn is None:
        prompt_name = name
    else:
        raise TypeError(f"Invalid first argument: {type(name_or_fn)}")
    return lambda fn: attach(fn, prompt_name)
