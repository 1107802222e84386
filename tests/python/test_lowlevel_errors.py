"""mcp 2.x's low-level ``Server`` maps a handler's failure as that SDK does: an ``MCPError`` as
raised, a pydantic ``ValidationError`` as -32602 "Invalid request parameters", and on a 2026-07-28
request any other exception as -32603 "Internal server error", its text kept out of the answer (the
server's log has it). The same server file runs on mcp 2.3.0 and, unchanged, on oxmcp (``oxmcp run``),
over real stdio, and the official client sees the same errors."""

from __future__ import annotations

import asyncio
import os
import textwrap
from pathlib import Path
from typing import Any

import oxmcp

ROOT = Path(__file__).resolve().parents[2]
PEER_V2 = ROOT / ".cache" / "peers-py" / "v2" / "bin" / "python"  # mcp 2.3.0
OXMCP_PATH = str(Path(oxmcp.__file__).resolve().parents[1])

SERVER = """
    import anyio
    import pydantic
    from mcp.server import Server
    from mcp.server.stdio import stdio_server
    from mcp.shared.exceptions import MCPError
    from mcp.types import ListToolsResult, Tool

    async def list_tools(ctx, params):
        return ListToolsResult(tools=[Tool(name=n, input_schema={"type": "object"}) for n in ("boom", "bad", "own")])

    async def call_tool(ctx, params):
        if params.name == "boom":
            raise RuntimeError("the database password is hunter2")
        if params.name == "bad":
            pydantic.TypeAdapter(int).validate_python("not a number")
        raise MCPError(code=-32001, message="out of books")

    server = Server("errors", on_list_tools=list_tools, on_call_tool=call_tool)

    async def main():
        async with stdio_server() as (r, w):
            await server.run(r, w, server.create_initialization_options())

    anyio.run(main)
"""


async def _errors(args: list[str], mode: str) -> list[tuple[int, str]]:
    from mcp import Client, StdioServerParameters
    from mcp.shared.exceptions import MCPError

    env = {**os.environ, "PYTHONPATH": OXMCP_PATH, "PYTHONUNBUFFERED": "1"}
    env.pop("VIRTUAL_ENV", None)
    out = []
    async with Client(StdioServerParameters(command=str(PEER_V2), args=args, env=env), mode=mode,
                      read_timeout_seconds=30) as client:
        for name in ("boom", "bad", "own"):
            try:
                await client.call_tool(name, {})
            except MCPError as exc:
                out.append((exc.error.code, exc.error.message))
            else:
                out.append((0, "answered"))
    return out


def _both(tmp_path: Path, mode: str) -> tuple[Any, Any]:
    assert PEER_V2.exists(), f"{PEER_V2} missing: run scripts/setup.sh"
    server = tmp_path / "server.py"
    server.write_text(textwrap.dedent(SERVER))
    original = asyncio.run(asyncio.wait_for(_errors([str(server)], mode), 60))
    ported = asyncio.run(asyncio.wait_for(_errors(["-m", "oxmcp", "run", str(server)], mode), 60))
    return original, ported


def test_a_modern_requests_failures_are_the_sdks_and_keep_the_handlers_text_out(tmp_path: Path) -> None:
    original, ported = _both(tmp_path, "2026-07-28")
    assert ported == original
    assert original == [(-32603, "Internal server error"), (-32602, "Invalid request parameters"),
                        (-32001, "out of books")]


def test_a_handshake_era_failure_keeps_its_text(tmp_path: Path) -> None:
    # The SDK's stream dispatcher answers code 0 with the text; the core answers -32603 (JSON-RPC's
    # internal error) with the same text (docs/COMPATIBILITY.md, Python, "Differences kept on purpose").
    original, ported = _both(tmp_path, "legacy")
    assert [m for _c, m in ported] == [m for _c, m in original]
    assert original[0] == (0, "the database password is hunter2")
    assert ported[0] == (-32603, "the database password is hunter2")
    assert ported[1:] == original[1:]
