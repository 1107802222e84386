"""FastMCP's component classes and client on oxmcp: a component registers the same way as the
decorator, runs through the core, and FastMCP's client reads the answers as FastMCP's does."""

from __future__ import annotations

import threading

import pytest

from oxmcp import FastMCP, ToolError
from oxmcp._fastmcp_client import Client
from oxmcp.prompts import Message, Prompt
from oxmcp.resources import FunctionResource, ResourceTemplate
from oxmcp.tools import Tool, tool

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


async def test_tool_component_lists_and_runs_as_the_decorator() -> None:
    component = Tool.from_function(add)
    decorated = FastMCP("d")
    decorated.tool(add)
    assert component.parameters == decorated._tools["add"].info.input_schema
    assert component.output_schema == decorated._tools["add"].info.output_schema
    assert component.output_schema["x-fastmcp-wrap-result"] is True  # FastMCP's client unwraps by it

    result = await component.run({"a": 1, "b": 2})
    assert result.structured_content == {"result": 3} and result.content[0].text == "3"

    server = FastMCP("c")
    server.add_tool(component)
    async with Client(server) as client:
        listed = await client.list_tools()
        answer = await client.call_tool("add", {"a": 2, "b": 3})
        with pytest.raises(ToolError):
            await client.call_tool("add", {"a": "x", "b": 3})
    assert [t.name for t in listed] == ["add"] and listed[0].input_schema["additionalProperties"] is False
    assert answer.data == 5 and answer.meta["fastmcp"] == {"wrap_result": True}


async def test_tool_run_tells_a_bad_call_from_a_body_validation_error() -> None:
    """A bad call is FastMCP's ``ValidationError`` (the core checked the arguments); a pydantic error
    the body raised is ``_ToolBodyError``, chained to it."""
    import pydantic

    from oxmcp.exceptions import ValidationError
    from oxmcp.tools.function_tool import _ToolBodyError

    class Inner(pydantic.BaseModel):
        x: int

    def build(n: int) -> int:
        return Inner.model_validate({"x": "not-an-int"}).x + n

    component = Tool.from_function(build)
    with pytest.raises(ValidationError):
        await component.run({"n": "x"})
    with pytest.raises(_ToolBodyError) as caught:
        await component.run({"n": 1})
    assert not isinstance(caught.value, ValidationError)
    assert isinstance(caught.value.__cause__, pydantic.ValidationError)


async def test_standalone_tool_decorator_settings_are_registered() -> None:
    @tool(name="plus", description="Adds.")
    def plus(a: int, b: int) -> int:
        return a + b

    server = FastMCP("s")
    server.add_tool(plus)
    async with Client(server) as client:
        (listed,) = await client.list_tools()
    assert (listed.name, listed.description) == ("plus", "Adds.")


async def test_object_without_output_schema_answers_structured_content() -> None:
    server = FastMCP("o")

    @server.tool
    def info(name: str):  # no annotation: no output schema
        return {"name": name}

    async with Client(server) as client:
        answer = await client.call_tool("info", {"name": "x"})
    assert answer.structured_content == {"name": "x"}


async def test_run_in_thread_false_runs_on_the_loop_thread() -> None:
    server = FastMCP("t")

    @server.tool(run_in_thread=False)
    def where() -> str:
        return threading.current_thread().name

    with pytest.raises(ValueError, match="timeout cannot be enforced"):
        server.add_tool(lambda: 1, name="bad", run_in_thread=False, timeout=1.0)
    async with Client(server) as client:
        answer = await client.call_tool("where", {})
    assert answer.data == threading.current_thread().name


async def test_prompt_component_renders_through_the_core() -> None:
    def review(code: str, lines: list[int]) -> str:
        return f"{code}:{lines}"

    prompt = Prompt.from_function(review)
    by_name = {a.name: a for a in prompt.arguments or []}
    assert by_name["code"].description is None
    assert "JSON schema" in (by_name["lines"].description or "")  # FastMCP's note for a non-str argument
    result = await prompt.render({"code": "x", "lines": [1, 2]})
    assert result.messages == [Message("x:[1, 2]")]


async def test_resource_components_register_as_the_decorator() -> None:
    server = FastMCP("r")
    server.add_resource(FunctionResource(uri="data://config", name="config", fn=lambda: {"debug": True}))
    server.add_resource(ResourceTemplate.from_function(lambda id: f"user {id}", "user://{id}", name="user"))
    async with Client(server) as client:
        (config,) = await client.read_resource("data://config")
        (user,) = await client.read_resource("user://7")
    assert config.text == '{"debug":true}' and config.mime_type == "application/json"
    assert user.text == "user 7"
