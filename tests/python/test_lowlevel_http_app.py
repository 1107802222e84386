"""The low-level ``Server.streamable_http_app(**kw)``: each SDK keyword reaches the core's mount
or is refused; none is dropped."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from oxmcp.server.lowlevel import Server

HEADERS = {"accept": "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28",
           "mcp-method": "tools/list"}
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


def test_the_keywords_the_core_honours_reach_the_mount() -> None:
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route
    from starlette.testclient import TestClient

    async def health(request: Any) -> PlainTextResponse:
        return PlainTextResponse("OK")

    server = Server("ll")
    app = server.streamable_http_app(
        max_request_body_size=300, max_sessions=7, session_idle_timeout=1.5, stateless_http=True,
        transport_security=SimpleNamespace(allowed_hosts=["good.example"], allowed_origins=None),
        custom_starlette_routes=[Route("/health", health)], json_response=True, debug=True)
    assert server._core.options["max_sessions"] == 7
    assert server._core.options["session_idle_ms"] == 1500
    assert server._core.options["legacy_stateless"] is True
    assert app.debug is True
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}
    with TestClient(app, base_url="http://good.example") as tc:
        assert tc.get("/health").text == "OK"
        assert tc.post("/mcp", json=body, headers=HEADERS).status_code == 200
        big = tc.post("/mcp", json={**body, "params": {"_meta": META, "pad": "x" * 400}}, headers=HEADERS)
        assert big.status_code == 413, big.text
    with TestClient(app, base_url="http://127.0.0.1") as tc:
        assert tc.post("/mcp", json=body, headers=HEADERS).status_code == 403, "the allowed hosts are the mount's"


@pytest.mark.parametrize(("kw", "error", "text"), [
    ({"auth": object()}, TypeError, "auth= is not supported by oxmcp"),
    ({"token_verifier": object()}, TypeError, "token_verifier= is not supported by oxmcp"),
    ({"no_such_option": 1}, TypeError, "no_such_option"),
    ({"max_sessions": None}, ValueError, "max_sessions=None"),
    ({"session_idle_timeout": None}, ValueError, "session_idle_timeout=None"),
    ({"max_request_body_size": 0}, ValueError, "max_body_bytes"),
    ({"max_sessions": 0}, ValueError, "max_sessions"),
])
def test_what_the_core_cannot_honour_is_refused(kw: dict[str, Any], error: type[Exception], text: str) -> None:
    server = Server("ll")
    with pytest.raises(error, match=text):
        server.streamable_http_app(**kw)
    assert "max_sessions" not in server._core.options, "a refused call changes nothing"
