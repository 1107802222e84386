"""What FastMCP's standalone ``@tool``, ``@prompt`` and ``@resource`` share: the settings each
attaches to a function (``__fastmcp__``), for ``mcp.add_tool(fn)`` and its siblings to register with."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, TypeVar

from typing_extensions import Self

__all__ = ["ComponentMeta", "FastMCPComponent"]

C = TypeVar("C", bound="FastMCPComponent")


class FastMCPComponent:
    """What FastMCP's component classes (``Tool``, ``Prompt``, ``Resource``) share: switching one
    on and off, and copying it. Registering one goes through the core like a decorated function."""

    enabled: bool

    def enable(self) -> None:
        self.enabled = True

    def disable(self) -> None:
        self.enabled = False

    def copy(self) -> Self:
        return copy.copy(self)

    def model_copy(self, *, update: dict[str, Any] | None = None, deep: bool = False) -> Self:
        out = copy.deepcopy(self) if deep else copy.copy(self)
        for k, v in (update or {}).items():
            setattr(out, k, v)
        return out


@dataclass(frozen=True, kw_only=True)
class ComponentMeta:
    """The settings every kind takes; each kind's own class adds its ``type`` and the rest."""

    name: str | None = None
    version: str | int | None = None
    title: str | None = None
    description: str | None = None
    icons: list[Any] | None = None
    tags: set[str] | None = None
    meta: dict[str, Any] | None = None
    auth: Any = None
