"""Explicit elements: ``server.add(definition, handler)`` pairs a spec-shaped definition with its
handler. The core checks the pairing (the same cases and texts as tests/node/explicit-elements.test.mjs):
a handler marked for another kind, and a tool's input schema that is not an object schema, are refused."""

from __future__ import annotations

import pytest

import oxmcp
from oxmcp import Client, DefinitionError, Server

PAIR = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}


def add(a: int, b: int) -> str:
    return str(a + b)


@oxmcp.prompt
def greet(name: str) -> str:
    return f"Hello, {name}"


@oxmcp.resource("docs://{section}/page")
def page(section: str) -> str:
    return f"page {section}"


@oxmcp.tool
def marked_tool(a: int) -> int:
    return a


async def test_each_kind_is_registered_from_its_definition() -> None:
    s = Server("explicit")
    s.add({"name": "add", "description": "Add two integers", "inputSchema": PAIR}, add)
    s.add({"name": "greet", "arguments": [{"name": "name", "required": True}]}, greet)
    s.add({"name": "page", "uriTemplate": "docs://{section}/page"}, page)
    s.add({"name": "readme", "uri": "docs://readme", "mimeType": "text/markdown"}, lambda: "# readme")
    async with Client(s) as c:
        [tool] = await c.list_tools()
        assert tool["inputSchema"] == PAIR and tool["description"] == "Add two integers"
        r = await c.call_tool("add", {"a": 2, "b": 3})
        assert r["content"][0]["text"] == "5"
        got = await c.get_prompt("greet", {"name": "Ada"})
        assert got["messages"][0]["content"]["text"] == "Hello, Ada"
        assert (await c.read_resource("docs://intro/page"))["contents"][0]["text"] == "page intro"
        assert (await c.read_resource("docs://readme"))["contents"][0]["text"] == "# readme"


def test_a_handler_of_another_kind_is_refused_with_the_cores_text() -> None:
    s = Server("explicit")
    with pytest.raises(DefinitionError) as e:
        s.add({"name": "add", "inputSchema": PAIR}, greet)
    assert str(e.value) == "tool 'add' is given a prompt handler: an element's handler must be of its definition's kind"
    with pytest.raises(DefinitionError) as e:
        s.add({"name": "hello"}, marked_tool)
    assert str(e.value) == "prompt 'hello' is given a tool handler: an element's handler must be of its definition's kind"
    assert s.list_tools() == [] and s.list_prompts() == []


def test_a_tool_needs_an_object_input_schema() -> None:
    s = Server("explicit")
    with pytest.raises(DefinitionError) as e:
        s.add({"name": "listy", "inputSchema": {"type": "array"}}, add)
    assert str(e.value) == 'invalid schema for \'listy\': inputSchema must be a JSON Schema object with root type "object"'
    with pytest.raises(DefinitionError, match="a string `name`"):
        s.add({"inputSchema": PAIR}, add)
