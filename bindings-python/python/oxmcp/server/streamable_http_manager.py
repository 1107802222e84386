"""``mcp.server.streamable_http_manager.StreamableHTTPSessionManager``: Streamable HTTP for a low-level
server, mounted in an ASGI app (Starlette ``Mount("/mcp", app=handle)``).

Sessions, SSE and resumption are the Rust core's; ``json_response``/``event_store`` are accepted and
documented no-ops (the core answers JSON when the client accepts it, SSE while a call streams).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

__all__ = ["StreamableHTTPSessionManager"]


class StreamableHTTPSessionManager:
    def __init__(self, app: Any, event_store: Any = None, json_response: bool = False, stateless: bool = False,
                 security_settings: Any = None, retry_interval: int | None = None,
                 session_idle_timeout: float | None = None, **kwargs: Any) -> None:
        self.app = app
        self.stateless = stateless
        core = app._core if hasattr(app, "_core") else app
        if stateless:
            core.options["legacy_stateless"] = True
        hosts = getattr(security_settings, "allowed_hosts", None)
        origins = getattr(security_settings, "allowed_origins", None)
        if hosts:
            core.options.setdefault("allowed_hosts", list(hosts))
        if origins:
            core.options.setdefault("allowed_origins", list(origins))
        from .._asgi import AsgiApp

        self._asgi = AsgiApp(core)

    @contextlib.asynccontextmanager
    async def run(self) -> AsyncIterator[None]:
        """Enter the server's lifespan for as long as the ASGI app runs."""
        server = self.app
        enter = getattr(server, "_running", None)
        if enter is None:
            yield
            return
        async with enter(asyncio.get_running_loop()):
            yield

    async def handle_request(self, scope: Any, receive: Any, send: Any) -> None:
        await self._asgi(scope, receive, send)
