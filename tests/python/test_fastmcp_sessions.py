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
from oxmcp.server.sessions import (CurrentSession, OptionalCurrentSession, SessionId, SessionProvider,
                                   UserSession, get_session)

anonymous = len(sys.argv) > 2
verifier = StaticTokenVerifier(tokens={"token-a": {"client_id": "client-a", "scopes": []},
                                       "token-b": {"client_id": "client-b", "scopes": []}})
mcp = FastMCP("sessions") if anonymous else FastMCP("sessions", auth=verifier)
mcp.add_provider(SessionProvider())

@mcp.tool
async def add_item(item: str, session_id: SessionId) -> list[str]:
    '''Add an item to the cart.

    Args:
        session_id: The cart's session.
    '''
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


HOW_TO_GET_AN_ID = ("Session identifier. Use a tool to create a session, then pass the resulting id here to "
                    "persist state across calls in the same session.")


def _request(port: int, token: str | None, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """One 2026-07-28 request; its result."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": META}}).encode()
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
    if "name" in params:
        headers["Mcp-Name"] = params["name"]
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=body, method="POST", headers=headers)
    with urllib.request.urlopen(req, timeout=20) as r:
        result: dict[str, Any] = json.loads(r.read())["result"]
    return result


def _call(port: int, token: str | None, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """One ``tools/call``: ``isError`` and the first text."""
    result = _request(port, token, "tools/call", {"name": name, "arguments": arguments})
    return {"error": bool(result.get("isError")), "text": result["content"][0]["text"]}


def test_the_session_tools_are_listed_and_a_session_id_says_how_to_get_one(tmp_path: Any) -> None:
    proc, port = start_script(tmp_path, SERVER)
    try:
        tools = {t["name"]: t for t in _request(port, "token-a", "tools/list", {})["tools"]}
        assert {"create_session", "end_session"} <= set(tools)
        assert tools["create_session"]["inputSchema"].get("properties", {}) == {}
        ending = tools["end_session"]["inputSchema"]["properties"]["session_id"]
        assert ending["description"] == HOW_TO_GET_AN_ID
        adding = tools["add_item"]["inputSchema"]["properties"]["session_id"]
        assert adding["description"] == f"The cart's session.\n\n{HOW_TO_GET_AN_ID}"
    finally:
        stop(proc)


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
