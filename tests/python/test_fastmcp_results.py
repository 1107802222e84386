"""FastMCP 4's shapes of what a component answers, through the core: a read's contents carry the
component's own meta, an explicit output schema with FastMCP's wrap marker wraps the value, an SDK
content model a tool returns is its block, and ``Prompt.render`` raises FastMCP's component errors."""

from __future__ import annotations

from typing import Any

import pytest

from oxmcp import FastMCP
from oxmcp._fastmcp_client import Client
from oxmcp.exceptions import PromptError, ValidationError
from oxmcp.prompts.function_prompt import FunctionPrompt
from oxmcp.resources.base import ResourceContent
from oxmcp.tools import Tool
from oxmcp.types import AudioContent

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_read_gives_each_content_the_components_own_meta() -> None:
    mcp = FastMCP("meta")

    @mcp.resource("data://tagged/{id}", meta={"team": "infra"}, tags={"t"})
    def tagged(id: str) -> str:
        return id

    @mcp.resource("data://multi/{id}", meta={"team": "infra", "own": 0})
    def multi(id: str) -> list[ResourceContent]:
        return [ResourceContent("a"), ResourceContent("b", meta={"own": 1})]

    @mcp.resource("data://plain")
    def plain() -> str:
        return "p"

    async with Client(mcp) as client:
        [one] = (await client.read_resource_mcp("data://tagged/9")).contents
        many = (await client.read_resource_mcp("data://multi/1")).contents
        [bare] = (await client.read_resource_mcp("data://plain")).contents
    # Its listing's `fastmcp` tags stay in the listing; the content's own keys win.
    assert one.meta == {"team": "infra"}
    assert [c.meta for c in many] == [{"team": "infra", "own": 0}, {"team": "infra", "own": 1}]
    assert bare.meta is None


async def test_an_object_schema_with_the_wrap_marker_wraps_the_value() -> None:
    def func() -> str:
        return "world"

    schema = {"type": "object", "properties": {"message": {"type": "string"}}, "x-fastmcp-wrap-result": True}
    tool = Tool.from_function(func, output_schema=schema)
    assert tool.output_schema == schema
    assert (await tool.run({})).structured_content == {"result": "world"}


async def test_an_sdk_content_model_returned_is_its_block() -> None:
    def get_audio() -> AudioContent:
        return AudioContent(type="audio", data="ZmFrZQ==", mimeType="audio/wav")

    result = await Tool.from_function(get_audio).run({})
    assert [(c.type, c.data) for c in result.content] == [("audio", "ZmFrZQ==")]
    assert result.structured_content is None


async def test_prompt_render_raises_fastmcps_component_errors() -> None:
    async def greet(name: str, age: int = 30) -> str:
        return f"{name} {age}"

    def typed(numbers: list[int]) -> str:
        return str(numbers)

    with pytest.raises(ValidationError, match=r"^Missing required arguments: \{'name'\}$"):
        await FunctionPrompt.from_function(greet).render(arguments={"age": 40})
    with pytest.raises(PromptError) as raised:
        await FunctionPrompt.from_function(typed).render(arguments={"numbers": "not json"})
    text: Any = str(raised.value)
    assert text.startswith("Could not convert argument 'numbers' with value 'not json' to expected type list[int].")
    assert (await FunctionPrompt.from_function(typed).render(arguments={"numbers": "[1, 2]"})).messages
