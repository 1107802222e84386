"""``mcp.server.sse.SseServerTransport``: the 2024-11-05 HTTP+SSE transport for a low-level server, routed
by the host app as the SDK's docs show::

    sse = SseServerTransport("/messages/")

    async def handle_sse(request):
        async with sse.connect_sse(request.scope, request.receive, request._send) as streams:
            await server.run(streams[0], streams[1], server.create_initialization_options())
        return Response()

    app = Starlette(routes=[Route("/sse", endpoint=handle_sse, methods=["GET"]),
                            Mount("/messages/", app=sse.handle_post_message)])

The streams are the Rust core's (its HTTP+SSE transport: admission, the endpoint event, the session,
where every answer goes), so ``connect_sse`` yields tokens: ``server.run(read, write, options)`` opens
the stream on the core and relays it until the client leaves. ``handle_post_message`` hands each POST
to the core, which answers 202 (its answer goes down the stream) or its refusal.

Before the core, each request passes the SDK's checks in the SDK's order, each decided by the core's
rule (``TransportSecurityMiddleware``): the body limit (413), then the POST's ``Content-Type`` (400),
``Host`` (421) and ``Origin`` (403) against the settings' allow-lists, then the ``session_id`` (400).
Refusals carry the SDK's texts (``Could not find session``, ...).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import parse_qs, quote
from uuid import UUID

from .._asgi import Receive, Scope, Send, host_caller, read_capped, relay
from .transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE, RequestBodyLimitMiddleware, TransportSecurityMiddleware

__all__ = ["SseServerTransport", "SseStream"]


class _Connection:
    """One ``connect_sse``: the GET it answers, and the stream id its endpoint event names."""

    def __init__(self, transport: SseServerTransport, scope: Scope, receive: Receive, send: Send,
                 stream_id: str, endpoint: str) -> None:
        self.transport = transport
        self.scope = scope
        self.receive = receive
        self.send = send
        self.id = stream_id
        self.endpoint = endpoint
        self.core: Any = None

    async def serve(self, core: Any) -> None:
        """Open the stream on ``core``'s native server and relay it to the GET until it ends."""
        self.core = core
        await _answer(core, self._serve, self.receive, self.send)

    async def _serve(self, receive: Receive, send: Send) -> None:
        import asyncio

        native = self.core._build_native()
        native.set_loop(asyncio.get_running_loop())
        answer = await native.sse_open(_headers(self.scope), self.id, self.endpoint, _peer(self.scope),
                                       host_caller(self.scope))
        await relay(answer, receive, send)


class SseStream:
    """A token standing for one side of a ``connect_sse`` stream; only ``Server.run`` consumes it."""

    def __init__(self, kind: str, connection: _Connection) -> None:
        self.kind = kind
        self.connection = connection

    def __repr__(self) -> str:
        return f"<oxmcp sse {self.kind} {self.connection.id}>"


