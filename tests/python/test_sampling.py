"""``ctx.sample()`` (FastMCP 2–3's spelling, which oxmcp keeps) answered by the official
``mcp`` client's sampling callback, in both eras (a server→client request on a legacy session, an
MRTR round on 2026-07-28 requests). tests/parity/mcp1_sampling and mcp2_sampling compare the SDKs'
``ctx.session.create_message`` against mcp 1.30 and mcp 2.3."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

SERVER = textwrap.dedent('''
    from oxmcp import Context, FastMCP

    mcp = FastMCP("sampler")

    @mcp.tool
    async def summarize(text: str, ctx: Context) -> dict:
        response = await ctx.sample(f"Summarize: {text}", system_prompt="be brief", max_tokens=40)
        return {"text": response.text, "model": response.model}

    if __name__ == "__main__":
        mcp.run()
''')


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_ctx_sample_is_answered_by_the_client(tmp_path: Path, mode: str) -> None:
    import mcp_types as types
    from mcp import Client, StdioServerParameters

    asked: list[dict[str, Any]] = []

    async def sampling(context: Any, params: Any) -> Any:
        asked.append(params.model_dump(by_alias=True, exclude_none=True, mode="json"))
        text = params.messages[0].content.text
        return types.CreateMessageResult(role="assistant", model="test-model", stop_reason="endTurn",
                                         content=types.TextContent(type="text", text=text.upper()))

    script = tmp_path / "server.py"
    script.write_text(SERVER)
    async with Client(StdioServerParameters(command=sys.executable, args=[str(script)]), mode=mode,
                      sampling_callback=sampling, read_timeout_seconds=30) as client:
        r = await client.call_tool("summarize", {"text": "a long story"})
    assert not r.is_error, r
    assert r.structured_content == {"text": "SUMMARIZE: A LONG STORY", "model": "test-model"}
    assert len(asked) == 1 and asked[0]["maxTokens"] == 40 and asked[0]["systemPrompt"] == "be brief"
