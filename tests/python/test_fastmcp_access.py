"""FastMCP's access options on oxmcp: honoured, or refused at start-up, never dropped. Tag filters
hide components from every caller, ASGI middleware given to ``run()`` runs in front of the endpoint,
and a component ``auth=`` check (which oxmcp does not run) stops the server from starting."""

from __future__ import annotations

import urllib.error
import urllib.request
from typing import Any

import pytest
from procs import start_script, stop
from test_access_everywhere import Http

from oxmcp import FastMCP


def custom_check(*scopes: str) -> Any:
    """A check callable of the user's own, as FastMCP's ``auth=`` takes: code oxmcp would not run."""
    return lambda ctx: set(scopes) <= set(getattr(ctx.token, "scopes", ()))


@pytest.mark.parametrize("kind", ["tool", "resource", "prompt"])
def test_a_component_auth_check_is_refused_at_registration(kind: str) -> None:
    mcp = FastMCP("a")
    with pytest.raises(TypeError, match="auth= takes only require_scopes"):
        if kind == "resource":
            mcp.resource("mem://x", auth=custom_check("admin"))(lambda: "x")
        else:
            getattr(mcp, kind)(auth=custom_check("admin"))(lambda: "x")
    assert not mcp._tools and not mcp._resources and not mcp._prompts


def test_a_scope_check_becomes_required_scopes() -> None:
    """``require_scopes`` (oxmcp's, or FastMCP's ``_RequireScopes`` object) is what the core enforces."""
    from oxmcp import require_scopes

    class _RequireScopes:  # the shape of fastmcp.server.auth.require_scopes(...)
        def __init__(self, *scopes: str) -> None:
            self.required_scopes = frozenset(scopes)

    mcp = FastMCP("a")
    mcp.tool(auth=require_scopes("b", "a"))(lambda: "x")
    mcp.resource("mem://x", auth=[_RequireScopes("r:2", "r:1"), require_scopes("r:0")])(lambda: "x")
    assert mcp._tools["<lambda>"].required_scopes == ["b", "a"]
    assert mcp._resources["mem://x"].required_scopes == ["r:1", "r:2", "r:0"]


def test_transforms_and_other_than_skill_providers_are_refused() -> None:
    with pytest.raises(TypeError, match="transforms= is not supported"):
        FastMCP("a", transforms=[object()])
    # Skill providers are served (docs/SKILLS.md); any other provider is refused.
    with pytest.raises(TypeError, match="oxmcp accepts skill providers only"):
        FastMCP("a", providers=[object()])
    FastMCP("a", transforms=[], providers=None)  # nothing asked, nothing refused


TAGGED = """
import sys
from oxmcp import FastMCP
mcp = FastMCP("tags", {options})

@mcp.tool(tags={{"public"}})
def listed() -> str:
    return "listed ran"

@mcp.tool(tags={{"public", "admin"}})
def admin_only() -> str:
    return "admin ran"

@mcp.tool()
def untagged() -> str:
    return "untagged ran"

@mcp.resource("mem://admin", tags={{"admin"}})
def admin_doc() -> str:
    return "secret"

@mcp.prompt(tags={{"admin"}})
def admin_prompt() -> str:
    return "secret"

mcp.run(transport="http", host="127.0.0.1", port=int(sys.argv[1]))
"""


@pytest.mark.parametrize(("options", "visible"), [
    ('exclude_tags={"admin"}', ["listed", "untagged"]),
    ('include_tags={"public"}, exclude_tags={"admin"}', ["listed"]),
    ('include_tags={"public"}', ["admin_only", "listed"]),
])
def test_tag_filters_hide_components_from_every_caller(tmp_path: Any, options: str, visible: list[str]) -> None:
    proc, port = start_script(tmp_path, TAGGED.format(options=options))
    try:
        c = Http(port, "")
        listed = c.post("tools/list", {}, modern=True)["result"]["tools"]
        assert sorted(t["name"] for t in listed) == visible
        for name in ("listed", "admin_only", "untagged"):
            r = c.post("tools/call", {"name": name, "arguments": {}}, modern=True)
            if name in visible:
                assert r["result"]["content"][0]["text"].endswith("ran"), r
            else:
                assert r["error"]["message"] == f"Unknown tool: {name}", r
        if "admin" in options.split("exclude_tags")[-1]:
            r = c.post("resources/read", {"uri": "mem://admin"}, modern=True)
            assert "error" in r, r
            r = c.post("prompts/get", {"name": "admin_prompt"}, modern=True)
            assert "error" in r, r
    finally:
        stop(proc)


MIDDLEWARE = """
import sys
from starlette.middleware import Middleware
from starlette.responses import JSONResponse
from oxmcp import FastMCP

class Gate:
    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        headers = dict(scope.get("headers") or [])
        if scope["type"] == "http" and headers.get(b"x-gate") != b"open":
            await JSONResponse({"error": "gate closed"}, status_code=403)(scope, receive, send)
            return
        await self.app(scope, receive, send)

mcp = FastMCP("mw")

@mcp.tool()
def hello() -> str:
    return "hello ran"

mcp.run(transport="http", host="127.0.0.1", port=int(sys.argv[1]), middleware=[Middleware(Gate)])
"""


def test_run_middleware_runs_in_front_of_the_endpoint(tmp_path: Any) -> None:
    proc, port = start_script(tmp_path, MIDDLEWARE)
    try:
        body = b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":' \
               b'{"io.modelcontextprotocol/protocolVersion":"2026-07-28",' \
               b'"io.modelcontextprotocol/clientCapabilities":{}}}}'
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                   "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}
        closed = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=body, method="POST", headers=headers)
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(closed, timeout=10)
        assert refused.value.code == 403
        opened = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=body, method="POST",
                                        headers={**headers, "X-Gate": "open"})
        with urllib.request.urlopen(opened, timeout=10) as r:
            assert b'"hello"' in r.read()
    finally:
        stop(proc)


TOOLS_ONLY = """
import sys
from oxmcp import {cls}
mcp = {cls}("only-tools")

@mcp.tool()
def hello() -> str:
    return "hi"

mcp.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
"""


@pytest.mark.parametrize("cls", ["FastMCP", "MCPServer"])
def test_a_server_with_tools_only_answers_empty_resource_and_prompt_lists(tmp_path: Any, cls: str) -> None:
    proc, port = start_script(tmp_path, TOOLS_ONLY.format(cls=cls))
    try:
        for modern in (True, False):
            c = Http(port, "")
            if not modern:
                c.initialize()
            for method, member in (("resources/list", "resources"), ("prompts/list", "prompts"),
                                   ("resources/templates/list", "resourceTemplates")):
                r = c.post(method, {}, modern=modern)
                assert r.get("result", {}).get(member) == [], (method, modern, r)
    finally:
        stop(proc)