class SseServerTransport:
    """The SDK's ``SseServerTransport(endpoint, security_settings=None, max_request_body_size=...)``.

    ``security_settings``' ``allowed_hosts``/``allowed_origins`` and ``max_request_body_size`` become the
    server's listener options (``allowed_hosts``, ``allowed_origins``, ``max_body_bytes``) when a stream is
    first served for it, before the server starts: the core applies them to every stream and POST."""

    def __init__(self, endpoint: str, security_settings: Any = None,
                 max_request_body_size: int | None = None) -> None:
        if "://" in endpoint or endpoint.startswith("//") or "?" in endpoint or "#" in endpoint:
            raise ValueError(f"Given endpoint: {endpoint} is not a relative path (e.g., '/messages/'), "
                             "expecting a relative path (e.g., '/messages/').")
        if max_request_body_size is not None and max_request_body_size <= 0:
            raise ValueError("max_request_body_size must be a positive number of bytes")
        self._endpoint = endpoint if endpoint.startswith("/") else "/" + endpoint
        self._security = TransportSecurityMiddleware(security_settings)
        self._post_app = RequestBodyLimitMiddleware(self._post,
                                                    max_request_body_size or DEFAULT_MAX_REQUEST_BODY_SIZE)
        options: dict[str, Any] = {}
        hosts = getattr(security_settings, "allowed_hosts", None)
        origins = getattr(security_settings, "allowed_origins", None)
        if hosts:
            options["allowed_hosts"] = list(hosts)
        if origins:
            options["allowed_origins"] = list(origins)
        if max_request_body_size is not None:
            options["max_body_bytes"] = max_request_body_size
        self._options = options
        self._streams: dict[str, _Connection] = {}
        # The servers streams were served for: a POST goes to its stream's, or (a stream that is gone,
        # no or a bad session_id) to the first, whose core answers the refusal.
        self._cores: list[Any] = []

    def _bind(self, core: Any) -> None:
        """``core`` serves this transport's streams: its options are applied once, before it starts."""
        if any(c is core for c in self._cores):
            return
        if self._options:
            core._mount_options(self._options)
        self._cores.append(core)

    @contextlib.asynccontextmanager
    async def connect_sse(self, scope: Scope, receive: Receive, send: Send) -> AsyncIterator[tuple[SseStream, SseStream]]:
        if scope["type"] != "http":
            raise ValueError("connect_sse can only handle HTTP requests")
        from starlette.requests import Request

        from .. import _oxmcp

        refusal = await self._security.validate_request(Request(scope, receive), is_post=False)
        if refusal is not None:
            await refusal(scope, receive, send)
            raise ValueError("Request validation failed")

        stream_id = _oxmcp.NativeServer.sse_session_id()
        root = scope.get("root_path", "")
        endpoint = f"{quote(root.rstrip('/') + self._endpoint)}?session_id={stream_id}"
        connection = _Connection(self, scope, receive, send, stream_id, endpoint)
        self._streams[stream_id] = connection
        try:
            yield SseStream("read", connection), SseStream("write", connection)
        finally:
            self._streams.pop(stream_id, None)

    async def handle_post_message(self, scope: Scope, receive: Receive, send: Send) -> None:
        """ASGI app for the messages path: the core answers 202 (the answer goes down the stream), or
        its refusal (400 no session_id or a bad body, 404 unknown session, 413, 415, ...)."""
        if scope["method"] != "POST":
            await send({"type": "http.response.start", "status": 405, "headers": [(b"allow", b"POST")]})
            await send({"type": "http.response.body", "body": b""})
            return
        await self._post_app(scope, receive, send)

    async def _post(self, scope: Scope, receive: Receive, send: Send) -> None:
        from starlette.requests import Request

        refusal = await self._security.validate_request(Request(scope, receive), is_post=True)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        query = scope.get("query_string", b"").decode("latin-1")
        named = parse_qs(query).get("session_id")
        if not named:
            await _text(scope, receive, send, 400, "session_id is required")
            return
        try:
            UUID(hex=named[0])
        except ValueError:
            await _text(scope, receive, send, 400, "Invalid session ID")
            return
        connection = self._streams.get(named[0])
        core = connection.core if connection is not None and connection.core is not None else \
            (self._cores[0] if self._cores else None)
        if core is None:
            # No stream was ever served by this transport, so none can be named: no core to ask.
            await _text(scope, receive, send, 404, "Could not find session")
            return
        await _answer(core, lambda r, s: self._answer_post(core, scope, r, s), receive, send)

    @staticmethod
    async def _answer_post(core: Any, scope: Scope, receive: Receive, send: Send) -> None:
        import asyncio

        native = core._build_native()
        native.set_loop(asyncio.get_running_loop())
        query = scope.get("query_string", b"").decode("latin-1")
        data, truncated = await read_capped(receive, native.sse_max_body_bytes())
        if data is None:
            return
        status, headers, out, stream = await native.sse_post(_headers(scope), data, query, _peer(scope),
                                                             host_caller(scope))
        if status in _SDK_TEXTS and stream is None:
            # The core's refusal (or acceptance), in the SDK's words.
            headers, out = [("content-type", "text/plain; charset=utf-8")], _SDK_TEXTS[status]
        if truncated:  # the rest of the body is never read: the connection cannot be reused
            headers = [*headers, ("connection", "close")]
        await relay((status, headers, out, stream), receive, send)


#: The SDK's texts for the core's answers to a POSTed message.
_SDK_TEXTS = {202: b"Accepted", 400: b"Could not parse message", 404: b"Could not find session",
              413: b"Request body too large"}


async def _text(scope: Scope, receive: Receive, send: Send, status: int, text: str) -> None:
    from starlette.responses import Response

    respond: Any = Response(text, status_code=status)
    await respond(scope, receive, send)


async def _answer(core: Any, answer: Any, receive: Receive, send: Send) -> None:
    """``answer(receive, send)`` on the caller's asyncio loop or, for a trio caller (through anyio), on
    the server's own (the native server completes its futures on an asyncio loop)."""
    from .._loops import answer_on_thread, on_asyncio

    if on_asyncio():
        await answer(receive, send)
    else:
        await answer_on_thread(core, answer, receive, send)


def _headers(scope: Scope) -> list[tuple[str, str]]:
    return [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope.get("headers", [])]


def _peer(scope: Scope) -> tuple[str, int] | None:
    client = scope.get("client")
    return (str(client[0]), int(client[1])) if client else None
