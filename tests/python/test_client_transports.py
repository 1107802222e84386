"""oxmcp's own client transports (``mcp.client.sse.sse_client``, ``mcp.client.streamable_http``'s
``streamable_http_client``) carrying its ``ClientSession`` to a server process over real HTTP on
127.0.0.1, with the server's requests answered by the session's callbacks; and the server's rules
(here its tokens) applying to them as to any client."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from procs import start_script, stop

from oxmcp import types
from oxmcp._client_http import streamable_http_client
from oxmcp._client_session import ClientSession
from oxmcp._client_sse import sse_client
from oxmcp.shared.exceptions import McpError

SERVER = '''
import sys
from oxmcp.server.fastmcp import Context, FastMCP

tokens = {"all": {"tokens": ["t-all"]}} if sys.argv[2:] == ["auth"] else None
mcp = FastMCP("transports", port=int(sys.argv[1]), tokens=tokens)

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


async def _sampling(_ctx: Any, params: Any) -> types.CreateMessageResult:
    text = params.messages[0].content.text
    return types.CreateMessageResult(role="assistant", model="m", content=types.TextContent(type="text",
                                                                                            text=text.upper()))


async def _use(read: Any, write: Any) -> list[Any]:
    progress: list[float] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append(done)

    async with ClientSession(read, write, sampling_callback=_sampling) as session:
        init = await session.initialize()
        added = await session.call_tool("add", {"a": 20, "b": 22})
        asked = await session.call_tool("ask", {"question": "hi"}, progress_callback=on_progress)
        return [init.serverInfo.name, added.structuredContent, asked.content[0].text, progress]


@pytest.mark.parametrize("transport", ["sse", "streamable-http"])
def test_client_session_over_http_transports(tmp_path: Path, transport: str) -> None:
    proc, port = start_script(tmp_path, SERVER)
    seen: list[str] = []

    async def main() -> list[Any]:
        if transport == "sse":
            async with sse_client(f"http://127.0.0.1:{port}/sse", on_session_created=seen.append) as (read, write):
                return await _use(read, write)
        async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write, session_id):
            out = await _use(read, write)
            seen.append(session_id() or "")
            return out

    try:
        assert anyio.run(main) == ["transports", {"result": 42}, "HI", [1]]
        assert seen and seen[0]
    finally:
        stop(proc)


def test_the_servers_tokens_apply_to_the_transports(tmp_path: Path) -> None:
    proc, port = start_script(tmp_path, SERVER, "auth")

    async def main() -> str:
        async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write, _), \
                ClientSession(read, write) as session:
            try:
                await session.initialize()
            except McpError as exc:
                return exc.error.message
            return "admitted"

    try:
        assert anyio.run(main).startswith("HTTP 401")
    finally:
        stop(proc)
