"""``mcp.server.mcpserver.tools`` (and mcp 1.x's ``mcp.server.fastmcp.tools``): the SDK's ``Tool``
component, read from a function as the server's ``@tool()`` reads it (oxmcp's analysis, so its
schema is the one the core lists), and ``ToolManager``, a view of a server's registered tools.

The managers of this package and of ``.resources`` / ``.prompts`` are views over the server's one
registry (what the core lists and calls): adding through them registers with the server, and what
they return is built from the registered entries, never a second copy kept beside the core's.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ...types import Icon, ToolAnnotations

# A package to the import system, so that ``tools.base`` / ``tools.tool_manager`` resolve through the
# import hook to this one module.
__path__: list[str] = []

__all__ = ["Tool", "ToolManager"]


class Tool(BaseModel):
    """A tool as the SDK's component class describes it (``context_kwarg``, ``parameters`` ...)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    fn: Callable[..., Any] = Field(exclude=True)
    name: str
    title: str | None = None
    description: str = ""
    parameters: dict[str, Any]
    output_schema: dict[str, Any] | None = None
    is_async: bool = False
    context_kwarg: str | None = None
    annotations: ToolAnnotations | None = None
    icons: list[Icon] | None = None
    meta: dict[str, Any] | None = None

    @classmethod
    def from_function(cls, fn: Callable[..., Any], name: str | None = None, title: str | None = None,
                      description: str | None = None, context_kwarg: str | None = None,
                      annotations: Any = None, icons: list[Icon] | None = None,
                      meta: dict[str, Any] | None = None, structured_output: bool | None = None) -> Tool:
        from ..._handlers import ToolEntry
        from ...shared.tool_name_validation import validate_and_warn_tool_name
        from .resolve import with_resolvers

        validate_and_warn_tool_name(name or str(getattr(fn, "__name__", "")))
        if (name or getattr(fn, "__name__", None)) == "<lambda>":
            raise ValueError("You must provide a name for lambda functions")
        return cls.from_entry(ToolEntry(with_resolvers(fn), name=name, title=title, description=description,
                                        structured_output=structured_output),
                              annotations=annotations, icons=icons, meta=meta, context_kwarg=context_kwarg)

    @classmethod
    def from_entry(cls, entry: Any, **given: Any) -> Tool:
        """The component of a registered (or analysed) tool entry."""
        info = entry.info
        annotations = given.get("annotations") or entry.annotations
        # A function with resolved parameters is registered as its wrapper (resolve.with_resolvers).
        fn = getattr(info.fn, "__oxmcp_resolved__", info.fn)
        return cls(fn=fn, name=entry.name, title=entry.title, description=info.description or "",
                   parameters=info.input_schema, output_schema=info.output_schema,
                   is_async=inspect.iscoroutinefunction(fn),
                   context_kwarg=given.get("context_kwarg") or info.context_param,
                   annotations=ToolAnnotations.model_validate(annotations) if isinstance(annotations, dict)
                   else annotations, icons=given.get("icons") or entry.icons, meta=given.get("meta") or entry.meta)


class ToolManager:
    """``server._tool_manager``: the server's registered tools, as ``Tool`` components."""

    def __init__(self, server: Any) -> None:
        self._server = server

    def list_tools(self) -> list[Tool]:
        return [Tool.from_entry(e) for e in list(self._server._tools.values())]

    def get_tool(self, name: str) -> Tool | None:
        entry = self._server._tools.get(name)
        return None if entry is None else Tool.from_entry(entry)

    def add_tool(self, fn: Callable[..., Any], name: str | None = None, **kwargs: Any) -> Tool:
        entry = self._server.add_tool(fn, name=name, **kwargs)
        return Tool.from_entry(self._server._tools.get(entry.name, entry))

    def remove_tool(self, name: str) -> None:
        self._server.remove_tool(name)
