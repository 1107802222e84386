"""The SDK's low-level Server, oxmcp.types, McpError(ErrorData), stdio_server, and the
introspection-name clash. Over the wire, tests/parity/ll_* run the same servers on mcp 1.x and oxmcp."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from oxmcp import Client, types
from oxmcp import Server as DecoratorServer
from oxmcp.server.lowlevel import NotificationOptions, Server
from oxmcp.server.stdio import stdio_server
from oxmcp.shared.exceptions import McpError

ROOT = Path(__file__).resolve().parents[2]


def _server() -> Server:
    server = Server("ll", version="9.9")

    @server.list_tools()
    async def list_tools() -> list[types.Tool]:
        return [types.Tool(name="echo", inputSchema={"type": "object", "properties": {"t": {"type": "string"}}})]

    @server.call_tool()
    async def call_tool(name: str, arguments: dict[str, Any]) -> Any:
        if name == "boom":
            raise McpError(types.ErrorData(code=types.INVALID_PARAMS, message="no boom"))
        assert server.request_context.request_id is not None
        return [types.TextContent(type="text", text=arguments["t"])]

    @server.list_prompts()
    async def list_prompts() -> list[types.Prompt]:
        return [types.Prompt(name="p")]

    @server.get_prompt()
    async def get_prompt(name: str, arguments: dict[str, str] | None) -> types.GetPromptResult:
        raise McpError(types.ErrorData(code=-32602, message=f"no prompt {name}"))

    return server


def test_capabilities_and_initialization_options() -> None:
    s = _server()
    caps = s.get_capabilities(NotificationOptions(tools_changed=True), {})
    assert caps.tools.listChanged is True and caps.prompts is not None and caps.resources is None
    opts = s.create_initialization_options()
    assert opts.server_name == "ll" and opts.server_version == "9.9"
    with pytest.raises(LookupError):
        s.request_context  # noqa: B018  outside a request


async def test_handlers_over_the_core_and_mcp_error_rules() -> None:
    s = _server()
    async with Client(s._core) as c:
        tools = await c.list_tools()
        assert [t["name"] for t in tools] == ["echo"]
        r = await c.call_tool("echo", {"t": "hi"})
        assert r["content"] == [{"type": "text", "text": "hi"}] and not r.get("isError")
        # McpError in call_tool: an isError result (the SDK's rule) ...
        r = await c.call_tool("boom", {})
        assert r["isError"] is True and r["content"][0]["text"] == "no boom"
        # ... elsewhere: the JSON-RPC error it carries.
        from oxmcp import McpError as AnyMcpError

        with pytest.raises(AnyMcpError) as e:
            await c.get_prompt("p")
        assert e.value.code == -32602 and "no prompt p" in e.value.message
        caps = (await c.discover())["capabilities"]
        assert set(caps) - {"experimental"} == {"tools", "prompts"}


async def test_run_needs_stdio_server_or_message_streams(monkeypatch: pytest.MonkeyPatch) -> None:
    s = _server()
    with pytest.raises(TypeError, match="stdio_server.*message streams"):
        await s.run(object(), object(), s.create_initialization_options())
    # On the process's own descriptors 0 and 1 (not pytest's capture), the core serves stdio itself.
    monkeypatch.setattr(sys, "stdin", sys.__stdin__)
    monkeypatch.setattr(sys, "stdout", sys.__stdout__)
    async with stdio_server() as (read, write):
        assert repr(read) == "<oxmcp stdio read>"


def test_mcp_error_forms() -> None:
    e = McpError(types.ErrorData(code=-32000, message="m", data={"x": 1}))
    assert (e.code, e.message, e.data, e.error.code) == (-32000, "m", {"x": 1}, -32000)
    assert McpError(-32602, "bad").error.message == "bad"


def test_introspection_names_are_not_decorators() -> None:
    s = DecoratorServer("d")
    assert s.list_tools() == []
    with pytest.raises(TypeError, match="oxmcp.server.lowlevel.Server"):
        @s.list_tools()  # type: ignore[misc]
        async def handler() -> list[Any]:
            return []


def test_types_regenerate_to_the_checked_in_file(tmp_path: Path) -> None:
    out = tmp_path / "gen.py"
    subprocess.run(["bash", str(ROOT / "scripts" / "gen-types.sh"), str(out)], check=True, timeout=300)
    checked_in = ROOT / "bindings-python" / "python" / "oxmcp" / "types" / "_generated.py"
    assert out.read_text() == checked_in.read_text(), "run scripts/gen-types.sh and commit the result"


def test_sdk_exports_are_present_or_listed_on_the_compatibility_page() -> None:
    """Every public name of mcp 1.x's mcp.types / mcp.server.lowlevel / mcp.shared.exceptions exists in
    oxmcp, or docs/COMPATIBILITY.md names it (with the reason)."""
    peer = ROOT / ".cache" / "peers-py" / "v1" / "bin" / "python"
    assert peer.exists(), "run scripts/setup.sh (installs the mcp 1.x peer)"
    script = """
import json, importlib
out = {}
for mod in ("mcp.types", "mcp.server.lowlevel", "mcp.shared.exceptions", "mcp.server.stdio"):
    m = importlib.import_module(mod)
    names = getattr(m, "__all__", None) or [n for n in dir(m) if not n.startswith("_")
        and getattr(getattr(m, n), "__module__", "").startswith("mcp")]
    # Not names: pydantic's parametrised generics ("Request[...]") and TypeVars.
    out[mod] = sorted(n for n in set(names) if "[" not in n and type(getattr(m, n)).__name__ != "TypeVar")
print(json.dumps(out))
"""
    exported = json.loads(subprocess.run([str(peer), "-c", script], capture_output=True, text=True, check=True,
                                         timeout=120).stdout)
    import importlib

    page = (ROOT / "docs" / "COMPATIBILITY.md").read_text()
    unlisted = []
    for mod, names in exported.items():
        ours = importlib.import_module("oxmcp" + mod[len("mcp"):])
        for name in names:
            if not hasattr(ours, name) and f"`{mod}.{name}`" not in page and f"`{name}`" not in page:
                unlisted.append(f"{mod}.{name}")
    assert not unlisted, f"missing in oxmcp and not on docs/COMPATIBILITY.md: {unlisted}"
