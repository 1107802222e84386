"""``fastmcp.server.middleware.ping``: keep a legacy session's client alive with periodic pings.

The first request of each connection starts one loop that sends ``ping`` to the client every
``interval_ms`` (``ctx.session.send_ping()``: the core's server-to-client ping over the session's
back-channel) until the session ends, when the core runs the connection's exit callbacks. A
request with no legacy session (the 2026-07-28 era, stateless HTTP) starts no loop; a ping that
meets ``NoBackChannelError`` (the session has ended) ends the loop quietly.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from ...shared.exceptions import NoBackChannelError
from . import CallNext, Middleware, MiddlewareContext

__all__ = ["PingMiddleware"]


class PingMiddleware(Middleware):
    """``mcp.add_middleware(PingMiddleware(interval_ms=5000))``: one ping loop per connection."""

    def __init__(self, interval_ms: int = 30000) -> None:
        if interval_ms <= 0:
            raise ValueError("interval_ms must be positive")
        self.interval_ms = interval_ms
        #: The ids of the connections whose loop runs.
        self._active_sessions: set[int] = set()
        self._lock = asyncio.Lock()

    async def on_message(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        ctx = context.fastmcp_context
        if ctx is not None and ctx.request_context is not None:
            await self._start(ctx.session)
        return await call_next(context)

    async def _start(self, session: Any) -> None:
        # One connection serves many requests, each with its own session object: the loop is keyed
        # by the connection. A request without one (modern, stateless HTTP, a call made outside any
        # client's request) has no back-channel to ping the client on: nothing to keep alive.
        connection = getattr(session, "_connection", None)
        if connection is None:
            return
        key = id(connection)
        async with self._lock:
            if key in self._active_sessions:
                return
            self._active_sessions.add(key)
            task = asyncio.create_task(self._ping_loop(session, key), name=f"ping-keepalive-{key}")

        async def stop() -> None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            # A task cancelled before it first ran never reaches the loop's own clean-up.
            self._active_sessions.discard(key)

        connection.exit_stack.push_async_callback(stop)

    async def _ping_loop(self, session: Any, connection_id: int) -> None:
        try:
            while True:
                await asyncio.sleep(self.interval_ms / 1000)
                try:
                    await session.send_ping()
                except NoBackChannelError:
                    return
        finally:
            self._active_sessions.discard(connection_id)
