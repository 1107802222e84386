"""Unit tests of the FastMCP / MCPServer names: each API in-process, through the core."""

from __future__ import annotations

import re
import typing
from contextlib import asynccontextmanager
from typing import Any

import pytest

from oxmcp import Client, Context, FastMCP, MCPServer, ToolError


def test_fastmcp_without_a_name_and_subscriptable_context() -> None:
    a, b = FastMCP(), FastMCP()
    assert a.name.startswith("FastMCP-") and a.name != b.name
    assert MCPServer().name == "mcp-server"
    assert Context[Any, dict] is Context  # type: ignore[misc]

    @a.tool
    def uses(ctx: Context[Any, Any]) -> str:  # type: ignore[type-arg]
        return "x"

    assert a.list_tools()[0]["inputSchema"]["properties"] == {}


@pytest.mark.parametrize(("size", "message"), [
    (0, "page_size must be at least 1"),
    (-1, "page_size: invalid value: integer `-1`, expected u64"),
])
def test_a_bad_list_page_size_is_the_cores_value_error(size: int, message: str) -> None:
    # FastMCP raises ValueError for a page size below 1, in the words of its own parameter; the
    # check is the core's, and its text is the cause (the page_size rows of tests/config/cases.json).
    with pytest.raises(ValueError, match="^list_page_size must be a positive integer$") as raised:
        FastMCP("p", list_page_size=size)
    assert re.search(re.escape(message), str(raised.value.__cause__))
    assert FastMCP("p", list_page_size=2).options["page_size"] == 2


class Weather(typing.TypedDict):  # typing's, which pydantic refuses before Python 3.12
    city: str
    temperature: float


def test_typing_typeddict_return_gets_output_schema() -> None:
    s = FastMCP("t")

    @s.tool
    def weather(city: str) -> Weather:
        return {"city": city, "temperature": 1.5}

    schema = s.list_tools()[0]["outputSchema"]
    assert schema["type"] == "object" and set(schema["properties"]) == {"city", "temperature"}


async def test_returns_follow_fastmcp_rules() -> None:
    s = FastMCP("r")

    @s.tool
    def tags() -> list[str]:
        return ["a", "b"]

    @s.tool
    def hello() -> str:
        return "hi"

    @s.tool
    def nothing() -> str | None:
        return None

    async with Client(s) as c:
        r = await c.call_tool("tags")
        assert r["structuredContent"] == {"result": ["a", "b"]} and r["content"] == [{"type": "text", "text": '["a","b"]'}]
        r = await c.call_tool("hello")
        assert r["content"] == [{"type": "text", "text": "hi"}] and r["structuredContent"] == {"result": "hi"}
        r = await c.call_tool("nothing")
        assert r["content"] == [] and r["structuredContent"] == {"result": None}


async def test_lifespan_context_both_spellings() -> None:
    seen: list[str] = []

    @asynccontextmanager
    async def lifespan(server: FastMCP):  # type: ignore[no-untyped-def]
        seen.append("enter")
        yield {"db": "conn"}
        seen.append("exit")

    s = FastMCP("l", lifespan=lifespan)

    @s.tool
    def both(ctx: Context) -> str:
        return f"{ctx.lifespan_context['db']}/{ctx.request_context.lifespan_context['db']}"

    async with s._lifespan_running(), Client(s) as c:
        r = await c.call_tool("both")
    assert r["content"][0]["text"] == "conn/conn" and seen == ["enter", "exit"]


async def test_mask_error_details_defaults() -> None:
    # A ToolError's text reaches the model: as it is (FastMCP), under the tool's name (the SDK).
    for cls, masked, text, refusal in ((FastMCP, False, "Error calling tool 'boom': bad 1", "shown to the model"),
                                       (MCPServer, True, "Error executing tool boom",
                                        "Error executing tool refused: shown to the model")):
        s = cls("e")

        @s.tool()  # (MCPServer refuses an uncalled decorator, as the SDK does)
        def boom(x: int) -> int:
            raise ValueError(f"bad {x}")

        @s.tool()
        def refused() -> int:
            raise ToolError("shown to the model")

        assert s.mask_error_details is masked
        async with Client(s) as c:
            assert (await c.call_tool("boom", {"x": 1}))["content"][0]["text"] == text
            assert (await c.call_tool("refused"))["content"][0]["text"] == refusal
    s = FastMCP("m", mask_error_details=True)

    @s.tool
    def hidden() -> int:
        raise ValueError("secret")

    async with Client(s) as c:
        assert (await c.call_tool("hidden"))["content"][0]["text"] == "Error calling tool 'hidden'"


