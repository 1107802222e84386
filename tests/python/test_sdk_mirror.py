"""The mcp SDK mirror's translations onto oxmcp's primitives: the in-process client on trio, the
SDK's transport-security settings as the core's guard options, and the options oxmcp refuses
rather than ignore."""

from __future__ import annotations

from typing import Annotated

import anyio
import anyio.lowlevel
import pytest

from oxmcp.client import Client
from oxmcp.server.fastmcp import FastMCP
from oxmcp.server.mcpserver import MCPServer, RequestStateSecurity, Resolve
from oxmcp.server.mcpserver.resources import FunctionResource, ResourceTemplate
from oxmcp.server.subscriptions import InMemorySubscriptionBus
from oxmcp.server.transport_security import TransportSecuritySettings, listener_options


def current_user() -> str:
    return "alice"


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
    with pytest.raises(TypeError, match="Resolve"):
        @mcp.tool()
        def whoami(user: Annotated[str, Resolve(current_user)]) -> str:
            return user
    assert mcp.list_tools() == []  # not registered with `user` as a client argument
    with pytest.raises(TypeError, match="subscriptions"):
        MCPServer(subscriptions=InMemorySubscriptionBus())
    with pytest.raises(TypeError, match="state_key"):
        RequestStateSecurity(keys=[b"k" * 32])
    with pytest.raises(TypeError, match="@tool"):
        mcp.tool(lambda: 1)


def test_resource_template_matches_through_the_core() -> None:
    def item(**kwargs: str) -> str:
        return ""

    template = ResourceTemplate.from_function(item, "items://{+path}")
    assert template.matches("items://a/b.txt") == {"path": "a/b.txt"}
    assert template.matches("items://../etc/passwd") is None  # the core's refusal, whatever the policy
    assert template.matches("other://x") is None


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
