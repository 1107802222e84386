"""FastMCP's ``ResourceSecurity`` on oxmcp: a template's path policy (``security=``, or the server's
``resource_security=``) is the core's screening of that template's values, for a client's
``resources/read`` and for ``await mcp.read_resource(uri)`` alike; an in-process read answers
FastMCP's ``ResourceResult`` and its errors."""

from __future__ import annotations

import pytest

from oxmcp import FastMCP
from oxmcp._client import Client
from oxmcp.exceptions import NotFoundError, ResourceSecurityError
from oxmcp.resources.security import ResourceSecurity
from oxmcp._errors import McpError

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _diff_server(**security: object) -> FastMCP:
    mcp = FastMCP("sec", **security)  # type: ignore[arg-type]

    @mcp.resource("git://diff/{ref}")
    def diff(ref: str) -> str:
        return f"diff:{ref}"

    return mcp


async def _client_read(mcp: FastMCP, uri: str) -> str | None:
    async with Client(mcp) as client:
        try:
            answer = await client.read_resource(uri)
        except McpError as exc:
            assert "ref" not in exc.message and "security" not in exc.message.lower()
            return None
    return answer["contents"][0]["text"]


async def test_default_policy_refuses_a_climb_for_clients_and_in_process() -> None:
    mcp = _diff_server()
    assert await _client_read(mcp, "git://diff/HEAD~3..HEAD") == "diff:HEAD~3..HEAD"
    assert await _client_read(mcp, "git://diff/..") is None
    result = await mcp.read_resource("git://diff/v1..v2")
    assert [c.content for c in result.contents] == ["diff:v1..v2"]
    assert result.contents[0].mime_type == "text/plain"
    with pytest.raises(ResourceSecurityError):
        await mcp.read_resource("git://diff/..")
    with pytest.raises(NotFoundError, match="Unknown resource: 'other://x'"):
        await mcp.read_resource("other://x")


async def test_server_default_off_and_per_template_policies() -> None:
    off = _diff_server(resource_security=None)
    assert await _client_read(off, "git://diff/..") == "diff:.."

    mcp = FastMCP("sec")

    @mcp.resource("git://raw/{ref}", security=ResourceSecurity(exempt_params={"ref"}))
    def raw(ref: str) -> str:
        return f"raw:{ref}"

    @mcp.resource("git://strict/{ref}", security=ResourceSecurity())
    def strict(ref: str) -> str:
        return f"strict:{ref}"

    assert await _client_read(mcp, "git://raw/..") == "raw:.."
    assert await _client_read(mcp, "git://strict/..") is None
    # A NUL byte stays refused where the policy checks it.
    assert await _client_read(mcp, "git://strict/a%00b") is None


async def test_a_mounted_template_keeps_its_policy_and_takes_the_parents_default() -> None:
    child = FastMCP("child", resource_security=None)

    @child.resource("git://inherit/{ref}")
    def inherit(ref: str) -> str:
        return f"inherit:{ref}"

    @child.resource("git://open/{ref}", security=None)
    def opened(ref: str) -> str:
        return f"open:{ref}"

    parent = FastMCP("parent")
    parent.mount(child)
    assert await _client_read(parent, "git://open/..") == "open:.."
    assert await _client_read(parent, "git://inherit/..") is None
    with pytest.raises(ResourceSecurityError):
        await parent.read_resource("git://inherit/..")
    assert await _client_read(child, "git://inherit/..") == "inherit:.."
