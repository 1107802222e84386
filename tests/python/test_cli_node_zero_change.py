"""`oxmcp run server.mjs` from the Python CLI serves an unchanged TypeScript-SDK server through the
npm package's zero-change mode, in a project where the SDK is not installed (the same server as
tests/node/zero-change.test.mjs)."""

from __future__ import annotations

from pathlib import Path

import pytest
from procs import ROOT
from test_transports import stdio_exchange

SERVER = """
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
const server = new McpServer({ name: 'weather', version: '1.0.0' });
server.registerTool('forecast', { description: 'The forecast', inputSchema: { city: z.string() } },
  async ({ city }) => ({ content: [{ type: 'text', text: 'Sunny in ' + city }] }));
await server.connect(new StdioServerTransport());
"""


def test_python_cli_runs_an_unchanged_ts_sdk_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "oxmcp").symlink_to(ROOT)
    (tmp_path / "node_modules" / "zod").symlink_to(ROOT / "node_modules" / "zod")
    script = tmp_path / "server.mjs"
    script.write_text(SERVER)
    msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "forecast", "arguments": {"city": "Oslo"}}}]
    # `node --import oxmcp/register` resolves oxmcp from the working directory, as in a project.
    monkeypatch.chdir(tmp_path)
    out = {m["id"]: m for m in stdio_exchange(["-m", "oxmcp", "run", str(script)], msgs)}
    assert out[1]["result"]["serverInfo"]["name"] == "weather"
    assert out[2]["result"]["content"][0]["text"] == "Sunny in Oslo"
