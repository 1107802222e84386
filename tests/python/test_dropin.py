"""Zero-change mode: ``oxmcp run server.py`` serves a file written for FastMCP or the ``mcp`` SDK as it
is, its ``mcp`` / ``fastmcp`` imports resolved to oxmcp's mirrors by an import hook.

Every server here is driven over stdio by the official ``mcp`` client. The peer venvs (installed by
scripts/setup.sh, as for test_parity.py) hold the real ``mcp`` 1.x and FastMCP 4: a file run there
through ``oxmcp run`` must still be served by oxmcp, and report what the original reports.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import oxmcp

ROOT = Path(__file__).resolve().parents[2]
PEER_V1 = ROOT / ".cache" / "peers-py" / "v1" / "bin" / "python"  # mcp 1.30.0
PEER_V2 = ROOT / ".cache" / "peers-py" / "v2" / "bin" / "python"  # fastmcp 4.2.3, mcp 2.3.0
OXMCP_PATH = str(Path(oxmcp.__file__).resolve().parents[1])


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": OXMCP_PATH, "PYTHONUNBUFFERED": "1"}
    env.pop("VIRTUAL_ENV", None)
    return env


def _write(tmp_path: Path, name: str, source: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return path


async def _session(python: str, args: list[str], steps: Any, cwd: Path | None = None) -> Any:
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=python, args=args, env=_env(), cwd=cwd)
    async with Client(params, mode="legacy", read_timeout_seconds=30) as client:
        return await steps(client)


def _drive(python: str, args: list[str], steps: Any, cwd: Path | None = None) -> Any:
    return asyncio.run(asyncio.wait_for(_session(python, args, steps, cwd), 60))


def _info(client: Any) -> dict[str, Any]:
    info = client.server_info
    return {"name": info.name, "version": info.version}


FASTMCP1 = """\
    from typing import Any

    from mcp.server.fastmcp import FastMCP, Context
    from mcp.server.fastmcp.prompts.base import AssistantMessage, Message, UserMessage
    from mcp.server.fastmcp.utilities.logging import get_logger
    from mcp.server.session import ServerSession
    from mcp.shared.context import RequestContext
    from mcp.types import TextContent

    log = get_logger(__name__)
    mcp = FastMCP("weather")
    Request = RequestContext[ServerSession, Any, Any]

    @mcp.tool()
    def forecast(city: str, days: int = 1) -> str:
        \"\"\"Forecast for a city.\"\"\"
        return f"{city}: sunny for {days} day(s)"

    @mcp.prompt()
    def ask(topic: str) -> list[Message]:
        return [UserMessage(f"Tell me about {topic}"), AssistantMessage("Gladly.")]

    if __name__ == "__main__":
        mcp.run()
"""

FASTMCP4 = """\
    from fastmcp import FastMCP, Context
    from fastmcp.exceptions import ToolError
    from fastmcp.tools import ToolResult
    from fastmcp.utilities.logging import get_logger

    log = get_logger(__name__)
    mcp = FastMCP("notes")

    @mcp.tool
    def add_note(text: str) -> ToolResult:
        if not text:
            raise ToolError("empty note")
        return ToolResult(content=f"saved: {text}", structured_content={"saved": text})

    if __name__ == "__main__":
        mcp.run()
"""

LOWLEVEL = """\
    import asyncio

    import mcp
    import mcp.server.stdio
    import mcp.types as types
    from mcp import stdio_server
    from mcp.server.lowlevel import NotificationOptions, Server
    from mcp.server.models import InitializationOptions

    assert stdio_server is mcp.server.stdio.stdio_server and mcp.types is types

    server = Server("echo-server")

    @server.list_tools()
    async def list_tools() -> list[types.Tool]:
        return [types.Tool(name="echo", description="Echo the text",
                           inputSchema={"type": "object", "properties": {"text": {"type": "string"}},
                                        "required": ["text"]})]

    @server.call_tool()
    async def call_tool(name: str, arguments: dict) -> list[types.TextContent]:
        return [types.TextContent(type="text", text=arguments["text"])]

    async def main():
        async with mcp.server.stdio.stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, InitializationOptions(
                server_name="echo", server_version="2.5.1",
                capabilities=server.get_capabilities(notification_options=NotificationOptions(),
                                                     experimental_capabilities={})))

    if __name__ == "__main__":
        asyncio.run(main())
