"""FastMCP's ``allowed_hosts=`` over real HTTP: its entries are added to the loopback names (FastMCP's
guard always accepts those), where the core's own list is complete; a Host outside both is refused;
a wildcard pattern the core cannot match is refused when the server starts."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest
from procs import META, start_script, stop

from oxmcp import FastMCP

SERVER = """
import sys
from oxmcp import FastMCP

mcp = FastMCP("hosts")

@mcp.tool
def hello() -> str:
    return "hi"

mcp.run("http", host="127.0.0.1", port=int(sys.argv[1]), allowed_hosts=["mcp.example.com"],
        host_origin_protection=True)
"""


def _status(port: int, host: str) -> int:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "hello", "arguments": {}, "_meta": META}}).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=body, method="POST", headers={
        "Host": host, "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "hello"})
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def test_fastmcps_allowed_hosts_are_added_to_the_loopback_names(tmp_path: Any) -> None:
    proc, port = start_script(tmp_path, SERVER)
    try:
        assert _status(port, "mcp.example.com") == 200
        assert _status(port, f"localhost:{port}") == 200
        assert _status(port, f"127.0.0.1:{port}") == 200
        assert _status(port, f"[::1]:{port}") == 200
        assert _status(port, "other.example") in (403, 421)  # the core's 403; FastMCP's 421
    finally:
        stop(proc)


def test_a_host_pattern_is_refused() -> None:
    with pytest.raises(TypeError, match=r"\*\.example\.com"):
        FastMCP("hosts").http_app(allowed_hosts=["*.example.com"])
