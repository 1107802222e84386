"""Client notifications reach low-level handlers (mcp 1.x ``notification_handlers`` /
``@server.progress_notification()``, mcp 2.x ``on_roots_list_changed=`` / ``on_progress=``), the 2.x
constructor and snake_case types, and serverInfo.version defaults — each over real stdio or HTTP
with the official ``mcp`` client. tests/parity/ll_notifications and ll2_server compare the same
behaviour against mcp 1.30 and mcp 2.3 themselves."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path
from typing import Any

import pytest
from procs import free_port, wait_listening

import oxmcp
from oxmcp import types

# A mcp 2.x-style low-level server: notification handlers get (ctx, params), and ctx.session reaches the
# client outside any request (roots/list, a log message).
V2_SERVER = textwrap.dedent('''
    import json, os, sys
    import mcp.types as types
    from mcp.server import Server

    seen = {"roots": None, "progress": []}

    async def on_roots_list_changed(ctx, params):
        seen["roots"] = [str(r.uri) for r in (await ctx.session.list_roots()).roots]
        await ctx.session.send_log_message("info", "roots changed")

    async def on_progress(ctx, params):
        seen["progress"].append([params.progress_token, params.progress, params.total])

    async def list_tools(ctx, params):
        return types.ListToolsResult(tools=[types.Tool(name="seen", input_schema={"type": "object"})])

    async def call_tool(ctx, params):
        return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(seen))],
                                    structured_content=seen)

    server = Server("v2-notes", on_list_tools=list_tools, on_call_tool=call_tool,
                    on_roots_list_changed=on_roots_list_changed, on_progress=on_progress)

    if __name__ == "__main__":
        if sys.argv[1:] == ["http"]:
            import uvicorn
            uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=int(os.environ["PORT"]),
                        log_level="warning")
        else:
            import anyio
            from mcp.server.stdio import stdio_server

            async def main():
                async with stdio_server() as (r, w):
                    await server.run(r, w, server.create_initialization_options())
            anyio.run(main)
''')


def _oxmcp_copy(tmp_path: Path, source: str) -> Path:
    """The server file with its imports changed to oxmcp (as the parity harness does)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "parity"))
    import py_runner

    script = tmp_path / "server.py"
    script.write_text(py_runner.rewrite_imports(source))
    return script


async def _drive(target: Any) -> tuple[Any, list[str], Any]:
    from mcp import Client

    roots = ["file:///srv/a"]
    logs: list[str] = []

    async def list_roots(context: Any) -> Any:
        import mcp_types

        return mcp_types.ListRootsResult(roots=[mcp_types.Root(uri=u) for u in roots])

    async def log(params: Any) -> None:
        logs.append(params.data)

    async with Client(target, mode="legacy", list_roots_callback=list_roots, logging_callback=log,
                      read_timeout_seconds=30) as client:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            await client.send_progress_notification("tok", 0.25, 1.0)
            await client.send_progress_notification(3, 1.0)
        roots[:] = ["file:///srv/b", "file:///srv/c"]
        await client.send_roots_list_changed()
        for _ in range(100):  # the handler asks roots/list, then logs: wait for both
            r = await client.call_tool("seen", {})
            if r.structured_content["roots"] is not None and logs:
                break
            await asyncio.sleep(0.05)
        return r.structured_content, logs, client.server_info


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_v2_notification_handlers_reach_the_session(tmp_path: Path, transport: str) -> None:
    script = _oxmcp_copy(tmp_path, V2_SERVER)
    if transport == "stdio":
        from mcp import StdioServerParameters

        seen, logs, info = await _drive(StdioServerParameters(command=sys.executable, args=[str(script)]))
    else:
        port = free_port()
        proc = subprocess.Popen([sys.executable, str(script), "http"], env={**__import__("os").environ,
                                "PORT": str(port)}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            wait_listening(port, proc, timeout=30)
            seen, logs, info = await _drive(f"http://127.0.0.1:{port}/mcp")
        finally:
            proc.terminate()
            proc.wait(10)
    assert seen == {"roots": ["file:///srv/b", "file:///srv/c"], "progress": [["tok", 0.25, 1.0], [3, 1.0, None]]}
    assert logs == ["roots changed"]
    # mcp 2.x's Server reports an empty version when given none; so does its port.
    assert info.name == "v2-notes" and info.version == ""


def test_server_version_defaults_follow_each_sdk() -> None:
    from oxmcp import FastMCP, MCPServer
    from oxmcp.server.fastmcp import FastMCP as LegacyFastMCP
    from oxmcp.server.lowlevel import Server

    async def handler(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=[])

    # mcp 1.x's Server and FastMCP, and FastMCP 4: the framework's own version (oxmcp's here).
    assert Server("a").create_initialization_options().server_version == oxmcp.__version__
    assert LegacyFastMCP("b").version == oxmcp.__version__
    assert FastMCP("c").version == oxmcp.__version__
    # mcp 2.x's MCPServer and constructor-style Server: "".
    assert MCPServer("d").version == ""
    assert Server("e", on_list_tools=handler).version == ""
    # A given version is kept.
    assert Server("f", version="1.2").version == "1.2" and FastMCP("g", version=3).version == "3"


def test_types_take_both_sdk_generations_field_names() -> None:
    tool = types.Tool(name="t", input_schema={"type": "object"}, output_schema={"type": "object"})
    assert tool.input_schema is tool.inputSchema and tool.inputSchema["type"] == "object"
    wire = tool.model_dump(by_alias=True, exclude_none=True)
    assert wire == {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object"}}
    r = types.CallToolResult(content=[types.TextContent(type="text", text="x")], is_error=True,
                             structured_content={"a": 1}, meta={"k": 1})
    assert r.isError is True and r.is_error is True and r.structuredContent == {"a": 1}
    assert r.model_dump(by_alias=True, exclude_none=True)["_meta"] == {"k": 1} and r.meta == {"k": 1}
    # The wire's names still work, and win over a snake_case duplicate.
    both = types.Tool(name="t", inputSchema={"type": "object"}, input_schema={"type": "string"})
    assert both.model_dump(by_alias=True, exclude_none=True)["inputSchema"] == {"type": "object"}
    with pytest.raises(AttributeError):
        tool.no_such_field  # noqa: B018


def test_v2_constructor_rejects_unknown_handlers() -> None:
    from oxmcp.server.lowlevel import Server

    with pytest.raises(TypeError, match="on_lsit_tools"):
        Server("x", on_lsit_tools=lambda c, p: None)
    s = Server("y")
    with pytest.raises(ValueError, match="initialize"):
        s.add_request_handler("initialize", None, lambda c, p: None)


def test_v1_notification_handlers_are_keyed_by_type() -> None:
    from oxmcp.server.lowlevel import Server

    s = Server("z")

    @s.progress_notification()
    async def on_progress(token: Any, progress: float, total: float | None, message: str | None) -> None:
        pass

    assert types.ProgressNotification in s.notification_handlers
    found = s._notification_handler("notifications/progress")
    assert found is not None and found[1] is types.ProgressNotification
    assert s._notification_handler("notifications/roots/list_changed") is None
