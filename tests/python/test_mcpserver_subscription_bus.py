"""``MCPServer(subscriptions=<bus>)`` of mcp 2.x: a handler's ``ctx.notify_*`` publish the SDK's events on
the bus (inside a request, and when the function is called programmatically), and an event published on
the bus becomes the core's notification, sent to the client."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from procs import start_script, stop

from oxmcp import types
from oxmcp._client_session import ClientSession
from oxmcp._client_sse import sse_client
from oxmcp.client import Client
from oxmcp.server.mcpserver import Context, MCPServer
from oxmcp.server.subscriptions import (
    InMemorySubscriptionBus,
    PromptsListChanged,
    ResourceUpdated,
    ToolsListChanged,
)


def test_context_events_are_published_on_the_bus() -> None:
    bus = InMemorySubscriptionBus()
    mcp = MCPServer("bus", subscriptions=bus)
    seen: list[Any] = []
    bus.subscribe(seen.append)

    @mcp.tool()
    async def touch(ctx: Context) -> str:
        await ctx.notify_tools_changed()
        await ctx.notify_resource_updated("r://x")
        return "ok"

    @mcp.prompt()
    async def ask(ctx: Context) -> str:
        await ctx.notify_prompts_changed()
        return "q"

    async def main() -> None:
        async with Client(mcp) as client:
            assert not (await client.call_tool("touch", {})).is_error
        await mcp.get_prompt("ask")  # no request: the server's bus still carries the event

    anyio.run(main)
    assert seen == [ToolsListChanged(), ResourceUpdated(uri="r://x"), PromptsListChanged()]


SERVER = """
import sys
from oxmcp.server.mcpserver import MCPServer
from oxmcp.server.subscriptions import InMemorySubscriptionBus, ResourcesListChanged

bus = InMemorySubscriptionBus()
mcp = MCPServer("bus", subscriptions=bus)

@mcp.tool()
async def announce() -> str:
    await bus.publish(ResourcesListChanged())
    return "announced"

mcp.run("sse", port=int(sys.argv[1]))
"""


def test_an_event_on_the_bus_reaches_the_client(tmp_path: Path) -> None:
    proc, port = start_script(tmp_path, SERVER)
    heard: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ServerNotification):
            heard.append(message.root.method)

    async def main() -> None:
        async with sse_client(f"http://127.0.0.1:{port}/sse") as (read, write), \
                ClientSession(read, write, message_handler=on_message) as session:
            await session.initialize()
            with anyio.fail_after(10):
                while "notifications/resources/list_changed" not in heard:
                    await session.call_tool("announce", {})
                    with anyio.move_on_after(1):
                        while "notifications/resources/list_changed" not in heard:
                            await anyio.sleep(0.02)

    try:
        anyio.run(main)
    finally:
        stop(proc)


def test_a_bus_must_publish_and_subscribe() -> None:
    with pytest.raises(TypeError, match="SubscriptionBus"):
        MCPServer("bus", subscriptions=object())
