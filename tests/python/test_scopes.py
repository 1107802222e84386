"""Per-component OAuth scopes from Python over real HTTP: FastMCP's ``auth=require_scopes(...)`` on a
tool, a resource, a template and a prompt; the 403 step-up challenge (the TS SDK's bytes); lists
that show (default) or hide (``hide_out_of_scope``) what a token's scopes do not cover; and the
official Python client's step-up: its client-credentials provider asks a test authorization
server (made here, signing with a test key) for the union of its scopes and the challenged ones,
then retries."""

from __future__ import annotations

import json
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from test_security import call, start, stop, tool

jwt = pytest.importorskip("jwt")

APP = Path(__file__).resolve().parent / "apps" / "scoped.py"
BODY = b'{"error":"insufficient_scope","error_description":"Insufficient scope"}'


class AuthServer:
    """An OAuth authorization server on loopback: RFC 8414 metadata and a client-credentials token
    endpoint issuing RS256 JWTs with the scope asked for; it records each grant's scope."""

    def __init__(self) -> None:
        from cryptography.hazmat.primitives.asymmetric import rsa

        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key()))
        jwk.update(kid="k1", alg="RS256", use="sig")
        self.jwks = {"keys": [jwk]}
        self.granted: list[str] = []
        self.resource = ""
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _json(self, doc: Any) -> None:
                body = json.dumps(doc).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                if self.path.startswith("/.well-known/oauth-authorization-server"):
                    self._json({"issuer": outer.issuer, "token_endpoint": f"{outer.issuer}/token",
                                "authorization_endpoint": f"{outer.issuer}/authorize",
                                "grant_types_supported": ["client_credentials"], "response_types_supported": ["token"],
                                "token_endpoint_auth_methods_supported": ["client_secret_basic"]})
                else:
                    self.send_response(404)
                    self.send_header("content-length", "0")
                    self.end_headers()

            def do_POST(self) -> None:
                form = urllib.parse.parse_qs(self.rfile.read(int(self.headers["content-length"])).decode())
                scope = form.get("scope", [""])[0]
                outer.granted.append(scope)
                self._json({"access_token": outer.token("svc", scope), "token_type": "Bearer",
                            "expires_in": 300, "scope": scope})

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.issuer = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def token(self, sub: str, scope: str) -> str:
        now = int(time.time())
        return str(jwt.encode({"sub": sub, "scope": scope, "aud": self.resource, "iss": self.issuer, "iat": now,
                               "exp": now + 300}, self.key, algorithm="RS256", headers={"kid": "k1"}))


@pytest.fixture(scope="module")
def served() -> Any:
    auth = AuthServer()
    env = {"OXMCP_TEST_ISSUER": auth.issuer, "OXMCP_TEST_JWKS": json.dumps(auth.jwks)}
    proc, port = start(env, APP)
    hidden, hport = start({**env, "OXMCP_TEST_HIDE": "1"}, APP)
    auth.resource = f"http://127.0.0.1:{port}/mcp"
    try:
        yield auth, port, hport
    finally:
        stop(proc)
        stop(hidden)
        auth.httpd.shutdown()


def challenge(port: int, scope: str) -> str:
    return (f'Bearer error="insufficient_scope", error_description="Insufficient scope", scope="{scope}", '
            f'resource_metadata="http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp"')


def test_a_call_without_the_scope_gets_the_challenge_and_with_it_runs(served: Any) -> None:
    auth, port, _ = served
    weak = auth.token("svc", "mcp:tools deploy:read")
    r = tool(port, "deploy", weak)
    assert (r.status, r.headers["www-authenticate"], r.body) == (403, challenge(port, "deploy:run deploy:read"), BODY)
    for method, params in (("resources/read", {"uri": "mem://payroll"}), ("resources/read", {"uri": "mem://hr/7"}),
                           ("prompts/get", {"name": "review"})):
        r = call(port, method, params, weak)
        assert (r.status, r.headers["www-authenticate"], r.body) == (403, challenge(port, "hr:read"), BODY), method
    strong = auth.token("svc", "mcp:tools deploy:run deploy:read hr:read")
    assert tool(port, "deploy", strong).json()["result"]["content"][0]["text"] == "deployed"
    assert call(port, "resources/read", {"uri": "mem://hr/7"}, strong).json()["result"]["contents"][0]["text"] == "person 7"


def lists(port: int, token: str) -> tuple[set[str], set[str], set[str], set[str]]:
    def names(method: str, member: str, key: str) -> set[str]:
        return {e[key] for e in call(port, method, {}, token).json()["result"][member]}
    return (names("tools/list", "tools", "name"), names("resources/list", "resources", "uri"),
            names("resources/templates/list", "resourceTemplates", "uriTemplate"), names("prompts/list", "prompts", "name"))


def test_lists_show_by_default_and_hide_with_the_option(served: Any) -> None:
    auth, port, hport = served
    everything = ({"open_tool", "deploy"}, {"mem://payroll"}, {"mem://hr/{id}"}, {"review"})
    weak = auth.token("svc", "mcp:tools")
    assert lists(port, weak) == everything
    auth.resource = f"http://127.0.0.1:{hport}/mcp"
    try:
        assert lists(hport, auth.token("svc", "mcp:tools")) == ({"open_tool"}, set(), set(), set())
        assert lists(hport, auth.token("svc", "deploy:run deploy:read hr:read")) == everything
        assert tool(hport, "deploy", auth.token("svc", "mcp:tools")).status == 403
    finally:
        auth.resource = f"http://127.0.0.1:{port}/mcp"


async def test_the_official_clients_step_up(served: Any) -> None:
    import httpx2
    from mcp import ClientSession
    from mcp.client.auth import TokenStorage
    from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
    from mcp.client.streamable_http import streamable_http_client

    auth, port, _ = served
    auth.granted.clear()

    class Memory(TokenStorage):
        tokens: Any = None
        info: Any = None

        async def get_tokens(self) -> Any:
            return self.tokens

        async def set_tokens(self, tokens: Any) -> None:
            self.tokens = tokens

        async def get_client_info(self) -> Any:
            return self.info

        async def set_client_info(self, info: Any) -> None:
            self.info = info

    provider = ClientCredentialsOAuthProvider(f"http://127.0.0.1:{port}/mcp", Memory(), "svc", "secret",
                                              scope="mcp:tools", issuer=auth.issuer)
    async with (httpx2.AsyncClient(auth=provider, timeout=20) as http,
                streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http) as (read, write),
                ClientSession(read, write) as session):
        await session.initialize()
        result = await session.call_tool("deploy", {})
        assert result.content[0].text == "deployed"  # type: ignore[union-attr]
    # First the configured scope; on the challenge, its union with the scopes asked for.
    assert auth.granted[0] == "mcp:tools"
    assert set(auth.granted[-1].split()) == {"mcp:tools", "deploy:run", "deploy:read"}, auth.granted
