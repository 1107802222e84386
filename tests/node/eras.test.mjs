// A server written for an SDK generation that speaks only the `initialize`-era revisions (the TS
// SDK 1.x paths: `oxmcp/server/mcp.js`, `oxmcp/server/index.js`) is served in those eras unless
// it opts in to 2026-07-28 (`modern: true`): a modern request gets -32022 listing only the legacy
// revisions, so the official dual-era client falls back to `initialize`, and the server's hooks
// (`oninitialized` reading the client's roots) run as on the SDK. A roots-confined server stays
// confined with that client.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { McpServer as McpServerV1 } from 'oxmcp/server/mcp.js';
import { Server as LowLevelV1 } from 'oxmcp/server/index.js';
import { McpServer as McpServerV2 } from 'oxmcp';
import { ROOT, withTimeout } from './helpers.mjs';

const MODERN = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const modernList = (s) => s.fetch(new Request('http://127.0.0.1/mcp', {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: MODERN } }),
}));

test('the 1.x shapes answer a modern request with -32022 naming only the initialize-era revisions; opting in serves it', async () => {
  const info = { name: 'v1', version: '1.0.0', handleSignals: false };
  for (const [label, s] of [['McpServer v1', new McpServerV1(info)], ['low-level v1', new LowLevelV1({ name: 'v1', version: '1.0.0' }, { capabilities: { tools: {} } })]]) {
    const r = await modernList(s);
    assert.equal(r.status, 400, label);
    const body = await r.json();
    assert.equal(body.error.code, -32022, label);
    assert.ok(!body.error.data.supported.includes('2026-07-28'), label);
    assert.ok(body.error.data.supported.includes('2025-11-25'), label);
  }
  const optedIn = new McpServerV1(info, { modern: true });
  // As on the SDK 1.x, an McpServer serves tools/list once it has a tool.
  optedIn.registerTool('t', {}, () => ({ content: [] }));
  assert.equal((await modernList(optedIn)).status, 200);
  assert.equal((await modernList(new McpServerV2(info))).status, 200, 'the v2 shape speaks 2026-07-28 by default');
});

async function readAs(args) {
  // 'auto': the dual-era client, which probes with server/discover and falls back to initialize.
  const client = new Client({ name: 'eras', version: '1.0.0' }, { capabilities: { roots: { listChanged: true } }, versionNegotiation: { mode: 'auto' } });
  client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///work/project', name: 'project' }] }));
  const transport = new StdioClientTransport({ command: process.execPath, args: [path.join(ROOT, 'tests', 'node', 'fixtures', 'roots-confined-v1.mjs'), ...args], cwd: ROOT, stderr: 'pipe' });
  await withTimeout(client.connect(transport), 15_000, 'connect');
  try {
    // oninitialized reads the roots after the handshake: give it the moment the SDK gives it.
    await new Promise((r) => setTimeout(r, 200));
    const read = async (uri) => (await client.callTool({ name: 'read_file', arguments: { uri } })).content[0].text;
    return { era: client.getNegotiatedProtocolVersion?.() ?? client._negotiatedProtocolVersion, inside: await read('file:///work/project/notes.txt'), outside: await read('file:///etc/passwd') };
  } finally {
    await client.close();
  }
}

test('a roots-confined 1.x server stays confined with the official dual-era client', async () => {
  const r = await readAs([]);
  assert.equal(r.inside, 'contents of file:///work/project/notes.txt');
  assert.match(r.outside, /Access denied/);
  assert.equal(r.era, '2025-11-25', 'the client fell back to initialize');
});
