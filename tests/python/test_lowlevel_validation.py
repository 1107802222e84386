"""mcp 1.x's low-level ``Server`` checks a call against the tool it listed: the arguments against
``inputSchema`` before the handler runs, a structured result against ``outputSchema`` after it
(``Input validation error: ...`` / ``Output validation error: ...`` as ``isError`` results). The
same file on the SDK and through ``oxmcp run``, over stdio with the official client: the same
outcomes and the same texts (the check is the core's JSON Schema check, worded as python-jsonschema
words its best match, as the SDK shows it)."""

from __future__ import annotations

import asyncio
import os
import textwrap
from pathlib import Path
from typing import Any

import oxmcp

ROOT = Path(__file__).resolve().parents[2]
PEER_V1 = ROOT / ".cache" / "peers-py" / "v1" / "bin" / "python"  # mcp 1.30.0
OXMCP_PATH = str(Path(oxmcp.__file__).resolve().parents[1])

SERVER = """\
    import anyio
    from mcp.server import Server
    from mcp.server.stdio import stdio_server
    from mcp.types import TextContent, Tool

    server = Server("checked")
    calls: list[str] = []

    @server.list_tools()
    async def list_tools() -> list[Tool]:
        return [
            Tool(name="add", inputSchema={"type": "object", "required": ["a"], "additionalProperties": False,
                                          "properties": {"a": {"type": "integer", "maximum": 99},
                                                         "mode": {"enum": ["fast", "slow"]},
                                                         "tags": {"type": "array", "minItems": 1}}},
                 outputSchema={"type": "object", "required": ["sum"], "properties": {"sum": {"type": "integer"}}}),
            Tool(name="calls", inputSchema={"type": "object"}),
        ]

    @server.call_tool()
    async def call_tool(name: str, arguments: dict):
        if name == "calls":
            return [TextContent(type="text", text=",".join(calls))]
        calls.append(str(arguments.get("a")))
        if arguments["a"] == 0:
            return {"sum": "zero"}          # breaks the output schema
        if arguments["a"] == 1:
            return [TextContent(type="text", text="no structure")]
        return {"sum": arguments["a"] + 1}

    async def main() -> None:
        async with stdio_server() as (r, w):
            await server.run(r, w, server.create_initialization_options())

    anyio.run(main)
"""


async def _session(args: list[str]) -> Any:
    from mcp import Client, StdioServerParameters

    env = {**os.environ, "PYTHONPATH": OXMCP_PATH, "PYTHONUNBUFFERED": "1"}
    env.pop("VIRTUAL_ENV", None)
    out = []
    async with Client(StdioServerParameters(command=str(PEER_V1), args=args, env=env), mode="legacy",
                      read_timeout_seconds=30) as client:
        for arguments in ({"a": 2}, {}, {"a": "x"}, {"a": 0}, {"a": 1}, {"a": 2, "mode": "turbo"},
                          {"a": 2, "zz": 1, "yy": 2}, {"a": 100}, {"a": 2, "tags": []}, {"mode": 1, "a": 2.5}):
            r = await client.call_tool("add", arguments)
            text = r.content[0].text if r.content else ""
            out.append((bool(r.is_error), text, r.structured_content))
        out.append((await client.call_tool("calls", {})).content[0].text)
    return out


def test_arguments_and_structured_results_are_checked_against_the_listed_tool(tmp_path: Path) -> None:
    assert PEER_V1.exists(), f"{PEER_V1} missing: run scripts/setup.sh"
    server = tmp_path / "server.py"
    server.write_text(textwrap.dedent(SERVER))
    original = asyncio.run(asyncio.wait_for(_session([str(server)]), 60))
    ported = asyncio.run(asyncio.wait_for(_session(["-m", "oxmcp", "run", str(server)]), 60))
    assert ported == original
    assert original == [
        (False, '{\n  "sum": 3\n}', {"sum": 3}),
        (True, "Input validation error: 'a' is a required property", None),
        (True, "Input validation error: 'x' is not of type 'integer'", None),
        (True, "Output validation error: 'zero' is not of type 'integer'", None),
        (True, "Output validation error: outputSchema defined but no structured output returned", None),
        (True, "Input validation error: 'turbo' is not one of ['fast', 'slow']", None),
        (True, "Input validation error: Additional properties are not allowed ('yy', 'zz' were unexpected)", None),
        (True, "Input validation error: 100 is greater than the maximum of 99", None),
        (True, "Input validation error: [] should be non-empty", None),
        (True, "Input validation error: 1 is not one of ['fast', 'slow']", None),
        "2,0,1",  # the refused calls never reached the handler
    ]