async def test_mount_is_live_and_import_server_copies() -> None:
    child = FastMCP("child")

    @child.tool
    def t() -> int:
        return 1

    @child.resource("data://x/{id}")
    def r(id: str) -> str:
        return id

    parent = FastMCP("parent")
    parent.mount(child, prefix="c")
    parent.import_server(child, prefix="i")

    @child.tool
    def later() -> int:
        return 2

    async with Client(parent) as c:
        names = {t["name"] for t in await c.list_tools()}
        assert {"c_t", "c_later", "i_t"} <= names and "i_later" not in names
        templates = {t["uriTemplate"] for t in await c.list_resource_templates()}
        assert "data://c/x/{id}" in templates
        assert (await c.read_resource("data://c/x/7"))["contents"][0]["text"] == "7"


async def test_in_process_listings_show_mounted_components_before_serving() -> None:
    child = FastMCP("child")

    @child.resource("resource:///absolute/path")
    def absolute() -> str:
        return "a"

    @child.resource("resource://{param}/template")
    def template(param: str) -> str:
        return param

    @child.tool
    def t() -> int:
        return 1

    @child.prompt
    def p() -> str:
        return "p"

    parent = FastMCP("parent")
    parent.mount(child, "prefix")
    assert [str(r.uri) for r in await parent.list_resources()] == ["resource://prefix//absolute/path"]
    assert [t.uri_template for t in await parent.list_resource_templates()] == ["resource://prefix/{param}/template"]
    assert [t.name for t in await parent.list_tools()] == ["prefix_t"]
    assert [p.name for p in await parent.list_prompts()] == ["prefix_p"]
    async with Client(parent) as c:
        assert (await c.read_resource("resource://prefix//absolute/path"))["contents"][0]["text"] == "a"

async def test_create_proxy_of_a_server_object_serves_its_components() -> None:
    from oxmcp.server import create_proxy

    child = FastMCP("child")

    @child.resource("items://{category}{?tags}")
    def search(category: str, tags: str = "") -> str:
        return f"{category}:{tags}"

    proxy = create_proxy(child, name="front")

    @child.tool
    def later() -> int:
        return 2

    assert proxy.name == "front"
    async with Client(proxy) as c:
        assert [t["uriTemplate"] for t in await c.list_resource_templates()] == ["items://{category}{?tags}"]
        assert (await c.read_resource("items://books?tags=a"))["contents"][0]["text"] == "books:a"
        assert "later" in {t["name"] for t in await c.list_tools()}
    for target in ("http://127.0.0.1:1/mcp", {"mcpServers": {}}):
        with pytest.raises(TypeError, match="oxmcp does not proxy servers"):
            create_proxy(target)
    with pytest.raises(TypeError, match="leave mode unset"):
        create_proxy(child, mode="auto")


async def test_state_elicit_and_read_resource() -> None:
    s = FastMCP("s")

    @s.resource("data://v")
    def v() -> str:
        return "value"

    @s.tool
    async def tool(ctx: Context) -> str:
        await ctx.set_state("k", 1)
        got = await ctx.get_state("k")
        res = await ctx.read_resource("data://v")
        return f"{got}:{res.contents[0].content}:{ctx.transport}:{isinstance(ctx.request_id, str)}"

    @s.tool
    async def ask(ctx: Context) -> str:
        r = await ctx.elicit("Age?", response_type=int)
        return f"{r.action}:{r.data}"

    caps = {"elicitation": {"form": {}}}
    async with Client(s, capabilities=caps) as c:
        assert (await c.call_tool("tool"))["content"][0]["text"] == "1:value:streamable-http:True"
        first = await c.request("tools/call", {"name": "ask", "arguments": {}})
        assert first["resultType"] == "input_required"
        (key, req), = first["inputRequests"].items()
        assert req["params"]["requestedSchema"]["properties"]["value"]["type"] == "integer"
        done = await c.request("tools/call", {"name": "ask", "arguments": {},
                                              "inputResponses": {key: {"action": "accept", "content": {"value": 7}}},
                                              "requestState": first["requestState"]})
        assert done["content"][0]["text"] == "accept:7"


