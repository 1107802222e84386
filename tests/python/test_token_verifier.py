"""``MCPServer(auth=AuthSettings(...), token_verifier=...)`` over real HTTP: the server's own
verifier is asked about each bearer token, the core decides (expiry, the resource the token was
issued for, the scopes every request needs) and answers as the ``mcp`` SDK does: 401
``invalid_token`` "Authentication required" and 403 "Required scope: ..." pointing at the RFC 9728
metadata the core serves. The verifier is trusted for what it returns, and for nothing more."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from test_security import call, start, stop, tool

APP = Path(__file__).resolve().parent / "apps" / "verified.py"


@pytest.fixture(scope="module")
def port() -> Any:
    proc, port = start(app=APP)
    try:
        yield port
    finally:
        stop(proc)


def metadata_url(port: int) -> str:
    return f"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp"


def test_the_metadata_document(port: int) -> None:
    with urllib.request.urlopen(metadata_url(port), timeout=10) as r:
        assert json.loads(r.read()) == {"resource": f"http://127.0.0.1:{port}/mcp",
                                        "authorization_servers": ["https://auth.example.com/"],
                                        "scopes_supported": ["notes:read"], "bearer_methods_supported": ["header"]}


def test_a_valid_token_is_served_with_what_the_verifier_granted(port: int) -> None:
    r = tool(port, "whoami", "good")
    assert r.status == 200
    # The verifier's claims cannot rename the client it reported.
    assert r.json()["result"]["structuredContent"] == {
        "client_id": "app", "scopes": ["notes:read"], "subject": "alice", "resource": f"http://127.0.0.1:{port}/mcp",
        "iss": "https://auth.example.com"}
    assert tool(port, "whoami", "wide").json()["result"]["structuredContent"]["scopes"] == ["notes:read", "notes:write"]


@pytest.mark.parametrize("token", [None, "unknown", "expired", "elsewhere", "no-resource", "crash"])
def test_refused_tokens_get_the_sdk_401(port: int, token: str | None) -> None:
    r = tool(port, "whoami", token)  # type: ignore[arg-type]
    assert r.status == 401
    assert json.loads(r.body) == {"error": "invalid_token", "error_description": "Authentication required"}
    assert r.headers["www-authenticate"] == (
        f'Bearer error="invalid_token", error_description="Authentication required", '
        f'resource_metadata="{metadata_url(port)}"')


def test_a_token_without_the_required_scope_gets_403(port: int) -> None:
    r = call(port, "tools/list", token="no-scope")
    assert r.status == 403
    assert json.loads(r.body) == {"error": "insufficient_scope", "error_description": "Required scope: notes:read"}
    assert r.headers["www-authenticate"] == (
        f'Bearer error="insufficient_scope", error_description="Required scope: notes:read", '
        f'resource_metadata="{metadata_url(port)}"')


def test_the_settings_travel_together() -> None:
    from pydantic import AnyHttpUrl

    from oxmcp import MCPServer
    from oxmcp.server.auth.settings import AuthSettings

    class V:
        async def verify_token(self, token: str) -> None:
            return None

    with pytest.raises(ValueError, match="without auth settings"):
        MCPServer("x", token_verifier=V())
    settings = AuthSettings(issuer_url=AnyHttpUrl("https://as.example"), resource_server_url=None)
    with pytest.raises(ValueError, match="Must specify either"):
        MCPServer("x", auth=settings)
    with pytest.raises(TypeError, match="hosts no OAuth authorization server"):
        MCPServer("x", auth=settings, auth_server_provider=object())
