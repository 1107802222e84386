"""The mcp SDK mirror's translations onto oxmcp's primitives: the in-process client on trio, the
SDK's transport-security settings as the core's guard options, and the options oxmcp refuses
rather than ignore."""

from __future__ import annotations

from typing import Annotated, Any

import anyio
import anyio.lowlevel
import pytest
from pydantic import Field

from oxmcp.client import Client
from oxmcp.server.fastmcp import FastMCP
from oxmcp.server.mcpserver import MCPServer, RequestStateSecurity
from oxmcp.server.mcpserver.exceptions import InvalidSignature
from oxmcp.server.mcpserver.resources import FunctionResource, ResourceSecurity, ResourceSecurityError, ResourceTemplate
from oxmcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler
from oxmcp.server.transport_security import TransportSecuritySettings, listener_options


def _server() -> MCPServer:
    mcp = MCPServer("mirror")

    @mcp.tool()
    async def add(a: int, b: int) -> int:
        await anyio.lowlevel.checkpoint()
        return a + b

    mcp.add_resource(FunctionResource(uri="data://bytes", name="bytes", fn=lambda: b"\x00\x01",
                                      mime_type="application/octet-stream"))
    return mcp


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_in_process_client_runs_on_asyncio_and_trio(backend: str) -> None:
    async def main() -> tuple[str, str, str]:
        async with Client(_server()) as client:
            called = await client.call_tool("add", {"a": 2, "b": 3})
            read = await client.read_resource("data://bytes")
            return called.content[0].text, read.contents[0].blob, client.server_info.name

    assert anyio.run(main, backend=backend) == ("5", "AAE=", "mirror")


def test_transport_security_settings_become_the_core_guard_options() -> None:
    settings = TransportSecuritySettings(allowed_hosts=["localhost:*", "api.example.com:443"],
                                         allowed_origins=["http://localhost:*", "https://app.example.com"])
    # Any-port entries are the core's own spelling too (that host on any explicit port).
    assert listener_options(settings) == {"allowed_hosts": ["localhost:*", "api.example.com:443"],
                                          "allowed_origins": ["http://localhost:*", "https://app.example.com"]}
    assert listener_options(TransportSecuritySettings(enable_dns_rebinding_protection=False)) == {
        "allow_any_host": True}
    assert FastMCP(host="127.0.0.1").settings.transport_security.allowed_hosts == ["127.0.0.1:*", "localhost:*"]
    assert FastMCP(host="0.0.0.0").settings.transport_security is None


def test_options_oxmcp_cannot_honour_are_refused() -> None:
    mcp = MCPServer("refusals")
    with pytest.raises(TypeError, match=r"subscriptions=...\): give a SubscriptionBus"):
        MCPServer(subscriptions=object())
    with pytest.raises(TypeError, match="max_buffered_events"):
        ListenHandler(InMemorySubscriptionBus(), max_buffered_events=16)
    with pytest.raises(TypeError, match=r"codec=\) is not supported by oxmcp"):
        RequestStateSecurity(codec=object())
    with pytest.raises(TypeError, match="@tool"):
        mcp.tool(lambda: 1)


def test_resource_template_matches_and_screens_through_the_core() -> None:
    def item(**kwargs: str) -> str:
        return ""

    template = ResourceTemplate.from_function(item, "items://{+path}")
    assert template.matches("items://a/b.txt") == {"path": "a/b.txt"}
    assert template.matches("items://a/../b.txt") == {"path": "a/../b.txt"}  # stays inside its base
    assert template.matches("other://x") is None
    for uri in ("items://../etc/passwd", "items:///etc/passwd", "items://a%00b"):
        with pytest.raises(ResourceSecurityError) as refused:
            template.matches(uri)
        assert refused.value.param == "path"
    one = ResourceTemplate.from_function(item, "docs://{name}")
    assert one.matches("docs://sub%2Ffile.txt") == {"name": "sub/file.txt"}
    assert one.matches("docs://a/b") is None  # a literal '/' ends the segment: no match
    exempt = ResourceTemplate.from_function(item, "git://{+range}", security=ResourceSecurity(exempt_params={"range"}))
    assert exempt.matches("git://../x") == {"range": "../x"}
    parts = ResourceTemplate.from_function(item, "api{/parts*}")
    assert parts.matches("api/a/b/c") == {"parts": ["a", "b", "c"]}
    with pytest.raises(ResourceSecurityError):
        parts.matches("api/a/../../c")


