"""Every way of writing a server in Python gets the same access rules from the core: a caller whose
token allows one tool (and one prompt, one resource) sees and uses only those, over real HTTP, in
both eras, whether the registry answers (oxmcp's Server, FastMCP, MCPServer, mcp 1.x FastMCP) or the
host answers in the core's middleware chain (the SDK's low-level Server)."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from typing import Any

import pytest
from procs import free_port, stop, wait_listening

TOKENS = {"one": {"tokens": ["t-one"], "tools": ["open"], "prompts": ["open"], "resources": ["mem://open"]},
          "all": {"tokens": ["t-all"]}}

# Each server defines tools, prompts and resources "open" and "secret", takes TOKENS, and serves
# HTTP on the port given as argv[1].
HEAD = f"import sys\nTOKENS = {TOKENS!r}\nPORT = int(sys.argv[1])\n"

DECORATED = """
@mcp.tool(name="open")
def t_open() -> str:
    return "open ran"

@mcp.tool(name="secret")
def t_secret() -> str:
    return "secret ran"

@mcp.prompt(name="open")
def p_open() -> str:
    return "hi"

@mcp.prompt(name="secret")
def p_secret() -> str:
    return "psst"

@mcp.resource("mem://open")
def r_open() -> str:
    return "open text"

@mcp.resource("mem://secret")
def r_secret() -> str:
    return "secret text"
"""

SERVERS: dict[str, str] = {
    "oxmcp": HEAD + """
from oxmcp import Server
mcp = Server("s", tokens=TOKENS)
""" + DECORATED + """
mcp.run("http", host="127.0.0.1", port=PORT)
""",
    "fastmcp": HEAD + """
from oxmcp import FastMCP
mcp = FastMCP("s", tokens=TOKENS)
""" + DECORATED + """
mcp.run(transport="http", host="127.0.0.1", port=PORT)
""",
    "mcpserver": HEAD + """
from oxmcp.server.mcpserver import MCPServer
mcp = MCPServer("s", tokens=TOKENS)
""" + DECORATED + """
mcp.run(transport="streamable-http", host="127.0.0.1", port=PORT)
""",
    "fastmcp1": HEAD + """
from oxmcp.server.fastmcp import FastMCP
# Opts in to 2026-07-28 (mcp 1.x's FastMCP is served in the initialize-era revisions by default).
mcp = FastMCP("s", tokens=TOKENS, modern=True)
""" + DECORATED + """
mcp.run(transport="streamable-http", host="127.0.0.1", port=PORT)
""",
    "lowlevel": HEAD + """
import uvicorn
import oxmcp.types as types
from oxmcp.server.lowlevel import Server

server = Server("s", tokens=TOKENS)

@server.list_tools()
async def list_tools():
    return [types.Tool(name=n, inputSchema={"type": "object"}) for n in ("open", "secret")]

@server.call_tool()
async def call_tool(name, arguments):
    return [types.TextContent(type="text", text=f"{name} ran")]

@server.list_prompts()
async def list_prompts():
    return [types.Prompt(name=n) for n in ("open", "secret")]

@server.get_prompt()
async def get_prompt(name, arguments):
    return types.GetPromptResult(messages=[types.PromptMessage(role="user",
                                 content=types.TextContent(type="text", text=name))])

@server.list_resources()
async def list_resources():
    return [types.Resource(uri=f"mem://{n}", name=n) for n in ("open", "secret")]

@server.read_resource()
async def read_resource(uri):
    return f"{uri} text"

uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=PORT, log_level="warning")
""",
}

MODERN = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


class Http:
    def __init__(self, port: int, token: str) -> None:
        self.url = f"http://127.0.0.1:{port}/mcp"
        self.token = token
        self.session: str | None = None

    def post(self, method: str, params: dict[str, Any], *, modern: bool) -> dict[str, Any]:
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                   "Authorization": f"Bearer {self.token}"}
        if modern:
            params = {**params, "_meta": MODERN}
            headers["MCP-Protocol-Version"] = "2026-07-28"
            headers["Mcp-Method"] = method
            if "name" in params and method in ("tools/call", "prompts/get"):
                headers["Mcp-Name"] = params["name"]
            if method == "resources/read":
                headers["Mcp-Name"] = params["uri"]
        else:
            headers["MCP-Protocol-Version"] = "2025-11-25"
            if self.session:
                headers["Mcp-Session-Id"] = self.session
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
        req = urllib.request.Request(self.url, data=body, method="POST", headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=20) as r:
                raw = r.read().decode()
                if method == "initialize":
                    self.session = r.headers.get("Mcp-Session-Id")
        except urllib.error.HTTPError as e:
            raw = e.read().decode()
        if raw.startswith("event:") or raw.startswith("data:"):
            raw = next(line[5:] for line in raw.splitlines() if line.startswith("data:"))
        out: dict[str, Any] = json.loads(raw)
        return out

    def initialize(self) -> None:
        self.post("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                 "clientInfo": {"name": "t", "version": "1"}}, modern=False)
        assert self.session, "a stateful server gives a session"


@pytest.fixture(scope="module", params=sorted(SERVERS))
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    script = tmp_path_factory.mktemp(request.param) / "server.py"
    script.write_text(SERVERS[request.param])
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(script), str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    try:
        wait_listening(port, proc)
        yield port
    finally:
        stop(proc)


def names(result: dict[str, Any], member: str, key: str) -> list[str]:
    assert "result" in result, result
    return sorted(e[key] for e in result["result"][member])


@pytest.mark.parametrize("modern", [True, False], ids=["2026-07-28", "2025-11-25"])
def test_a_caller_allowed_one_tool_sees_and_uses_only_it(served: int, modern: bool) -> None:
    one = Http(served, "t-one")
    if not modern:
        one.initialize()
    assert names(one.post("tools/list", {}, modern=modern), "tools", "name") == ["open"]
    ok = one.post("tools/call", {"name": "open", "arguments": {}}, modern=modern)
    assert ok["result"]["content"][0]["text"] == "open ran", ok
    hidden = one.post("tools/call", {"name": "secret", "arguments": {}}, modern=modern)
    unknown = one.post("tools/call", {"name": "no-such-tool", "arguments": {}}, modern=modern)
    assert "error" in hidden and hidden["error"]["code"] == -32602, hidden
    assert hidden["error"]["message"] == unknown["error"]["message"].replace("no-such-tool", "secret")

    assert names(one.post("prompts/list", {}, modern=modern), "prompts", "name") == ["open"]
    denied = one.post("prompts/get", {"name": "secret"}, modern=modern)
    assert "error" in denied, denied
    assert names(one.post("resources/list", {}, modern=modern), "resources", "uri") == ["mem://open"]
    denied = one.post("resources/read", {"uri": "mem://secret"}, modern=modern)
    assert "error" in denied, denied
    read = one.post("resources/read", {"uri": "mem://open"}, modern=modern)
    assert read["result"]["contents"][0]["text"] == "open text" or "mem://open" in str(read), read

    everyone = Http(served, "t-all")
    if not modern:
        everyone.initialize()
    assert names(everyone.post("tools/list", {}, modern=modern), "tools", "name") == ["open", "secret"]
    ran = everyone.post("tools/call", {"name": "secret", "arguments": {}}, modern=modern)
    assert ran["result"]["content"][0]["text"] == "secret ran", ran
