"""The SDK's ``ClientSession`` over memory streams (``mcp.shared.memory``, ``mcp.server.session``): a
caller of the server's core like any other, whose callbacks answer the server's requests, on
asyncio and trio."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import anyio
import pytest
from pydantic import BaseModel

from oxmcp import types
from oxmcp._client_session import ClientSession
from oxmcp.client import Client, ClientRequestContext
from oxmcp.server.elicitation import AcceptedUrlElicitation
from oxmcp.server.fastmcp import Context, FastMCP
from oxmcp.server.lowlevel import Server
from oxmcp.server.mcpserver import MCPServer
from oxmcp.server.session import ServerSession
from oxmcp.shared.exceptions import McpError
from oxmcp.shared.memory import create_connected_server_and_client_session
from oxmcp.shared.message import SessionMessage

# A coroutine dropped unstarted when a connection's own loop closes (under trio) warns at garbage
# collection; these make that a failure.
pytestmark = pytest.mark.filterwarnings(
    "error:coroutine .* was never awaited:RuntimeWarning",
    "error::pytest.PytestUnraisableExceptionWarning",
)

BACKENDS = ["asyncio", "trio"]


class Answer(BaseModel):
    answer: str


def _server(**kwargs: Any) -> FastMCP:
    mcp = FastMCP("session-test", **kwargs)

    @mcp.tool()
    async def ask(question: str, ctx: Context) -> str:
        await ctx.info(f"asking {question}")
        await ctx.report_progress(1, 2)
        result = await ctx.elicit(message=f"Q: {question}", schema=Answer)
        return f"{result.action}:{result.data.answer if result.action == 'accept' else ''}"

    @mcp.tool()
    async def visit(ctx: Context) -> str:
        result = await ctx.elicit_url(message="Sign in", url="https://example.com/login", elicitation_id="e-1")
        return type(result).__name__

    @mcp.tool()
    async def nested(ctx: Context) -> str:
        class Outer(BaseModel):
            inner: Answer

        try:
            await ctx.elicit(message="nested", schema=Outer)
        except TypeError as exc:
            return f"refused: {exc}"
        return "asked"

    return mcp


@pytest.mark.parametrize("backend", BACKENDS)
def test_callbacks_answer_the_servers_requests_and_notifications(backend: str) -> None:
    seen: dict[str, list[Any]] = {"params": [], "logs": [], "notes": [], "progress": []}

    async def elicitation(context: Any, params: Any) -> types.ElicitResult:
        seen["params"].append(params)
        if params.mode == "url":
            return types.ElicitResult(action="accept")
        return types.ElicitResult(action="accept", content={"answer": "blue"})

    async def logging_callback(params: Any) -> None:
        seen["logs"].append(params.data)

    async def message_handler(message: Any) -> None:
        if isinstance(message, types.ServerNotification):
            seen["notes"].append(message.root.method)

    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen["progress"].append((done, total))

    async def main() -> list[str]:
        async with create_connected_server_and_client_session(
                _server(), elicitation_callback=elicitation, logging_callback=logging_callback,
                message_handler=message_handler) as session:
            asked = await session.call_tool("ask", {"question": "colour"}, progress_callback=progress)
            visited = await session.call_tool("visit", {})
            nested = await session.call_tool("nested", {})
            return [asked.content[0].text, visited.content[0].text, nested.content[0].text]

    asked, visited, nested = anyio.run(main, backend=backend)
    assert asked == "accept:blue"
    assert visited == AcceptedUrlElicitation.__name__
    assert nested.startswith("refused: Elicitation schema field 'inner' must be a primitive type")
    form, url = seen["params"]
    assert form.mode in (None, "form") and form.requestedSchema["properties"]["answer"]["type"] == "string"
    assert (url.mode, url.url, url.elicitationId) == ("url", "https://example.com/login", "e-1")
    assert seen["logs"] == ["asking colour"]
    assert "notifications/message" in seen["notes"] and "notifications/progress" in seen["notes"]
    assert seen["progress"] == [(1, 2)]


def test_results_and_errors_are_the_sdks() -> None:
    async def main() -> None:
        async with create_connected_server_and_client_session(_server()) as session:
            again = await session.initialize()  # a second handshake opens a fresh session, as the SDK allows
            assert again.serverInfo.name == "session-test"
            assert session.get_server_capabilities().tools is not None
            listed = await session.list_tools()
            assert {t.name for t in listed.tools} == {"ask", "visit", "nested"}
            with pytest.raises(McpError) as err:
                await session.get_prompt("missing")
            # mcp 1.x's FastMCP answers an unknown prompt with code 0 (its McpError default), as here.
            assert isinstance(err.value.error, types.ErrorData) and err.value.error.code == 0
            assert err.value.error.message == "Unknown prompt: missing"
            # No elicitation callback, so no elicitation capability declared: the core refuses to ask.
            with pytest.raises(McpError, match="elicitation capability"):
                await session.call_tool("ask", {"question": "x"})

    anyio.run(main)


def test_the_core_rules_apply_to_the_in_memory_session() -> None:
    """A server that requires a token refuses the session, which can carry none, rather than serve it
    unauthenticated; the same server without tokens serves it."""

    async def main() -> None:
        with pytest.raises(Exception) as caught:
            async with create_connected_server_and_client_session(_server(tokens={"a": {"tokens": ["t"]}})):
                pass
        assert caught.group_contains(ValueError, match="requires authentication .*tokens", depth=None)
        async with create_connected_server_and_client_session(_server()) as session:
            assert {t.name for t in (await session.list_tools()).tools} == {"ask", "visit", "nested"}

    anyio.run(main)


@pytest.mark.parametrize("backend", BACKENDS)
def test_low_level_server_over_a_server_session(backend: str) -> None:
    server = Server("low")

    @server.list_tools()
    async def list_tools() -> list[types.Tool]:
        return [types.Tool(name="echo", inputSchema={"type": "object", "properties": {"m": {"type": "string"}}})]

    @server.call_tool()
    async def call_tool(name: str, arguments: dict[str, Any]) -> list[types.TextContent]:
        return [types.TextContent(type="text", text=f"echo {arguments['m']}")]

    async def main() -> str:
        to_client, client_in = anyio.create_memory_object_stream[Any](10)
        to_server, server_in = anyio.create_memory_object_stream[Any](10)

        async def serve() -> None:
            async with ServerSession(server_in, to_client, None) as session:
                async for message in session.incoming_messages:
                    await server._handle_message(message, session, {}, False)

        async with anyio.create_task_group() as tg:
            tg.start_soon(serve)
            async with ClientSession(client_in, to_server) as client:
                await client.initialize()
                result = await client.call_tool("echo", {"m": "hi"})
            tg.cancel_scope.cancel()
        return str(result.content[0].text)

    assert anyio.run(main, backend=backend) == "echo hi"


def test_a_transport_exception_is_logged_to_the_client_and_raised_on_request() -> None:
    async def main() -> list[Any]:
        to_client, client_in = anyio.create_memory_object_stream[Any](10)
        _, server_in = anyio.create_memory_object_stream[Any](10)
        server = Server("low")
        async with ServerSession(server_in, to_client, None) as session:
            await server._handle_message(RuntimeError("boom"), session, {}, False)
            with pytest.raises(RuntimeError, match="boom"):
                await server._handle_message(RuntimeError("boom"), session, {}, True)
        return [client_in.receive_nowait(), client_in.receive_nowait()]

    for item in anyio.run(main):
        assert isinstance(item, SessionMessage)
        assert item.message.root.params == {"level": "error", "data": "Internal Server Error",
                                            "logger": "mcp.server.exception_handler"}


def test_refusals_without_a_callback_and_timeouts_are_the_sdks() -> None:
    async def main() -> tuple[Any, int]:
        to_client, client_in = anyio.create_memory_object_stream[Any](10)
        to_server, server_in = anyio.create_memory_object_stream[Any](10)
        async with ClientSession(client_in, to_server) as client:
            await to_client.send(SessionMessage(types.JSONRPCMessage.model_validate(
                {"jsonrpc": "2.0", "id": 7, "method": "sampling/createMessage",
                 "params": {"messages": [], "maxTokens": 1}})))
            reply = await server_in.receive()
            with pytest.raises(McpError) as err:
                await client.call_tool("never", {}, read_timeout_seconds=timedelta(milliseconds=50))
            return reply.message.root, err.value.error.code

    reply, code = anyio.run(main)
    # With no sampling callback the SDK's client refuses the request itself.
    assert (reply.id, reply.error.message) == (7, "Sampling not supported")
    assert code == 408


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_the_in_process_client_answers_url_and_form_elicitation_in_both_eras(mode: str) -> None:
    """``mcp.client.Client``'s callback (given a ``ClientRequestContext``) answers a legacy session's
    ``elicitation/create`` and a modern request's ``input_required`` round alike; the client declares
    both elicitation modes, as the SDK's does."""
    mcp = MCPServer("v2")

    @mcp.tool()
    async def visit(ctx: Context) -> str:
        result = await ctx.elicit_url(message="Sign in", url="https://example.com/login", elicitation_id="e-2")
        return result.action

    @mcp.tool()
    async def ask(ctx: Context) -> str:
        result = await ctx.elicit(message="Name?", schema=Answer)
        return result.data.answer

    contexts: list[Any] = []

    async def elicitation(context: Any, params: Any) -> types.ElicitResult:
        contexts.append(context)
        if params.mode == "url":
            assert params.url == "https://example.com/login"
            return types.ElicitResult(action="decline")
        assert params.requestedSchema["required"] == ["answer"]
        return types.ElicitResult(action="accept", content={"answer": "ada"})

    async def main() -> list[str]:
        async with Client(mcp, elicitation_callback=elicitation, mode=mode) as client:
            return [(await client.call_tool(name, {})).content[0].text for name in ("visit", "ask")]

    assert anyio.run(main) == ["decline", "ada"]
    assert all(isinstance(c, ClientRequestContext) for c in contexts) and len(contexts) == 2


