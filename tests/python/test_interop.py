"""The official Python `mcp` client, a real ASGI server (uvicorn), and stubtest of the native .pyi."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from procs import free_port

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "python"



async def test_official_client_over_stdio() -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=[str(EXAMPLES / "quickstart.py")])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await asyncio.wait_for(session.initialize(), 20)
        tools = await session.list_tools()
        assert {t.name for t in tools.tools} == {"add", "countdown"}
        result = await session.call_tool("add", {"a": 20, "b": 22})
        assert result.is_error is False and result.structured_content == {"result": 42}


async def test_official_client_over_http() -> None:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    port = free_port()
    proc = subprocess.Popen([sys.executable, str(EXAMPLES / "quickstart.py"), "--http", f"127.0.0.1:{port}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                await asyncio.sleep(0.05)
        async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write):
            async with ClientSession(read, write) as session:
                await asyncio.wait_for(session.initialize(), 20)
                result = await session.call_tool("add", {"a": 1, "b": 2})
                assert result.structured_content == {"result": 3}
                prompt = await session.get_prompt("review", {"code": "x = 1"})
                assert "x = 1" in prompt.messages[0].content.text  # type: ignore[union-attr]
    finally:
        proc.terminate()
        assert proc.wait(10) == 0


def test_asgi_mount_under_uvicorn() -> None:
    import json
    import urllib.request

    import uvicorn

    from oxmcp import Server

    s = Server("asgi")

    @s.tool
    async def echo(text: str) -> str:
        return text

    port = free_port()
    config = uvicorn.Config(s.asgi_app(), host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    t = threading.Thread(target=server.run, daemon=True)
    t.start()
    try:
        deadline = time.monotonic() + 15
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.started
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                           "params": {"name": "echo", "arguments": {"text": "hi"}, "_meta": meta}}).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=body, method="POST", headers={
            "content-type": "application/json", "accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "echo"})
        with urllib.request.urlopen(req, timeout=10) as resp:
            out: dict[str, Any] = json.loads(resp.read())
        assert out["result"]["content"][0]["text"] == "hi"
        evil = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=body, method="POST", headers={
            "content-type": "application/json", "accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28", "host": "evil.example.com", "origin": "http://evil.example.com"})
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(evil, timeout=10)
        assert 400 <= e.value.code < 500
    finally:
        server.should_exit = True
        t.join(10)


def test_stubtest_native_module() -> None:
    proc = subprocess.run([sys.executable, "-m", "mypy.stubtest", "oxmcp._oxmcp", "--ignore-missing-stub"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
