"""mcp 2.x's resolvers (``Annotated[T, Resolve(fn)]``) on MCPServer: the parameter is left out of the
tool's schema and filled on the server; a resolver's question (``Elicit``, ``Sample``, ``ListRoots``)
is the core's input request, one ``input_required`` round for all of a call's questions at
2026-07-28 and a server-to-client request on a legacy session. Each goes through the real core
(in-process client), one server per test."""

from typing import Annotated, Any

import anyio
import pytest
from pydantic import BaseModel

from oxmcp import types
from oxmcp.client import Client
from oxmcp.server.mcpserver import (
    AcceptedElicitation,
    Context,
    DeclinedElicitation,
    Elicit,
    ElicitationResult,
    ListRoots,
    MCPServer,
    Resolve,
    Sample,
)
from oxmcp.server.mcpserver.exceptions import InvalidSignature
from oxmcp.shared.exceptions import McpError

ERAS = ["2026-07-28", "legacy"]


class Confirm(BaseModel):
    ok: bool


class Seat(BaseModel):
    row: int


def _text(result: Any) -> str:
    return result.content[0].text


def test_a_resolved_parameter_is_filled_on_the_server_and_not_listed() -> None:
    mcp = MCPServer("shop")
    lookups: list[str] = []

    async def stock(title: str) -> int:
        lookups.append(title)
        return {"Dune": 7}.get(title, 0)

    def delivery(copies: Annotated[int, Resolve(stock)], ctx: Context) -> str:
        assert isinstance(ctx, Context)
        return "tomorrow" if copies else "in 3 weeks"

    @mcp.tool()
    async def order(title: str, copies: Annotated[int, Resolve(stock)],
                    when: Annotated[str, Resolve(delivery)]) -> str:
        return f"{title}: {copies} left, arrives {when}"

    async def main() -> tuple[Any, Any, Any]:
        async with Client(mcp) as client:
            tools = await client.list_tools()
            ok = await client.call_tool("order", {"title": "Dune", "copies": 999})
            none = await client.call_tool("order", {"title": "Emma"})
            return tools, ok, none

    tools, ok, none = anyio.run(main)
    assert tools.tools[0].input_schema["properties"].keys() == {"title"}
    assert _text(ok) == "Dune: 7 left, arrives tomorrow"  # the client's "copies" is ignored
    assert _text(none) == "Emma: 0 left, arrives in 3 weeks"
    assert lookups == ["Dune", "Emma"]  # once per call, though two consumers need it


@pytest.mark.parametrize("mode", ERAS)
def test_independent_questions_are_asked_once_each(mode: str) -> None:
    mcp = MCPServer("cinema")
    runs: list[str] = []

    async def confirm(title: str) -> Elicit[Confirm]:
        runs.append("confirm")
        return Elicit(f"Book {title}?", Confirm)

    async def seat() -> Elicit[Seat]:
        runs.append("seat")
        return Elicit("Which row?", Seat)

    @mcp.tool()
    async def book(title: str, ok: Annotated[Confirm, Resolve(confirm)], where: Annotated[Seat, Resolve(seat)]) -> str:
        return f"{title}: {ok.ok}, row {where.row}"

    asked: list[str] = []

    async def answer(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"ok": True} if "Book" in params.message else {"row": 4})

    async def main() -> Any:
        async with Client(mcp, mode=mode, elicitation_callback=answer) as client:
            if mode != "legacy":
                first = await client.session.call_tool("book", {"title": "Heat"}, allow_input_required=True)
                assert isinstance(first, types.InputRequiredResult)
                assert sorted(first.input_requests) == [f"{__name__}:test_independent_questions_are_asked_once_each"
                                                        f".<locals>.{n}" for n in ("confirm", "seat")]
                asked.clear()
            return await client.call_tool("book", {"title": "Heat"})

    result = anyio.run(main)
    assert _text(result) == "Heat: True, row 4"
    assert sorted(asked) == ["Book Heat?", "Which row?"]


@pytest.mark.parametrize("mode", ERAS)
def test_a_declined_question_fails_the_call_or_reaches_an_outcome_consumer(mode: str) -> None:
    mcp = MCPServer("files")

    async def ask() -> Elicit[Confirm]:
        return Elicit("Delete?", Confirm)

    @mcp.tool()
    async def strict(ok: Annotated[Confirm, Resolve(ask)]) -> str:
        return "deleted"

    @mcp.tool()
    async def lenient(ok: Annotated[ElicitationResult[Confirm], Resolve(ask)]) -> str:
        assert not isinstance(ok, AcceptedElicitation)
        return f"kept ({ok.action})" if isinstance(ok, DeclinedElicitation) else "?"

    async def decline(context: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="decline")

    async def main() -> tuple[Any, Any]:
        async with Client(mcp, mode=mode, elicitation_callback=decline) as client:
            return await client.call_tool("strict", {}), await client.call_tool("lenient", {})

    strict_result, lenient_result = anyio.run(main)
    assert strict_result.is_error
    assert _text(strict_result) == ("Error executing tool strict: Resolver for parameter 'ok' could not resolve: "
                                    "elicitation was decline")
    assert _text(lenient_result) == "kept (decline)"


