"""MCP Apps and Tasks from Python, through the core (in-memory client → dispatch → handlers):
``@server.ui_resource`` / ``app=`` and ``@server.tool(task=True)`` with ``tasks/get``."""

from __future__ import annotations

import asyncio

import pytest

from oxmcp import RESOURCE_MIME_TYPE, Client, Context, DefinitionError, McpError, Server

TASKS = {"extensions": {"io.modelcontextprotocol/tasks": {}}, "elicitation": {}}


def app_server() -> Server:
    s = Server("apps")

    @s.ui_resource("ui://demo/view.html", name="Viewer", connect_domains=["https://api.example.com"],
                   prefers_border=True)
    def view() -> str:
        return "<!DOCTYPE html><html><head></head><body>hi</body></html>"

    @s.tool(app={"resource_uri": "ui://demo/view.html", "visibility": ["model", "app"]})
    def show() -> str:
        return "shown"

    return s


async def test_ui_resource_and_app_tool() -> None:
    async with Client(app_server()) as c:
        caps = (await c.discover())["capabilities"]
        assert caps["extensions"]["io.modelcontextprotocol/ui"] == {"mimeTypes": [RESOURCE_MIME_TYPE]}
        [res] = await c.list_resources()
        assert res["mimeType"] == "text/html;profile=mcp-app"
        ui = {"csp": {"connectDomains": ["https://api.example.com"]}, "prefersBorder": True}
        assert res["_meta"]["ui"] == ui
        [item] = (await c.read_resource("ui://demo/view.html"))["contents"]
        assert item["mimeType"] == RESOURCE_MIME_TYPE and item["text"].endswith("</html>")
        assert item["_meta"]["ui"] == ui
        [tool] = await c.list_tools()
        assert tool["_meta"]["ui"] == {"resourceUri": "ui://demo/view.html", "visibility": ["model", "app"]}


async def test_the_spec_musts_are_checked_at_registration() -> None:
    # The core checks them when the server's primitives are registered natively (serving starts).
    s = Server("bad")

    @s.resource("ui://demo/x.html", mime_type="text/html")
    def x() -> str:
        return ""

    with pytest.raises((DefinitionError, ValueError), match="profile=mcp-app"):
        async with Client(s):
            pass
    t = Server("bad-tool")

    @t.tool(app="https://not-a-ui-uri/")
    def y() -> str:
        return ""

    with pytest.raises((DefinitionError, ValueError), match="ui://"):
        async with Client(t):
            pass


async def test_a_task_is_created_polled_and_completed() -> None:
    s = Server("tasks")
    gate = asyncio.Event()

    @s.tool(task=True)
    async def slow(ctx: Context) -> str:
        answer = await ctx.elicit("ok", "Go on?", {"type": "object", "properties": {"go": {"type": "boolean"}}})
        await gate.wait()
        return f"done: {answer.action}"

    async with Client(s, capabilities=TASKS) as c:
        created = await c.request("tools/call", {"name": "slow", "arguments": {}})
        assert created["resultType"] == "task" and created["status"] == "working"
        task_id = created["taskId"]
        for _ in range(100):
            t = await c.request("tasks/get", {"taskId": task_id})
            if t["status"] == "input_required":
                break
            await asyncio.sleep(0.02)
        assert t["inputRequests"]["ok"]["method"] == "elicitation/create"
        ack = await c.request("tasks/update", {"taskId": task_id,
                                               "inputResponses": {"ok": {"action": "accept", "content": {"go": True}}}})
        assert ack["resultType"] == "complete"
        gate.set()
        for _ in range(100):
            t = await c.request("tasks/get", {"taskId": task_id})
            if t["status"] == "completed":
                break
            await asyncio.sleep(0.02)
        assert t["result"]["content"][0]["text"] == "done: accept"
        with pytest.raises(McpError) as e:
            await c.request("tasks/get", {"taskId": "not-a-task"})
        assert e.value.code == -32602
