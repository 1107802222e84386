"""``fastmcp.tools.tool_transform``: ``ToolTransformConfig``, how a ``ToolTransform`` changes a tool.

oxmcp serves a transformed tool as the tool registered under its new name, title, description and
``_meta`` (``FastMCP.add_transform(ToolTransform({...}))``). What the core cannot serve as written
fails when the config is made, never silently: argument transforms (``arguments=``, which rewrite
the input schema and the call) and hiding a tool through a transform (``enabled=``; give the tool
``enabled=False`` where it is registered instead).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["ArgTransformConfig", "ToolTransformConfig"]


class ArgTransformConfig(BaseModel):
    """FastMCP's argument transform (rename, hide, default an argument). oxmcp does not rewrite a
    tool's arguments, so a ``ToolTransformConfig`` that carries one is refused."""

    model_config = ConfigDict(extra="allow")


class ToolTransformConfig(BaseModel):
    """A tool's new ``name``, ``title``, ``description``, ``meta`` (``tags`` and ``version`` are
    FastMCP's bookkeeping, which changes nothing a client sees on oxmcp)."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = None
    version: str | None = None
    title: str | None = None
    description: str | None = None
    tags: set[str] | None = Field(default=None)
    meta: dict[str, Any] | None = None
    enabled: bool = True
    arguments: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _servable(self) -> ToolTransformConfig:
        if self.arguments:
            raise ValueError("ToolTransformConfig(arguments=...) is not supported by oxmcp: it does not "
                             "rewrite a tool's arguments; register a tool with the arguments to serve")
        if "enabled" in self.model_fields_set:
            raise ValueError("ToolTransformConfig(enabled=...) is not supported by oxmcp: hide a tool where "
                             "it is registered (enabled=False) or remove it (remove_tool)")
        return self

    def apply(self, entry: Any) -> Any:
        """A copy of the registered tool ``entry`` with this config's changes."""
        import copy

        out = copy.copy(entry)
        out.info = copy.copy(entry.info)
        if self.name:
            out.name = out.info.name = self.name
        if self.title is not None:
            out.title = self.title
        if self.description is not None:
            out.info.description = self.description
        if self.meta is not None:
            out.meta = dict(self.meta)
        return out
