"""The ``mcp`` SDK's transport-security shapes on the core's rules: ``TransportSecurityMiddleware``'s
allow-lists (exact entries, ``host:*`` and ``scheme://host:*`` for any port), the listener's guard
with the same any-port entries, and ``SseServerTransport``'s refusals over real HTTP in the SDK's
order and words."""

from __future__ import annotations

import asyncio
import http.client
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from procs import free_port


def _request(host: str | None, origin: str | None = None, content_type: str | None = None) -> Any:
    from starlette.requests import Request

    headers = [(k.encode(), v.encode()) for k, v in
               (("host", host), ("origin", origin), ("content-type", content_type)) if v is not None]
    return Request({"type": "http", "method": "GET", "headers": headers})


def test_the_middleware_decides_by_the_cores_allow_list_rule() -> None:
    from oxmcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings

    settings = TransportSecuritySettings(allowed_hosts=["good.example", "wild.example:*"],
                                         allowed_origins=["http://good.example", "http://wild.example:*"])
    middleware = TransportSecurityMiddleware(settings)

    def status(host: str | None, origin: str | None = None, ct: str | None = None, post: bool = False) -> Any:
        response = asyncio.run(middleware.validate_request(_request(host, origin, ct), is_post=post))
        return None if response is None else (response.status_code, response.body.decode())

    assert status(None) == (421, "Invalid Host header")
    assert status("good.example") is None
    # An entry without a port names the host sent without one; `:*` any explicit port.
    assert status("good.example:9000") == (421, "Invalid Host header")
    assert status("wild.example:9000") is None
    assert status("wild.example") == (421, "Invalid Host header")
    assert status("wild.example.evil:9000") == (421, "Invalid Host header")
    assert status("good.example", "http://wild.example:9000") is None
    assert status("good.example", "https://wild.example:9000") == (403, "Invalid Origin header")
    assert status("good.example", "http://evil.example") == (403, "Invalid Origin header")
    # A POST's body must be JSON, whatever the Host rules.
    assert status("good.example", ct="application/json; charset=utf-8", post=True) is None
    assert status("good.example", ct="text/plain", post=True) == (400, "Invalid Content-Type header")
    assert status("good.example", post=True) == (400, "Invalid Content-Type header")
    # No settings: no Host or Origin check (the SDK's default for a bare middleware).
    assert asyncio.run(TransportSecurityMiddleware().validate_request(_request("evil.example"))) is None


def test_the_body_limit_middleware_answers_413_before_the_app() -> None:
    from oxmcp.server.transport_security import RequestBodyLimitMiddleware

    seen: list[Any] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append(await receive())

    async def run(chunks: list[bytes]) -> list[Any]:
        sent: list[Any] = []
        queue = [{"type": "http.request", "body": c, "more_body": i < len(chunks) - 1} for i, c in enumerate(chunks)]

        async def receive() -> Any:
            return queue.pop(0)

        async def send(message: Any) -> None:
            sent.append(message)

        await RequestBodyLimitMiddleware(app, 8)({"type": "http", "method": "POST", "headers": []}, receive, send)
        return sent

    sent = asyncio.run(run([b"1234", b"56789"]))
    assert [m["status"] for m in sent if m["type"] == "http.response.start"] == [413]
    assert seen == []
    assert asyncio.run(run([b"12", b"34"])) == []
    assert seen == [{"type": "http.request", "body": b"1234", "more_body": False}]


@contextmanager
def _serve(app: Any) -> Iterator[int]:
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(10)


def _exchange(port: int, method: str, path: str, headers: dict[str, str], body: bytes = b"") -> tuple[int, bytes]:
    """One request; for an SSE stream, the status and its first chunk."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.putrequest(method, path, skip_host="Host" in headers)
        for k, v in headers.items():
            conn.putheader(k, v)
        conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        resp = conn.getresponse()
        first = resp.read1(4096) if resp.getheader("content-type", "").startswith("text/event-stream") else resp.read()
        return resp.status, first
    finally:
        conn.close()


def test_sse_transport_refuses_as_the_sdk_over_http() -> None:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Mount, Route

    from oxmcp.server.lowlevel import Server
    from oxmcp.server.sse import SseServerTransport
    from oxmcp.server.transport_security import TransportSecuritySettings

    server = Server("guarded")
    settings = TransportSecuritySettings(allowed_hosts=["127.0.0.1:*", "localhost:*"],
                                         allowed_origins=["http://localhost:*"])
    sse = SseServerTransport("/messages/", settings, max_request_body_size=64)

    async def handle_sse(request: Request) -> Response:
        try:
            async with sse.connect_sse(request.scope, request.receive, request._send) as streams:
                await server.run(streams[0], streams[1], server.create_initialization_options())
        except ValueError:
            pass  # connect_sse answered the refusal itself
        return Response()

    app = Starlette(routes=[Route("/sse", endpoint=handle_sse), Mount("/messages/", app=sse.handle_post_message)])
    with _serve(app) as port:
        status, first = _exchange(port, "GET", "/sse", {"Host": "localhost:4321", "Origin": "http://localhost:9"})
        assert status == 200 and first.startswith(b"event: endpoint")
        assert _exchange(port, "GET", "/sse", {"Host": "evil.example"}) == (421, b"Invalid Host header")
        assert _exchange(port, "GET", "/sse", {"Origin": "http://evil.example:9"}) == (403, b"Invalid Origin header")
        session = "ab" * 16
        json_type = {"Content-Type": "application/json"}
        assert _exchange(port, "POST", f"/messages/?session_id={session}", {"Content-Type": "text/plain"},
                         b"{}") == (400, b"Invalid Content-Type header")
        assert _exchange(port, "POST", f"/messages/?session_id={session}", json_type,
                         b"x" * 65) == (413, b"Request body too large")
        assert _exchange(port, "POST", f"/messages/?session_id={session}", json_type,
                         b"{}") == (404, b"Could not find session")


def test_the_listener_guard_takes_any_port_entries() -> None:
    """The core's own guard (an oxmcp server's ``allowed_hosts`` / ``allowed_origins``) reads ``host:*``
    and ``scheme://host:*`` as the SDK does: that host on any explicit port."""
    import oxmcp

    app = oxmcp.Server("ports")

    @app.tool()
    def ping() -> str:
        return "pong"

    asgi = app.asgi_app(allowed_hosts=["api.example:*"], allowed_origins=["https://ui.example:*"])
    init = (b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
            b'"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}')
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    with _serve(asgi) as port:
        def status(host: str, origin: str | None = None) -> int:
            extra = {"Host": host} | ({"Origin": origin} if origin else {})
            return _exchange(port, "POST", "/mcp", headers | extra, init)[0]

        assert status("api.example:8443") == 200
        assert status("api.example") == 403
        assert status("api.example:8443", "https://ui.example:3000") == 200
        assert status("api.example:8443", "http://ui.example:3000") == 403
        assert status("api.example:8443", "https://ui.example") == 403
