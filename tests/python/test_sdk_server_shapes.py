"""The mcp SDK's server shapes over oxmcp's core: MCPServer's declared capabilities, its tool and
resource failure answers and records, its managers as views of the registry, and the 1.x low-level
Server's request_handlers keyed by request class. Each goes through the real core (in-process
client), one server per test."""

from __future__ import annotations

import logging

import anyio
import pytest
from typing_extensions import NotRequired, TypedDict

from oxmcp import types
from oxmcp.client import Client
from oxmcp.server.fastmcp import FastMCP as LegacyFastMCP
from oxmcp.server.lowlevel import Server
from oxmcp.server.mcpserver import Context, MCPServer
from oxmcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from oxmcp.server.mcpserver.resources import FunctionResource
from oxmcp.shared.exceptions import McpError

SDK_LOG = "mcp.server.mcpserver.server"


def _records(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str, bool]]:
    return [(r.levelname, r.getMessage(), r.exc_info is not None) for r in caplog.records if r.name == SDK_LOG]


def _caps(server: object) -> dict:
    async def main() -> dict:
        async with Client(server) as client:
            return client.server_capabilities.model_dump(by_alias=True, exclude_none=True)

    return anyio.run(main)


def test_capabilities_are_the_sdks() -> None:
    # No logging; change flags follow subscriptions/listen; completions once a handler is set.
    assert _caps(MCPServer("a")) == {"prompts": {"listChanged": True},
                                     "resources": {"subscribe": True, "listChanged": True},
                                     "tools": {"listChanged": True}}
    off = MCPServer("b", subscriptions=False)

    @off.completion()
    async def complete(ref: object, argument: object, context: object) -> None:
        return None

    assert _caps(off) == {"completions": {}, "prompts": {"listChanged": False},
                          "resources": {"subscribe": False, "listChanged": False},
                          "tools": {"listChanged": False}}
    legacy = _caps(LegacyFastMCP("c"))
    assert legacy["tools"] == {"listChanged": False} and "logging" not in legacy


def test_extensions_take_extension_objects() -> None:
    with pytest.raises(TypeError, match=r"extensions=\[...\]\) takes"):
        MCPServer("x", extensions=[object()])


def test_tool_and_resource_failures_answer_and_log_as_the_sdk(caplog: pytest.LogCaptureFixture) -> None:
    mcp = MCPServer("fail")

    @mcp.tool()
    def refuse() -> str:
        raise ToolError("not today")

    @mcp.tool()
    def crash() -> str:
        raise KeyError("k")

    @mcp.tool()
    def add(a: int, b: int) -> int:
        return a + b

    @mcp.resource("db://stats")
    def stats() -> str:
        raise RuntimeError("pool exhausted")

    @mcp.resource("db://tables/{table}")
    def table(table: str) -> str:
        if table == "gone":
            raise ResourceNotFoundError("no such table")
        raise ResourceError(f"table {table} is being rebuilt")

    @mcp.resource("db://rows/{row}")
    def row(row: str) -> str:
        raise RuntimeError("backend down")

    @mcp.prompt()
    def brief(topic: str, tone: str) -> str:
        return topic

    async def main() -> list[object]:
        out: list[object] = []
        async with Client(mcp) as client:
            for name in ("refuse", "crash"):
                result = await client.call_tool(name, {})
                out.append((result.is_error, result.content[0].text))
            result = await client.call_tool("add", {"a": "one", "b": 2})
            out.append((result.is_error, result.content[0].text.splitlines()[0]))
            for uri in ("db://stats", "db://tables/gone", "db://tables/users", "db://rows/1", "nope://x"):
                with pytest.raises(McpError) as exc:
                    await client.read_resource(uri)
                out.append((exc.value.error.code, exc.value.error.message, exc.value.error.data))
            with pytest.raises(McpError) as exc:
                await client.get_prompt("brief", {"topic": "x"})
            out.append((exc.value.error.code, exc.value.error.message))
        return out

    caplog.set_level(logging.INFO)
    assert anyio.run(main) == [
        (True, "Error executing tool refuse: not today"),
        (True, "Error executing tool crash"),
        (True, "Error executing tool add: 1 validation error for addArguments"),
        (-32603, "Error reading resource db://stats", {"uri": "db://stats"}),
        (-32602, "no such table", {"uri": "db://tables/gone"}),
        (-32603, "table users is being rebuilt", {"uri": "db://tables/users"}),
        (-32603, "Error creating resource from template db://rows/1", {"uri": "db://rows/1"}),
        (-32602, "Unknown resource: nope://x", {"uri": "nope://x"}),
        (-32602, "Missing required arguments: {'tone'}"),
    ]
    assert _records(caplog) == [
        ("INFO", "Tool 'refuse' failed: 'Error executing tool refuse: not today'", False),
        ("ERROR", "Tool 'crash' raised an unexpected exception", True),
        ("INFO", "Tool 'add' rejected arguments: ['a']", False),  # the names only, not the values
        ("ERROR", "Resource 'db://stats' raised an unexpected exception", True),
        ("INFO", "Resource 'db://tables/gone' failed: 'no such table'", False),
        ("INFO", "Resource 'db://tables/users' failed: 'table users is being rebuilt'", False),
        ("ERROR", "Resource 'db://rows/1' raised an unexpected exception", True),
    ]


