"""mcp 2.x's ``MCPServer.streamable_http_app(streamable_http_path=...)`` and ``session_manager``: a
Starlette app mounts the server under ``/notes`` with the endpoint at the mount's own path, and its
lifespan enters ``mcp.session_manager.run()``. The same script runs under uvicorn on mcp 2.3.0 and,
unchanged, on oxmcp (``oxmcp run``); the official client, over real HTTP on 127.0.0.1, sees the
same tools and answers, and the routes and settings read back the same."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import textwrap
import time
from pathlib import Path
from typing import Any

import oxmcp

ROOT = Path(__file__).resolve().parents[2]
PEER_V2 = ROOT / ".cache" / "peers-py" / "v2" / "bin" / "python"  # mcp 2.3.0
OXMCP_PATH = str(Path(oxmcp.__file__).resolve().parents[1])

SERVER = """
    import contextlib, json, os
    import uvicorn
    from starlette.applications import Starlette
    from starlette.routing import Mount
    from mcp.server import MCPServer

    mcp = MCPServer("Notes")

    @mcp.tool()
    def add_note(text: str) -> str:
        \"\"\"Save a note.\"\"\"
        return f"Saved: {text}"

    @contextlib.asynccontextmanager
    async def lifespan(app):
        async with mcp.session_manager.run():
            yield

    try:
        mcp.session_manager
        early = "no error"
    except RuntimeError as exc:
        early = str(exc)
    inner = mcp.streamable_http_app(streamable_http_path="/", session_idle_timeout=5, max_sessions=7)
    manager = mcp.session_manager
    print(json.dumps({"early": early, "routes": [r.path for r in inner.routes],
                      "limits": [manager.session_idle_timeout, manager.max_sessions]}), flush=True)
    app = Starlette(routes=[Mount("/notes", app=inner)], lifespan=lifespan)
    uvicorn.run(app, host="127.0.0.1", port=int(os.environ["PORT"]), log_level="warning")
"""


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _call(port: int) -> list[Any]:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with Client(streamable_http_client(f"http://127.0.0.1:{port}/notes/"), mode="legacy") as client:
        tools = [t.name for t in (await client.list_tools()).tools]
        result = await client.call_tool("add_note", {"text": "milk"})
        return [tools, result.structured_content]


def _serve(args: list[str], script: Path) -> tuple[str, list[Any]]:
    port = _port()
    env = {**os.environ, "PYTHONPATH": OXMCP_PATH, "PYTHONUNBUFFERED": "1", "PORT": str(port)}
    env.pop("VIRTUAL_ENV", None)
    proc = subprocess.Popen([str(PEER_V2), *args, str(script)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        printed = proc.stdout.readline()
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, proc.stderr and proc.stderr.read()
                time.sleep(0.1)
        return printed, asyncio.run(asyncio.wait_for(_call(port), 60))
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_a_mounted_app_at_the_mount_path_serves_as_the_sdks(tmp_path: Path) -> None:
    assert PEER_V2.exists(), f"{PEER_V2} missing: run scripts/setup.sh"
    script = tmp_path / "app.py"
    script.write_text(textwrap.dedent(SERVER))
    original = _serve([], script)
    ported = _serve(["-m", "oxmcp", "run"], script)
    assert ported == original
    assert '"routes": ["/"]' in original[0] and '"limits": [5, 7]' in original[0]
    assert "after calling streamable_http_app()" in original[0]
    assert original[1] == [["add_note"], {"result": "Saved: milk"}]
