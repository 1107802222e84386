"""FastMCP's ``StaticTokenVerifier`` (``FastMCP(auth=...)``) is the core's named tokens, over real
HTTP: a token outside it is refused, and a legacy session answers only the client id that opened
it. A setting the core cannot apply is refused when the verifier is built."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest
from procs import start_script, stop

SERVER = """
import sys
from oxmcp import FastMCP
from oxmcp.server.fastmcp_auth.providers.jwt import StaticTokenVerifier

verifier = StaticTokenVerifier(tokens={"token-a": {"client_id": "client-a", "scopes": []},
                                       "token-b": {"client_id": "client-b", "scopes": []}})
mcp = FastMCP("owner", auth=verifier)

@mcp.tool
def hello() -> str:
    return "hi"

mcp.run("http", host="127.0.0.1", port=int(sys.argv[1]))
"""


def _post(port: int, token: str | None, method: str, session: str | None = None) -> tuple[int, dict[str, str]]:
    params: dict[str, Any] = {}
    if method == "initialize":
        params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-11-25"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if session:
        headers["Mcp-Session-Id"] = session
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=body, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            r.read()
            return r.status, dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers)


def test_the_tokens_are_checked_and_a_session_answers_its_owner_only(tmp_path: Any) -> None:
    proc, port = start_script(tmp_path, SERVER)
    try:
        assert _post(port, None, "initialize")[0] == 401
        assert _post(port, "token-c", "initialize")[0] == 401
        status, headers = _post(port, "token-a", "initialize")
        session = headers.get("mcp-session-id") or headers.get("Mcp-Session-Id")
        assert status == 200 and session
        assert _post(port, "token-a", "tools/list", session)[0] == 200
        assert _post(port, "token-b", "tools/list", session)[0] == 404
    finally:
        stop(proc)


def test_what_the_core_cannot_apply_is_refused() -> None:
    from oxmcp import FastMCP
    from oxmcp.server.fastmcp_auth.providers.jwt import StaticTokenVerifier

    with pytest.raises(TypeError, match="required_scopes"):
        StaticTokenVerifier(tokens={"t": {"client_id": "c"}}, required_scopes=["read"])
    with pytest.raises(TypeError, match="expires_at"):
        StaticTokenVerifier(tokens={"t": {"client_id": "c", "expires_at": 1}})
    with pytest.raises(TypeError, match="different scopes"):
        StaticTokenVerifier(tokens={"t": {"client_id": "c", "scopes": ["a"]}, "u": {"client_id": "c"}})
    verifier = StaticTokenVerifier(tokens={"t": {"client_id": "c", "scopes": ["a"]}})
    assert FastMCP("s", auth=verifier).options["tokens"] == {"c": {"tokens": ["t"], "scopes": ["a"]}}
    with pytest.raises(TypeError, match="auth provider object"):
        FastMCP("s", auth=object())