def test_served_templates_are_screened_by_their_policy() -> None:
    """A read is screened by the template's ResourceSecurity in the core: a refusal is an unknown
    resource, and no later, laxer template answers in the refusing one's place."""
    mcp = MCPServer("screens")
    reads: list[str] = []

    @mcp.resource("files://docs/{name}")
    def strict(name: str) -> str:
        reads.append(f"strict {name}")
        return name

    @mcp.resource("files://docs/{+path}", security=ResourceSecurity(exempt_params={"path"}))
    def lax(path: str) -> str:
        reads.append(f"lax {path}")
        return path

    @mcp.resource("git://diff/{+range}", security=ResourceSecurity(exempt_params={"range"}))
    def diff(range: str) -> str:
        return f"diff {range}"

    async def main() -> list[str]:
        out = []
        async with Client(mcp) as client:
            for uri in ("files://docs/a%2Fb", "files://docs/..%2Fsecret", "git://diff/../foo"):
                try:
                    out.append((await client.read_resource(uri)).contents[0].text)
                except Exception as exc:  # noqa: BLE001
                    out.append(f"{exc.code} {exc.message}")
        return out

    assert anyio.run(main) == ["a/b", "-32602 Unknown resource: files://docs/..%2Fsecret", "diff ../foo"]
    assert reads == ["strict a/b"]


def test_invalid_x_mcp_header_is_refused_when_the_tool_is_added() -> None:
    mcp = MCPServer("headers")

    def tagged(tags: Annotated[list[str], Field(json_schema_extra={"x-mcp-header": "Tags"})]) -> str:
        return ""

    def spaced(region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region Name"})]) -> str:
        return ""

    with pytest.raises(InvalidSignature, match=r"property 'tags': .*only permitted on .*\(got 'array'\)"):
        mcp.add_tool(tagged)
    with pytest.raises(InvalidSignature, match="'Region Name' is not an RFC 9110 token"):
        mcp.add_tool(spaced)
    assert mcp.list_tools() == []

    @mcp.tool()
    def fine(region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})]) -> str:
        return region

    assert [t["name"] for t in mcp.list_tools()] == ["fine"]


def test_sse_apps_have_the_sdks_routes() -> None:
    from starlette.routing import Mount, Route

    def layout(app: Any) -> list[tuple[str, str]]:
        return [(type(r).__name__, r.path) for r in app.routes if isinstance(r, (Route, Mount))]

    assert layout(MCPServer("v2").sse_app(host="0.0.0.0")) == [("Route", "/sse"), ("Mount", "/messages")]
    legacy = FastMCP("v1", mount_path="/github")
    assert legacy._normalize_path("/github", "messages/") == "/github/messages/"
    assert layout(legacy.sse_app()) == [("Route", "/sse"), ("Mount", "/messages")]
    assert MCPServer("deps", dependencies=["pandas"]).settings.dependencies == ["pandas"]


def test_mcpserver_applies_the_resource_security_policy_before_the_function() -> None:
    mcp = MCPServer("policy")
    calls: list[str] = []

    @mcp.resource("data://items/{id}")
    def item(id: str) -> str:
        calls.append(id)
        return id

    async def main() -> list[str]:
        out = []
        async with Client(mcp) as client:
            for uri in ("data://items/x:y", "data://items/ok"):  # x:y reads as a drive-relative path
                try:
                    out.append((await client.read_resource(uri)).contents[0].text)
                except Exception as exc:  # noqa: BLE001
                    out.append(f"{exc.code} {exc.message}")
        return out

    # Refused as a URI no resource has, in the SDK's words.
    assert anyio.run(main) == ["-32602 Unknown resource: data://items/x:y", "ok"]
    assert calls == ["ok"]
