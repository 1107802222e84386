"""Client notifications to a FastMCP server's own handlers (``mcp._mcp_server.add_notification_handler``,
mcp 2.x's low-level registration, which FastMCP's server exposes): ``handler(ctx, params)`` for a
notification a legacy session's client sends (``notifications/progress``,
``notifications/roots/list_changed``, ...), run on the loop that serves the server. The core hears
them (its session listener); the 2026-07-28 revision has no client notifications to a server."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

__all__ = ["ClientNotifications"]


class ClientNotifications:
    """One server's notification handlers, by method."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self.handlers: dict[str, Callable[..., Any]] = {}
        #: The loop serving the server (its lifespan's), where handlers run.
        self.loop: asyncio.AbstractEventLoop | None = None
        self._tasks: set[asyncio.Task[Any]] = set()

    def add(self, method: str, handler: Callable[..., Any]) -> None:
        if not method.startswith("notifications/"):
            raise ValueError(f"add_notification_handler({method!r}): not a notification method")
        self.handlers[method] = handler
        native = self.server._native
        if native is not None:
            native.on_session(self.heard)

    def install(self, native: Any) -> None:
        """Listen on a newly built native server (when a handler is registered)."""
        if self.handlers:
            native.on_session(self.heard)

    def heard(self, session: Any, method: str, params: Any) -> None:
        """The core's session listener (on its dispatcher thread)."""
        handler, loop = self.handlers.get(method), self.loop
        if handler is None or loop is None or loop.is_closed():
            return
        loop.call_soon_threadsafe(self._start, handler, session, method, params)

    def _start(self, handler: Callable[..., Any], session: Any, method: str, params: Any) -> None:
        task = asyncio.ensure_future(self._run(handler, session, method, params))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, handler: Callable[..., Any], session: Any, method: str, params: Any) -> None:
        from .server.lowlevel.server import _NativeSessionAdapter, _NotificationContext, _params_model

        params = params if isinstance(params, dict) else {}
        ctx = _NotificationContext(_NativeSessionAdapter(session), self.server.lifespan_context, method, params)
        try:
            result = handler(ctx, _params_model(method, params))
            if asyncio.iscoroutine(result):
                await result
        except Exception:  # as the SDK: logged, never sent (a notification has no answer)
            logging.getLogger("fastmcp.server.server").exception("Error in notification handler for %s", method)
