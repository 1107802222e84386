"""What FastMCP's standalone ``@tool``, ``@prompt`` and ``@resource`` share: the settings each
attaches to a function (``__fastmcp__``), for ``mcp.add_tool(fn)`` and its siblings to register with."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, TypeVar

from typing_extensions import Self

__all__ = ["ComponentMeta", "FastMCPComponent", "dump", "dump_all"]

C = TypeVar("C", bound="FastMCPComponent")


def dump(value: Any) -> Any:
    """A pydantic model (an icon, annotations) as its JSON-shaped dict; anything else as it is."""
    return value.model_dump(by_alias=True, exclude_none=True, mode="json") if hasattr(value, "model_dump") else value


def dump_all(values: list[Any] | None) -> list[Any] | None:
    """Each of ``values`` as :func:`dump` gives it; ``None`` for none."""
    return [dump(v) for v in values] if values else None


class FastMCPComponent:
    """What FastMCP's component classes (``Tool``, ``Prompt``, ``Resource``) share: switching one
    on and off, and copying it. Registering one goes through the core like a decorated function."""

    enabled: bool

    def __eq__(self, other: object) -> bool:
        if type(self) is not type(other):
            return NotImplemented
        return self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]

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
