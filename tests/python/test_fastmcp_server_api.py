"""FastMCP's server-level API on oxmcp, over the core: ToolTransform, the LocalProvider view, the
server's own listings, its failure log records and resource JSON; FastMCP's client pagination; and
the SDK client's eras and input callbacks (``mcp.client.Client(server, mode=...)``)."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from oxmcp import Context, FastMCP, ToolError
from oxmcp import types as t
from oxmcp._client_session import ClientRequestContext
from oxmcp._fastmcp_client import Client as FastMCPClient
from oxmcp.client import Client as SDKClient
from oxmcp.server.transforms import ToolTransform
from oxmcp.shared.exceptions import McpError
from oxmcp.tools.tool_transform import ToolTransformConfig
from oxmcp.utilities.pagination import CursorState, paginate_sequence

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _server() -> FastMCP:
    mcp = FastMCP("api")

    @mcp.tool
    def load(n: int) -> int:
        """Load n."""
        return n

    @mcp.resource("data://config")
    def config() -> dict[str, Any]:
        return {"version": 1, "name": "é"}

    return mcp


async def test_tool_transform_serves_the_tool_under_its_new_name_now_and_later() -> None:
    mcp = _server()
    mcp.add_transform(ToolTransform({"load": ToolTransformConfig(name="fetch", description="Fetch n."),
                                     "late": ToolTransformConfig(title="Late")}))

    @mcp.tool
    def late() -> str:
        return "late"

    async with FastMCPClient(mcp) as client:
        tools = {tool.name: tool for tool in await client.list_tools()}
        assert (await client.call_tool("fetch", {"n": 3})).data == 3
        with pytest.raises(McpError, match="Unknown tool: load"):
            await client.call_tool("load", {"n": 3})
    assert sorted(tools) == ["fetch", "late"]
    assert tools["fetch"].description == "Fetch n." and tools["late"].title == "Late"


def test_tool_transform_refuses_what_oxmcp_cannot_serve() -> None:
    with pytest.raises(ValueError, match="arguments"):
        ToolTransformConfig(arguments={"n": {"name": "m"}})
    with pytest.raises(ValueError, match="enabled"):
        ToolTransformConfig(enabled=False)
    with pytest.raises(ValueError, match="duplicate target name 'x'"):
        ToolTransform({"a": ToolTransformConfig(name="x"), "b": ToolTransformConfig(name="x")})


async def test_local_provider_is_a_view_of_the_registry() -> None:
    mcp = _server()
    assert mcp.local_provider is mcp._local_provider
    assert (await mcp.local_provider.get_tool("load")).name == "load"
    assert await mcp.local_provider.get_resource("data://config") is not None
    mcp.local_provider.remove_tool("load")
    with pytest.raises(KeyError):
        mcp.local_provider.remove_tool("load")
    assert [tool.name for tool in await mcp.list_tools()] == []
    async with FastMCPClient(mcp) as client:
        assert await client.list_tools() == []


async def test_failure_records_and_resource_json_are_fastmcps(caplog: pytest.LogCaptureFixture) -> None:
    mcp = _server()

    @mcp.tool
    def boom() -> str:
        raise RuntimeError("bug")

    @mcp.tool
    def refuse() -> str:
        raise ToolError("no")

    with caplog.at_level(logging.DEBUG, logger="fastmcp.server.server"):
        async with FastMCPClient(mcp) as client:
            for name in ("boom", "refuse"):
                assert (await client.call_tool(name, {}, raise_on_error=False)).is_error
            (text,) = await client.read_resource("data://config")
    records = {r.getMessage(): r for r in caplog.records if r.name == "fastmcp.server.server"}
    assert records["Error calling tool 'boom'"].exc_info is not None
    assert not records["Error calling tool 'refuse'"].exc_info
    assert text.text == '{"version": 1, "name": "\\u00e9"}'  # json.dumps, as FastMCP writes it


def test_pagination_helper_round_trips_and_refuses_a_forged_cursor() -> None:
    page, cursor = paginate_sequence(list(range(5)), None, 2)
    assert page == [0, 1] and CursorState.decode(cursor or "").offset == 2
    assert paginate_sequence(list(range(5)), CursorState(4).encode(), 2) == ([4], None)
    for bad in ("!!", CursorState(-1).encode(), "eyJvIjogIjEifQ=="):
        with pytest.raises(ValueError, match="Invalid cursor"):
            CursorState.decode(bad)


async def test_client_auto_pagination_follows_pages_and_stops_on_a_cycle() -> None:
    mcp = FastMCP("paged", list_page_size=2)
    for i in range(5):
        mcp.tool(lambda: "ok", name=f"t{i}")
    async with FastMCPClient(mcp) as client:
        assert len(await client.list_tools()) == 5
        with pytest.raises(RuntimeError, match="auto-pagination limit"):
            await client.list_tools(max_pages=2)
        original = client.list_tools_mcp

        async def stuck(*, cursor: str | None = None, cache_mode: str = "use") -> Any:
            result = await original(cursor=None)
            result.next_cursor = "again"
            return result
        client.list_tools_mcp = stuck  # type: ignore[method-assign]
        assert len(await client.list_tools()) == 4  # the first page, then the same cursor again: stop


def _push_server() -> FastMCP:
    mcp = FastMCP("push")

    @mcp.tool
    async def ask(ctx: Context) -> str:
        result = await ctx.elicit("pick a value", response_type=int)
        return f"elicited {result.data}"

    return mcp


async def _accept(context: ClientRequestContext, params: Any) -> Any:
    assert isinstance(context, ClientRequestContext) and params.message == "pick a value"
    return t.ElicitResult(action="accept", content={"value": 7})


@pytest.mark.parametrize("mode", ["legacy", "auto", "2026-07-28"])
async def test_sdk_client_modes_and_elicitation_callback(mode: str) -> None:
    async with SDKClient(_push_server(), mode=mode, elicitation_callback=_accept) as client:
        result = await client.call_tool("ask", {})
        assert (client.protocol_version, client.server_info is None) == (
            {"legacy": ("2025-11-25", False), "auto": ("2026-07-28", False)}.get(mode, ("2026-07-28", True)))
    assert not result.isError and result.content[0].text == "elicited 7"


async def test_sdk_client_refuses_an_unknown_mode() -> None:
    with pytest.raises(ValueError, match="mode must be"):
        SDKClient(_push_server(), mode="2025-11-25")


async def test_fastmcp_client_legacy_mode_and_era_gated_set_level() -> None:
    async with FastMCPClient(_server(), mode="legacy") as client:
        assert client.protocol_version == "2025-11-25"
        await client.set_logging_level("debug")
    async with FastMCPClient(_server()) as client:
        with pytest.raises(RuntimeError, match="2026-07-28"):
            await client.set_logging_level("debug")


async def test_composed_lifespans_and_a_provider_run_while_clients_are_connected() -> None:
    from contextlib import asynccontextmanager

    from oxmcp.server.lifespan import ContextManagerLifespan, lifespan
    from oxmcp.server.providers import Provider
    from oxmcp.utilities.lifespan import combine_lifespans

    events: list[str] = []

    @lifespan
    async def db(server: Any) -> Any:
        events.append("db")
        yield {"db": 1, "shared": "db"}
        events.append("db-end")

    @asynccontextmanager
    async def cache(server: Any) -> Any:
        yield {"shared": "cache"}

    class Pool(Provider):
        @asynccontextmanager
        async def lifespan(self) -> Any:
            events.append("pool")
            yield
            events.append("pool-end")

    mcp = FastMCP("life", lifespan=db | ContextManagerLifespan(cache), providers=[Pool()])

    @mcp.tool
    def read(ctx: Context) -> dict[str, Any]:
        return dict(ctx.lifespan_context)

    async with FastMCPClient(mcp) as one, FastMCPClient(mcp) as two:
        assert (await one.call_tool("read", {})).data == {"db": 1, "shared": "cache"}
        await two.list_tools()
        assert events == ["db", "pool"]
    assert events == ["db", "pool", "pool-end", "db-end"]
    with pytest.raises(TypeError, match="Cannot compose"):
        db | cache  # type: ignore[operator]
    async with combine_lifespans(cache, db)(mcp) as merged:
        assert merged == {"shared": "db", "db": 1}

    class Tools(Provider):
        async def list_tools(self) -> list[Any]:
            return []
    with pytest.raises(TypeError, match="not served by oxmcp"):
        FastMCP("p", providers=[Tools()])


async def test_context_outside_a_request_and_logs_to_the_client(caplog: pytest.LogCaptureFixture) -> None:
    from oxmcp.server.context import reset_transport, set_transport

    mcp = _server()
    session = object()
    async with Context(fastmcp=mcp, session=session) as ctx:
        await ctx.set_state("k", 1)
        assert [str(r.uri) for r in await ctx.list_resources()] == ["data://config"]
        assert [tool.name for tool in await ctx.list_tools()] == ["load"]
    assert await Context(fastmcp=mcp, session=session).get_state("k") == 1
    assert await Context(fastmcp=mcp, session=object()).get_state("k") is None
    token = set_transport("stdio")
    assert Context(fastmcp=mcp).transport == "stdio"
    reset_transport(token)
    assert Context(fastmcp=mcp).transport is None

    @mcp.tool
    async def emit(ctx: Context) -> str:
        await ctx.warning("careful", extra={"n": 1})
        return "ok"

    got: list[Any] = []

    async def handler(message: Any) -> None:
        got.append((message.level, message.data))

    logging.getLogger("fastmcp.server.context.to_client").setLevel(logging.DEBUG)
    try:
        with caplog.at_level(logging.DEBUG, logger="fastmcp.server.context.to_client"):
            async with FastMCPClient(mcp, log_handler=handler) as client:
                await client.call_tool("emit", {})
    finally:
        logging.getLogger("fastmcp.server.context.to_client").setLevel(logging.NOTSET)
    assert got == [("warning", {"msg": "careful", "extra": {"n": 1}})]
    assert "Sending WARNING to client: careful" in caplog.messages


def test_a_sequence_without_item_type_infers_no_output_schema() -> None:
    from oxmcp.tools import Tool

    def bare() -> list:  # type: ignore[type-arg]
        return []

    def typed() -> list[int]:
        return []

    assert Tool.from_function(bare).output_schema is None
    assert Tool.from_function(typed).output_schema is not None


async def test_a_session_objects_state_ends_with_it() -> None:
    # State of a context made for a session object is keyed by the object's id, which a later
    # object may reuse: the state must not outlive the object, or the next one would read it.
    import gc

    from oxmcp._context import _SESSION_STORES

    class Session:
        pass

    mcp = _server()
    session = Session()
    sid = f"object:{id(session)}"
    async with Context(fastmcp=mcp, session=session) as ctx:
        await ctx.set_state("k", "from-a-gone-session")
    assert sid in _SESSION_STORES
    del session, ctx
    gc.collect()
    assert sid not in _SESSION_STORES
