"""FastMCP's serialisation of a tool's structured result on oxmcp: JSON has no NaN or Infinity, so a
non-finite float left after serialisation is an error result naming the value and where it is
(never a silent ``null``); a value FastMCP cannot structure is answered as its JSON text."""

from __future__ import annotations

import math

import pytest

from oxmcp import FastMCP
from oxmcp._client import Client

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_non_finite_floats_are_an_error_naming_their_path() -> None:
    mcp = FastMCP("nf")

    @mcp.tool
    def stats() -> dict[str, list[float]]:
        return {"rows": [1.0, math.inf]}

    @mcp.tool
    def fine() -> dict[str, float]:
        return {"mean": 2.5}

    class Opaque:
        def __str__(self) -> str:
            return "opaque"

    @mcp.tool
    def odd():  # type: ignore[no-untyped-def]
        return Opaque()

    async with Client(mcp) as client:
        bad = await client.call_tool("stats", {})
        good = await client.call_tool("fine", {})
        text = await client.call_tool("odd", {})
    assert bad["isError"] is True
    assert bad["content"][0]["text"] == ("Tool result contains a non-finite float (inf) at $.rows[1]; "
                                         "JSON cannot represent NaN or Infinity")
    assert good["structuredContent"] == {"mean": 2.5}
    assert text.get("isError") in (None, False) and text["content"] == [{"type": "text", "text": '"opaque"'}]
