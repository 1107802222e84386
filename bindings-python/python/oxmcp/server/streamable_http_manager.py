"""``mcp.server.streamable_http_manager.StreamableHTTPSessionManager``: Streamable HTTP for a low-level
server, mounted in an ASGI app (Starlette ``Mount("/mcp", app=manager.handle_request)``).

Sessions, SSE, resumption and every check of a request are the Rust core's. The manager's settings
are the core's options of its mount: ``stateless`` is ``sessionless`` (this endpoint keeps no
sessions), ``max_request_body_size`` is ``max_body_bytes``, ``session_idle_timeout`` is
``session_idle_ms``, ``max_sessions`` is ``max_sessions`` and ``security_settings`` the allowed hosts
and origins (``transport_security.listener_options``). ``json_response``, ``event_store`` and
``retry_interval`` configure what the core always does (JSON or SSE per request, its own resumable
streams) and are accepted as they are. ``None`` (no limit) for ``session_idle_timeout`` or
``max_sessions`` is refused: the core always bounds sessions.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import AsyncIterator
from typing import Any, Final

from .transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE, listener_options

__all__ = ["DEFAULT_MAX_REQUEST_BODY_SIZE", "DEFAULT_MAX_SESSIONS", "DEFAULT_SESSION_IDLE_TIMEOUT",
           "StreamableHTTPSessionManager"]

#: Seconds a session may go unused before it ends (the core's ``session_idle_ms`` default).
DEFAULT_SESSION_IDLE_TIMEOUT: Final = 30 * 60
#: Sessions open at once before a new one is refused with 503 (the core's ``max_sessions`` default).
DEFAULT_MAX_SESSIONS: Final = 10_000


class StreamableHTTPSessionManager:
    def __init__(self, app: Any, event_store: Any = None, json_response: bool = False, stateless: bool = False,
                 security_settings: Any = None, retry_interval: int | None = None,
                 session_idle_timeout: float | None = DEFAULT_SESSION_IDLE_TIMEOUT,
                 max_request_body_size: int = DEFAULT_MAX_REQUEST_BODY_SIZE,
                 max_sessions: int | None = DEFAULT_MAX_SESSIONS) -> None:
        if session_idle_timeout is not None and not (math.isfinite(session_idle_timeout) and session_idle_timeout > 0):
            raise ValueError("session_idle_timeout must be a positive, finite number of seconds")
        if max_request_body_size <= 0:
            raise ValueError("max_request_body_size must be a positive number of bytes")
        if max_sessions is not None and max_sessions <= 0:
            raise ValueError("max_sessions must be a positive number of sessions or None")
        self.app = app
        self.event_store = event_store
        self.json_response = json_response
        self.stateless = stateless
        self.security_settings = security_settings
        self.retry_interval = retry_interval
        self.session_idle_timeout = session_idle_timeout
        self.max_request_body_size = max_request_body_size
        self.max_sessions = max_sessions
        self._core = app._core if hasattr(app, "_core") else app
        self._started = False
        self._serving = False
        listen: dict[str, Any] = {"max_body_bytes": max_request_body_size, **listener_options(security_settings)}
        if stateless:
            listen["sessionless"] = True
        from .._session_options import session_options

        server: dict[str, Any] = {} if stateless else session_options(
            {"max_sessions": max_sessions, "session_idle_timeout": session_idle_timeout}, "StreamableHTTPSessionManager")
        from .. import _oxmcp

        _oxmcp.check_listen_options({**self._core.options, **server}, listen)
        self._core.options.update(server)
        self._core._mount_options(listen)

    @contextlib.asynccontextmanager
    async def run(self) -> AsyncIterator[None]:
        """Serve for as long as the context is open (the host app's lifespan), within the server's
        lifespan. Once per manager, as the SDK's."""
        if self._started:
            raise RuntimeError("StreamableHTTPSessionManager .run() can only be called once per instance. "
                               "Create a new instance if you need to run again.")
        self._started = True
        enter = getattr(self.app, "_running", None)
        lifespan = enter(asyncio.get_running_loop()) if enter is not None else contextlib.nullcontext()
        async with lifespan:
            self._serving = True
            try:
                yield
            finally:
                self._serving = False

    async def handle_request(self, scope: Any, receive: Any, send: Any) -> None:
        """The ASGI app of the endpoint: the core answers each request (within ``run()``)."""
        if not self._serving:
            raise RuntimeError("Task group is not initialized. Make sure to use run().")
        from .._asgi import AsgiApp

        await AsgiApp(self._core)(scope, receive, send)

    asgi_app = handle_request
