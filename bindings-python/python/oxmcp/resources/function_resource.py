"""``fastmcp.resources.function_resource``: ``FunctionResource`` (a resource read by a Python function)
and the standalone ``@resource`` decorator, which marks a function for ``mcp.add_resource(fn)``."""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar

from ..utilities.components import ComponentMeta
from .base import Resource

__all__ = ["DecoratedResource", "FunctionResource", "ResourceMeta", "resource"]

F = TypeVar("F", bound=Callable[..., Any])


class DecoratedResource(Protocol):
    """A function the standalone ``@resource`` marked (its settings in ``__fastmcp__``)."""

    __fastmcp__: ResourceMeta

    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...


@dataclass(frozen=True, kw_only=True)
class ResourceMeta(ComponentMeta):
    """The settings ``@resource(uri, ...)`` attaches to a function."""

    type: Literal["resource"] = field(default="resource", init=False)
    uri: str
    mime_type: str | None = None
    annotations: Any = None
    enabled: bool = True


async def _call(fn: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    """Run a read function: a coroutine function awaited, a sync one off the event loop (its
    awaitable, if it returns one, awaited)."""
    if inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(type(fn).__call__):
        return await fn(**kwargs)
    value = await asyncio.to_thread(functools.partial(fn, **kwargs))
    return await value if inspect.isawaitable(value) else value


class FunctionResource(Resource):
    """A resource whose contents a Python function returns when it is read."""

    def __init__(self, *, fn: Callable[..., Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.fn = fn

    @classmethod
    def from_function(cls, fn: Callable[..., Any], uri: str | None = None, *,  # type: ignore[override]
                      metadata: ResourceMeta | None = None, **kwargs: Any) -> FunctionResource:
        from ..tools.function_tool import get_fastmcp_meta

        marked = metadata or get_fastmcp_meta(fn)
        if isinstance(marked, ResourceMeta):
            settings = {k: getattr(marked, k) for k in ("name", "version", "title", "description", "icons", "tags",
                                                        "mime_type", "annotations", "meta", "auth", "enabled")}
            kwargs = {**{k: v for k, v in settings.items() if v is not None}, **kwargs}
            uri = uri or marked.uri
        if uri is None:
            raise TypeError("FunctionResource.from_function() needs a uri")
        name = kwargs.pop("name", None) or getattr(fn, "__name__", None) or type(fn).__name__
        if name == "<lambda>":
            raise ValueError("You must provide a name for lambda functions")
        if kwargs.get("description") is None:
            kwargs["description"] = inspect.getdoc(fn) if inspect.isroutine(fn) else inspect.getdoc(type(fn))
        return cls(fn=fn, uri=uri, name=name, **kwargs)

    async def read(self) -> Any:
        return await _call(self.fn, {})

    def _registration(self) -> tuple[Callable[..., Any], str, dict[str, Any]]:
        # The function itself goes to the server (its Context parameter is injected as with
        # @mcp.resource); what it returns is converted by FastMCP's rules.
        resource, fn = self, self.fn

        @functools.wraps(fn)
        async def read(**kwargs: Any) -> Any:
            result = resource.convert_result(await _call(fn, kwargs))
            return [c._contents() for c in result.contents]

        return read, self.uri, self._common_kwargs()


def resource(uri: str, *, name: str | None = None, version: str | int | None = None, title: str | None = None,
             description: str | None = None, icons: list[Any] | None = None, tags: set[str] | None = None,
             mime_type: str | None = None, annotations: Any = None, meta: dict[str, Any] | None = None,
             auth: Any = None) -> Callable[[F], F]:
    """Mark a function as a resource (or a template, when ``uri`` has parameters):
    ``mcp.add_resource(fn)`` registers it; the function is returned unchanged."""
    if not isinstance(uri, str):
        raise TypeError("The @resource decorator requires a URI. Use @resource('uri') instead of @resource")

    def attach(fn: F) -> F:
        if isinstance(fn, classmethod):
            raise TypeError("To decorate a classmethod, use @classmethod above @resource.")
        settings = ResourceMeta(uri=uri, name=name, version=version, title=title, description=description,
                                icons=icons, tags=tags, mime_type=mime_type, annotations=annotations, meta=meta,
                                auth=auth)
        target = getattr(fn, "__func__", fn)
        setattr(target, "__fastmcp__", settings)  # noqa: B010  a function attribute mypy does not know
        return fn

    return attach
