"""ASGI 3 mount: each HTTP request goes through the core's transport-neutral handler."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]



class AsgiApp:
    """``server.asgi_app()``: mount at a route of Starlette/FastAPI (``Mount("/mcp", app=...)``)."""

    def __init__(self, server: Any, path: str = "/mcp", routed: bool = False) -> None:
        self.server = server
        self.path = path
        # Routed (the HTTP+SSE app): the core picks the stream or the messages path from the
        # request's path under the mount; the endpoint event is then given the mount's prefix.
        self.routed = routed
        #: Called before each HTTP request is served; raises to refuse it (``MCPServer.session_manager``
        #: refuses requests while its ``run()`` is not entered).
        self.gate: Any = None

    def _native(self) -> Any:
        native = self.server._build_native()
        native.set_loop(asyncio.get_running_loop())
        return native

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        from ._loops import answer_on_thread, on_asyncio

        if on_asyncio():
            await self.serve(scope, receive, send)
        else:
            # A trio host (through anyio): the native server needs an asyncio loop to answer on.
            await answer_on_thread(self.server, lambda r, s: self.serve(scope, r, s), receive, send)

    async def serve(self, scope: Scope, receive: Receive, send: Send, streams: dict[int, Any] | None = None) -> None:
        """Answer one ASGI request. ``streams``: where a streamed answer is kept while it is relayed (a
        session's transport closes them when it ends)."""
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    self._native()
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        if self.gate is not None:
            self.gate()
        native = self._native()
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope.get("headers", [])]
        client = scope.get("client")
        peer = (str(client[0]), int(client[1])) if client else None
        # The core admits the request from its head (auth, limits) before its body is read: a
        # request it refuses is answered without reading the body, and the connection closed.
        root = scope.get("root_path", "") if self.routed else ""
        path = None
        if self.routed:
            path = scope.get("path", "")
            if root and path.startswith(root):
                path = path[len(root):]
        admission = await native.admit_http(scope["method"], headers, peer, path, host_caller(scope))
        if isinstance(admission, tuple):
            status, out_headers, out_body, _ = admission
            await send({"type": "http.response.start", "status": status,
                        "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in out_headers]
                        + [(b"connection", b"close")]})
            await send({"type": "http.response.body", "body": out_body or b""})
            return
        body, truncated = await read_capped(receive, admission.max_body_bytes)
        if body is None:
            return
        status, out_headers, out_body, stream = await native.handle_admitted(
            admission, scope["method"], headers, body, scope.get("query_string", b"").decode("latin-1"), peer)
        if truncated:  # the rest of the body is never read: the connection cannot be reused
            out_headers = [*out_headers, ("connection", "close")]
        await relay((status, out_headers, out_body, stream), receive, send, root, streams)


def host_caller(scope: Scope) -> tuple[str, list[str], dict[str, Any] | None] | None:
    """The caller the host app authenticated, as the core takes it (``(name, scopes, claims)``): the
    ``scope["user"]`` its authentication middleware set, when that carries a verified access token
    (the SDK's ``AuthenticatedUser``). The core uses it only where it has no auth of its own, and
    binds the sessions and streams the caller opens to it.

    The SDK's principal is the token's client, issuer and subject: the name is the client id and
    the subject (each percent-encoded, so no two principals share a name), the issuer the ``iss``
    claim the core qualifies the name by."""
    token = getattr(scope.get("user"), "access_token", None)
    client_id = getattr(token, "client_id", None)
    if not isinstance(client_id, str):
        return None
    from urllib.parse import quote

    subject = getattr(token, "subject", None)
    name = quote(client_id, safe="") + ("" if subject is None else ":" + quote(str(subject), safe=""))
    claims = dict(getattr(token, "claims", None) or {})
    if claims.get("iss") is not None:
        claims["iss"] = str(claims["iss"])
    return name, [str(s) for s in getattr(token, "scopes", None) or ()], claims or None


async def read_capped(receive: Receive, limit: int) -> tuple[bytes | None, bool]:
    """A request's body, or its first ``limit`` + 1 bytes: the core, which holds the cap, answers
    those with its 413, and the rest is never read. ``(None, _)``: the client went away. The flag
    says whether bytes were left unread."""
    body = bytearray()
    more = True
    while more and len(body) <= limit:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None, False
        body += message.get("body", b"")
        more = message.get("more_body", False)
    truncated = len(body) > limit
    del body[limit + 1:]
    return bytes(body), truncated


async def relay(answer: tuple[int, list[tuple[str, str]], bytes | None, Any], receive: Receive, send: Send,
                root: str = "", streams: dict[int, Any] | None = None) -> None:
    """Send a core answer ``(status, headers, body, stream)`` as the ASGI response, its stream until it
    ends or the client leaves. ``root``: a mount's prefix, put before the path an endpoint event names.
    ``streams``: holds the stream while it is relayed."""
    status, out_headers, out_body, stream = answer
    await send({"type": "http.response.start", "status": status,
                "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in out_headers]})
    if stream is None:
        await send({"type": "http.response.body", "body": out_body or b""})
        return
    disconnected = asyncio.ensure_future(_wait_disconnect(receive))
    if streams is not None:
        streams[id(stream)] = stream
    try:
        while True:
            nxt = asyncio.ensure_future(stream.next())
            await asyncio.wait({nxt, disconnected}, return_when=asyncio.FIRST_COMPLETED)
            if disconnected.done():
                nxt.cancel()
                await stream.close()  # the core sees the client leave and cancels the request
                return
            chunk = nxt.result()
            if chunk is None:
                break
            if root and chunk.startswith(b"event: endpoint\ndata: /"):
                chunk = chunk.replace(b"data: ", b"data: " + root.encode("latin-1"), 1)
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b""})
    finally:
        disconnected.cancel()
        if streams is not None:
            streams.pop(id(stream), None)


async def _wait_disconnect(receive: Receive) -> None:
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return