def test_managers_are_views_of_the_registry(caplog: pytest.LogCaptureFixture) -> None:
    def hello() -> str:
        """Seeded."""
        return "hi"

    mcp = MCPServer("views", resources=[FunctionResource.from_function(hello, uri="r://seed", name="seed")])

    def add(x: int, ctx: Context) -> int:
        return x

    tool = mcp._tool_manager.add_tool(add)
    assert (tool.name, tool.context_kwarg) == ("add", "ctx")
    mcp.add_tool(add)  # a taken name: the first is kept, with a warning
    assert [t.name for t in mcp._tool_manager.list_tools()] == ["add"]
    assert "Tool already exists: add" in caplog.text

    @mcp.resource("r://{name}/data")
    def data(name: str) -> str:
        return f"data for {name}"

    @mcp.prompt()
    def greet(name: str) -> str:
        return f"Hello, {name}!"

    assert list(mcp._resource_manager._templates) == ["r://{name}/data"]

    async def main() -> tuple[object, object, object]:
        made = await mcp._resource_manager.get_resource("r://x/data", None)
        (prompt,) = mcp._prompt_manager.list_prompts()
        with pytest.raises(ResourceError, match="Unknown resource: r://none"):
            await mcp._resource_manager.get_resource("r://none")
        async with Client(mcp) as client:
            seeded = (await client.read_resource("r://seed")).contents[0].text
        return await made.read(), (await prompt.render({"name": "Ann"}))[0].content.text, seeded

    assert anyio.run(main) == ("data for x", "Hello, Ann!", "hi")
    mcp._tool_manager.remove_tool("add")
    assert mcp._tool_manager.get_tool("add") is None


def test_lowlevel_request_handlers_by_request_class() -> None:
    server = Server("ll")

    @server.list_prompts()
    async def prompts(request: types.ListPromptsRequest) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[types.Prompt(name=f"p-{request.params.cursor}")], nextCursor="n")

    @server.read_resource()
    async def read(uri: object) -> str:
        return f"text of {uri}"

    async def main() -> tuple[object, object]:
        listed = await server.request_handlers[types.ListPromptsRequest](
            types.ListPromptsRequest(params=types.PaginatedRequestParams(cursor="c1")))
        read_result = await server.request_handlers[types.ReadResourceRequest](
            types.ReadResourceRequest(params=types.ReadResourceRequestParams(uri="file:///a")))
        return listed, read_result

    listed, read_result = anyio.run(main)
    assert isinstance(listed, types.ServerResult)
    assert (listed.root.prompts[0].name, listed.root.nextCursor) == ("p-c1", "n")
    assert read_result.root.contents[0].text == "text of file:///a"
    assert types.ListToolsRequest not in server.request_handlers


