"""FastMCP's session state (``fastmcp.server.sessions``) over real HTTP, on stateless 2026-07-28 calls:
an id ``create_session`` minted keeps its state across calls, resolves for the principal that minted
it only (the caller the core verified, not anything the client sends), and ends with
``end_session``; ``CurrentSession()`` is one bucket per principal and refuses an anonymous call."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest
from procs import META, start_script, stop

from oxmcp import FastMCP
from oxmcp._errors import DefinitionError
from oxmcp.server.sessions import UserSession

SERVER = """
import sys
from oxmcp import FastMCP
from oxmcp.server.fastmcp_auth.providers.jwt import StaticTokenVerifier
from oxmcp.server.sessions import (CurrentSession, OptionalCurrentSession, SessionId, UserSession,
                                   create_session, end_session, get_session)

anonymous = len(sys.argv) > 2
verifier = StaticTokenVerifier(tokens={"token-a": {"client_id": "client-a", "scopes": []},
                                       "token-b": {"client_id": "client-b", "scopes": []}})
mcp = FastMCP("sessions") if anonymous else FastMCP("sessions", auth=verifier)
mcp.tool(create_session)
mcp.tool(end_session)

@mcp.tool
async def add_item(item: str, session_id: SessionId) -> list[str]:
    session = await get_session(session_id)
    cart = await session.get("cart", [])
    await session.set("cart", [*cart, item])
    return await session.get("cart")

@mcp.tool
async def remember(fact: str, session: UserSession = CurrentSession()) -> str:
    await session.set("fact", fact)
    return "noted"

@mcp.tool
async def recall(session: UserSession | None = OptionalCurrentSession()) -> str:
    return "anonymous" if session is None else str(await session.get("fact", "nothing"))

@mcp.tool
def principal_in_request() -> str:
    # The SDK's variable, set by the server's own code: in a request the core's caller stays the answer.
    from oxmcp.server.auth.middleware.auth_context import auth_context_var
    from oxmcp.server.auth.middleware.bearer_auth import AuthenticatedUser
    from oxmcp.server.auth.provider import AccessToken
    from oxmcp.server.sessions import current_principal

    auth_context_var.set(AuthenticatedUser(AccessToken(token="t", client_id="forged", scopes=[])))
    return str(current_principal())

mcp.run("http", host="127.0.0.1", port=int(sys.argv[1]))
"""


def _call(port: int, token: str | None, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """One 2026-07-28 ``tools/call``; its result (``isError`` and the first text)."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": name, "arguments": arguments, "_meta": META}}).encode()
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": name}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=body, method="POST", headers=headers)
    with urllib.request.urlopen(req, timeout=20) as r:
        result: dict[str, Any] = json.loads(r.read())["result"]
    return {"error": bool(result.get("isError")), "text": result["content"][0]["text"]}


def test_a_session_id_is_its_principals_only_and_keeps_state_across_calls(tmp_path: Any) -> None:
    proc, port = start_script(tmp_path, SERVER)
    try:
        sid = _call(port, "token-a", "create_session", {})["text"]
        assert _call(port, "token-a", "add_item", {"item": "apple", "session_id": sid})["text"] == '["apple"]'
        assert _call(port, "token-a", "add_item", {"item": "pear", "session_id": sid})["text"] == '["apple","pear"]'
        # B passes A's id: the same answer as for an id nobody minted.
        foreign = _call(port, "token-b", "add_item", {"item": "plum", "session_id": sid})
        unknown = _call(port, "token-a", "add_item", {"item": "plum", "session_id": "no-such-id"})
        assert foreign["error"] and unknown["error"]
        assert "Invalid or unknown session" in foreign["text"] and foreign["text"] == unknown["text"]
        assert _call(port, "token-a", "end_session", {"session_id": sid})["text"] == "session ended"
        assert _call(port, "token-a", "add_item", {"item": "fig", "session_id": sid})["error"]
        # One bucket per principal, with no id to pass.
        assert _call(port, "token-a", "remember", {"fact": "a's"})["text"] == "noted"
        assert _call(port, "token-b", "recall", {})["text"] == "nothing"
        assert _call(port, "token-a", "recall", {})["text"] == "a's"
        assert _call(port, "token-b", "principal_in_request", {})["text"] == '["client-b",null,null]'
    finally:
        stop(proc)


def test_the_per_principal_bucket_needs_a_principal(tmp_path: Any) -> None:
    proc, port = start_script(tmp_path, SERVER, "anonymous")
    try:
        refused = _call(port, None, "remember", {"fact": "x"})
        assert refused["error"] and "requires an authenticated principal" in refused["text"]
        assert _call(port, None, "recall", {})["text"] == "anonymous"
        assert _call(port, None, "principal_in_request", {})["text"] == "None"
        # Without auth an id is a bearer capability, as on FastMCP: whoever holds it reaches it.
        sid = _call(port, None, "create_session", {})["text"]
        assert _call(port, None, "add_item", {"item": "apple", "session_id": sid})["text"] == '["apple"]'
    finally:
        stop(proc)


def test_a_user_session_parameter_without_its_dependency_is_refused_when_the_tool_is_built() -> None:
    mcp = FastMCP("sessions")

    async def remember(fact: str, session: UserSession) -> str:
        return fact

    with pytest.raises(DefinitionError, match="CurrentSession"):
        mcp.tool(remember)
