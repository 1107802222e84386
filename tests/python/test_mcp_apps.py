"""mcp 2.x's MCP Apps extension (``mcp.server.apps``) and its client extensions' result claims
(``mcp.client.ResultClaim``): the same files run on the SDK and, unchanged, on oxmcp give the same
answers.

The Apps server is driven over stdio by the official client in both eras (through ``oxmcp run``):
the ``ui://`` resource served as ``text/html;profile=mcp-app`` with its ``_meta.ui`` on the listing
and the contents, the tool's ``_meta.ui`` (an app-only tool listed and callable like any other),
``client_supports_apps`` answering by what the client declared, and the extension declared with
its settings in ``server/discover``. The claims script runs the SDK's in-process ``Client`` against
a server whose ``tools/call`` interceptor answers with a claimed shape: resolved by the client's
extension, returned parsed with ``allow_claimed=True``, refused without it, and not declared (so
refused by the server) on a legacy connection.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import textwrap
from pathlib import Path
from typing import Any

import pytest

import oxmcp

ROOT = Path(__file__).resolve().parents[2]
PEER_V2 = ROOT / ".cache" / "peers-py" / "v2" / "bin" / "python"  # mcp 2.3.0
OXMCP_PATH = str(Path(oxmcp.__file__).resolve().parents[1])

SERVER = """\
    from pathlib import Path

    from mcp.server.apps import Apps, ResourceCsp, ResourcePermissions, client_supports_apps
    from mcp.server.mcpserver import Context, MCPServer
    from mcp.server.mcpserver.resources import FileResource

    apps = Apps()


    @apps.tool(resource_uri="ui://clock/app.html", description="The current time.")
    def get_time(ctx: Context) -> str:
        return "12:00" if client_supports_apps(ctx) else "The time is 12:00."


    @apps.tool(resource_uri="ui://clock/app.html", visibility=["app"], meta={"com.example/k": 1})
    def refresh() -> str:
        return "refreshed"


    @apps.tool(resource_uri="ui://report/app.html")
    def report() -> str:
        return "report"


    apps.add_html_resource("ui://clock/app.html", "<h1>clock</h1>", title="Clock",
                           csp=ResourceCsp(connect_domains=["https://api.example.com"]),
                           permissions=ResourcePermissions(clipboard_write={}), domain="clock.example.com",
                           prefers_border=True)
    apps.add_resource(FileResource(uri="ui://report/app.html", name="report",
                                   path=Path(__file__).parent / "report.html"))

    server = MCPServer("apps", extensions=[apps])

    if __name__ == "__main__":
        server.run()