def test_run_keywords() -> None:
    s = FastMCP("k")
    with pytest.raises(ValueError, match="Unknown transport"):
        s.run(transport="websocket")
    with pytest.raises(TypeError, match="auth= is not supported"):
        FastMCP("a", auth=object())
    with pytest.raises(TypeError, match="unexpected keyword"):
        FastMCP("a", no_such_option=1)
    FastMCP("ok", on_duplicate="error", strict_input_validation=True, dereference_schemas=False)
    with pytest.raises(TypeError, match="unknown keyword"):
        s.http_app(no_such=1)


def test_http_app_serves_custom_routes_and_mcp() -> None:
    from starlette.responses import PlainTextResponse
    from starlette.testclient import TestClient

    s = FastMCP("h")

    @s.custom_route("/health", methods=["GET"])
    async def health(request: Any) -> PlainTextResponse:
        return PlainTextResponse("OK")

    @s.tool
    def echo(text: str) -> str:
        return text

    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    with TestClient(s.http_app(), base_url="http://127.0.0.1") as tc:
        assert tc.get("/health").text == "OK"
        r = tc.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                  "params": {"name": "echo", "arguments": {"text": "hi"}, "_meta": meta}},
                    headers={"accept": "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28",
                             "mcp-method": "tools/call", "mcp-name": "echo"})
        assert r.status_code == 200, r.text
        assert r.json()["result"]["content"][0]["text"] == "hi"


async def test_add_tools_follows_the_compat_classes_add_tool_rules() -> None:
    """``add_tools`` items get what ``add_tool`` gives on FastMCP/MCPServer: FastMCP's
    keywords (``tags``; ``enabled=False`` skips the item), MCPServer's ``description: ""`` for an
    undocumented tool, also for one added while serving (it was set after the core had it)."""

    def undocumented(x: int) -> int:
        return x

    def hidden() -> str:
        return "h"

    def late(y: int) -> int:
        return y

    m = MCPServer("m")
    m.add_tools([undocumented, {"fn": hidden, "name": "h2", "tags": {"t"}}])
    async with Client(m) as c:
        tools = {t["name"]: t for t in await c.list_tools()}
        assert sorted(tools) == ["h2", "undocumented"]
        assert tools["undocumented"]["description"] == ""
        m.add_tool(late)
        tools = {t["name"]: t for t in await c.list_tools()}
        assert tools["late"]["description"] == ""

    f = FastMCP("f")
    f.add_tools([{"fn": undocumented, "tags": {"t"}}, {"fn": hidden, "enabled": False}])
    async with Client(f) as c:
        assert [t["name"] for t in await c.list_tools()] == ["undocumented"]


async def test_unknown_arguments_follow_each_framework() -> None:
    """FastMCP (4.2.3: `additionalProperties: false`, pydantic's unexpected_keyword_argument) refuses an
    argument the function does not take; mcp 2.x's MCPServer lists no such rule and ignores it."""
    for cls, refused in ((FastMCP, True), (MCPServer, False)):
        s = cls("args")

        @s.tool()
        def add(a: int, b: int = 2) -> int:
            return a + b

        async with Client(s) as c:
            schema = (await c.list_tools())[0]["inputSchema"]
            assert schema.get("additionalProperties") is (False if refused else None), (cls, schema)
            r = await c.call_tool("add", {"a": 1, "zzz": 3})
            if refused:
                assert r.get("isError") is True and "zzz" in r["content"][0]["text"], r
            else:
                assert r["structuredContent"] == {"result": 3}, r