def test_audio_mime_types_follow_the_frameworks_table() -> None:
    from oxmcp.server.mcpserver import Audio

    assert [Audio(path=p).mime_type for p in ("a.wav", "a.mp3", "a.unknown")] == [
        "audio/wav", "audio/mpeg", "application/octet-stream"]
    assert Audio(data=b"x", format="flac").mime_type == "audio/flac"


def test_in_process_call_tool_returns_the_tools_result() -> None:
    mcp = MCPServer()

    @mcp.tool()
    def direct() -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text="direct")])

    @mcp.tool()
    def mixed() -> list:
        return ["text", {"key": "value"}, types.TextContent(type="text", text="block")]

    direct_result = anyio.run(mcp.call_tool, "direct", {})
    # As the handler formed it: no output schema, no serverInfo stamp.
    assert direct_result == types.CallToolResult(content=[types.TextContent(type="text", text="direct")])
    texts = [c.text for c in anyio.run(mcp.call_tool, "mixed", {}).content]
    assert texts == ["text", '{\n  "key": "value"\n}', "block"]  # data items as the SDK's JSON
    assert next(t for t in mcp.list_tools() if t["name"] == "direct").get("outputSchema") is None


def test_programmatic_calls_raise_the_sdks_errors_and_write_no_record(caplog: pytest.LogCaptureFixture) -> None:
    # mcp.call_tool / mcp.read_resource run the function in process: a failure is the SDK's
    # exception chained to its cause, and only a client's request writes a record.
    from pydantic import ValidationError

    from oxmcp.server.mcpserver.exceptions import UnexpectedResourceError, UnexpectedToolError

    mcp = MCPServer()
    boom = RuntimeError("boom")

    @mcp.tool()
    def add(a: int) -> int:
        raise boom

    @mcp.resource("books://{title}")
    def book(title: str) -> str:
        if title == "gone":
            raise ResourceNotFoundError("no such book")
        raise boom

    @mcp.tool()
    async def summarise(title: str, ctx: Context) -> str:
        await ctx.read_resource(f"books://{title}")
        return "unreachable"

    caplog.set_level(logging.INFO)
    with pytest.raises(UnexpectedToolError) as crash:
        anyio.run(mcp.call_tool, "add", {"a": 1})
    assert (str(crash.value), crash.value.__cause__) == ("Error executing tool add", boom)
    with pytest.raises(ToolError) as invalid:
        anyio.run(mcp.call_tool, "add", {"a": "one"})
    assert type(invalid.value) is ToolError and isinstance(invalid.value.__cause__, ValidationError)
    with pytest.raises(ToolError, match="Unknown tool: nope"):
        anyio.run(mcp.call_tool, "nope", {})
    with pytest.raises(ResourceNotFoundError):
        anyio.run(mcp.read_resource, "books://gone")
    with pytest.raises(UnexpectedResourceError, match="Error creating resource from template books://x"):
        anyio.run(mcp.read_resource, "books://x")
    assert _records(caplog) == []

    async def main() -> list[str]:
        async with Client(mcp) as client:
            return [(await client.call_tool("summarise", {"title": t})).content[0].text for t in ("gone", "x")]

    # Through a client: a ResourceError escaping the tool is anticipated, a crash stays a crash.
    assert anyio.run(main) == ["Error executing tool summarise: no such book",
                               "Error executing tool summarise: Error creating resource from template books://x"]
    assert _records(caplog) == [
        ("INFO", "Tool 'summarise' failed: 'Error executing tool summarise: no such book'", False),
        ("ERROR", "Tool 'summarise' raised an unexpected exception", True)]


def test_resource_decorator_checks_the_function_against_its_uri() -> None:
    mcp = MCPServer()
    with pytest.raises(ValueError, match=r"\['level'\] have no default value"):
        @mcp.resource("logs://{service}{?level}")
        def tail(service: str, level: str) -> str:
            return service

    with pytest.raises(ValueError, match="Context injection for static resources is not supported"):
        @mcp.resource("weather://current")
        def current(ctx: Context) -> str:
            return ""

    @mcp.resource("logs://{service}{?level}")
    def tail_ok(service: str, level: str = "info") -> str:
        return f"{service} {level}"

    async def main() -> str:
        async with Client(mcp) as client:
            return (await client.read_resource("logs://api")).contents[0].text

    assert anyio.run(main) == "api info"


