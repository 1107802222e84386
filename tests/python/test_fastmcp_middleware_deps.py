"""FastMCP's dependencies and middleware semantics on oxmcp: ``Depends`` parameters resolved per call,
a tool's exception seen by the middleware chain, ``run_middleware=False``, FastMCP's timeout text."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from oxmcp import Client, FastMCP, McpError
from oxmcp.dependencies import CallArgument, CurrentContext, CycleError, Depends
from oxmcp.server.dependencies import resolve_dependencies
from oxmcp.server.middleware import Middleware
from oxmcp.server.middleware.error_handling import ErrorHandlingMiddleware, RetryMiddleware


async def test_a_dependency_is_resolved_per_call_and_left_out_of_the_schema() -> None:
    mcp = FastMCP("deps")
    events: list[str] = []

    @contextlib.contextmanager
    def connection() -> Iterator[dict[str, str]]:
        events.append("open")
        yield {"db": "main"}
        events.append("close")

    def account(owner: str = CallArgument()) -> str:
        return f"acct-{owner}"

    @mcp.tool
    def lookup(owner: str, conn: dict[str, str] = Depends(connection), acct: str = Depends(account),
               ctx: Any = CurrentContext()) -> str:
        assert threading.current_thread() is not threading.main_thread()  # a sync body runs in a worker
        return f"{conn['db']}:{acct}:{ctx.fastmcp.name}"

    async with Client(mcp) as c:
        tools = await c.list_tools()
        assert list(tools[0]["inputSchema"]["properties"]) == ["owner"]
        result = await c.call_tool("lookup", {"owner": "ada"})
        # A caller cannot choose an injected value: the schema refuses the name.
        refused = await c.call_tool("lookup", {"owner": "ada", "conn": {"db": "evil"}})
    assert result["structuredContent"] == {"result": "main:acct-ada:deps"}
    assert events == ["open", "close"]
    assert refused["isError"] is True


async def test_a_generator_is_consumed_before_its_dependencies_close() -> None:
    mcp = FastMCP()
    state = {"open": False}

    @contextlib.contextmanager
    def resource() -> Iterator[dict[str, bool]]:
        state["open"] = True
        yield state
        state["open"] = False

    @mcp.tool
    def flags(r: dict[str, bool] = Depends(resource)) -> Iterator[bool]:
        yield r["open"]
        yield r["open"]

    async with Client(mcp) as c:
        result = await c.call_tool("flags", {})
    assert json.loads(result["content"][0]["text"]) == [True, True]
    assert state["open"] is False


async def test_call_argument_cycles_name_their_path() -> None:
    def get_a(b: str = CallArgument()) -> str:
        return b

    def get_b(a: str = CallArgument()) -> str:
        return a

    async def both(a: str = Depends(get_a), b: str = Depends(get_b)) -> str:
        return a + b

    with pytest.raises(CycleError, match="a -> b -> a"):
        async with resolve_dependencies(both, {}):
            pass


async def test_retry_middleware_sees_the_tools_exception_and_calls_it_again() -> None:
    mcp = FastMCP(middleware=[RetryMiddleware(max_retries=3, base_delay=0.01, retry_exceptions=(ConnectionError,))])
    calls = 0

    @mcp.tool
    def flaky() -> str:
        nonlocal calls
        calls += 1
        if calls < 3:
            raise ConnectionError("transient")
        return "ok"

    async with Client(mcp) as c:
        result = await c.call_tool("flaky", {})
    assert result["structuredContent"] == {"result": "ok"}
    assert calls == 3


async def test_error_handling_middleware_turns_a_tool_value_error_into_invalid_params() -> None:
    mcp = FastMCP(middleware=[ErrorHandlingMiddleware()])
    seen: list[BaseException] = []

    class Seen(Middleware):
        async def on_call_tool(self, context: Any, call_next: Any) -> Any:
            try:
                return await call_next(context)
            except Exception as exc:
                seen.append(exc)
                raise

    mcp.add_middleware(Seen())

    @mcp.tool
    def bad(n: int) -> int:
        raise ValueError("n is odd")

    async with Client(mcp) as c:
        with pytest.raises(McpError) as err:
            await c.call_tool("bad", {"n": 3})
        # Without a middleware that maps it, the failure stays the tool's isError result.
        plain = FastMCP()
        plain.add_tool(bad)
    assert err.value.code == -32602
    assert err.value.message == "Invalid params: Error calling tool 'bad': n is odd"
    assert type(seen[0]).__name__ == "ToolError" and isinstance(seen[0].__cause__, ValueError)
    async with Client(plain) as c:
        result = await c.call_tool("bad", {"n": 3})
    assert result["isError"] is True
    assert result["content"][0]["text"] == "Error calling tool 'bad': n is odd"


async def test_missing_prompt_arguments_reach_middleware_in_fastmcps_words() -> None:
    mcp = FastMCP(middleware=[ErrorHandlingMiddleware()])

    @mcp.prompt
    def summarize(topic: str) -> str:
        return topic

    async with Client(mcp) as c:
        with pytest.raises(McpError) as err:
            await c.get_prompt("summarize", {})
    assert err.value.code == -32602
    assert err.value.message == "Invalid params: Missing required arguments: {'topic'}"


async def test_run_middleware_false_passes_the_middleware_by() -> None:
    class Doubling(Middleware):
        def __init__(self) -> None:
            self.calls = 0

        async def on_call_tool(self, context: Any, call_next: Any) -> Any:
            self.calls += 1
            context.message.arguments["a"] *= 2
            return await call_next(context)

    mw = Doubling()
    mcp = FastMCP(middleware=[mw])

    @mcp.tool
    def add(a: int, b: int) -> int:
        return a + b

    with_mw = await mcp.call_tool("add", {"a": 5, "b": 3})
    without = await mcp.call_tool("add", {"a": 5, "b": 3}, run_middleware=False)
    assert (with_mw.structured_content, without.structured_content) == ({"result": 13}, {"result": 8})
    assert mw.calls == 1


@pytest.mark.parametrize(("mask", "text"), [
    (False, "Error calling tool 'slow': Tool 'slow' execution timed out after 0.05s"),
    (True, "Error calling tool 'slow'"),
])
async def test_a_tool_timeout_is_the_cores_in_fastmcps_words(mask: bool, text: str) -> None:
    mcp = FastMCP(mask_error_details=mask)

    @mcp.tool(timeout=0.05)
    async def slow() -> str:
        await asyncio.sleep(5)
        return "late"

    async with Client(mcp) as c:
        result = await c.call_tool("slow", {})
    assert result["isError"] is True
    assert result["content"][0]["text"] == text


@pytest.mark.parametrize(("text", "expected"), [
    (None, "Tool hang timed out"),
    ("Tool '{name}' execution timed out after {timeout}s", "Tool 'hang' execution timed out after 0.05s"),
])
async def test_the_cores_tool_timeout_text_option(text: str | None, expected: str) -> None:
    from oxmcp import Server

    s = Server("t", **({"tool_timeout_text": text} if text else {}))

    @s.tool(timeout=0.05)
    async def hang() -> str:
        await asyncio.sleep(5)
        return "late"

    async with Client(s) as c:
        result = await c.call_tool("hang", {})
    assert result["isError"] is True
    assert result["content"][0]["text"] == expected