def test_the_in_process_client_dispatches_notifications_and_sends_raw_requests() -> None:
    """``mcp.client.Client``'s ``progress_callback``, ``logging_callback`` and ``message_handler`` see a
    call's notifications as they arrive; ``client.session`` sends a request or notification given as a
    model, and returns a round's ``InputRequiredResult`` when asked to."""
    mcp = MCPServer("notes")

    @mcp.tool()
    async def work(ctx: Context) -> str:
        await ctx.report_progress(1, 2)
        await ctx.info("half way")
        return "done"

    @mcp.tool()
    async def ask(ctx: Context) -> str:
        result = await ctx.elicit(message="Name?", schema=Answer)
        return result.data.answer

    seen: dict[str, list[Any]] = {"progress": [], "logs": [], "handled": []}

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        seen["progress"].append((done, total))

    async def on_log(params: Any) -> None:
        seen["logs"].append(params.data)

    async def on_message(message: Any) -> None:
        seen["handled"].append(type(message).__name__)

    async def main() -> list[Any]:
        async with Client(mcp, mode="2026-07-28", log_level="info", logging_callback=on_log, message_handler=on_message,
                          elicitation_callback=lambda *_: None) as client:
            worked = await client.call_tool("work", {}, progress_callback=on_progress)
            listed = await client.session.send_request(types.ListToolsRequest(method="tools/list"),
                                                       types.ListToolsResult)
            round_one = await client.session.call_tool("ask", allow_input_required=True)
            return [worked.content[0].text, sorted(t.name for t in listed.tools), type(round_one).__name__,
                    list(round_one.input_requests)]

    text, names, kind, keys = anyio.run(main)
    assert (text, names, kind) == ("done", ["ask", "work"], "InputRequiredResult") and len(keys) == 1
    assert seen["progress"] == [(1, 2)] and seen["logs"] == ["half way"]
    assert seen["handled"] == ["ProgressNotification", "LoggingMessageNotification"]