@pytest.mark.parametrize("mode", ERAS)
def test_sampling_and_roots_answers_become_the_values(mode: str) -> None:
    mcp = MCPServer("desk")

    def draft(topic: str) -> Sample:
        return Sample([types.SamplingMessage(role="user", content=types.TextContent(type="text", text=topic))],
                      max_tokens=20)

    def roots() -> ListRoots:
        return ListRoots()

    @mcp.tool()
    async def write(topic: str, text: Annotated[types.CreateMessageResult, Resolve(draft)],
                    where: Annotated[types.ListRootsResult, Resolve(roots)]) -> str:
        return f"{text.content.text} -> {where.roots[0].uri}"

    async def sampler(context: Any, params: Any) -> types.CreateMessageResult:
        return types.CreateMessageResult(role="assistant", model="m", content=types.TextContent(
            type="text", text=f"about {params.messages[0].content.text} ({params.max_tokens})"))

    async def list_roots(context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri="file:///work")])

    async def main() -> Any:
        async with Client(mcp, mode=mode, sampling_callback=sampler, list_roots_callback=list_roots) as client:
            return await client.call_tool("write", {"topic": "rain"})

    assert _text(anyio.run(main)) == "about rain (20) -> file:///work"


@pytest.mark.parametrize("mode", ERAS)
def test_a_question_the_client_cannot_answer_is_the_missing_capability_error(mode: str) -> None:
    mcp = MCPServer("bistro")

    async def ask() -> Elicit[Confirm]:
        return Elicit("Book?", Confirm)

    @mcp.tool()
    async def book(ok: Annotated[Confirm, Resolve(ask)]) -> str:
        return "booked"

    async def main() -> None:
        async with Client(mcp, mode=mode) as client:
            await client.call_tool("book", {})

    with pytest.raises(McpError) as caught:
        anyio.run(main)
    key = f"{__name__}:test_a_question_the_client_cannot_answer_is_the_missing_capability_error.<locals>.ask"
    assert caught.value.error == types.ErrorData(
        code=types.MISSING_REQUIRED_CLIENT_CAPABILITY,
        message=f"Client did not declare the form elicitation capability required by resolver {key!r}",
        data={"requiredCapabilities": {"elicitation": {"form": {}}}})


def test_a_resolver_signature_that_cannot_be_served_is_refused_at_registration() -> None:
    mcp = MCPServer("bad")

    def needs_unknown(missing: str) -> str:
        return missing

    with pytest.raises(InvalidSignature, match="parameter 'missing' cannot be resolved"):
        mcp.add_tool(lambda_tool(needs_unknown), name="t1")

    def loop_a(b: Annotated[str, Resolve(lambda: None)]) -> str:
        return b

    def cyclic(x: Annotated[str, Resolve(loop_a)]) -> str:
        return x

    loop_a.__annotations__["b"] = Annotated[str, Resolve(cyclic)]
    with pytest.raises(InvalidSignature, match="cyclic dependency"):
        mcp.add_tool(lambda_tool(cyclic), name="t2")

    async def both(v: Annotated[str, Resolve(lambda: "x")]) -> str | types.InputRequiredResult:
        return v

    with pytest.raises(InvalidSignature, match="combines Resolve"):
        mcp.add_tool(both)
    assert mcp._tool_manager.list_tools() == []


def lambda_tool(resolver: Any) -> Any:
    async def tool(value: Annotated[str, Resolve(resolver)]) -> str:
        return value

    return tool


def test_the_tool_component_describes_and_serves_a_resolved_parameter_as_the_server_does() -> None:
    from oxmcp.server.mcpserver.tools import Tool

    def shelf(title: str) -> int:
        return len(title)

    async def count(title: str, copies: Annotated[int, Resolve(shelf)]) -> str:
        return f"{title}: {copies}"

    tool = Tool.from_function(count)
    assert tool.fn is count and tool.is_async
    assert tool.parameters["properties"].keys() == {"title"}

    async def main() -> Any:
        async with Client(MCPServer("c", tools=[tool])) as client:
            return await client.call_tool("count", {"title": "Dune"})

    assert _text(anyio.run(main)) == "Dune: 4"
