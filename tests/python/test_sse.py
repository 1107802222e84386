"""The 2024-11-05 HTTP+SSE transport with the official client's ``sse_client``: ``run(transport="sse")``
(the mcp FastMCP shape) and ``sse_app()`` mounted under Starlette."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from procs import free_port, start_script, stop

SERVER = '''
import sys
from oxmcp.server.fastmcp import Context, FastMCP

mcp = FastMCP("sse", port=int(sys.argv[1]))

@mcp.tool()
async def add(a: int, b: int) -> int:
    return a + b

@mcp.tool()
async def ask(question: str, ctx: Context) -> str:
    await ctx.report_progress(1, 2)
    r = await ctx.sample(question, max_tokens=5)
    return r.text

mcp.run(transport="sse")
'''


async def _session(url: str) -> None:
    from mcp import ClientSession
    from mcp.client.sse import sse_client
    from mcp.types import CreateMessageResult, TextContent

    progress: list[float] = []

    async def sampling(_ctx: Any, params: Any) -> CreateMessageResult:
        text = params.messages[0].content.text
        return CreateMessageResult(role="assistant", model="m", content=TextContent(type="text", text=text.upper()))

    async def on_progress(p: float, total: float | None, message: str | None) -> None:
        progress.append(p)

    async with sse_client(url) as (read, write), ClientSession(read, write, sampling_callback=sampling) as s:
        init = await asyncio.wait_for(s.initialize(), 20)
        assert init.server_info.name == "sse"
        tools = await s.list_tools()
        assert {t.name for t in tools.tools} >= {"add", "ask"}
        r = await s.call_tool("add", {"a": 20, "b": 22})
        assert r.structured_content == {"result": 42}
        r = await s.call_tool("ask", {"question": "hi"}, progress_callback=on_progress)
        assert r.is_error is False and r.content[0].text == "HI"  # type: ignore[union-attr]
        assert progress == [1]


async def test_run_sse_with_the_official_client(tmp_path: Path) -> None:
    proc, port = start_script(tmp_path, SERVER)
    try:
        await _session(f"http://127.0.0.1:{port}/sse")
        # Streamable HTTP is served beside it, on the same port.
        import json
        import urllib.request

        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
        req = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=json.dumps(init).encode(), headers={
            "content-type": "application/json", "accept": "application/json, text/event-stream"})
        with urllib.request.urlopen(req, timeout=10) as r:
            assert json.loads(r.read())["result"]["protocolVersion"] == "2025-06-18"
    finally:
        stop(proc)


def test_sse_app_mounted_under_starlette() -> None:
    import uvicorn
    from starlette.applications import Starlette
    from starlette.routing import Mount

    from oxmcp.server.fastmcp import FastMCP

    mcp = FastMCP("sse")

    @mcp.tool()
    async def add(a: int, b: int) -> int:
        return a + b

    @mcp.tool()
    async def ask(question: str) -> str:
        return question

    sub = mcp.sse_app()
    app = Starlette(routes=[Mount("/legacy", app=sub)], lifespan=lambda _app: sub.router.lifespan_context(sub))
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    t = threading.Thread(target=server.run, daemon=True)
    t.start()
    try:
        deadline = time.monotonic() + 15
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.02)

        async def run() -> None:
            from mcp import ClientSession
            from mcp.client.sse import sse_client

            async with sse_client(f"http://127.0.0.1:{port}/legacy/sse") as (read, write), \
                    ClientSession(read, write) as s:
                await asyncio.wait_for(s.initialize(), 20)
                r = await s.call_tool("add", {"a": 2, "b": 3})
                assert r.structured_content == {"result": 5}

        asyncio.run(run())
    finally:
        server.should_exit = True
        t.join(10)


def test_sse_is_off_unless_asked(tmp_path: Path) -> None:
    import urllib.error
    import urllib.request

    source = SERVER.replace('mcp.run(transport="sse")', 'mcp.run(transport="http")')
    proc, port = start_script(tmp_path, source)
    try:
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/sse", timeout=10)
        assert e.value.code == 404
    finally:
        stop(proc)


def test_lowlevel_server_on_the_sdks_sse_server_transport() -> None:
    """The SDK docs' shape: ``SseServerTransport("/messages/")``, ``connect_sse`` in a GET route whose
    streams go to ``server.run``, ``handle_post_message`` mounted at /messages/; the official client."""
    import urllib.error
    import urllib.request

    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Mount, Route

    import oxmcp.types as types
    from oxmcp.server.lowlevel import Server
    from oxmcp.server.sse import SseServerTransport

    server = Server("ll-sse")

    @server.list_tools()
    async def list_tools() -> list[types.Tool]:
        return [types.Tool(name="echo", inputSchema={"type": "object", "properties": {"t": {"type": "string"}}})]

    @server.call_tool()
    async def call_tool(name: str, arguments: dict[str, Any]) -> Any:
        return [types.TextContent(type="text", text=arguments["t"] * 2)]

    sse = SseServerTransport("/messages/")

    async def handle_sse(request: Request) -> Response:
        async with sse.connect_sse(request.scope, request.receive, request._send) as streams:
            await server.run(streams[0], streams[1], server.create_initialization_options())
        return Response()

    app = Starlette(routes=[Route("/sse", endpoint=handle_sse, methods=["GET"]),
                            Mount("/messages/", app=sse.handle_post_message)])
    port = free_port()
    uv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    t = threading.Thread(target=uv.run, daemon=True)
    t.start()
    try:
        deadline = time.monotonic() + 15
        while not uv.started and time.monotonic() < deadline:
            time.sleep(0.02)

        async def run() -> None:
            from mcp import ClientSession
            from mcp.client.sse import sse_client

            # Two streams at once, each its own session.
            async with sse_client(f"http://127.0.0.1:{port}/sse") as (r1, w1), ClientSession(r1, w1) as s1, \
                    sse_client(f"http://127.0.0.1:{port}/sse") as (r2, w2), ClientSession(r2, w2) as s2:
                init = await asyncio.wait_for(s1.initialize(), 20)
                assert init.server_info.name == "ll-sse"
                await asyncio.wait_for(s2.initialize(), 20)
                assert [t.name for t in (await s1.list_tools()).tools] == ["echo"]
                r = await s1.call_tool("echo", {"t": "ab"})
                assert r.content[0].text == "abab"  # type: ignore[union-attr]
                r = await s2.call_tool("echo", {"t": "x"})
                assert r.content[0].text == "xx"  # type: ignore[union-attr]

        asyncio.run(run())

        # The refusals in the SDK's words: no session_id, a malformed one (400), an unknown one (404).
        def post(query: str) -> tuple[int, str]:
            req = urllib.request.Request(f"http://127.0.0.1:{port}/messages/{query}",
                                         data=b'{"jsonrpc":"2.0","id":1,"method":"ping"}',
                                         headers={"content-type": "application/json"})
            try:
                with urllib.request.urlopen(req, timeout=10) as resp:
                    return resp.status, resp.read().decode()
            except urllib.error.HTTPError as e:
                return e.code, e.read().decode()

        assert post("") == (400, "session_id is required")
        assert post("?session_id=not-hex") == (400, "Invalid session ID")
        assert post("?session_id=" + "ab" * 16) == (404, "Could not find session")
    finally:
        uv.should_exit = True
        t.join(10)
