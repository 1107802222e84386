"""The core's middleware chain from Python: FastMCP-shaped Middleware classes (issue 12)."""

from __future__ import annotations

from typing import Any

import pytest

from oxmcp import Client, McpError, Server
from oxmcp.server.middleware import Middleware, MiddlewareContext, hooked_methods


class Counting(Middleware):
    def __init__(self) -> None:
        self.calls: list[str] = []

    async def on_call_tool(self, context: MiddlewareContext, call_next: Any) -> Any:
        self.calls.append(context.message.name)
        context.message["arguments"] = {**context.message.arguments, "b": 100}
        result = await call_next(context)
        result["content"][0]["text"] += "!"
        return result


def _server() -> Server:
    s = Server("mw")

    @s.tool
    def add(a: int, b: int) -> int:
        return a + b

    @s.tool
    def other() -> str:
        return "x"

    return s


def test_hooked_methods_follow_the_overridden_hooks() -> None:
    assert hooked_methods(Counting()) == ["tools/call"]

    class All(Middleware):
        async def on_request(self, context: MiddlewareContext, call_next: Any) -> Any:
            return await call_next(context)

    assert hooked_methods(All()) is None


async def test_changes_params_and_result_and_is_not_called_for_other_methods() -> None:
    s = _server()
    m = Counting()
    s.add_middleware(m)
    async with Client(s) as c:
        r = await c.call_tool("add", {"a": 1, "b": 2})
        assert r["content"][0]["text"] == "101!" and r["structuredContent"] == {"result": 101}
        await c.list_tools()  # not hooked: the core never calls into Python for it
    assert m.calls == ["add"]


async def test_short_circuit_and_errors() -> None:
    class Cache(Middleware):
        async def on_list_tools(self, context: MiddlewareContext, call_next: Any) -> Any:
            tools = await call_next(context)
            return [t for t in tools if t.name != "other"]

        async def on_call_tool(self, context: MiddlewareContext, call_next: Any) -> Any:
            if context.message.name == "other":
                raise McpError(-32602, "not for you")
            if context.fastmcp_context is not None and context.message.name == "add":
                return {"content": [{"type": "text", "text": "cached"}]}
            return await call_next(context)

    s = _server()
    s.add_middleware(Cache())
    async with Client(s) as c:
        assert [t["name"] for t in await c.list_tools()] == ["add"]
        assert (await c.call_tool("add", {"a": 1, "b": 1}))["content"][0]["text"] == "cached"
        with pytest.raises(McpError) as e:
            await c.call_tool("other")
        assert e.value.code == -32602


async def test_plain_callable_middleware_sees_every_method_in_order() -> None:
    order: list[str] = []

    async def first(context: MiddlewareContext, call_next: Any) -> Any:
        order.append("first:" + str(context.method))
        return await call_next(context)

    async def second(context: MiddlewareContext, call_next: Any) -> Any:
        order.append("second:" + str(context.method))
        return await call_next(context)

    s = _server()
    s.add_middleware(first)
    s.add_middleware(second)
    async with Client(s) as c:
        await c.list_tools()
    assert order == ["first:tools/list", "second:tools/list"]