def test_context_outside_a_request() -> None:
    mcp = MCPServer()
    assert Context(mcp_server=mcp).mcp_server is mcp
    with pytest.raises(ValueError, match="outside of a request"):
        _ = Context().mcp_server
    with pytest.raises(ValueError, match="outside of a request"):
        _ = Context().request_context


def test_legacy_sse_app_announces_its_mount_path() -> None:
    """mcp 1.x's mount_path: the endpoint event names the messages path under it (the app driven as
    an ASGI server drives it, until the event arrives)."""
    mcp = LegacyFastMCP("sse", mount_path="/github", host="0.0.0.0")
    app = mcp.sse_app()
    scope = {"type": "http", "method": "GET", "path": "/sse", "raw_path": b"/sse", "root_path": "",
             "query_string": b"", "headers": [(b"host", b"localhost")], "client": ("127.0.0.1", 5000),
             "server": ("127.0.0.1", 80), "scheme": "http", "http_version": "1.1"}
    body = bytearray()

    async def main() -> None:
        async with app.router.lifespan_context(app), anyio.create_task_group() as tg:
            async def receive() -> dict:
                await anyio.sleep_forever()
                return {}

            async def send(message: dict) -> None:
                body.extend(message.get("body", b""))
                if b"session_id=" in body:
                    tg.cancel_scope.cancel()

            async def first_request() -> None:
                await app({**scope}, _first(receive), send)

            tg.start_soon(first_request)
            with anyio.fail_after(10):
                await anyio.sleep_forever()

    def _first(then):  # type: ignore[no-untyped-def]
        sent = False

        async def receive() -> dict:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": b"", "more_body": False}
            return await then()
        return receive

    anyio.run(main)
    assert b"data: /github/messages/?session_id=" in body


def test_a_malformed_template_is_refused_when_given() -> None:
    from oxmcp.shared.uri_template import InvalidUriTemplate

    with pytest.raises(InvalidUriTemplate, match="Unclosed expression at position 7"):
        MCPServer().resource("file://{name")
    with pytest.raises(InvalidUriTemplate, match="variable name"):
        MCPServer().resource("x://{a b}")


def test_results_read_from_the_wire_equal_results_built_by_hand() -> None:
    # mcp 2.x's result models declare resultType / ttlMs / cacheScope with defaults: a result the
    # client reads equals one built with only its own fields; a read's contents carry the
    # resource's _meta; a dump leaves the defaults out (as a handler's result is sent).
    mcp = MCPServer()

    @mcp.resource("resource://data", meta={"version": "1.0"})
    def data() -> str:
        return "text"

    @mcp.prompt()
    def hello() -> str:
        return "Hello"

    async def main() -> tuple[object, object]:
        async with Client(mcp, mode="2026-07-28") as client:
            return await client.read_resource("resource://data"), await client.get_prompt("hello")

    read, prompt = anyio.run(main)
    info = read.field_meta
    assert read == types.ReadResourceResult(_meta=info, contents=[types.TextResourceContents(
        uri="resource://data", mimeType="text/plain", text="text", _meta={"version": "1.0"})])
    assert (read.ttlMs, read.cacheScope, read.resultType) == (0, "private", "complete")
    assert prompt == types.GetPromptResult(_meta=info, description="", messages=[types.PromptMessage(
        role="user", content=types.TextContent(type="text", text="Hello"))])
    assert types.ListToolsResult(tools=[]).model_dump(by_alias=True, exclude_none=True) == {"tools": []}
    assert types.ListToolsResult(tools=[], ttl_ms=5).model_dump(by_alias=True, exclude_none=True) == \
        {"tools": [], "ttlMs": 5}


