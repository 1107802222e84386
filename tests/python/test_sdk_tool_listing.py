"""A tool of the ``mcp`` SDK's ``MCPServer`` (2.x) and ``FastMCP`` (1.x) is listed and answered as the
SDK writes it: pydantic's schemas (titles, ``$defs``), its output-model rule, the docstring whole, a
result's text as the SDK renders it. The same file on the SDK and through ``oxmcp run``, over stdio
with the official client: the same ``tools/list`` and the same call results."""

from __future__ import annotations

import asyncio
import os
import textwrap
from pathlib import Path
from typing import Any

import pytest

import oxmcp

ROOT = Path(__file__).resolve().parents[2]
PEERS = {"mcp2": (ROOT / ".cache/peers-py/v2/bin/python", "from mcp.server.mcpserver import MCPServer as S"),
         "mcp1": (ROOT / ".cache/peers-py/v1/bin/python", "from mcp.server.fastmcp import FastMCP as S")}
OXMCP_PATH = str(Path(oxmcp.__file__).resolve().parents[1])

TOOLS = """\
    from typing import Dict, TypedDict

    from pydantic import BaseModel, Field


    class Point(BaseModel):
        x: int
        y: int = 0


    class Node(BaseModel):
        name: str
        children: list["Node"] = []


    class Stats(TypedDict):
        count: int


    mcp = S("listing")


    @mcp.tool()
    def divide(a: float, b: float = 1.0) -> float:
        \"\"\"Divide a by b.

        Args:
            b: the divisor (not zero)
        \"\"\"
        return a / b


    @mcp.tool()
    def point(x: int, label: str = Field(description="what it marks")) -> Point:
        return Point(x=x)


    @mcp.tool()
    def tree() -> Node:
        return Node(name="root", children=[Node(name="leaf")])


    @mcp.tool()
    def counts() -> dict[str, int]:
        return {"a": 1, "b": 2}


    @mcp.tool()
    def legacy_counts() -> Dict[str, int]:
        return {"a": 1}


    @mcp.tool()
    def names() -> list[str]:
        return ["x", "y"]


    @mcp.tool()
    def stats() -> Stats:
        return {"count": 3}


    @mcp.tool()
    def untyped(value):
        return {"got": value}


    if __name__ == "__main__":
        mcp.run()
"""


async def _session(python: Path, args: list[str]) -> Any:
    from mcp import Client, StdioServerParameters

    env = {**os.environ, "PYTHONPATH": OXMCP_PATH, "PYTHONUNBUFFERED": "1"}
    env.pop("VIRTUAL_ENV", None)
    async with Client(StdioServerParameters(command=str(python), args=args, env=env), mode="legacy",
                      read_timeout_seconds=30) as client:
        listed = sorted((t.model_dump(mode="json", by_alias=True, exclude_none=True)
                         for t in (await client.list_tools()).tools), key=lambda t: t["name"])
        calls = {}
        for name, arguments in (("divide", {"a": 3}), ("point", {"x": 2, "label": "p"}), ("tree", {}),
                                ("counts", {}), ("legacy_counts", {}), ("names", {}), ("stats", {}),
                                ("untyped", {"value": "v"})):
            r = await client.call_tool(name, arguments)
            calls[name] = (r.model_dump(mode="json", by_alias=True, exclude_none=True)["content"],
                           r.structured_content, bool(r.is_error))
        return listed, calls


@pytest.mark.parametrize("peer", sorted(PEERS))
def test_tools_are_listed_and_answered_as_the_sdk(tmp_path: Path, peer: str) -> None:
    python, header = PEERS[peer]
    assert python.exists(), f"{python} missing: run scripts/setup.sh"
    server = tmp_path / "server.py"
    server.write_text(header + "\n" + textwrap.dedent(TOOLS))
    original = asyncio.run(asyncio.wait_for(_session(python, [str(server)]), 60))
    ported = asyncio.run(asyncio.wait_for(_session(python, ["-m", "oxmcp", "run", str(server)]), 60))
    assert ported[0] == original[0]
    assert ported[1] == original[1]
    listed = {t["name"]: t for t in original[0]}
    assert listed["divide"]["inputSchema"]["title"] == "divideArguments"
    assert listed["counts"]["outputSchema"].get("title") != "countsOutput"  # dict[str, T]: not wrapped
    assert listed["legacy_counts"]["outputSchema"]["title"] == "legacy_countsOutput"  # typing.Dict: wrapped
