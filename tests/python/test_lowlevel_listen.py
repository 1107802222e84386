"""mcp 2.x's ``ListenHandler`` over a bus, given to a low-level ``Server``: the core serves
``subscriptions/listen`` (acknowledgement, filters, subscription id) and each event published on the
bus becomes the core's notification to the streams that asked for it. The same server file runs on
mcp 2.3.0 and, unchanged, on oxmcp (``oxmcp run``), over real stdio, and the client sees the same
messages."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import oxmcp
import pytest
from procs import META

ROOT = Path(__file__).resolve().parents[2]
PEER_V2 = ROOT / ".cache" / "peers-py" / "v2" / "bin" / "python"  # mcp 2.3.0
OXMCP_PATH = str(Path(oxmcp.__file__).resolve().parents[1])

SERVER = """
import anyio
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ResourceUpdated, ToolsListChanged

bus = InMemorySubscriptionBus()

async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[types.Tool(name="touch", input_schema={"type": "object"})])

async def read_resource(ctx, params):
    return types.ReadResourceResult(contents=[types.TextResourceContents(uri=params.uri, text="board")])

async def call_tool(ctx, params):
    await bus.publish(ToolsListChanged())  # not asked for: never reaches the stream
    await bus.publish(ResourceUpdated(uri="board://other"))  # another URI: never reaches it either
    await bus.publish(ResourceUpdated(uri="board://sprint"))
    return types.CallToolResult(content=[types.TextContent(type="text", text="done")])

server = Server("board", on_list_tools=list_tools, on_call_tool=call_tool, on_read_resource=read_resource,
                on_subscriptions_listen=ListenHandler(bus))

async def main():
    async with stdio_server() as (r, w):
        await server.run(r, w, server.create_initialization_options())

anyio.run(main)
"""


def _session(argv: list[str]) -> list[Any]:
    """Open a listen stream for board://sprint, call the tool that publishes, and return what came
    on the stream up to the update (the subscription id kept as whether it is the listen's id)."""
    env = {**os.environ, "PYTHONPATH": OXMCP_PATH, "PYTHONUNBUFFERED": "1"}
    env.pop("VIRTUAL_ENV", None)
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert proc.stdin is not None and proc.stdout is not None

    def send(msg: dict[str, Any]) -> None:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(msg).encode() + b"\n")
        proc.stdin.flush()

    def read() -> dict[str, Any]:
        assert proc.stdout is not None
        return json.loads(proc.stdout.readline())

    seen: list[Any] = []
    try:
        send({"jsonrpc": "2.0", "id": 7, "method": "subscriptions/listen", "params": {
            "notifications": {"resourceSubscriptions": ["board://sprint"]}, "_meta": META}})
        ack = read()
        assert ack["method"] == "notifications/subscriptions/acknowledged", ack
        seen.append((ack["method"], ack["params"]["notifications"],
                     ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == 7))
        send({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "touch", "arguments": {},
                                                                           "_meta": META}})
        while True:
            msg = read()
            if msg.get("id") == 8:
                seen.append(("answer", msg["result"]["content"]))
                continue
            seen.append((msg["method"], msg["params"].get("uri"),
                         msg["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == 7))
            if msg["method"] == "notifications/resources/updated":
                break
    finally:
        proc.kill()
        proc.wait(timeout=20)
    return seen


def test_a_listen_handler_feeds_the_cores_streams_as_on_the_sdk(tmp_path: Path) -> None:
    assert PEER_V2.exists(), f"{PEER_V2} missing: run scripts/setup.sh"
    server = tmp_path / "server.py"
    server.write_text(textwrap.dedent(SERVER))
    original = _session([str(PEER_V2), str(server)])
    ported = _session([str(PEER_V2), "-m", "oxmcp", "run", str(server)])
    updated = ("notifications/resources/updated", "board://sprint", True)
    assert original[0] == ("notifications/subscriptions/acknowledged", {"resourceSubscriptions": ["board://sprint"]},
                           True)
    assert updated in original
    assert [m for m in ported if m[0] != "answer"] == [m for m in original if m[0] != "answer"]


def test_a_listen_handler_option_the_core_cannot_honour_is_refused() -> None:
    from oxmcp.server.lowlevel import Server
    from oxmcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler

    with pytest.raises(TypeError, match="max_buffered_events"):
        ListenHandler(InMemorySubscriptionBus(), max_buffered_events=8)

    async def own_listen(ctx: Any, params: Any) -> Any:
        return {}

    with pytest.raises(TypeError, match="ListenHandler"):
        Server("board", on_subscriptions_listen=own_listen)