"""


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": OXMCP_PATH, "PYTHONUNBUFFERED": "1"}
    env.pop("VIRTUAL_ENV", None)
    return env


async def _session(args: list[str], mode: str, ui: bool) -> dict[str, Any]:
    from mcp import Client, StdioServerParameters
    from mcp.client import advertise

    params = StdioServerParameters(command=str(PEER_V2), args=args, env=_env())
    extensions = [advertise("io.modelcontextprotocol/ui", {"mimeTypes": ["text/html;profile=mcp-app"]})] if ui else []
    out: dict[str, Any] = {}
    async with Client(params, mode=mode, read_timeout_seconds=30, extensions=extensions) as client:  # type: ignore[arg-type]
        out["tools"] = sorted((t.name, t.meta) for t in (await client.list_tools()).tools)
        out["resources"] = sorted((str(r.uri), r.mime_type, r.meta, r.title)
                                  for r in (await client.list_resources()).resources)
        for uri in ("ui://clock/app.html", "ui://report/app.html"):
            [item] = (await client.read_resource(uri)).contents
            out[uri] = (item.mime_type, item.meta, getattr(item, "text", None))
        out["get_time"] = (await client.call_tool("get_time", {})).content[0].text
        out["refresh"] = (await client.call_tool("refresh", {})).content[0].text
        out["extensions"] = client.server_capabilities.extensions
    return out


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_apps_as_the_sdk(tmp_path: Path, mode: str) -> None:
    assert PEER_V2.exists(), f"{PEER_V2} missing: run scripts/setup.sh"
    server = tmp_path / "server.py"
    server.write_text(textwrap.dedent(SERVER))
    (tmp_path / "report.html").write_text("<p>report</p>")
    for ui in (True, False):
        original = asyncio.run(asyncio.wait_for(_session([str(server)], mode, ui), 60))
        ported = asyncio.run(asyncio.wait_for(_session(["-m", "oxmcp", "run", str(server)], mode, ui), 60))
        assert ported == original
        assert original["get_time"] == ("12:00" if ui else "The time is 12:00.")
    clock_ui = {"csp": {"connectDomains": ["https://api.example.com"]}, "permissions": {"clipboardWrite": {}},
                "domain": "clock.example.com", "prefersBorder": True}
    assert original["tools"] == [
        ("get_time", {"ui": {"resourceUri": "ui://clock/app.html"}}),
        ("refresh", {"com.example/k": 1, "ui": {"resourceUri": "ui://clock/app.html", "visibility": ["app"]}}),
        ("report", {"ui": {"resourceUri": "ui://report/app.html"}})]
    assert original["refresh"] == "refreshed"
    assert original["ui://clock/app.html"] == ("text/html;profile=mcp-app", {"ui": clock_ui}, "<h1>clock</h1>")
    assert original["ui://report/app.html"] == ("text/html;profile=mcp-app", None, "<p>report</p>")
    assert original["resources"][0] == ("ui://clock/app.html", "text/html;profile=mcp-app", {"ui": clock_ui}, "Clock")
    # server/discover declares the extension with the Apps settings; 2025's initialize has no extensions
    assert original["extensions"] == ({"io.modelcontextprotocol/ui": {}} if mode == "auto" else None)


def test_apps_registration_refused_as_the_sdk() -> None:
    from oxmcp.server.apps import Apps
    from oxmcp.server.mcpserver import MCPServer
    from oxmcp.server.mcpserver.resources import TextResource

    apps = Apps()
    with pytest.raises(ValueError, match="must use the ui:// scheme"):
        apps.tool(resource_uri="https://x/app.html")
    with pytest.raises(ValueError, match="owns _meta"):
        apps.tool(resource_uri="ui://x/app.html", meta={"ui": {}})
    with pytest.raises(ValueError, match="served as 'text/html;profile=mcp-app', got 'text/html'"):
        apps.add_resource(TextResource(uri="ui://x/app.html", name="x", text="", mime_type="text/html"))
    apps.tool(resource_uri="ui://x/missing.html")(lambda: "x")
    with pytest.raises(ValueError, match="no such resource is registered"):
        MCPServer("x", extensions=[apps])


CLAIMS = """\
    import json
    import sys
    from typing import Any, Literal

    import anyio
    import mcp.types as types
    from mcp import Client, MCPError
    from mcp.client import ClaimContext, ClientExtension, ResultClaim, UnexpectedClaimedResult
    from mcp.server.extension import Extension
    from mcp.server.mcpserver import MCPServer, require_client_extension

    ID = "com.example/receipts"


    class Issuer(Extension):
        identifier = ID

        async def intercept_tool_call(self, params, ctx, call_next):
            if params.name != "buy":
                return await call_next(ctx)
            require_client_extension(ctx, ID)
            return {"resultType": "receipt", "receiptToken": "r-" + params.arguments["item"]}


    mcp = MCPServer("shop", extensions=[Issuer()])


    @mcp.tool()
    def buy(item: str) -> str:
        raise NotImplementedError


    @mcp.tool()
    def redeem(token: str) -> str:
        return f"goods for {token}"


    class Receipt(types.Result):
        result_type: Literal["receipt"] = "receipt"
        receipt_token: str


    class Receipts(ClientExtension):
        identifier = ID

        def claims(self):
            return [ResultClaim(result_type="receipt", model=Receipt, resolve=self.redeem)]

        async def redeem(self, claimed: Receipt, ctx: ClaimContext) -> types.CallToolResult:
            return await ctx.session.call_tool("redeem", {"token": f"{claimed.receipt_token}@{ctx.tool_name}"})


    async def main() -> None:
        out: dict[str, Any] = {}
        async with Client(mcp, extensions=[Receipts()]) as client:
            out["resolved"] = (await client.call_tool("buy", {"item": "lamp"})).content[0].text
            raw = await client.session.call_tool("buy", {"item": "desk"}, allow_claimed=True)
            out["raw"] = [type(raw).__name__, raw.receipt_token]
            try:
                await client.session.call_tool("buy", {"item": "mug"})
            except UnexpectedClaimedResult as exc:
                out["unexpected"] = exc.result.receipt_token
        for mode in ("legacy", "auto"):
            async with Client(mcp, mode=mode, **({"extensions": [Receipts()]} if mode == "legacy" else {})) as c:
                try:
                    await c.call_tool("buy", {"item": "lamp"})
                except MCPError as exc:
                    out[mode] = exc.error.code
        try:
            ResultClaim(result_type="complete", model=Receipt, resolve=Receipts().redeem)
        except ValueError as exc:
            out["core_tag"] = str(exc)
        print(json.dumps(out))


    anyio.run(main)
"""


def test_result_claims_as_the_sdk(tmp_path: Path) -> None:
    script = tmp_path / "claims.py"
    script.write_text(textwrap.dedent(CLAIMS))
    on_oxmcp = ("import runpy, sys; from oxmcp._dropin import install; install(); "
                "runpy.run_path(sys.argv[1], run_name='__main__')")
    runs = [subprocess.run([str(PEER_V2), *args, str(script)], env=_env(), capture_output=True, text=True,
                           timeout=60, check=False) for args in ([], ["-c", on_oxmcp])]
    for run in runs:
        assert run.returncode == 0, run.stderr
    original, ported = (json.loads(run.stdout.strip().splitlines()[-1]) for run in runs)
    assert ported == original
    assert original == {"resolved": "goods for r-lamp@buy", "raw": ["Receipt", "r-desk"], "unexpected": "r-mug",
                        "legacy": -32021, "auto": -32021,
                        "core_tag": "resultType 'complete' is core protocol vocabulary"}
