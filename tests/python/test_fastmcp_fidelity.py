"""FastMCP 4's answers where its rules differ from the SDKs': completion of what a client could
list only, a refused AuthMiddleware, awaited component look-ups, prompt argument titles, template
parameters with defaults and aliases, tool-name warnings, and icons that keep their text."""

from __future__ import annotations

import logging
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field

from oxmcp import FastMCP
from oxmcp._fastmcp_client import Client
from oxmcp.tools import Tool
from oxmcp.types import (
    CallToolResult,
    Icon,
    Implementation,
    PromptReference,
    ResourceTemplateReference,
    TextContent,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _gated() -> tuple[FastMCP, list[str]]:
    mcp = FastMCP("gated")
    asked: list[str] = []

    @mcp.prompt(tags={"secret"})
    def hidden(x: str) -> str:
        return x

    @mcp.prompt
    def shown(x: str) -> str:
        return x

    @mcp.resource("notes://{path}", tags={"secret"})
    def hidden_note(path: str) -> str:
        return path

    @mcp.resource("search://find{?q}")
    def search(q: str = "") -> str:
        return q

    @mcp.completion
    def complete(ref, argument, context):  # type: ignore[no-untyped-def]
        asked.append(getattr(ref, "name", None) or ref.uri)
        return ["v"]

    return mcp, asked


async def test_completion_answers_only_for_what_a_client_could_list() -> None:
    mcp, asked = _gated()
    mcp.disable(tags={"secret"})
    async with Client(mcp) as client:
        got = [
            (await client.complete(ref, {"name": arg, "value": ""})).values
            for ref, arg in ((PromptReference(name="hidden"), "x"), (PromptReference(name="nope"), "x"),
                             (ResourceTemplateReference(uri="notes://{path}"), "path"),
                             (PromptReference(name="shown"), "x"),
                             (ResourceTemplateReference(uri="search://find{?q}"), "q"))
        ]
    assert got == [[], [], [], ["v"], ["v"]]
    assert asked == ["shown", "search://find{?q}"]  # the handler never hears of the hidden ones


def test_auth_middleware_is_refused_not_ignored() -> None:
    from oxmcp.server.middleware import AuthMiddleware

    with pytest.raises(TypeError, match="decided by the core"):
        AuthMiddleware(auth=lambda ctx: True)


async def test_get_tool_and_get_prompt_are_awaited_and_hide_what_is_disabled() -> None:
    mcp = FastMCP("look-up")

    @mcp.tool
    def add(a: int, b: int = 1) -> int:
        return a + b

    @mcp.prompt(tags={"secret"})
    def explain(subject: str, tone: str = "plain") -> str:
        return subject

    tool = await mcp.get_tool("add")
    assert isinstance(tool, Tool) and tool.parameters["required"] == ["a"]
    prompt = await mcp.get_prompt("explain")
    assert [(a.name, a.required) for a in prompt.arguments] == [("subject", True), ("tone", False)]
    assert await mcp.get_tool("missing") is None
    mcp.disable(tags={"secret"})
    assert await mcp.get_prompt("explain") is None
    with pytest.raises(TypeError, match="one version per component"):
        await mcp.get_tool("add", version="2")


class Topic(BaseModel):
    text: str


async def test_prompt_argument_title_comes_from_an_explicit_field_title_only() -> None:
    mcp = FastMCP("titles")

    @mcp.prompt
    def greet(name: Annotated[str, Field(title="Your name")], topic: Topic,
              tone: str = Field(default="playful", title="Tone of voice")) -> str:
        return name

    async with Client(mcp) as client:
        [listed] = await client.list_prompts()
    assert {a.name: a.title for a in listed.arguments} == {"name": "Your name", "topic": None,
                                                          "tone": "Tone of voice"}


async def test_template_parameters_follow_fastmcps_rule() -> None:
    mcp = FastMCP("templates")

    @mcp.resource("data://x/{a}")
    def pair(a: str = Field(alias="b"), b: str = "default-b") -> str:
        return f"a={a} b={b}"

    @mcp.resource("data://count/{n}")
    def count(n: int = Field(validation_alias="number")) -> str:
        return str(n + 1)

    async with Client(mcp) as client:
        [paired] = await client.read_resource("data://x/1")
        [counted] = await client.read_resource("data://count/41")
    assert (paired.text, counted.text) == ("a=1 b=default-b", "42")

    with pytest.raises(ValueError, match="Mismatch between URI parameters"):
        @mcp.resource("data://y/{a}")
        def needs_b(a: str, b: str) -> str:  # b has no default and is not in the URI
            return a + b

    with pytest.raises(ValueError, match="Mismatch between URI parameters"):
        @mcp.resource("data://z/{a}/{c}")
        def lacks_c(a: str) -> str:
            return a


@pytest.mark.parametrize("layer", ["oxmcp", "mcpserver", "mcp1-fastmcp"])
def test_the_other_layers_keep_the_exact_parameter_rule(layer: str) -> None:
    from oxmcp import Server
    from oxmcp.server.fastmcp import FastMCP as LegacyFastMCP
    from oxmcp.server.mcpserver import MCPServer

    server = {"oxmcp": Server, "mcpserver": MCPServer, "mcp1-fastmcp": LegacyFastMCP}[layer]("exact")
    with pytest.raises(ValueError, match="Mismatch between URI parameters"):
        @server.resource("data://x/{a}")
        def pair(a: str, b: str = "default-b") -> str:
            return a + b


@pytest.mark.parametrize(("name", "warned", "note"), [
    ("valid.tool-name_1", False, None),
    ("my tool", True, "contains spaces"),
    ("tool@name!", True, "invalid characters: '@', '!'"),
    ("-tool", True, "starts or ends with a dash"),
    ("a" * 129, True, "exceeds maximum length of 128 characters (current: 129)"),
])
def test_tool_names_outside_the_spec_rule_are_warned_and_kept(
        name: str, warned: bool, note: str | None, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="mcp.shared.tool_name_validation"):
        tool = Tool.from_function(lambda: "x", name=name)
    assert tool.name == name
    text = caplog.text
    assert ("Tool name validation warning" in text) is warned
    if note:
        assert note in text


def test_icon_src_and_website_url_keep_their_text() -> None:
    icon = Icon(src="https://example.com")
    assert icon.src == "https://example.com"
    info = Implementation(name="s", version="1", websiteUrl="https://example.com")
    assert info.websiteUrl == "https://example.com"
    assert Icon.model_validate({"src": "data:image/svg+xml;base64,PHN2Zz4="}).src.startswith("data:")


class Person(BaseModel):
    name: str
    title: str  # a property named "title" stays


def test_fastmcp_output_schema_has_no_pydantic_titles() -> None:
    def who() -> Person:
        return Person(name="Ada", title="Dr")

    assert Tool.from_function(who).output_schema == {
        "properties": {"name": {"type": "string"}, "title": {"type": "string"}},
        "required": ["name", "title"], "type": "object"}


@pytest.mark.parametrize(("annotation", "inferred"), [
    (tuple[Any], True), (tuple[Any, Any], True), (tuple[int, str], True),
    (tuple[Any, ...], False), (list[Any], False), (list, False),
])
def test_a_fixed_length_tuple_of_any_is_data(annotation: Any, inferred: bool) -> None:
    def fn():  # type: ignore[no-untyped-def]
        return ()

    fn.__annotations__ = {"return": annotation}  # the annotation itself (this module's are strings)
    assert (Tool.from_function(fn).output_schema is not None) is inferred


async def test_a_call_tool_result_annotation_infers_no_output_schema() -> None:
    from oxmcp import Server

    def answer() -> CallToolResult:
        return CallToolResult(content=[TextContent(type="text", text="done")])

    assert Tool.from_function(answer).output_schema is None
    server = Server("own")
    server.tool(answer)
    assert "outputSchema" not in server.list_tools()[0]


async def test_a_list_holding_a_content_model_is_one_block_per_item() -> None:
    from oxmcp.types import ImageContent

    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
    mcp = FastMCP("mixed")

    @mcp.tool
    def render() -> list:  # type: ignore[type-arg]
        return [ImageContent(type="image", data=png, mimeType="image/png"), {"note": "metadata"}]

    @mcp.tool
    def data() -> list:  # type: ignore[type-arg]
        return [{"note": "a"}, 2]

    async with Client(mcp) as client:
        mixed = await client.call_tool("render")
        plain = await client.call_tool("data")
    assert [b.type for b in mixed.content] == ["image", "text"]
    assert mixed.content[1].text == '{"note":"metadata"}' and mixed.structured_content is None
    assert [b.text for b in plain.content] == ['[{"note":"a"},2]']  # a list of data stays one JSON text


def test_fastmcps_app_factories_serve_the_servers_app() -> None:
    from starlette.middleware import Middleware
    from starlette.middleware.base import BaseHTTPMiddleware
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route
    from starlette.testclient import TestClient

    from oxmcp.server.http import create_sse_app, create_streamable_http_app

    class Stamp(BaseHTTPMiddleware):
        async def dispatch(self, request: Any, call_next: Any) -> Any:
            response = await call_next(request)
            response.headers["x-stamp"] = "1"
            return response

    s = FastMCP("factories")

    @s.custom_route("/health", methods=["GET"])
    async def health(request: Any) -> PlainTextResponse:
        return PlainTextResponse("OK")

    @s.tool
    def echo(text: str) -> str:
        return text

    async def extra(request: Any) -> PlainTextResponse:
        return PlainTextResponse("extra")

    app = create_streamable_http_app(s, "/api", routes=[Route("/extra", extra)], middleware=[Middleware(Stamp)])
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
    with TestClient(app, base_url="http://127.0.0.1") as tc:
        health_answer, extra_answer = tc.get("/health"), tc.get("/extra")
        r = tc.post("/api", json={"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                  "params": {"name": "echo", "arguments": {"text": "hi"}, "_meta": meta}},
                    headers={"accept": "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28",
                             "mcp-method": "tools/call", "mcp-name": "echo"})
    assert (health_answer.text, extra_answer.text, health_answer.headers["x-stamp"]) == ("OK", "extra", "1")
    assert r.json()["result"]["content"][0]["text"] == "hi"

    sse = create_sse_app(FastMCP("sse"), message_path="/message", sse_path="/sse/")
    assert {getattr(route, "path", None) for route in sse.routes} >= {"/message", "/sse/"}
    with pytest.raises(TypeError, match="auth provider object is not applied"):
        create_streamable_http_app(s, "/mcp", auth=object())


async def test_read_resource_without_middleware_passes_the_middleware_by() -> None:
    from oxmcp.server.middleware import Middleware

    class Counting(Middleware):
        def __init__(self) -> None:
            self.reads = 0

        async def on_read_resource(self, context: Any, call_next: Any) -> Any:
            self.reads += 1
            return await call_next(context)

    mw = Counting()
    mcp = FastMCP(middleware=[mw])

    @mcp.resource("data://item/{id}")
    def item(id: str) -> str:
        return f"item {id}"

    with_mw = await mcp.read_resource("data://item/1")
    without = await mcp.read_resource("data://item/2", run_middleware=False)
    assert [c.content for c in with_mw.contents + without.contents] == ["item 1", "item 2"]
    assert mw.reads == 1


async def test_the_middleware_list_adds_by_append_and_refuses_other_changes() -> None:
    from oxmcp.server.middleware import Middleware

    seen: list[int] = []

    class Tagging(Middleware):
        async def on_call_tool(self, context: Any, call_next: Any) -> Any:
            seen.append(id(self))
            return await call_next(context)

    first = Tagging()
    mcp = FastMCP("chain", middleware=(first,))

    @mcp.tool
    def hi() -> str:
        return "hi"

    assert isinstance(mcp.middleware, list) and mcp.middleware == [first]
    mcp.middleware.append(Tagging())
    assert len(mcp.middleware) == 2
    with pytest.raises(TypeError, match="add_middleware"):
        mcp.middleware.clear()
    await mcp.call_tool("hi", {})
    assert seen == [id(m) for m in mcp.middleware]  # both links ran, first added first


async def test_a_rendered_prompt_carries_the_prompts_own_meta() -> None:
    mcp = FastMCP("meta")

    @mcp.prompt(meta={"team": "infra", "fastmcp": {"owner": "docs", "_internal": 1}}, tags={"t"})
    def greet(name: str) -> str:
        return f"Hello {name}"

    mcp.enable(names={"greet"})  # with a visibility rule in place too
    async with Client(mcp) as client:
        greeted = await client.get_prompt("greet", {"name": "Ada"})
    assert greeted.meta["team"] == "infra" and greeted.meta["fastmcp"] == {"owner": "docs"}
