"""Completers given by argument name: the values the core matches, and the core's check that
each names an argument (or template variable) the primitive has."""

from __future__ import annotations

import asyncio
import enum
from typing import Any

from ._errors import DefinitionError
from ._handlers import CompletionEntry, _Entry


def check_completion_names(name: str, completed: list[str], arguments: list[str] | None) -> None:
    """The core's rule for completers named by argument (a prompt's arguments, or a template's
    variables when ``arguments`` is None), before anything is registered."""
    from . import _oxmcp

    try:
        _oxmcp.check_completion_names(name, completed, arguments)
    except ValueError as e:
        raise DefinitionError(str(e)) from None


def completion_values(completer: Any) -> list[str] | None:
    """A completer given as values, as the list the core matches: a list or tuple of strings, or
    an ``Enum`` class (each member's value when it is a string, else its name). ``None`` for a
    function, which answers for itself."""
    if isinstance(completer, type) and issubclass(completer, enum.Enum):
        return [m.value if isinstance(m.value, str) else m.name for m in completer]
    if isinstance(completer, (list, tuple)):
        return [str(v) for v in completer]
    if callable(completer):
        return None
    raise TypeError(f"a completer is a list of values, an Enum class or a function, not {type(completer).__name__}")


class CompletionRouter(_Entry):
    """All completers of one prompt or resource template, routed by argument name: the functions
    here, the fixed lists (``values``) in the core, which matches them against the typed text."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self.by_argument: dict[str, CompletionEntry] = {}
        self.values: dict[str, list[str]] = {}

    @property
    def is_async(self) -> bool:
        return any(c.is_async for c in self.by_argument.values())

    def _pick(self, payload: Any) -> CompletionEntry | None:
        return self.by_argument.get(str((payload or {}).get("argument", "")))

    def call_sync(self, payload: Any, native_ctx: Any = None) -> tuple[str, Any]:
        entry = self._pick(payload)
        if entry is None:
            return ("ok", {"values": []})
        if entry.is_async:
            return asyncio.run(entry.call_async(payload, native_ctx))
        return entry.call_sync(payload, native_ctx)

    async def call_async(self, payload: Any, native_ctx: Any = None) -> tuple[str, Any]:
        entry = self._pick(payload)
        if entry is None:
            return ("ok", {"values": []})
        if entry.is_async:
            return await entry.call_async(payload, native_ctx)
        return entry.call_sync(payload, native_ctx)
