"""The server pings the client (``ping`` from server to client) through a legacy session's
back-channel, over real stdio: a handler through ``ctx.session.send_ping()``, and FastMCP's
``PingMiddleware`` on an interval while the session lives. A modern (2026-07-28) request has no
back-channel: ``NoBackChannelError``, and no ping is sent. tests/node/ping-client.test.mjs holds the
same behaviour for Node."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

SERVER = textwrap.dedent('''
    import asyncio, sys
    from oxmcp import Context, FastMCP
    from oxmcp.server.middleware.ping import PingMiddleware
    from oxmcp.shared.exceptions import NoBackChannelError

    keepalive = sys.argv[1:] == ["keepalive"]
    mcp = FastMCP("ping", middleware=[PingMiddleware(interval_ms=100)] if keepalive else [])

    @mcp.tool
    async def ping_client(ctx: Context) -> str:
        try:
            await ctx.session.send_ping()
        except NoBackChannelError:
            return "no back-channel"
        return "pong"

    @mcp.tool
    async def slow() -> str:
        await asyncio.sleep(0.6)
        return "done"

    mcp.run()
''')

MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
               "io.modelcontextprotocol/clientCapabilities": {}}


class Peer:
    """A raw JSON-RPC client on the server's stdin/stdout that answers the server's pings."""

    def __init__(self, tmp_path: Path, *args: str) -> None:
        script = tmp_path / "server.py"
        script.write_text(SERVER)
        self.proc = subprocess.Popen([sys.executable, str(script), *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.pings = 0

    def send(self, msg: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()

    def answer(self, id: int, timeout: float = 15) -> dict[str, Any]:
        """Read until the response to ``id``, answering every ``ping`` the server sends meanwhile."""
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            assert line, "the server closed stdout"
            msg = json.loads(line)
            if msg.get("method") == "ping" and "id" in msg:
                self.pings += 1
                self.send({"jsonrpc": "2.0", "id": msg["id"], "result": {}})
            elif msg.get("id") == id and "method" not in msg:
                return msg
        raise AssertionError(f"no answer to {id}")

    def initialize(self) -> None:
        self.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})
        self.answer(0)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call(self, id: int, name: str, modern: bool = False) -> str:
        params: dict[str, Any] = {"name": name, "arguments": {}}
        if modern:
            params["_meta"] = MODERN_META
        self.send({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
        return str(self.answer(id)["result"]["content"][0]["text"])

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def test_a_handler_pings_the_client_through_its_legacy_session(tmp_path: Path) -> None:
    peer = Peer(tmp_path)
    try:
        assert peer.call(1, "ping_client", modern=True) == "no back-channel"
        assert peer.pings == 0
        peer.initialize()
        assert peer.call(2, "ping_client") == "pong"
        assert peer.pings == 1
    finally:
        peer.close()


def test_ping_middleware_pings_a_legacy_session_on_its_interval(tmp_path: Path) -> None:
    peer = Peer(tmp_path, "keepalive")
    try:
        assert peer.call(1, "slow", modern=True) == "done"
        assert peer.pings == 0  # a modern request has no back-channel: the loop ends at its first ping
        peer.initialize()
        assert peer.call(2, "slow") == "done"
        assert peer.pings >= 2  # 100 ms apart during a 600 ms call
        before = peer.pings
        assert peer.call(3, "slow") == "done"
        assert peer.pings > before  # one loop per session, still running between requests
    finally:
        peer.close()


def test_the_session_end_stops_the_ping_loop() -> None:
    """DELETE ends the legacy session: the core reports it and the connection's exit callbacks stop
    the loop (the in-process client goes through the core's HTTP handler)."""
    import asyncio

    from oxmcp import FastMCP
    from oxmcp._fastmcp_client import Client
    from oxmcp.server.middleware.ping import PingMiddleware

    ping = PingMiddleware(interval_ms=50)
    mcp = FastMCP("ping", middleware=[ping])

    @mcp.tool
    def hello() -> str:
        return "hi"

    async def run() -> tuple[int, int]:
        async with Client(mcp, mode="legacy") as client:
            await client.call_tool("hello")
            await client.call_tool("hello")
            during = len(ping._active_sessions)
        for _ in range(100):
            if not ping._active_sessions:
                break
            await asyncio.sleep(0.01)
        return during, len(ping._active_sessions)

    assert asyncio.run(run()) == (1, 0)
