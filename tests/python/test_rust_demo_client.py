"""The official Python `mcp` client talks to the Rust demo (the SQLite explorer) over stdio and HTTP."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "target" / "debug" / "sqlite-explorer"


@pytest.fixture(scope="module")
def demo_bin() -> Path:
    # cargo is a no-op when the binary is fresh (test-all.sh builds it in the Rust stage).
    subprocess.run(["cargo", "build", "-q", "-p", "oxmcp-examples", "--bin", "sqlite-explorer"],
                   cwd=ROOT, check=True, timeout=900)
    assert BIN.exists()
    return BIN


def _rows(result) -> list:  # type: ignore[no-untyped-def]
    assert result.is_error is False, result
    return result.structured_content["rows"]


async def test_official_client_over_stdio(demo_bin: Path) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=str(demo_bin), args=[])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await asyncio.wait_for(session.initialize(), 20)
        tools = await session.list_tools()
        assert [t.name for t in tools.tools] == ["list_tables", "describe_table", "query"]
        tables = await session.call_tool("list_tables", {})
        assert tables.structured_content == {"tables": ["albums", "artists", "tracks"]}
        rows = _rows(await session.call_tool("query", {"sql": "SELECT name FROM artists ORDER BY id", "limit": 2}))
        assert rows == [["Nina Simone"], ["Fela Kuti"]]
        # Read-only is enforced by SQLite itself: a write is a tool error, and nothing changed.
        bad = await session.call_tool("query", {"sql": "DELETE FROM artists"})
        assert bad.is_error is True and "readonly" in bad.content[0].text.replace(" ", "").lower()
        assert len(_rows(await session.call_tool("query", {"sql": "SELECT * FROM artists"}))) == 3
        schema = await session.read_resource("schema://albums")  # type: ignore[arg-type]
        assert "CREATE TABLE albums" in schema.contents[0].text  # type: ignore[union-attr]


async def test_official_client_over_http(demo_bin: Path) -> None:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([str(demo_bin), "--http", f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                await asyncio.sleep(0.05)
        async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write):
            async with ClientSession(read, write) as session:
                await asyncio.wait_for(session.initialize(), 20)
                described = await session.call_tool("describe_table", {"table": "tracks"})
                cols = [c["name"] for c in described.structured_content["columns"]]
                assert cols == ["id", "album_id", "title", "seconds"]
                prompt = await session.get_prompt("explore_table", {"table": "albums"})
                assert "schema://albums" in prompt.messages[0].content.text  # type: ignore[union-attr]
                text = json.loads(described.content[0].text)
                assert text["table"] == "tracks"
    finally:
        proc.terminate()
        assert proc.wait(10) == 0
