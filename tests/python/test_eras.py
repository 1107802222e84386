"""A server written for an SDK generation that speaks only the `initialize`-era revisions (mcp 1.x's
`mcp.server.fastmcp.FastMCP`) is served in those eras unless it opts in (`modern=True`): a modern
request gets -32022 listing only the legacy revisions (so a dual-era client falls back to
`initialize`), over real HTTP. The Node side is tests/node/eras.test.mjs."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from procs import start_script, stop

SERVER = """
import sys
from oxmcp.server.fastmcp import FastMCP
mcp = FastMCP("v1", port=int(sys.argv[1]), **({"modern": True} if sys.argv[2] == "opted-in" else {}))

@mcp.tool()
def add(a: int, b: int) -> int:
    return a + b

mcp.run(transport="streamable-http")
"""

MODERN = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


def post(port: int, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, Any]:
    req = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", json.dumps(body).encode(), method="POST", headers={
        "content-type": "application/json", "accept": "application/json, text/event-stream", **headers})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            status, text = r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        status, text = e.code, e.read().decode()
    data = next((line[5:] for line in text.splitlines() if line.startswith("data:")), text)
    return status, json.loads(data)


@pytest.mark.parametrize("mode", ["default", "opted-in"])
def test_mcp1_fastmcp_is_served_in_the_initialize_eras_unless_it_opts_in(tmp_path: Path, mode: str) -> None:
    proc, port = start_script(tmp_path, SERVER, mode)
    try:
        status, answer = post(port, {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": MODERN}},
                              {"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list"})
        if mode == "default":
            assert status == 400, answer
            assert answer["error"]["code"] == -32022
            assert "2026-07-28" not in answer["error"]["data"]["supported"]
            assert "2025-11-25" in answer["error"]["data"]["supported"]
        else:
            assert status == 200, answer
            assert [t["name"] for t in answer["result"]["tools"]] == ["add"]
        status, init = post(port, {"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}, {})
        assert status == 200 and init["result"]["protocolVersion"] == "2025-11-25", init
    finally:
        stop(proc)
