"""A roots-confined file server (low-level SDK, mcp 1.x): it reads a file only inside the client's roots,
asking the client for its roots (roots/list) on every call, so a roots change mid-session applies."""

import os
from pathlib import Path
from urllib.parse import unquote, urlparse

import anyio

import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

server = Server("roots-files")


def _root_paths(roots) -> list[Path]:
    return [Path(unquote(urlparse(str(r.uri)).path)).resolve() for r in roots]


@server.list_tools()
async def list_tools() -> list[types.Tool]:
    return [types.Tool(name="read_file", description="Read a file inside the client's roots",
                       inputSchema={"type": "object", "properties": {"path": {"type": "string"}},
                                    "required": ["path"]})]


@server.call_tool()
async def call_tool(name: str, arguments: dict) -> list[types.TextContent]:
    roots = (await server.request_context.session.list_roots()).roots
    target = (Path(os.environ["PARITY_DATA"]) / arguments["path"]).resolve()
    if not any(target == r or r in target.parents for r in _root_paths(roots)):
        raise ValueError(f"access denied: {arguments['path']} is outside the client's roots")
    return [types.TextContent(type="text", text=target.read_text())]


async def main() -> None:
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
