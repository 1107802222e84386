"""``fastmcp.tools.function_tool``: ``FunctionTool`` (a tool from a Python function) and the standalone
``@tool`` decorator, which marks a function for ``mcp.add_tool(fn)`` without a server at hand."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from types import MethodType
from typing import Any, Literal, Protocol, TypeVar

from ..utilities.components import ComponentMeta
from .base import NotSet, Tool, ToolResult, _check_signature, _types, run_on_private_server

__all__ = ["DecoratedTool", "FunctionTool", "ToolMeta", "tool"]


class _ToolBodyError(Exception):
    """A ``pydantic.ValidationError`` the tool's body raised (``__cause__``), told apart from a bad
    call: the arguments were checked by the core before the body ran, and a bad call raises
    :class:`~oxmcp.exceptions.ValidationError` instead (FastMCP's class of the same name)."""

F = TypeVar("F", bound=Callable[..., Any])


class DecoratedTool(Protocol):
    """A function the standalone ``@tool`` marked (its settings in ``__fastmcp__``)."""

    __fastmcp__: ToolMeta

    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...


@dataclass(frozen=True, kw_only=True)
class ToolMeta(ComponentMeta):
    """The settings ``@tool(...)`` attaches to a function, for ``mcp.add_tool(fn)`` to register with."""

    type: Literal["tool"] = field(default="tool", init=False)
    output_schema: Any = NotSet
    annotations: Any = None
    app: Any = None
    task: Any = None
    timeout: float | None = None
    enabled: bool = True
    run_in_thread: bool = True


def get_fastmcp_meta(fn: Any) -> Any:
    """The ``__fastmcp__`` settings of a marked function (also through a bound method or a wrapper)."""
    for candidate in (fn, getattr(fn, "__func__", None)):
        if candidate is not None and hasattr(candidate, "__fastmcp__"):
            return candidate.__fastmcp__
    try:
        unwrapped = inspect.unwrap(fn)
    except ValueError:
        return None
    return getattr(unwrapped, "__fastmcp__", None) if unwrapped is not fn else None


class FunctionTool(Tool):
    """A tool whose body is a Python function: its schemas are the ones ``@mcp.tool`` lists for it."""

    _DUMP_FIELDS = (*Tool._DUMP_FIELDS, "fn", "run_in_thread")

    def _dumped(self, name: str) -> Any:
        # FastMCP's field holds only an execution given as such; one from `task=` is its task_config.
        if name == "execution" and self.task:
            return None
        return super()._dumped(name)

    def __init__(self, *, fn: Callable[..., Any], run_in_thread: bool = True, task: Any = None,
                 _output_arg: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.fn = fn
        self.run_in_thread = run_in_thread
        self.task = task
        # How the output schema was asked for (None: from the return annotation; False: none; a dict),
        # and what that gave: registering passes the request on unless the schema was changed since.
        self._output_arg = _output_arg
        self._output_built = self.output_schema

    @classmethod
    def from_function(cls, fn: Callable[..., Any], *, metadata: ToolMeta | None = None,  # type: ignore[override]
                      name: str | None = None, version: str | int | None = None, title: str | None = None,
                      description: str | None = None, icons: list[Any] | None = None,
                      tags: set[str] | None = None, annotations: Any = None, output_schema: Any = NotSet,
                      meta: dict[str, Any] | None = None, task: Any = None, timeout: float | None = None,
                      auth: Any = None, run_in_thread: bool | None = None, enabled: bool = True,
                      exclude_args: Any = None, serializer: Any = None) -> FunctionTool:
        if metadata is None and isinstance(get_fastmcp_meta(fn), ToolMeta):
            # A function the standalone @tool marked: its settings, under the ones given here.
            marked = get_fastmcp_meta(fn)
            name, version, title = name or marked.name, version or marked.version, title or marked.title
            description = description if description is not None else marked.description
            icons, tags = icons or marked.icons, tags or marked.tags
            annotations, meta = annotations or marked.annotations, meta or marked.meta
            if output_schema is NotSet:
                output_schema = marked.output_schema
            task, timeout, auth = task or marked.task, timeout or marked.timeout, auth or marked.auth
            enabled = enabled and marked.enabled
            run_in_thread = marked.run_in_thread if run_in_thread is None else run_in_thread
        if metadata is not None:
            given = [k for k, v in (("name", name), ("version", version), ("title", title),
                                    ("description", description), ("icons", icons), ("tags", tags),
                                    ("annotations", annotations), ("meta", meta), ("task", task),
                                    ("timeout", timeout), ("auth", auth)) if v is not None]
            if given or output_schema is not NotSet:
                raise TypeError("Cannot pass both 'metadata' and individual parameters to from_function(). "
                                "Use metadata alone or individual parameters alone.")
            name, version, title, description = metadata.name, metadata.version, metadata.title, metadata.description
            icons, tags, annotations, meta = metadata.icons, metadata.tags, metadata.annotations, metadata.meta
            output_schema, task, timeout, auth = metadata.output_schema, metadata.task, metadata.timeout, metadata.auth
            enabled = metadata.enabled
            run_in_thread = metadata.run_in_thread
        for option, value in (("exclude_args", exclude_args), ("serializer", serializer)):
            if value is not None:
                raise TypeError(f"Tool.from_function({option}=...) is not supported by oxmcp (FastMCP 2.x's "
                                "option; hide a parameter with a dependency, return the content you want)")
        if not callable(fn):
            raise TypeError(f"{fn!r} is not a callable object")
        if isinstance(fn, staticmethod):
            fn = fn.__func__
        inner = fn
        while isinstance(inner, functools.partial):
            inner = inner.func
        fn_name = name or (vars(fn).get("__name__") if isinstance(fn, functools.partial) else None) \
            or getattr(inner, "__name__", None) or type(inner).__name__
        if fn_name == "<lambda>":
            raise ValueError("You must provide a name for lambda functions")
        target = fn if inspect.isroutine(fn) or isinstance(fn, functools.partial) else type(fn).__call__
        _check_signature(target if target is fn else fn)
        if description is None and not inspect.isroutine(fn) and not isinstance(fn, functools.partial):
            description = inspect.getdoc(type(fn))
        output_arg: Any
        if output_schema is NotSet:
            output_arg = None
        elif output_schema is None:
            output_arg = False
        else:
            if not isinstance(output_schema, dict) or output_schema.get("type") != "object":
                raise ValueError(f'Output schemas must represent object types due to MCP spec limitations. '
                                 f'Received: {output_schema!r}')
            output_arg = output_schema
        from .._fastmcp import FastMCP
        from .._fastmcp_rules import fastmcp_tool_schemas
        from .._handlers import ToolEntry

        # The entry `@mcp.tool` builds for the same function, on FastMCP's rules: its schemas are the tool's.
        entry = ToolEntry(fn, FastMCP, name=fn_name, description=description, output_schema=output_arg)
        fastmcp_tool_schemas(entry)
        execution = None
        if task:
            mode = getattr(task, "mode", "optional") if not isinstance(task, bool) else "optional"
            execution = _types().ToolExecution(task_support=mode)
        return cls(fn=fn, name=entry.name, execution=execution, title=title, description=entry.info.description,
                   parameters=entry.info.input_schema, output_schema=entry.info.output_schema,
                   annotations=annotations, meta=meta, icons=icons, tags=tags, enabled=enabled,
                   timeout=timeout, auth=auth, version=version, task=task,
                   run_in_thread=True if run_in_thread is None else run_in_thread, _output_arg=output_arg)

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        from pydantic import ValidationError as PydanticValidationError

        try:
            return await run_on_private_server(self, arguments)
        except PydanticValidationError as exc:
            raise _ToolBodyError(str(exc)) from exc

    def _registration(self) -> tuple[Callable[..., Any], dict[str, Any]]:
        if self.output_schema is self._output_built:
            output = self._output_arg
        else:
            output = self.output_schema if self.output_schema is not None else False
        kwargs = {**self._common_kwargs(), "output_schema": output, "run_in_thread": self.run_in_thread}
        if self.task is not None:
            kwargs["task"] = self.task
        return self.fn, kwargs


def tool(name_or_fn: Any = None, *, name: str | None = None, version: str | int | None = None,
         title: str | None = None, description: str | None = None, icons: list[Any] | None = None,
         tags: set[str] | None = None, output_schema: Any = NotSet, annotations: Any = None,
         meta: dict[str, Any] | None = None, task: Any = None, timeout: float | None = None, auth: Any = None,
         run_in_thread: bool = True) -> Any:
    """Mark a function as a tool (``mcp.add_tool(fn)`` registers it with these settings); the function
    itself is returned unchanged."""
    if isinstance(name_or_fn, classmethod):
        raise TypeError("To decorate a classmethod, use @classmethod above @tool. "
                        "See https://gofastmcp.com/servers/tools#using-with-methods")

    def attach(fn: F, tool_name: str | None) -> F:
        settings = ToolMeta(name=tool_name, version=version, title=title, description=description, icons=icons,
                            tags=tags, output_schema=output_schema, annotations=annotations, meta=meta, task=task,
                            timeout=timeout, auth=auth, run_in_thread=run_in_thread)
        target = fn.__func__ if isinstance(fn, (staticmethod, MethodType)) else fn
        setattr(target, "__fastmcp__", settings)  # noqa: B010  a function attribute mypy does not know
        return fn

    if inspect.isroutine(name_or_fn):
        return attach(name_or_fn, name)
    if isinstance(name_or_fn, str):
        if name is not None:
            raise TypeError("Cannot specify name both as first argument and keyword")
        tool_name: str | None = name_or_fn
    elif name_or_fn is None:
        tool_name = name
    else:
        raise TypeError(f"Invalid first argument: {type(name_or_fn)}")
    return lambda fn: attach(fn, tool_name)
