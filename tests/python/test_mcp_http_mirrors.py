"""The ``mcp`` SDK's HTTP mirrors over the real core: ``StreamableHTTPSessionManager`` and
``SseServerTransport`` under a host app that authenticates requests itself (its ``scope["user"]``
binds the sessions the core opens), the manager's settings, and ``mcp_types.version``."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from oxmcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from oxmcp.server.auth.provider import AccessToken
from oxmcp.server.lowlevel import Server
from oxmcp.server.sse import SseServerTransport
from oxmcp.server.streamable_http_manager import StreamableHTTPSessionManager
from oxmcp.types import version

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
PING = {"jsonrpc": "2.0", "id": 2, "method": "ping"}


def _user(client_id: str, subject: str | None = None, issuer: str | None = None) -> AuthenticatedUser:
    claims = {"iss": issuer} if issuer else None
    return AuthenticatedUser(AccessToken(token="t", client_id=client_id, scopes=[], subject=subject, claims=claims))


async def _call(app: Any, method: str, path: str, body: Any = None, *, user: AuthenticatedUser | None = None,
                session: str | None = None, query: str = "") -> tuple[int, dict[str, str], bytes]:
    """One request through the ASGI app, as a host whose authentication middleware set ``user``."""
    headers = [(b"content-type", b"application/json"), (b"accept", b"application/json, text/event-stream"),
               (b"host", b"127.0.0.1")]
    if session:
        headers.append((b"mcp-session-id", session.encode()))
    scope: dict[str, Any] = {"type": "http", "method": method, "path": path, "root_path": "", "headers": headers,
                             "query_string": query.encode()}
    if user is not None:
        scope["user"] = user
    data = json.dumps(body).encode() if body is not None else b""
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": data, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    out = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], {k.decode(): v.decode() for k, v in start["headers"]}, out


async def test_a_session_serves_only_the_principal_that_opened_it() -> None:
    manager = StreamableHTTPSessionManager(Server("owners"), json_response=True)
    alice = _user("client-a", "alice", "https://issuer.one")
    async with manager.run():
        status, headers, _ = await _call(manager.handle_request, "POST", "/mcp", INIT, user=alice)
        assert status == 200
        sid = headers["mcp-session-id"]
        assert (await _call(manager.handle_request, "POST", "/mcp", PING, user=alice, session=sid))[0] == 200
        for other in (_user("client-a", "bob", "https://issuer.one"), _user("client-a", "alice", "https://issuer.two"),
                      _user("client-a"), _user("client-b", "alice", "https://issuer.one"), None):
            status, _, body = await _call(manager.handle_request, "POST", "/mcp", PING, user=other, session=sid)
            assert status == 404, (other, body)
        # An anonymous session is not an authenticated caller's either.
        status, headers, _ = await _call(manager.handle_request, "POST", "/mcp", INIT)
        anon = headers["mcp-session-id"]
        assert (await _call(manager.handle_request, "POST", "/mcp", PING, user=alice, session=anon))[0] == 404
        assert (await _call(manager.handle_request, "POST", "/mcp", PING, session=anon))[0] == 200


async def test_an_sse_stream_takes_messages_only_from_its_principal() -> None:
    import asyncio

    server = Server("sse-owners")
    sse = SseServerTransport("/messages/")
    alice = _user("client-a", "alice")
    endpoint: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    gone = asyncio.Event()

    async def get_send(message: dict[str, Any]) -> None:
        found = re.search(rb"session_id=([0-9a-f]{32})", message.get("body", b""))
        if found and not endpoint.done():
            endpoint.set_result(found.group(1).decode())

    async def get_receive() -> dict[str, Any]:
        await gone.wait()
        return {"type": "http.disconnect"}

    async def hold() -> None:
        scope = {"type": "http", "method": "GET", "path": "/sse", "root_path": "", "query_string": b"",
                 "headers": [(b"host", b"127.0.0.1")], "user": alice}
        async with sse.connect_sse(scope, get_receive, get_send) as (read, write):
            await server.run(read, write, server.create_initialization_options())

    task = asyncio.ensure_future(hold())
    try:
        sid = await asyncio.wait_for(endpoint, 10)
        post = sse.handle_post_message
        assert (await _call(post, "POST", "/messages/", PING, user=_user("client-b"), query=f"session_id={sid}"))[0] == 404
        assert (await _call(post, "POST", "/messages/", PING, query=f"session_id={sid}"))[0] == 404
        assert (await _call(post, "POST", "/messages/", PING, user=alice, query=f"session_id={sid}"))[0] == 202
    finally:
        gone.set()
        await asyncio.wait_for(task, 10)


async def test_the_manager_runs_once_and_serves_only_while_running() -> None:
    manager = StreamableHTTPSessionManager(Server("once"))
    with pytest.raises(RuntimeError, match="Make sure to use run"):
        await _call(manager.handle_request, "POST", "/mcp", INIT)
    async with manager.run():
        assert (await _call(manager.asgi_app, "POST", "/mcp", INIT))[0] == 200
    with pytest.raises(RuntimeError, match="can only be called once"):
        async with manager.run():
            pass


@pytest.mark.parametrize(("kw", "text"), [
    ({"max_request_body_size": 0}, "max_request_body_size must be a positive number of bytes"),
    ({"max_sessions": 0}, "max_sessions must be a positive number"),
    ({"session_idle_timeout": float("inf")}, "session_idle_timeout must be a positive, finite number"),
])
def test_the_manager_refuses_settings_the_core_cannot_honour(kw: dict[str, Any], text: str) -> None:
    with pytest.raises(ValueError, match=re.escape(text)):
        StreamableHTTPSessionManager(Server("bad"), **kw)


async def test_the_manager_settings_are_the_mount_options() -> None:
    manager = StreamableHTTPSessionManager(Server("caps"), max_request_body_size=300, max_sessions=1)
    big = {**PING, "params": {"pad": "x" * 400}}
    async with manager.run():
        assert (await _call(manager.handle_request, "POST", "/mcp", big))[0] == 413
        assert (await _call(manager.handle_request, "POST", "/mcp", INIT))[0] == 200
        status, _, body = await _call(manager.handle_request, "POST", "/mcp", INIT)
        assert status == 503, body


async def test_a_body_declared_over_the_cap_is_refused_unread() -> None:
    # The core's admission reads the Content-Length, as the built-in server and the Node mount do.
    manager = StreamableHTTPSessionManager(Server("declared"), max_request_body_size=8)
    read: list[bool] = []

    async def receive() -> dict[str, Any]:
        read.append(True)
        return {"type": "http.request", "body": b"123456789", "more_body": False}

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": [(b"content-length", b"9")]}
    async with manager.run():
        await manager.handle_request(scope, receive, send)
    assert (sent[0]["status"], read, manager._server_instances) == (413, [], {})


def test_no_limit_keeps_the_core_cap_and_lets_sessions_live() -> None:
    server = Server("unbounded")
    manager = StreamableHTTPSessionManager(server, max_sessions=None, session_idle_timeout=None)
    assert (manager.max_sessions, manager.session_idle_timeout) == (None, None)
    # The core's cap stays (a bound always exists); an unused session lives a year.
    assert "max_sessions" not in server._core.options
    assert server._core.options["session_idle_ms"] == 365 * 24 * 3600 * 1000


async def _raw(app: Any, method: str, headers: dict[str, str], body: bytes = b"") -> tuple[int, dict[str, str], bytes]:
    scope = {"type": "http", "method": method, "path": "/mcp", "root_path": "", "query_string": b"",
             "headers": [(k.encode(), v.encode()) for k, v in headers.items()]}
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    out = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], {k.decode(): v.decode() for k, v in start["headers"]}, out


async def test_the_core_refusals_read_as_the_sdk_words_them() -> None:
    from oxmcp.server.transport_security import TransportSecuritySettings

    manager = StreamableHTTPSessionManager(Server("words"), max_sessions=1, security_settings=TransportSecuritySettings(
        allowed_hosts=["127.0.0.1:*"], allowed_origins=["http://127.0.0.1:8000"]))
    # `127.0.0.1:*` is that host on any explicit port, as in the SDK: a Host with no port is not one.
    base = {"content-type": "application/json", "accept": "application/json, text/event-stream",
            "host": "127.0.0.1:8000"}
    init = json.dumps(INIT).encode()
    async with manager.run():
        assert await _raw(manager.handle_request, "POST", {**base, "host": "evil.com"}, init) == (
            421, {"content-type": "text/plain; charset=utf-8"}, b"Invalid Host header")
        status, _, body = await _raw(manager.handle_request, "POST", {**base, "origin": "http://evil.com"}, init)
        assert (status, body) == (403, b"Invalid Origin header")
        status, _, body = await _raw(manager.handle_request, "POST", {**base, "content-type": "text/plain"}, init)
        assert (status, body) == (400, b"Invalid Content-Type header")
        missing = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Bad Request: Missing session ID"}}
        for method, body in (("GET", b""), ("DELETE", b""), ("POST", json.dumps(PING).encode())):
            status, _, out = await _raw(manager.handle_request, method, base, body)
            assert (status, json.loads(out)) == (400, missing), method
        status, _, out = await _raw(manager.handle_request, "POST", {**base, "mcp-session-id": "gone"}, b"{}")
        assert (status, json.loads(out)) == (404, {"jsonrpc": "2.0", "id": None,
                                                   "error": {"code": -32600, "message": "Session not found"}})
        assert (await _raw(manager.handle_request, "POST", base, init))[0] == 200
        status, _, out = await _raw(manager.handle_request, "POST", base, init)
        assert (status, json.loads(out)) == (503, {"jsonrpc": "2.0", "id": None, "error": {
            "code": -32603, "message": "Too many open sessions"}})


async def test_the_manager_holds_a_transport_per_session_it_opened() -> None:
    manager = StreamableHTTPSessionManager(Server("tracked"))
    async with manager.run():
        _, headers, _ = await _call(manager.handle_request, "POST", "/mcp", INIT)
        sid = headers["mcp-session-id"]
        transport = manager._server_instances[sid]
        assert (transport.mcp_session_id, transport.is_terminated) == (sid, False)
        # A refused opening request leaves nothing behind.
        await _call(manager.handle_request, "POST", "/mcp", PING)
        assert list(manager._server_instances) == [sid]
        # Another caller's 404 does not end the session; its owner's DELETE does.
        assert (await _call(manager.handle_request, "POST", "/mcp", PING, user=_user("x"), session=sid))[0] == 404
        assert list(manager._server_instances) == [sid]
        assert (await _call(manager.handle_request, "DELETE", "/mcp", session=sid))[0] == 200
        assert manager._server_instances == {} and transport.is_terminated
        assert (await _call(manager.handle_request, "POST", "/mcp", PING, session=sid))[0] == 404


async def test_the_version_lists_are_the_revisions_the_core_serves() -> None:
    manager = StreamableHTTPSessionManager(Server("versions"), stateless=True)
    async with manager.run():
        for v in version.HANDSHAKE_PROTOCOL_VERSIONS:
            _, _, body = await _call(manager.handle_request, "POST", "/mcp",
                                     {**INIT, "params": {**INIT["params"], "protocolVersion": v}})
            assert json.loads(body)["result"]["protocolVersion"] == v
        _, _, body = await _call(manager.handle_request, "POST", "/mcp",
                                 {**INIT, "params": {**INIT["params"], "protocolVersion": "1999-01-01"}})
        assert json.loads(body)["result"]["protocolVersion"] == version.LATEST_HANDSHAKE_VERSION
    assert version.LATEST_MODERN_VERSION == "2026-07-28"
    assert version.is_version_at_least("2025-11-25", "2025-06-18")
    assert not version.is_version_at_least("zzz", "2024-11-05")
