"""A handler's notifications to its session's client through the SDK's ``ServerSession``
(``ctx.session.send_resource_list_changed()``, ``send_elicit_complete(id)``, ``send_notification``),
and a tool described as ``-> list[ContentBlock]``: a server process of mcp 1.x's ``FastMCP`` shape
served over real HTTP on 127.0.0.1, heard by oxmcp's ``ClientSession`` through the Streamable HTTP
client transport (whose standalone GET stream carries what answers no request) and the HTTP+SSE one."""

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

SERVER = '''
import sys
from oxmcp import types
from oxmcp.server.fastmcp import Context, FastMCP

mcp = FastMCP("notes", port=int(sys.argv[1]))

@mcp.tool()
async def announce(ctx: Context) -> str:
    await ctx.session.send_resource_list_changed()
    await ctx.session.send_tool_list_changed()
    await ctx.session.send_elicit_complete("e-1")
    await ctx.session.send_notification(types.ServerNotification(types.PromptListChangedNotification()))
    return "announced"

@mcp.tool()
def blocks() -> list[types.ContentBlock]:
    return [types.TextContent(type="text", text="Hello"),
            types.ImageContent(type="image", data="abc", mimeType="image/png")]

mcp.run(transport="sse")
'''

EXPECTED = ["notifications/resources/list_changed", "notifications/tools/list_changed",
            "notifications/elicitation/complete", "notifications/prompts/list_changed"]


async def _session(read: Any, write: Any) -> list[Any]:
    heard: list[Any] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ServerNotification):
            heard.append(message.root)

    async with ClientSession(read, write, message_handler=on_message) as session:
        await session.initialize()
        # The notifications travel on the session's standalone GET stream, which the client opens
        # after the handshake, as the SDK's does; one sent before it is open is not kept (the SDK's
        # server keeps none either without an event store). So announce again until they arrive.
        with anyio.fail_after(20):
            while {n.method for n in heard} != set(EXPECTED):
                announced = await session.call_tool("announce", {})
                with anyio.move_on_after(1):
                    while {n.method for n in heard} != set(EXPECTED):
                        await anyio.sleep(0.02)
        listed = {t.name: t for t in (await session.list_tools()).tools}
        blocks = await session.call_tool("blocks", {})
    completes = sorted({n.params.elicitationId for n in heard if n.method == "notifications/elicitation/complete"})
    return [announced.content[0].text, sorted({n.method for n in heard}), completes,
            listed["blocks"].outputSchema["required"], [c.type for c in blocks.content],
            [(b["type"], b.get("text") or b.get("data")) for b in blocks.structuredContent["result"]]]


@pytest.mark.parametrize("transport", ["sse", "streamable-http"])
def test_a_handler_notifies_its_sessions_client(tmp_path: Path, transport: str) -> None:
    proc, port = start_script(tmp_path, SERVER)

    async def main() -> list[Any]:
        if transport == "sse":
            async with sse_client(f"http://127.0.0.1:{port}/sse") as (read, write):
                return await _session(read, write)
        async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write, _):
            return await _session(read, write)

    try:
        assert anyio.run(main) == ["announced", sorted(EXPECTED), ["e-1"], ["result"], ["text", "image"],
                                   [("text", "Hello"), ("image", "abc")]]
    finally:
        stop(proc)
