"""An ASGI host on trio (anyio's trio backend, as the ``mcp`` SDK's apps may run) serving oxmcp's HTTP
apps: ``MCPServer.streamable_http_app()`` under ``session_manager.run()``, and the HTTP+SSE transport
(``SseServerTransport``) under a low-level ``Server.run``. The native server answers on an asyncio loop,
so these requests are answered on one of the server's own, shared by the requests and streams in
flight at once and closed with the last of them; the ASGI messages go back and forth to the trio loop."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import anyio
import pytest

pytest.importorskip("trio")

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}}


def _scope(method: str, path: str, headers: list[tuple[bytes, bytes]], query: bytes = b"") -> dict[str, Any]:
    return {"type": "http", "method": method, "path": path, "root_path": "", "query_string": query,
            "headers": [(b"host", b"127.0.0.1"), *headers], "client": ("127.0.0.1", 50000)}


async def _request(app: Any, method: str, path: str, headers: list[tuple[bytes, bytes]],
                   body: bytes = b"", query: bytes = b"") -> tuple[int, dict[bytes, bytes], bytes]:
    """One whole ASGI request to ``app``: its status, headers and body."""
    sent: list[dict[str, Any]] = []
    delivered = False

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        if delivered:
            await anyio.sleep_forever()
        delivered = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(_scope(method, path, headers, query), receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    return (start["status"], dict(start["headers"]),
            b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body"))


def test_a_streamable_http_app_is_served_from_a_trio_host() -> None:
    from oxmcp.server.mcpserver import MCPServer

    mcp = MCPServer("trio-host")
    loops: list[Any] = []

    @mcp.tool()
    async def add(a: int, b: int) -> int:
        loops.append(asyncio.get_running_loop())
        return a + b

    app = mcp.streamable_http_app()
    json_headers = [(b"content-type", b"application/json"), (b"accept", b"application/json, text/event-stream")]

    async def main() -> list[dict[str, Any]]:
        async with mcp.session_manager.run():
            status, headers, _ = await _request(app, "POST", "/mcp", json_headers, json.dumps(INIT).encode())
            assert status == 200
            session = [(b"mcp-session-id", headers[b"mcp-session-id"]), (b"mcp-protocol-version", b"2025-06-18")]
            await _request(app, "POST", "/mcp", json_headers + session,
                           json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode())
            answers: list[dict[str, Any]] = []

            async def call(n: int) -> None:
                call = {"jsonrpc": "2.0", "id": 10 + n, "method": "tools/call",
                        "params": {"name": "add", "arguments": {"a": n, "b": 1}}}
                status, _, body = await _request(app, "POST", "/mcp", json_headers + session,
                                                 json.dumps(call).encode())
                assert status == 200
                text = body.decode()
                answers.append(json.loads(text[text.index("{"):].splitlines()[0]))

            async with anyio.create_task_group() as tg:
                for n in range(3):
                    tg.start_soon(call, n)
            return answers

    answers = anyio.run(main, backend="trio")
    assert sorted(a["result"]["structuredContent"]["result"] for a in answers) == [1, 2, 3]
    assert len(loops) == 3 and loops[0] is loops[1] is loops[2]  # one loop for the server
    assert getattr(mcp, "_oxmcp_loop_thread", None) is None  # closed when run() ended
    assert not loops[0].is_running()


def test_an_sse_stream_is_served_from_a_trio_host() -> None:
    from oxmcp.server.lowlevel import Server
    from oxmcp.server.sse import SseServerTransport
    from oxmcp.types import ListToolsResult, Tool

    async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
        return ListToolsResult(tools=[Tool(name="t", input_schema={"type": "object"})])

    server = Server("trio-sse", on_list_tools=list_tools)
    transport = SseServerTransport("/messages/")
    events: list[bytes] = []

    async def main() -> None:
        got_endpoint = anyio.Event()
        got_answer = anyio.Event()
        leave = anyio.Event()

        async def receive() -> dict[str, Any]:
            await leave.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.body" and message.get("body"):
                events.append(message["body"])
                got_endpoint.set()
                if b'"id":1' in message["body"]:
                    got_answer.set()

        async def stream() -> None:
            async with transport.connect_sse(_scope("GET", "/sse", []), receive, send) as (read, write):
                await server.run(read, write, server.create_initialization_options())

        async with anyio.create_task_group() as tg:
            tg.start_soon(stream)
            with anyio.fail_after(10):
                await got_endpoint.wait()
            found = re.search(rb"session_id=([0-9a-f]{32})", events[0])
            assert found is not None
            status, _, body = await _request(transport.handle_post_message, "POST", "/messages/",
                                             [(b"content-type", b"application/json")],
                                             json.dumps(INIT).encode(), b"session_id=" + found.group(1))
            assert (status, body) == (202, b"Accepted")
            with anyio.fail_after(10):
                await got_answer.wait()  # the answer went down the stream
            leave.set()

    anyio.run(main, backend="trio")
    answer = next(e for e in events if b'"id":1' in e)
    assert b"event: message" in answer and b'"name":"trio-sse"' in answer
    assert getattr(server._core, "_oxmcp_loop_thread", None) is None  # closed with the stream