"""


def test_mcp1_fastmcp_file_runs_unchanged(tmp_path: Path) -> None:
    # The main venv has mcp 2.x, which has no mcp.server.fastmcp: only the hook makes this import work.
    server = _write(tmp_path, "weather.py", FASTMCP1)

    async def steps(client: Any) -> Any:
        tools = [t.name for t in (await client.list_tools()).tools]
        result = await client.call_tool("forecast", {"city": "Oslo", "days": 2})
        prompt = await client.get_prompt("ask", {"topic": "rain"})
        return tools, result.content[0].text, [(m.role, m.content.text) for m in prompt.messages]

    tools, text, messages = _drive(sys.executable, ["-m", "oxmcp", "run", str(server)], steps)
    assert tools == ["forecast"]
    assert text == "Oslo: sunny for 2 day(s)"
    assert messages == [("user", "Tell me about rain"), ("assistant", "Gladly.")]


def test_fastmcp_file_runs_unchanged_on_oxmcp_where_fastmcp_is_installed(tmp_path: Path) -> None:
    # In the peer venv `fastmcp` is installed: the hook must still serve the file on oxmcp.
    assert PEER_V2.exists(), f"{PEER_V2} missing: run scripts/setup.sh"

    async def steps(client: Any) -> Any:
        ok = await client.call_tool("add_note", {"text": "milk"})
        bad = await client.call_tool("add_note", {"text": ""})
        return ok, bad

    checks = """\
    import sys, oxmcp
    from fastmcp.tools.tool import ToolResult as FastMCP2ToolResult  # FastMCP 2.x's path
    assert sys.modules["fastmcp"].FastMCP is oxmcp.FastMCP and FastMCP2ToolResult is ToolResult
    """
    server = _write(tmp_path, "notes.py", FASTMCP4 + checks)
    ok, bad = _drive(str(PEER_V2), ["-m", "oxmcp", "run", str(server)], steps)
    assert ok.content[0].text == "saved: milk" and ok.structured_content == {"saved": "milk"}
    assert bad.is_error and bad.content[0].text == "empty note"


def test_lowlevel_script_with_module_qualified_imports(tmp_path: Path) -> None:
    """``import mcp.server.stdio`` then ``mcp.server.stdio.stdio_server()``; the script serves itself
    from its ``__main__`` block, and initialize reports the InitializationOptions it passes to run()."""
    server = _write(tmp_path, "echo.py", LOWLEVEL)

    async def steps(client: Any) -> Any:
        result = await client.call_tool("echo", {"text": "hello"})
        return _info(client), result.content[0].text

    info, text = _drive(sys.executable, ["-m", "oxmcp", "run", str(server)], steps)
    assert text == "hello"
    assert info == {"name": "echo", "version": "2.5.1"}


def test_lowlevel_initialization_options_name_and_version_as_the_sdk(tmp_path: Path) -> None:
    assert PEER_V1.exists(), f"{PEER_V1} missing: run scripts/setup.sh"

    async def steps(client: Any) -> Any:
        return _info(client)

    server = _write(tmp_path, "echo.py", LOWLEVEL)
    original = _drive(str(PEER_V1), [str(server)], steps)
    ported = _drive(str(PEER_V1), ["-m", "oxmcp", "run", str(server)], steps)
    assert ported == original == {"name": "echo", "version": "2.5.1"}


def test_a_packaged_server_runs_as_python_m_would(tmp_path: Path) -> None:
    """The layout of the SDK's published reference servers: a package whose ``main()`` builds a
    low-level ``Server`` inside ``serve()`` and whose ``__main__`` calls it. ``oxmcp run package``
    runs it as ``python -m package`` does, and initialize reports the same as on the SDK."""
    assert PEER_V1.exists(), f"{PEER_V1} missing: run scripts/setup.sh"
    pkg = tmp_path / "echo_server"
    pkg.mkdir()
    _write(pkg, "__init__.py", """\
        import asyncio

        from .server import serve


        def main() -> None:
            asyncio.run(serve())
    """)
    _write(pkg, "__main__.py", "from echo_server import main\n\nmain()\n")
    _write(pkg, "server.py", """\
        from mcp.server import Server
        from mcp.server.stdio import stdio_server
        from mcp.types import TextContent, Tool


        async def serve() -> None:
            server = Server("mcp-echo")

            @server.list_tools()
            async def list_tools() -> list[Tool]:
                return [Tool(name="echo", description="Echo", inputSchema={
                    "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})]

            @server.call_tool()
            async def call_tool(name: str, arguments: dict) -> list[TextContent]:
                return [TextContent(type="text", text=arguments["text"].upper())]

            options = server.create_initialization_options()
            async with stdio_server() as (read_stream, write_stream):
                await server.run(read_stream, write_stream, options, raise_exceptions=True)
    """)

    async def steps(client: Any) -> Any:
        return _info(client), (await client.call_tool("echo", {"text": "hi"})).content[0].text

    original = _drive(str(PEER_V1), ["-m", "echo_server"], steps, cwd=tmp_path)
    ported = _drive(str(PEER_V1), ["-m", "oxmcp", "run", "echo_server"], steps, cwd=tmp_path)
    assert ported == original
    assert original[1] == "HI" and original[0]["name"] == "mcp-echo" and original[0]["version"].startswith("1.")
    on_main_venv = _drive(sys.executable, ["-m", "oxmcp", "run", "echo_server"], steps, cwd=tmp_path)
    assert on_main_venv[1] == "HI"


@pytest.mark.parametrize(("peer", "source"), [(PEER_V1, FASTMCP1), (PEER_V2, FASTMCP4)], ids=["mcp1", "fastmcp4"])
def test_default_server_version_is_what_the_original_reports(tmp_path: Path, peer: Path, source: str) -> None:
    assert peer.exists(), f"{peer} missing: run scripts/setup.sh"

    async def steps(client: Any) -> Any:
        return _info(client)

    server = _write(tmp_path, "server.py", source)
    original = _drive(str(peer), [str(server)], steps)
    ported = _drive(str(peer), ["-m", "oxmcp", "run", str(server)], steps)
    assert ported == original
    assert original["version"] not in ("", oxmcp.__version__)


@pytest.mark.parametrize("source", [
    "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x')\n",
    "from oxmcp.server.fastmcp import FastMCP\nmcp = FastMCP('x')\n",
    "from oxmcp import FastMCP\nmcp = FastMCP('x')\n",
    "from oxmcp.server.mcpserver import MCPServer\nmcp = MCPServer('x')\n",
], ids=["mcp1-fastmcp-unchanged", "mcp1-fastmcp", "fastmcp", "mcp2-mcpserver"])
def test_fastmcp_shaped_server_without_resources_or_prompts_lists_them_empty(tmp_path: Path, source: str) -> None:
    """As every FastMCP-shaped framework: tools, resources and prompts declared, their lists empty."""
    server = _write(tmp_path, "tools_only.py", source + "@mcp.tool()\ndef ping() -> str:\n    return 'pong'\n")

    async def steps(client: Any) -> Any:
        caps = client.server_capabilities
        return (caps.tools is not None, caps.resources is not None, caps.prompts is not None,
                (await client.list_resources()).resources, (await client.list_resource_templates()).resource_templates,
                (await client.list_prompts()).prompts)

    assert _drive(sys.executable, ["-m", "oxmcp", "run", str(server)], steps) == (True, True, True, [], [], [])


@pytest.mark.parametrize(("line", "module"), [
    ("import mcp.server.websocket", "mcp.server.websocket"),
    ("from fastmcp.server.auth.providers.google import GoogleProvider", "fastmcp.server.auth.providers.google"),
    ("from mcp.server.auth.routes import create_auth_routes", "mcp.server.auth.routes"),
])
def test_an_unmirrored_module_is_a_clear_import_error(tmp_path: Path, line: str, module: str) -> None:
    server = _write(tmp_path, "app.py", f"from mcp.server.fastmcp import FastMCP\n{line}\nmcp = FastMCP('x')\n")
    r = subprocess.run([sys.executable, "-m", "oxmcp", "run", str(server)], env=_env(), capture_output=True,
                       text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert r.returncode == 1
    assert f"No module named {module!r}: oxmcp does not provide it" in r.stderr, r.stderr


def test_the_hook_never_falls_back_to_the_real_package(tmp_path: Path) -> None:
    """In a venv where the real ``mcp`` is installed, an unmirrored module still fails (never half SDK)."""
    assert PEER_V1.exists(), f"{PEER_V1} missing: run scripts/setup.sh"
    server = _write(tmp_path, "app.py", "import mcp.server.websocket\n")
    r = subprocess.run([str(PEER_V1), "-m", "oxmcp", "run", str(server)], env=_env(), capture_output=True,
                       text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert r.returncode == 1
    assert "No module named 'mcp.server.websocket': oxmcp does not provide it" in r.stderr, r.stderr


def test_a_self_serving_script_refuses_http_flags(tmp_path: Path) -> None:
    server = _write(tmp_path, "echo.py", LOWLEVEL)
    r = subprocess.run([sys.executable, "-m", "oxmcp", "run", str(server), "--http", "127.0.0.1:1"], env=_env(),
                       capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert r.returncode == 1
    assert "serves itself" in r.stderr, r.stderr


def test_every_mirror_in_the_table_imports() -> None:
    import importlib

    from oxmcp._dropin import MIRRORS, PACKAGES

    for upstream, target in MIRRORS.items():
        assert upstream.partition(".")[0] in PACKAGES
        assert importlib.import_module(target).__name__ == target, upstream


def test_mcp_client_mirror_returns_the_sdk_models() -> None:
    """``from mcp.client import Client`` in a server's self-test: an in-process client with model results."""
    from oxmcp.client import Client
    from oxmcp.server.mcpserver import MCPServer

    # mcp 2.x's pair (mcp 1.x has no mcp.client.Client): the in-process client speaks 2026-07-28.
    server = MCPServer("selftest")

    @server.tool()
    def add(a: int, b: int) -> int:
        return a + b

    async def run() -> Any:
        async with Client(server) as client:
            tools = await client.list_tools()
            result = await client.call_tool("add", {"a": 2, "b": 3})
            return [t.name for t in tools.tools], result.content[0].text, result.structured_content

    assert asyncio.run(run()) == (["add"], "5", {"result": 5})
    # The SDK's ClientSession (over message streams: tests/python/test_client_session.py) is the same
    # class from the package top and from mcp.client; the SDK's stdio client is refused.
    import oxmcp
    from oxmcp.client import ClientSession

    assert oxmcp.ClientSession is ClientSession
    with pytest.raises(ImportError, match="no stdio_client"):
        from oxmcp import stdio_client  # noqa: F401


@pytest.mark.parametrize(("option", "capability"), [("sampling_callback", {"sampling": {}}),
                                                    ("elicitation_callback", {"elicitation": {"form": {}, "url": {}}}),
                                                    ("list_roots_callback", {"roots": {"listChanged": True}})])
def test_mcp_client_mirror_declares_the_capability_of_each_callback(option: str, capability: dict[str, Any]) -> None:
    """A callback answers the server's input requests, so the client declares what it answers (the
    answering itself: tests/python/test_fastmcp_server_api.py)."""
    from oxmcp.client import Client
    from oxmcp.server.mcpserver import MCPServer

    async def callback(*args: Any) -> None:
        return None

    # What the SDK's client declares for each: both elicitation modes, roots with listChanged.
    assert Client(MCPServer("selftest"), **{option: callback}).capabilities == capability
    assert Client(MCPServer("selftest"), **{option: None}).capabilities == {}  # the SDK's default


def test_the_server_packages_re_export_what_the_sdk_does() -> None:
    """``from mcp.server.fastmcp import FastMCP, Icon`` and mcp 2.x's prompt message re-exports."""
    from oxmcp import types
    from oxmcp.server import fastmcp, mcpserver
    from oxmcp.server.fastmcp.prompts import base

    assert fastmcp.Icon is mcpserver.Icon is types.Icon
    assert (mcpserver.Message, mcpserver.UserMessage, mcpserver.AssistantMessage) == (
        base.Message, base.UserMessage, base.AssistantMessage)
    assert mcpserver.AssistantMessage("ok").role == "assistant"


def test_mcp_top_level_under_the_hook_is_the_sdks() -> None:
    """``from mcp import Client`` is the SDK's client (model results) and the SDK's types are at the top."""
    code = textwrap.dedent("""\
        import asyncio
        from oxmcp import _dropin
        _dropin.install()
        import mcp.server.stdio
        from mcp import Client, ErrorData, MCPError, Tool
        from mcp.server.mcpserver import MCPServer
        import oxmcp.client, oxmcp.shared.exceptions, oxmcp.types
        assert Client is oxmcp.client.Client and ErrorData is oxmcp.types.ErrorData
        assert MCPError is oxmcp.shared.exceptions.MCPError
        assert Tool is oxmcp.types.Tool and mcp.server.stdio.stdio_server
        server = MCPServer("top")
        @server.tool()
        def add(a: int, b: int) -> int:
            return a + b
        async def main():
            async with Client(server) as client:
                print((await client.list_tools()).tools[0].name, (await client.call_tool("add", {"a": 1, "b": 2})).content[0].text)
        asyncio.run(main())
    """)
    r = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["add", "3"]


LAX = """\
    from {module} import {cls}

    mcp = {cls}("lax")

    @mcp.tool()
    def describe(flag: bool, count: int, ratio: float = 0.5, maybe: bool | None = None) -> str:
        return f"{{flag!r}} {{count!r}} {{ratio!r}} {{maybe!r}}"
"""

LAX_CALLS = [
    {"flag": "yes", "count": "3"},
    {"flag": "off", "count": " 7 ", "ratio": "1e-1"},
    {"flag": "T", "count": "3.0", "maybe": "no"},
    {"flag": 1, "count": True, "ratio": "2"},
    {"flag": "maybe", "count": 1},
    {"flag": True, "count": "3.5"},
]


@pytest.mark.parametrize(("peer", "module", "cls"), [
    (PEER_V1, "mcp.server.fastmcp", "FastMCP"),
    (PEER_V2, "fastmcp", "FastMCP"),
    (PEER_V2, "mcp.server.mcpserver", "MCPServer"),
], ids=["mcp1-fastmcp", "fastmcp4", "mcp2-mcpserver"])
def test_tool_arguments_are_coerced_as_pydantic_lax_mode_does(tmp_path: Path, peer: Path, module: str,
                                                              cls: str) -> None:
    """The original validates with pydantic (lax): ``"yes"`` is a bool, ``"3"`` an int. The port
    answers the same calls with the same values; what pydantic refuses is an error on both."""
    assert peer.exists(), f"{peer} missing: run scripts/setup.sh"
    server = _write(tmp_path, "lax.py", LAX.format(module=module, cls=cls) + "    mcp.run()\n")

    async def steps(client: Any) -> Any:
        out = []
        for args in LAX_CALLS:
            r = await client.call_tool("describe", args)
            out.append("error" if r.is_error else r.content[0].text)
        return out

    original = _drive(str(peer), [str(server)], steps)
    ported = _drive(str(peer), ["-m", "oxmcp", "run", str(server)], steps)
    assert ported == original
    assert original[:4] == ["True 3 0.5 None", "False 7 0.1 None", "True 3 0.5 False", "True 1 2.0 None"]


def test_strict_input_validation_and_oxmcps_own_server_stay_strict(tmp_path: Path) -> None:
    server = _write(tmp_path, "strict.py", """\
        from oxmcp import FastMCP, Server

        strict = FastMCP("strict", strict_input_validation=True)
        own = Server("own")

        @strict.tool
        @own.tool
        def flip(flag: bool) -> bool:
            return not flag

        mcp = strict
    """)

    async def steps(client: Any) -> Any:
        return (await client.call_tool("flip", {"flag": "yes"})).is_error

    assert _drive(sys.executable, ["-m", "oxmcp", "run", f"{server}:strict"], steps) is True
    assert _drive(sys.executable, ["-m", "oxmcp", "run", f"{server}:own"], steps) is True


ARGV_SERVER = """\
    import sys

    from mcp.server import Server
    from mcp.server.stdio import stdio_server
    from mcp.types import TextContent, Tool


    def main() -> None:
        import anyio

        server = Server(sys.argv[1] if len(sys.argv) > 1 else "unnamed")

        @server.list_tools()
        async def list_tools() -> list[Tool]:
            return [Tool(name="argv", description="argv", inputSchema={"type": "object"})]

        @server.call_tool()
        async def call_tool(name: str, arguments: dict) -> list[TextContent]:
            return [TextContent(type="text", text=" ".join(sys.argv[1:]))]

        async def serve() -> None:
            async with stdio_server() as (read_stream, write_stream):
                await server.run(read_stream, write_stream, server.create_initialization_options())

        anyio.run(serve)
"""


def _argv_steps() -> Any:
    async def steps(client: Any) -> Any:
        return _info(client)["name"], (await client.call_tool("argv", {})).content[0].text
    return steps


def test_the_apps_own_arguments_follow_the_double_dash(tmp_path: Path) -> None:
    """``oxmcp run app.py -- ARGS`` gives the app ``sys.argv[1:] == ARGS``, as ``python app.py ARGS``;
    an argument that looks like oxmcp's own flag is the app's too."""
    assert PEER_V1.exists(), f"{PEER_V1} missing: run scripts/setup.sh"
    server = _write(tmp_path, "argv_server.py", ARGV_SERVER + "\n\n    if __name__ == '__main__':\n        main()\n")
    original = _drive(str(PEER_V1), [str(server), "named", "--http", "x"], _argv_steps())
    ported = _drive(str(PEER_V1), ["-m", "oxmcp", "run", str(server), "--", "named", "--http", "x"], _argv_steps())
    assert ported == original == ("named", "named --http x")


def test_a_console_script_runs_by_its_name(tmp_path: Path) -> None:
    """``oxmcp run NAME -- ARGS`` runs an installed package's console script ``NAME`` (what ``uvx NAME``
    starts) with its arguments, under the import hook."""
    assert PEER_V1.exists(), f"{PEER_V1} missing: run scripts/setup.sh"
    (tmp_path / "argv_pkg").mkdir()
    _write(tmp_path / "argv_pkg", "__init__.py", ARGV_SERVER)
    dist = tmp_path / "argv_pkg-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: argv-pkg\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[console_scripts]\nargv-server = argv_pkg:main\n")
    ported = _drive(str(PEER_V1), ["-m", "oxmcp", "run", "argv-server", "--", "by-name"], _argv_steps(), cwd=tmp_path)
    assert ported == ("by-name", "by-name")
    r = subprocess.run([str(PEER_V1), "-m", "oxmcp", "run", "no-such-script"], env=_env(), capture_output=True,
                       text=True, timeout=60, stdin=subprocess.DEVNULL, cwd=tmp_path)
    assert r.returncode == 1 and "cannot import no-such-script" in r.stderr, r.stderr
