"""Tool search from Python: FastMCP's search-transform spelling sets the core's options, FastMCP
4.2.3's own Client uses the tools over HTTP, and a caller's allow-list hides tools from search
and from the call proxy. The ranking itself is the core's (core/tests/security/tool_search.rs)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from procs import ROOT, free_port, stop, wait_listening

FIXTURE = ROOT / "tests" / "config" / "tools-1000.json"
QUERIES = json.loads(FIXTURE.read_text())["queries"]
PEER_V2 = ROOT / ".cache" / "peers-py" / "v2" / "bin" / "python"  # fastmcp 4.2.3

SERVER = """
import json, sys
from oxmcp import FastMCP
from oxmcp.server.transforms.search import BM25SearchTransform

fixture = json.load(open(sys.argv[1]))
mcp = FastMCP("search", tokens={"alice": {"tokens": ["alice-token"], "tools": ["slack_*"]}, "root": "root-token"})
mcp.add_transform(BM25SearchTransform(max_results=3, always_visible=["gmail_create_email"]))
def ran(name):
    return lambda **kw: f"ran {name}"
mcp.add_tools([{"fn": ran(t["name"]), "name": t["name"], "description": t["description"],
                "input_schema": t["inputSchema"]} for t in fixture["tools"]])
mcp.run(transport="http", host="127.0.0.1", port=int(sys.argv[2]), show_banner=False)
"""

CLIENT = """
import asyncio, json, sys
from fastmcp import Client

async def session(url, token, queries):
    async with Client(url, auth=token) as c:
        out = {"list": [t.name for t in await c.list_tools()], "found": {}}
        for q in queries:
            r = await c.call_tool("search_tools", {"query": q})
            out["found"][q] = [t["name"] for t in r.data]
        r = await c.call_tool("call_tool", {"name": "slack_get_message", "arguments": {"id": "m1"}})
        out["slack"] = r.content[0].text
        try:
            r = await c.call_tool("call_tool", {"name": "k8s_delete_pod", "arguments": {"id": "p1"}})
            out["k8s"] = r.content[0].text
        except Exception as e:
            out["k8s"] = f"error: {e}"
        return out

async def main(url, sessions):
    print(json.dumps({token: await session(url, token, queries) for token, queries in sessions.items()}))

asyncio.run(main(sys.argv[1], json.loads(sys.argv[2])))
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    script = tmp_path_factory.mktemp("search") / "server.py"
    script.write_text(SERVER)
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(script), str(FIXTURE), str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    wait_listening(port, proc, timeout=60)
    yield port
    stop(proc)


@pytest.fixture(scope="module")
def peer_answers(served: int, tmp_path_factory: pytest.TempPathFactory) -> dict:  # type: ignore[type-arg]
    """One FastMCP client process, two sessions: root (every tool) and alice (Slack tools only)."""
    assert PEER_V2.exists(), f"{PEER_V2} missing: run scripts/setup.sh"
    script = tmp_path_factory.mktemp("client") / "client.py"
    script.write_text(CLIENT)
    sessions = {"root-token": [q["query"] for q in QUERIES],
                "alice-token": ["delete a kubernetes pod", "create an email", "slack message"]}
    out = subprocess.run([str(PEER_V2), str(script), f"http://127.0.0.1:{served}/mcp", json.dumps(sessions)],
                         check=False, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_fastmcp_client_searches_and_calls_through_the_transform(peer_answers: dict) -> None:  # type: ignore[type-arg]
    got = peer_answers["root-token"]
    assert got["list"] == ["gmail_create_email", "search_tools", "call_tool"]
    for q in QUERIES:
        assert got["found"][q["query"]][: len(q["top"])] == q["top"], q["name"]
    assert got["slack"] == "ran slack_get_message"
    assert got["k8s"] == "ran k8s_delete_pod"


def test_hidden_tools_stay_hidden(peer_answers: dict) -> None:  # type: ignore[type-arg]
    got = peer_answers["alice-token"]
    # The pinned tool is not Alice's: it is not listed to her either.
    assert got["list"] == ["search_tools", "call_tool"]
    found = [n for names in got["found"].values() for n in names]
    assert found and all(n.startswith("slack_") for n in found), found
    assert got["slack"] == "ran slack_get_message"
    # The proxy answers a hidden tool as a direct call does: as an unknown one.
    assert got["k8s"] == "error: Unknown tool: k8s_delete_pod", got


def test_the_spelling_maps_to_the_core_options() -> None:
    from oxmcp import FastMCP
    from oxmcp.server.transforms.search import RegexSearchTransform

    m = FastMCP("x", transforms=[RegexSearchTransform(max_results=7, search_tool_name="find")])
    assert m.options["tool_search"] == "regex" and m.options["tool_search_max_results"] == 7
    assert m.options["search_tool_name"] == "find"
    with pytest.raises(TypeError, match="search_result_serializer"):
        RegexSearchTransform(search_result_serializer=lambda tools: "x")
    with pytest.raises(TypeError, match="transforms= is not supported"):
        FastMCP("a", transforms=[object()])