def test_a_returned_input_required_result_is_an_input_round_of_the_core() -> None:
    # mcp 2.x's hand-written flow: the function returns InputRequiredResult; the core seals the
    # round's state and keeps the answers, which the retry reads from ctx.input_responses and
    # ctx.request_state. A session of an earlier revision gets -32603 (no input_required there).
    mcp = MCPServer()
    rounds: list[tuple[object, object]] = []

    @mcp.tool()
    async def greet(ctx: Context) -> str | types.InputRequiredResult:
        rounds.append((ctx.input_responses, ctx.request_state))
        who = (ctx.input_responses or {}).get("who")
        if who is not None:
            return f"Hello, {who.content['name']}! (state={ctx.request_state})"
        schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
        return types.InputRequiredResult(input_requests={"who": types.ElicitRequest(
            method="elicitation/create", params={"message": "Name?", "requestedSchema": schema})}, request_state="r1")

    async def answer(context: object, params: object) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"name": "Alice"})

    async def modern() -> object:
        async with Client(mcp, mode="2026-07-28", elicitation_callback=answer) as client:
            first = await client.session.call_tool("greet", allow_input_required=True)
            assert isinstance(first, types.InputRequiredResult)
            assert first.requestState not in (None, "r1")  # sealed by the core
            return await client.call_tool("greet", {})

    result = anyio.run(modern)
    assert result.content[0].text == "Hello, Alice! (state=r1)"
    assert rounds[0] == (None, None)
    assert isinstance(rounds[-1][0]["who"], types.ElicitResult) and rounds[-1][1] == "r1"

    async def legacy() -> None:
        async with Client(mcp, mode="legacy", elicitation_callback=answer) as client:
            with pytest.raises(McpError) as exc:
                await client.call_tool("greet", {})
            assert (exc.value.error.code, exc.value.error.message) == (-32603, "Handler returned an invalid result")

    anyio.run(legacy)


class Person(TypedDict):
    name: str
    age: NotRequired[int]


def test_mcpserver_context_lifespan_completions_and_schemas_are_the_sdks(caplog: pytest.LogCaptureFixture) -> None:
    # The function's Context is mcp 2.x's (ctx.mcp_server, ClientCapabilities); the in-process
    # client runs the lifespan; a completion crash is -32603 naming the argument, with one record;
    # a NotRequired key of a TypedDict result is not required in the output schema.
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def lifespan(server: object):  # type: ignore[no-untyped-def]
        yield {"greeting": "Hello"}

    mcp = MCPServer(lifespan=lifespan)

    @mcp.tool()
    def probe(ctx: Context) -> str:
        caps = ctx.client_capabilities
        return f"{ctx.mcp_server is mcp} {type(caps).__name__} {ctx.request_context.lifespan_context['greeting']}"

    @mcp.tool()
    def person() -> Person:
        return {"name": "Dave"}

    @mcp.completion()
    async def complete(ref: object, argument: object, context: object) -> object:
        raise RuntimeError("index offline")

    async def main() -> tuple[str, object, object]:
        async with Client(mcp, mode="2026-07-28") as client:
            text = (await client.call_tool("probe", {})).content[0].text
            structured = (await client.call_tool("person", {})).structuredContent
            with pytest.raises(McpError) as exc:
                await client.complete(types.PromptReference(type="ref/prompt", name="p"), {"name": "style", "value": ""})
            return text, structured, exc.value.error

    caplog.set_level(logging.INFO)
    text, structured, error = anyio.run(main)
    assert text == "True ClientCapabilities Hello"
    assert structured == {"name": "Dave"}
    assert (error.code, error.message) == (-32603, "Error completing argument style")
    assert _records(caplog) == [("ERROR", "Completion for argument 'style' raised an unexpected exception", True)]
    schema = next(t for t in mcp.list_tools() if t["name"] == "person")["outputSchema"]
    assert schema["required"] == ["name"]


