"""``mcp.server.streamable_http_manager.StreamableHTTPSessionManager``: Streamable HTTP for a low-level
server, mounted in an ASGI app (Starlette ``Mount("/mcp", app=manager.handle_request)``).

Sessions, SSE, resumption and every check of a request are the Rust core's. The manager's settings
are the core's options of its mount: ``stateless`` is ``sessionless`` (this endpoint keeps no
sessions), ``max_request_body_size`` is ``max_body_bytes``, ``session_idle_timeout`` is
``session_idle_ms``, ``max_sessions`` is ``max_sessions`` and ``security_settings`` the allowed hosts
and origins (``transport_security.listener_options``). ``json_response``, ``event_store`` and
``retry_interval`` configure what the core always does (JSON or SSE per request, its own resumable
streams) and are accepted as they are.

``None`` is the SDK's "no limit". The core always bounds what sessions hold: ``max_sessions=None``
leaves the core's cap (its default, 10 000 sessions, and its per-caller share) in place, and
``session_idle_timeout=None`` makes the idle period a year, so that sessions live until the client
deletes them, as the SDK's do, while their number stays bounded by that cap.

What the manager adds is the SDK's bookkeeping and wording: ``_server_instances`` maps each session
opened through it to its ``StreamableHTTPServerTransport`` (dropped when the core answers its DELETE,
or tells its owner the session is gone), and the core's refusals are worded as the SDK words them
(``_sdk_answer``): the decision is the core's, only its text and status line are the SDK's.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
from collections.abc import AsyncIterator
from typing import Any, Final

from . import _streamable_http_trio as _trio
from .streamable_http import MCP_SESSION_ID_HEADER, StreamableHTTPServerTransport
from .transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE, listener_options

__all__ = ["DEFAULT_MAX_REQUEST_BODY_SIZE", "DEFAULT_MAX_SESSIONS", "DEFAULT_SESSION_IDLE_TIMEOUT",
           "StreamableHTTPASGIApp", "StreamableHTTPSessionManager"]

logger = logging.getLogger(__name__)

#: Seconds a session may go unused before it ends (the core's ``session_idle_ms`` default).
DEFAULT_SESSION_IDLE_TIMEOUT: Final = 30 * 60
#: Sessions open at once before a new one is refused with 503 (the core's ``max_sessions`` default).
DEFAULT_MAX_SESSIONS: Final = 10_000
#: The idle period that stands for ``session_idle_timeout=None``, in seconds (see the module's docs).
NO_IDLE_TIMEOUT: Final = 365 * 24 * 3600

_INVALID_REQUEST: Final = -32600
_INTERNAL_ERROR: Final = -32603


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
        #: The sessions opened through this manager, by ID, and the caller each was opened by.
        self._server_instances: dict[str, StreamableHTTPServerTransport] = {}
        self._session_owners: dict[str, Any] = {}
        #: The asyncio loop the manager serves on when run() is entered from trio.
        self._loop_thread: Any = None
        listen: dict[str, Any] = {"max_body_bytes": max_request_body_size, **listener_options(security_settings)}
        if stateless:
            listen["sessionless"] = True
        from .._session_options import session_options

        limits: dict[str, Any] = {}
        if max_sessions is not None:
            limits["max_sessions"] = max_sessions
        limits["session_idle_timeout"] = NO_IDLE_TIMEOUT if session_idle_timeout is None else session_idle_timeout
        server: dict[str, Any] = {} if stateless else session_options(limits, "StreamableHTTPSessionManager")
        from .. import _oxmcp
        from .._asgi import AsgiApp

        _oxmcp.check_listen_options({**self._core.options, **server}, listen)
        self._core.options.update(server)
        self._core._mount_options(listen)
        self._endpoint = AsgiApp(self._core).serve

    @contextlib.asynccontextmanager
    async def run(self) -> AsyncIterator[None]:
        """Serve for as long as the context is open (the host app's lifespan), within the server's
        lifespan. Once per manager, as the SDK's. On trio (through anyio) the lifespan and the
        requests run on an asyncio loop of the manager's own (``_trio``)."""
        if self._started:
            raise RuntimeError("StreamableHTTPSessionManager .run() can only be called once per instance. "
                               "Create a new instance if you need to run again.")
        self._started = True
        from .._loops import on_asyncio

        lifespan = self._lifespan() if on_asyncio() else _trio.lifespan(self)
        async with lifespan:
            self._serving = True
            logger.info("StreamableHTTP session manager started")
            try:
                yield
            finally:
                logger.info("StreamableHTTP session manager shutting down")
                self._serving = False
                transports = list(self._server_instances.values())
                self._server_instances.clear()
                self._session_owners.clear()
                await _trio.on_loop(self, _terminate_all(transports))

    def _lifespan(self) -> Any:
        """The server's lifespan, entered on the running asyncio loop."""
        import asyncio

        enter = getattr(self.app, "_running", None)
        return enter(asyncio.get_running_loop()) if enter is not None else contextlib.nullcontext()

    async def handle_request(self, scope: Any, receive: Any, send: Any) -> None:
        """The ASGI app of the endpoint: the core answers each request (within ``run()``)."""
        if not self._serving:
            raise RuntimeError("Task group is not initialized. Make sure to use run().")
        if self._loop_thread is not None:
            await _trio.handle(self, scope, receive, send)
            return
        await self._handle(scope, receive, send)

    async def _handle(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await self._endpoint(scope, receive, send, {})
            return
        session_id = _header(scope, MCP_SESSION_ID_HEADER)
        answer = _SdkAnswer(send, scope.get("method", ""), opening=session_id is None and not self.stateless,
                            json_response=self.json_response)
        if self.stateless or session_id is None:
            await self._serve_new(scope, receive, answer)
            return
        transport = self._server_instances.get(session_id)
        if transport is not None:
            await transport.handle_request(scope, receive, answer.send)
        else:
            await self._endpoint(scope, receive, answer.send, {})
        if answer.status == 404:
            logger.info(f"Rejected request with unknown or expired session ID: {session_id[:64]}")
            # The core answers 404 to its owner only once the session is gone (to anyone else it
            # answers the same, and the session lives on).
            if transport is not None and self._session_owners.get(session_id) == _caller(scope):
                await self._discard(session_id)
        elif transport is not None and scope.get("method") == "DELETE" and answer.status is not None \
                and answer.status < 300:
            await self._discard(session_id)

    asgi_app = handle_request

    async def _serve_new(self, scope: Any, receive: Any, answer: _SdkAnswer) -> None:
        """A request without a session: stateless, or one that may open a session (an initialize the
        core accepts). Its transport is kept only if the core opened a session; otherwise it ends
        with the request, however the request ends."""
        transport = StreamableHTTPServerTransport(
            mcp_session_id=None, is_json_response_enabled=self.json_response,
            event_store=None if self.stateless else self.event_store, security_settings=self.security_settings,
            retry_interval=self.retry_interval,
            idle_timeout=None if self.stateless else self.session_idle_timeout)
        transport._endpoint = self._endpoint
        kept = False
        try:
            await transport.handle_request(scope, receive, answer.send)
            if answer.status == 503 and answer.opening:
                logger.warning("Refusing to open a new session: %d sessions are already open",
                               len(self._server_instances))
            session_id = answer.session_id
            if not self.stateless and session_id and answer.status is not None and answer.status < 400:
                transport.mcp_session_id = session_id
                self._server_instances[session_id] = transport
                caller = _caller(scope)
                if caller is not None:
                    self._session_owners[session_id] = caller
                logger.info(f"Created new transport with session ID: {session_id}")
                kept = True
        finally:
            if not kept:
                await transport.terminate()

    async def _discard(self, session_id: str) -> None:
        """Forget a session the core has ended, and end its transport."""
        self._session_owners.pop(session_id, None)
        transport = self._server_instances.pop(session_id, None)
        if transport is not None and not transport.is_terminated:
            await transport.terminate()


async def _terminate_all(transports: list[StreamableHTTPServerTransport]) -> None:
    for transport in transports:
        await transport.terminate()


class StreamableHTTPASGIApp:
    """The SDK's ASGI app around a session manager."""

    def __init__(self, session_manager: StreamableHTTPSessionManager) -> None:
        self.session_manager = session_manager

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.session_manager.asgi_app(scope, receive, send)


def _header(scope: Any, name: str) -> str | None:
    key = name.encode("latin-1")
    for k, v in scope.get("headers", ()):
        if k.lower() == key:
            return str(v.decode("latin-1"))
    return None


def _caller(scope: Any) -> Any:
    """The caller the host app authenticated, as the core binds sessions to it."""
    from .._asgi import host_caller

    return host_caller(scope)


class _SdkAnswer:
    """Relays the core's answer to ``send``, noting its status and session ID, with the core's refusals
    worded as the SDK words them (``_sdk_answer``)."""

    def __init__(self, send: Any, method: str, *, opening: bool, json_response: bool) -> None:
        self._send = send
        self.method = method
        self.opening = opening
        self.json_response = json_response
        self.status: int | None = None
        self.session_id: str | None = None
        self._held: dict[str, Any] | None = None

    async def send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            headers = message.get("headers", [])
            self.session_id = next((v.decode("latin-1") for k, v in headers
                                    if k.lower() == MCP_SESSION_ID_HEADER.encode()), None)
            if self.status >= 400:
                self._held = message  # the body decides its wording
                return
        elif message["type"] == "http.response.body" and self._held is not None:
            start, self._held = self._held, None
            status, headers, body = _sdk_answer(start["status"], list(start.get("headers", [])),
                                                message.get("body", b""), self)
            await self._send({**start, "status": status, "headers": headers})
            message = {**message, "body": body}
            self.status = status
        await self._send(message)


_PLAIN: Final = [(b"content-type", b"text/plain; charset=utf-8")]

#: The core's guard refusals (status, JSON-RPC message) and the SDK's answer to the same request.
_GUARD: Final = {
    (403, "Forbidden: Host not allowed"): (421, b"Invalid Host header"),
    (403, "Forbidden: Origin not allowed"): (403, b"Invalid Origin header"),
}


def _sdk_answer(status: int, headers: list[tuple[bytes, bytes]], body: bytes,
                answer: _SdkAnswer) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """The SDK's status and body for a refusal of the core (``status``/``headers``/``body``)."""
    if answer.opening and status == 405 and answer.method in ("GET", "DELETE"):
        # A stateful endpoint's stream or session end without a session to name.
        return 400, [(b"content-type", b"application/json")], _error(None, _INVALID_REQUEST,
                                                                    "Bad Request: Missing session ID")
    if not any(k.lower() == b"content-type" and v.startswith(b"application/json") for k, v in headers):
        return status, headers, body
    try:
        message = json.loads(body)
    except ValueError:
        return status, headers, body
    error = message.get("error") if isinstance(message, dict) else None
    if not isinstance(error, dict):
        return status, headers, body
    text = error.get("message")
    guard = _GUARD.get((status, str(text)))
    if guard is not None:
        return guard[0], _PLAIN, guard[1]
    if status == 415:
        return 400, _PLAIN, b"Invalid Content-Type header"
    msg_id = message.get("id")
    if answer.opening:
        if status == 400 and error.get("code") == _INVALID_REQUEST and "Mcp-Session-Id" in str(text):
            status, error = 400, {"code": _INVALID_REQUEST, "message": "Bad Request: Missing session ID"}
            msg_id = None
        elif status == 503 and error.get("code") == _INTERNAL_ERROR:
            # The session cap; the SDK refuses before it reads the body, so without the request's id.
            error, msg_id = {"code": _INTERNAL_ERROR, "message": "Too many open sessions"}, None
    if status == 406 and not answer.json_response:
        error = {**error, "message": "Not Acceptable: Client must accept both application/json and "
                                     "text/event-stream"}
    elif status == 405 and answer.method not in ("GET", "POST", "DELETE"):
        error = {**error, "message": "Method Not Allowed"}
    kept = [(k, v) for k, v in headers if k.lower() != b"content-length"]
    return status, kept, _error(msg_id, error.get("code"), error.get("message"), error.get("data"))


def _error(msg_id: Any, code: Any, message: Any, data: Any = None) -> bytes:
    """A JSON-RPC error response in the SDK's shape: ``id`` always present (null when unknown)."""
    error = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return json.dumps({"jsonrpc": "2.0", "id": msg_id, "error": error}, separators=(",", ":")).encode()
