"""``ctx.get_http_request()`` / ``get_http_request()`` / ``get_http_headers()`` and
``get_access_token()`` with named bearer tokens, over real HTTP (the native listener and the ASGI
mount under uvicorn) with the official ``mcp`` client; on stdio they raise / are empty as in FastMCP.
tests/parity/fm_http_request compares the same against FastMCP 4."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from procs import free_port, wait_listening

SERVER = textwrap.dedent('''
    import os, sys
    from oxmcp import Context, FastMCP
    from oxmcp.server.dependencies import get_access_token, get_http_headers

    mcp = FastMCP("req", tokens={"alice": {"tokens": ["alice-secret"], "scopes": ["notes:read"]}}
                  if sys.argv[1] != "stdio" else None)

    @mcp.tool
    def who(ctx: Context) -> dict:
        token = get_access_token()
        try:
            request = ctx.get_http_request()
        except RuntimeError as e:
            return {"error": str(e), "headers": get_http_headers(), "token": token}
        return {"method": request.method, "path": request.url.path, "query": dict(request.query_params),
                "trace": request.headers.get("X-Trace"), "client": request.client.host,
                "forwarded": sorted(set(get_http_headers()) & {"authorization", "x-trace", "host"}),
                "all_has_auth": "authorization" in get_http_headers(include_all=True),
                "token": token.token, "client_id": token.client_id, "scopes": token.scopes}

    if __name__ == "__main__":
        port = int(os.environ.get("PORT", "0"))
        if sys.argv[1] == "native":
            mcp.run(transport="http", host="127.0.0.1", port=port)
        elif sys.argv[1] == "asgi":
            import uvicorn
            uvicorn.run(mcp.http_app(path="/mcp"), host="127.0.0.1", port=port, log_level="warning")
        else:
            mcp.run()
''')


@pytest.mark.parametrize("mount", ["native", "asgi"])
async def test_http_request_and_access_token_over_http(tmp_path: Path, mount: str) -> None:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    script = tmp_path / "server.py"
    script.write_text(SERVER)
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(script), mount], env={**os.environ, "PORT": str(port)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_listening(port, proc, timeout=30)
        headers = {"authorization": "Bearer alice-secret", "x-trace": "t-42"}
        async with httpx2.AsyncClient(headers=headers) as http:
            url = f"http://127.0.0.1:{port}/mcp?tenant=acme"
            async with Client(streamable_http_client(url, http_client=http), mode="legacy") as client:
                r = await client.call_tool("who", {})
    finally:
        proc.terminate()
        proc.wait(10)
    assert not r.is_error, r
    assert r.structured_content == {
        "method": "POST", "path": "/mcp", "query": {"tenant": "acme"}, "trace": "t-42", "client": "127.0.0.1",
        # FastMCP's get_http_headers() leaves credentials and hop-by-hop headers out unless include_all.
        "forwarded": ["x-trace"], "all_has_auth": True,
        # get_access_token(): the verified caller, and the raw bearer token as in FastMCP.
        "token": "alice-secret", "client_id": "alice", "scopes": ["notes:read"],
    }


async def test_http_request_raises_on_stdio(tmp_path: Path) -> None:
    from mcp import Client, StdioServerParameters

    script = tmp_path / "server.py"
    script.write_text(SERVER)
    async with Client(StdioServerParameters(command=sys.executable, args=[str(script), "stdio"])) as client:
        r = await client.call_tool("who", {})
    out: dict[str, Any] = r.structured_content
    assert out == {"error": "No active HTTP request found.", "headers": {}, "token": None}
