"""``MCPServer.session_manager`` (mcp 2.x): what a host app's lifespan enters to serve the app that
``streamable_http_app()`` returned, mounted (``async with mcp.session_manager.run(): yield``).

Sessions, limits and every check of a request are the core's. The manager starts the core on the
host's loop and runs the server's lifespan for as long as ``run()`` is entered; a request that
arrives outside it is refused as the SDK refuses it (its session manager has no task group then).
Its settings are read back as given (``session_idle_timeout``, ``max_sessions``, ...)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from ._loops import on_asyncio, shared_thread

__all__ = ["ServerSessionManager"]


class ServerSessionManager:
    """The serving lifetime of one ``MCPServer``'s Streamable HTTP app."""

    def __init__(self, server: Any, *, json_response: bool, stateless: bool, event_store: Any,
                 retry_interval: int | None, session_idle_timeout: float | None, max_sessions: int | None,
                 max_request_body_size: int, security_settings: Any) -> None:
        self._server = server
        self.json_response = json_response
        self.stateless = stateless
        self.event_store = event_store
        self.retry_interval = retry_interval
        self.session_idle_timeout = session_idle_timeout
        self.max_sessions = max_sessions
        self.max_request_body_size = max_request_body_size
        self.security_settings = security_settings
        self._started = False
        self._running = False

    @contextlib.asynccontextmanager
    async def run(self) -> AsyncIterator[None]:
        """Serve while entered: the core on this loop, the server's lifespan running. Once per
        manager, as the SDK's."""
        if self._started:
            raise RuntimeError("StreamableHTTPSessionManager .run() can only be called once per instance. "
                               "Create a new instance if you need to run again.")
        self._started = True
        with contextlib.ExitStack() as own_loop:
            if on_asyncio():
                self._server._build_native().set_loop(asyncio.get_running_loop())
            else:
                # A trio host: the requests are answered on the server's own asyncio loop, held for
                # as long as run() is entered.
                own_loop.enter_context(shared_thread(self._server))
            async with self._server._lifespan_running():
                self._running = True
                try:
                    yield
                finally:
                    self._running = False

    def check_running(self) -> None:
        """Refuse a request that arrives while ``run()`` is not entered."""
        if not self._running:
            raise RuntimeError("Task group is not initialized. Make sure to use run().")
