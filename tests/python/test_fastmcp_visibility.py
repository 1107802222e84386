"""FastMCP's ``enable``/``disable`` on oxmcp: a hidden component is unknown on every path the core
answers (lists, calls, reads, prompts), before and while serving, for components registered later
too; its tags are listed in ``_meta.fastmcp`` as FastMCP lists them."""

from __future__ import annotations

import pytest

from oxmcp import FastMCP
from oxmcp._client import Client
from oxmcp._errors import McpError

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _server() -> FastMCP:
    mcp = FastMCP("vis")

    @mcp.tool(tags={"public"})
    def hello() -> str:
        return "hi"

    @mcp.tool(tags={"secret"})
    def salary() -> int:
        return 1

    @mcp.resource("data://secret/{id}", tags={"secret"})
    def secret(id: str) -> str:
        return id

    @mcp.prompt(tags={"secret"})
    def confess() -> str:
        return "..."

    return mcp


async def _seen(mcp: FastMCP) -> tuple[list[str], list[str], list[str]]:
    async with Client(mcp) as client:
        tools = [t["name"] for t in await client.list_tools()]
        templates = [t["uriTemplate"] for t in await client.list_resource_templates()]
        prompts = [p["name"] for p in await client.list_prompts()]
    return tools, templates, prompts


async def test_tags_are_listed_under_fastmcp_meta() -> None:
    async with Client(_server()) as client:
        tools = {t["name"]: t for t in await client.list_tools()}
    assert tools["salary"]["_meta"] == {"fastmcp": {"tags": ["secret"]}}


async def test_disable_by_tag_hides_everywhere_and_enable_brings_back() -> None:
    mcp = _server()
    mcp.disable(tags={"secret"})
    assert await _seen(mcp) == (["hello"], [], [])
    async with Client(mcp) as client:
        with pytest.raises(McpError):
            await client.call_tool("salary", {})
        with pytest.raises(McpError):
            await client.read_resource("data://secret/1")
        with pytest.raises(McpError):
            await client.get_prompt("confess", {})
    assert [t["name"] for t in mcp.list_tools()] == ["hello"]
    mcp.enable(names={"salary"})
    assert (await _seen(mcp))[0] == ["hello", "salary"]


async def test_rules_hold_while_serving_and_for_later_components() -> None:
    mcp = _server()
    async with Client(mcp) as client:
        mcp.enable(tags={"public"}, only=True)
        assert [t["name"] for t in await client.list_tools()] == ["hello"]

        @mcp.tool(tags={"internal"})
        def later() -> str:
            return "x"

        assert [t["name"] for t in await client.list_tools()] == ["hello"]
        mcp.enable(components={"tool"})
        assert sorted(t["name"] for t in await client.list_tools()) == ["hello", "later", "salary"]
        assert await client.list_prompts() == []