def test_a_value_its_annotation_refuses_is_the_tools_crash_and_notify_publishes(
        caplog: pytest.LogCaptureFixture) -> None:
    # The SDK converts a return value by its annotation: one it refuses is the tool's crash (an
    # error result and an ERROR record), not the core's -32603. ctx.notify_*_changed publish
    # through the core; outside a request they raise, as in the SDK.
    mcp = MCPServer()

    @mcp.tool()
    def numbers() -> list[int]:
        return [1, [2]]  # type: ignore[list-item]

    @mcp.tool()
    async def touch(ctx: Context) -> str:
        await ctx.notify_tools_changed()
        await ctx.notify_resource_updated("file://x")
        return "ok"

    async def main() -> list[tuple[bool, str]]:
        async with Client(mcp) as client:
            return [((r := await client.call_tool(n, {})).isError, r.content[0].text) for n in ("numbers", "touch")]

    caplog.set_level(logging.INFO)
    assert anyio.run(main) == [(True, "Error executing tool numbers"), (False, "ok")]
    assert _records(caplog) == [("ERROR", "Tool 'numbers' raised an unexpected exception", True)]
    with pytest.raises(ValueError, match="outside of a request"):
        anyio.run(Context().notify_tools_changed)

    legacy = LegacyFastMCP()
    legacy.add_tool(numbers)

    async def legacy_call() -> bool:
        async with Client(legacy) as client:
            return bool((await client.call_tool("numbers", {})).isError)

    assert anyio.run(legacy_call)  # mcp 1.x converts the value by its annotation too


def test_a_forms_optional_field_is_sent_as_its_bare_type() -> None:
    # mcp 2.x's requestedSchema: `T | None` as T (left out of required), no null default; a field
    # that renders as no primitive schema of the spec is refused.
    from pydantic import BaseModel, Field

    from oxmcp.server.elicitation import render_form_schema

    class Form(BaseModel):
        name: str
        age: int | None = Field(default=None, description="Your age")

    class Bare(BaseModel):
        tags: list[str]

    schema = render_form_schema(Form)
    assert schema["properties"]["age"] == {"type": "integer", "title": "Age", "description": "Your age"}
    assert schema["required"] == ["name"]
    with pytest.raises(TypeError, match="'tags'"):
        render_form_schema(Bare)


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
@pytest.mark.parametrize("kind", ["mcp1", "mcp2"])
def test_the_low_level_server_under_an_sdk_server_runs_it_within_its_lifespan(kind: str, backend: str) -> None:
    """mcp 1.x ``FastMCP._mcp_server`` and mcp 2.x ``MCPServer._lowlevel_server``: the server itself,
    with the low-level ``run(read, write, options)`` over message streams, inside the server's lifespan,
    and ``create_initialization_options()`` reporting what ``initialize`` does."""
    from contextlib import asynccontextmanager

    from oxmcp.shared.message import SessionMessage

    events: list[str] = []

    @asynccontextmanager
    async def lifespan(server: object):  # type: ignore[no-untyped-def]
        events.append("start")
        yield {"db": "up"}
        events.append("stop")

    server = (LegacyFastMCP if kind == "mcp1" else MCPServer)("view", lifespan=lifespan)

    @server.tool()
    def state(ctx: Context) -> str:
        return str(ctx.request_context.lifespan_context["db"])

    low = server._mcp_server if kind == "mcp1" else server._lowlevel_server
    assert low.name == "view" and low.middleware is server.middleware  # every attribute is the server's
    options = low.create_initialization_options()
    assert options.server_name == "view" and options.capabilities.tools is not None

    def msg(body: dict) -> SessionMessage:
        return SessionMessage(types.jsonrpc_message_adapter.validate_python({"jsonrpc": "2.0", **body}))

    async def main() -> dict:
        to_server, read = anyio.create_memory_object_stream[object](10)
        write, from_server = anyio.create_memory_object_stream[object](10)
        async with anyio.create_task_group() as tg:
            tg.start_soon(low.run, read, write, options)
            async with to_server, from_server:
                await to_server.send(msg({"id": 1, "method": "initialize", "params": {
                    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}))
                with anyio.fail_after(10):
                    await from_server.receive()
                await to_server.send(msg({"method": "notifications/initialized"}))
                await to_server.send(msg({"id": 2, "method": "tools/call", "params": {"name": "state", "arguments": {}}}))
                with anyio.fail_after(10):
                    answer = (await from_server.receive()).message
                assert events == ["start"]
        return answer.model_dump(by_alias=True, exclude_none=True)

    answer = anyio.run(main, backend=backend)
    assert answer["result"]["content"][0]["text"] == "up"
    assert events == ["start", "stop"]
