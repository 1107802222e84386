"""The core's middleware chain from Python: FastMCP-shaped Middleware classes."""

from __future__ import annotations

import json
import textwrap
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from procs import start_python_http, stop

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


async def test_changes_made_through_attributes_stay_in_place() -> None:
    class InPlace(Middleware):
        async def on_call_tool(self, context: MiddlewareContext, call_next: Any) -> Any:
            context.message.arguments["a"] += 100
            result = await call_next(context)
            result.structured_content["result"] += 5
            return result

    s = _server()
    s.add_middleware(InPlace())
    async with Client(s) as c:
        r = await c.call_tool("add", {"a": 1, "b": 2})
    assert r["structuredContent"] == {"result": 108}


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


_MISBEHAVING = json.loads((Path(__file__).parents[1] / "config" / "middleware.json").read_text())["cases"]


@pytest.mark.parametrize("row", _MISBEHAVING, ids=[r["name"] for r in _MISBEHAVING])
async def test_a_misbehaving_middleware_gets_the_shared_texts(row: dict[str, Any]) -> None:
    # The shared table (tests/config/middleware.json): the core words every answer.
    from oxmcp import FastMCP

    class Misbehaves(Middleware):
        async def on_list_tools(self, context: MiddlewareContext, call_next: Any) -> Any:
            if row["does"] == "answers":
                return row["value"]
            raise RuntimeError("boom")

    s = FastMCP("mw", mask_error_details=not row.get("shown"))
    s.add_middleware(Misbehaves())
    async with Client(s) as c:
        with pytest.raises(McpError) as e:
            await c.list_tools()
    assert (e.value.code, e.value.message) == (row["expect"]["code"], row["expect"]["message"])


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


MRTR_SERVER = textwrap.dedent("""
    from typing import Any
    from oxmcp import Context, Server
    from oxmcp.server.middleware import Middleware, MiddlewareContext

    server = Server("mw-mrtr")

    @server.tool
    async def ask(a: int, ctx: Context) -> str:
        answer = await ctx.elicit("k", "ok?", {"type": "object", "properties": {}})
        return f"{a} {answer.action}"

    class Double(Middleware):
        async def on_call_tool(self, context: MiddlewareContext, call_next: Any) -> Any:
            context.message["arguments"] = {**context.message.arguments, "a": context.message.arguments["a"] * 2}
            return await call_next(context)

    server.add_middleware(Double())

    if __name__ == "__main__":
        server.main()
""")


def test_an_mrtr_round_through_a_middleware_that_changes_the_arguments(tmp_path: Path) -> None:
    """The `requestState` is bound to the arguments the client sent, not to those a middleware
    passed on: the retry with the same arguments opens it, other arguments do not (the same
    case as core/tests/security/mrtr.rs and tests/node/middleware-use.test.mjs), over HTTP."""
    script = tmp_path / "server.py"
    script.write_text(MRTR_SERVER)
    proc, port = start_python_http(script)

    def ask(id_: int, args: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
        body = json.dumps({"jsonrpc": "2.0", "id": id_, "method": "tools/call",
                           "params": {"name": "ask", "arguments": args, **extra, "_meta": meta}}).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=body, method="POST", headers={
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "ask"})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                answer: dict[str, Any] = json.loads(r.read())
        except urllib.error.HTTPError as e:
            answer = json.loads(e.read())
        return answer

    try:
        r1 = ask(1, {"a": 1}, {})["result"]
        assert r1["resultType"] == "input_required", r1
        retry = {"inputResponses": {"k": {"action": "accept", "content": {}}}, "requestState": r1["requestState"]}
        r2 = ask(2, {"a": 1}, retry)
        assert r2["result"]["resultType"] == "complete", r2
        assert r2["result"]["content"][0]["text"] == "2 accept", r2
        r3 = ask(3, {"a": 2}, retry)
        assert r3["error"]["code"] == -32602 and r3["error"]["message"] == "Invalid or expired requestState", r3
    finally:
        assert stop(proc) == 0