async def test_sdk_completion_decorator_answers_every_completion_request() -> None:
    """MCPServer's ``@mcp.completion()``: one ``handler(ref, argument, context)`` with the SDK's models;
    ``None`` is an empty list, an exception an internal error naming only the argument (mcp 2.x;
    mcp 1.x's FastMCP keeps the exception's text, its suite in tests/upstream), the per-argument
    form is unchanged."""
    from oxmcp import McpError
    from oxmcp.types import Completion, PromptReference, ResourceTemplateReference

    seen: list[Any] = []
    s = MCPServer("complete")

    @s.prompt()
    def review(language: str) -> str:
        return language

    @s.resource("repo://{owner}/{name}")
    def repo(owner: str, name: str) -> str:
        return f"{owner}/{name}"

    @s.completion()
    async def complete(ref: Any, argument: Any, context: Any) -> Completion | None:
        seen.append((type(ref).__name__, argument.name, context.arguments if context else None))
        if isinstance(ref, PromptReference) and argument.name == "language":
            return Completion(values=[v for v in ("python", "go") if v.startswith(argument.value)],
                              has_more=False)
        if isinstance(ref, ResourceTemplateReference) and argument.name == "boom":
            raise RuntimeError("no completions today")
        return None

    async with Client(s) as c:
        prompt_ref = {"type": "ref/prompt", "name": "review"}
        assert await c.complete(prompt_ref, "language", "py") == {"values": ["python"], "hasMore": False}
        assert await c.complete(prompt_ref, "other", "x") == {"values": []}
        template_ref = {"type": "ref/resource", "uri": "repo://{owner}/{name}"}
        with pytest.raises(McpError, match="^Error completing argument boom$"):
            await c.complete(template_ref, "boom", "x")
    with pytest.raises(TypeError, match="name the argument"):
        s.completion(prompt="review")
    assert seen[0] == ("PromptReference", "language", None)
    assert seen[2] == ("ResourceTemplateReference", "boom", None)


async def test_sdk_server_methods_called_on_the_server_itself() -> None:
    """``await mcp.list_tools()`` / ``call_tool`` / ``read_resource`` / ``get_prompt``, as servers' own
    tests call them: the SDK's models (mcp 2.x runs a tool or a read in process, as its SDK does); mcp
    1.x's FastMCP (handshake era only) too."""
    from oxmcp.server.fastmcp import FastMCP as LegacyFastMCP

    for cls in (MCPServer, LegacyFastMCP):
        s = cls("self")

        @s.tool()
        def add(a: int, b: int) -> int:
            return a + b

        @s.tool()
        def fail() -> str:
            raise ToolError("no luck")

        @s.resource("notes://today")
        def today() -> str:
            return "rain"

        @s.prompt()
        def ask(topic: str) -> str:
            return f"About {topic}?"

        assert s.list_tools()[0]["name"] == "add"  # oxmcp's own spelling: the registered definitions
        tools = await s.list_tools()
        assert [t.name for t in tools] == ["add", "fail"] and tools[0].input_schema["required"] == ["a", "b"]
        assert [str(r.uri) for r in await s.list_resources()] == ["notes://today"]
        assert [p.name for p in await s.list_prompts()] == ["ask"]
        result = await s.call_tool("add", {"a": 2, "b": 3})
        if cls is MCPServer:  # mcp 2.x: the CallToolResult
            assert result.content[0].text == "5" and result.structured_content == {"result": 5}
        else:  # mcp 1.x: the content blocks, and the structured result beside them
            assert result[0][0].text == "5" and result[1] == {"result": 5}
        with pytest.raises(ToolError, match="no luck"):
            await s.call_tool("fail", {})
        [contents] = await s.read_resource("notes://today")
        assert (contents.content, contents.mime_type) == ("rain", "text/plain")
        prompt = await s.get_prompt("ask", {"topic": "tides"})
        assert prompt.messages[0].content.text == "About tides?"
        async with Client(s) as c:  # the in-process client opens a legacy session where it must
            assert [t["name"] for t in await c.list_tools()] == ["add", "fail"]
