"""``mcp.server.mcpserver.Context`` of mcp 2.x: oxmcp's request context, with the SDK's constructor
(``Context(mcp_server=...)``) and its refusals outside a request: the server and the request context
are read only where there is one, and reading them elsewhere raises ``ValueError``."""

from __future__ import annotations

from typing import Any

from ..._context import Context as _Context

__all__ = ["Context"]


class Context(_Context):
    """The context a handler annotated with it receives; constructed by hand it stands outside a request."""

    def __init__(self, native: Any = None, server: Any = None, *, mcp_server: Any = None, **kwargs: Any) -> None:
        super().__init__(native, server if server is not None else mcp_server, **kwargs)

    @property
    def mcp_server(self) -> Any:
        """The server this context belongs to."""
        if self._server is None:
            raise ValueError("Context is not available outside of a request")
        return self._server

    @property
    def request_context(self) -> Any:
        """The SDK's ``RequestContext`` of the request being served."""
        if self._native is None:
            raise ValueError("Context is not available outside of a request")
        return super().request_context

    @property
    def client_capabilities(self) -> Any:  # type: ignore[override]
        """What the client declared for this request (``ClientCapabilities``); None outside a request."""
        if self._native is None:
            return None
        from ...types import ClientCapabilities

        return ClientCapabilities.model_validate(super().client_capabilities or {})

    # mcp 2.x's change events: published on the server's bus when it was given one (``subscriptions=``;
    # the bus feeds the core), else by the core's fan-out (subscriptions/listen streams, and the
    # list_changed / resources/updated notifications of earlier revisions), as a registry change is.
    async def _event(self, event: Any, notify: Any) -> None:
        bus = getattr(self._server, "_subscription_bus", None)
        if bus is not None:
            await bus.publish(event)
            return
        if self._native is None or self._server is None or self._server._native is None:
            raise ValueError("Context is not available outside of a request")
        notify(self._server._native)

    async def notify_tools_changed(self) -> None:
        """Publish a tools list-changed event."""
        from ..subscriptions import ToolsListChanged

        await self._event(ToolsListChanged(), lambda n: n.notify_list_changed("tools"))

    async def notify_prompts_changed(self) -> None:
        """Publish a prompts list-changed event."""
        from ..subscriptions import PromptsListChanged

        await self._event(PromptsListChanged(), lambda n: n.notify_list_changed("prompts"))

    async def notify_resources_changed(self) -> None:
        """Publish a resources list-changed event."""
        from ..subscriptions import ResourcesListChanged

        await self._event(ResourcesListChanged(), lambda n: n.notify_list_changed("resources"))

    async def notify_resource_updated(self, uri: Any) -> None:
        """Publish a resource-updated event for ``uri``."""
        from ..subscriptions import ResourceUpdated

        await self._event(ResourceUpdated(uri=str(uri)), lambda n: n.notify_resource_updated(str(uri)))
