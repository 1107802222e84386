"""``mcp.server.subscriptions`` of mcp 2.x: the server events and the SDK's in-memory event bus.

The events (``ToolsListChanged``, ``PromptsListChanged``, ``ResourcesListChanged``, ``ResourceUpdated``)
and ``InMemorySubscriptionBus`` are plain values and a fan-out a server may use on its own. oxmcp's
``subscriptions/listen`` streams are the core's (its listeners, limits and per-caller filters); a
low-level ``Server`` given a ``ListenHandler`` has the core serve them, fed by the handler's bus, as
an ``MCPServer(subscriptions=bus)`` has them fed by its bus.
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
    own bus is written against: ``MCPServer(subscriptions=bus)`` and ``ListenHandler(bus)`` feed the
    core's notifications from it."""

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
    """The SDK's ``subscriptions/listen`` server over a bus, on the core's listen streams: given to
    a low-level ``Server`` (``on_subscriptions_listen=`` or ``add_request_handler``), the core serves
    ``subscriptions/listen`` itself (acknowledgement, filters, the subscription id, its listener
    limits and per-caller rules, on every transport), and each event published on ``bus`` becomes
    the core's notification (``ResourceUpdated`` → ``notifications/resources/updated``, a
    ``*ListChanged`` → its ``list_changed``), which the core sends to the streams that asked for it.

    ``max_subscriptions`` is the core's ``max_listeners``. ``max_buffered_events`` (the SDK's
    per-stream backlog) has no counterpart: the core's stream writes each event as it comes, so a
    value given is refused rather than ignored."""

    def __init__(self, bus: Any, *, max_subscriptions: int = 1024, max_buffered_events: int | None = None) -> None:
        if max_buffered_events is not None:
            raise TypeError("ListenHandler(max_buffered_events=...) is not supported by oxmcp: the core's "
                            "subscriptions/listen streams keep no per-stream backlog to bound")
        if not isinstance(max_subscriptions, int) or isinstance(max_subscriptions, bool) or max_subscriptions < 1:
            raise ValueError("ListenHandler(max_subscriptions=...) must be a positive int")
        self._bus = bus
        self.max_subscriptions = max_subscriptions

    def _feed(self, native: Callable[[], Any]) -> Callable[[], None]:
        """Subscribe to the bus: each event becomes the core's notification, on the server
        ``native()`` gives (None until it serves: nobody listens then). Returns the unsubscribe."""

        def on_event(event: ServerEvent) -> None:
            server = native()
            if server is None:
                return
            if isinstance(event, ResourceUpdated):
                server.notify_resource_updated(str(event.uri))
            elif isinstance(event, ToolsListChanged):
                server.notify_list_changed("tools")
            elif isinstance(event, PromptsListChanged):
                server.notify_list_changed("prompts")
            elif isinstance(event, ResourcesListChanged):
                server.notify_list_changed("resources")

        return self._bus.subscribe(on_event)

    async def close(self) -> None:
        """The SDK ends its streams here; the core ends its own when the server stops."""
