"""``mcp.server.subscriptions`` of mcp 2.x: the server events and the SDK's in-memory event bus.

The events (``ToolsListChanged``, ``PromptsListChanged``, ``ResourcesListChanged``, ``ResourceUpdated``)
and ``InMemorySubscriptionBus`` are plain values and a fan-out a server may use on its own. oxmcp's
``subscriptions/listen`` streams are the core's (its listeners, limits and per-caller filters), so
``MCPServer(subscriptions=bus)`` is refused rather than leave the bus unfed: a server that needs the
events reads them where it causes them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ..types import SUBSCRIPTION_ID_META_KEY

__all__ = ["SUBSCRIPTION_ID_META_KEY", "InMemorySubscriptionBus", "ListenHandler", "PromptsListChanged",
           "ResourceUpdated", "ResourcesListChanged", "ServerEvent", "SubscriptionBus", "ToolsListChanged"]

_log = logging.getLogger("oxmcp")


@dataclass(frozen=True)
class ToolsListChanged:
    """The server's tool list changed."""


@dataclass(frozen=True)
class PromptsListChanged:
    """The server's prompt list changed."""


@dataclass(frozen=True)
class ResourcesListChanged:
    """The server's resource list changed."""


@dataclass(frozen=True)
class ResourceUpdated:
    """The resource at ``uri`` changed."""

    uri: str


ServerEvent = ToolsListChanged | PromptsListChanged | ResourcesListChanged | ResourceUpdated


class SubscriptionBus(Protocol):
    """The SDK's fan-out seam (``publish`` an event, ``subscribe`` a listener), the type a server's
    own bus is written against; ``MCPServer(subscriptions=...)`` refuses one (see above)."""

    async def publish(self, event: ServerEvent) -> None: ...

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]: ...


class InMemorySubscriptionBus:
    """Delivers each published event to every listener, in this process (a raising listener is
    logged and skipped, so one cannot starve the others)."""

    def __init__(self) -> None:
        self._listeners: dict[object, Callable[[ServerEvent], None]] = {}

    async def publish(self, event: ServerEvent) -> None:
        for listener in list(self._listeners.values()):
            try:
                listener(event)
            except Exception:  # noqa: BLE001  # the fan-out boundary: one listener cannot stop the rest
                _log.exception("subscription listener raised; continuing")

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        """Add ``listener``; returns the function that removes it."""
        token = object()
        self._listeners[token] = listener
        return lambda: self._listeners.pop(token, None) and None


class ListenHandler:
    """The SDK's own ``subscriptions/listen`` server (its acknowledgement, filters, limits and
    backlog over a bus). oxmcp's listen streams are the core's, for every transport, so this one is
    refused rather than run beside them: ``MCPServer`` serves ``subscriptions/listen`` unless given
    ``subscriptions=False``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("ListenHandler is not supported by oxmcp: subscriptions/listen is served by the core "
                        "(its listeners, limits and per-caller filters); MCPServer serves it unless "
                        "subscriptions=False")
