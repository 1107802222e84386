// `oxmcp/server/express.js` (the TS SDK 1.x's `createMcpExpressApp`) over real HTTP on 127.0.0.1:
// the official client through an Express app, and the app's Host rule applied by the core.
// Express is the project's own (an optional peer of oxmcp); the checkout has none of its own, so
// the server resolves the one the TS SDK 1.x brought into .cache/peers-node (scripts/setup.sh).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ROOT, withTimeout, exited } from './helpers.mjs';

const PEERS = path.join(ROOT, '.cache', 'peers-node', 'node_modules');
const FIXTURE = path.join(ROOT, 'tests', 'node', 'fixtures', 'sdk-express.mjs');

async function start(options) {
  assert.ok(fs.existsSync(path.join(PEERS, 'express')), `express is not installed in ${PEERS} (scripts/setup.sh)`);
  const child = spawn(process.execPath, [FIXTURE, ...(options ? [JSON.stringify(options)] : [])], {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_PATH: PEERS },
  });
  let stderr = '';
  const url = await withTimeout(new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = /listening on (http:\/\/\S+)/.exec(stderr);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${stderr}`)));
  }), 15_000, 'server to listen');
  return { child, url, stderr: () => stderr };
}

async function stop(srv) {
  srv.child.kill('SIGTERM');
  await exited(srv.child);
}

/** A raw initialize POST with the given Host header (fetch does not let a caller set Host). */
function initialize(url, host) {
  const { hostname, port, pathname } = new URL(url);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } });
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname, port, path: pathname, method: 'POST', headers: {
      host, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': Buffer.byteLength(body),
    } }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('createMcpExpressApp: the official client through an Express app; other Hosts refused', { timeout: 60_000 }, async () => {
  const srv = await start();
  try {
    const client = new Client({ name: 'express', version: '1.0.0' });
    await withTimeout(client.connect(new StreamableHTTPClientTransport(new URL(srv.url))), 15_000, 'connect');
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['add']);
    for (let i = 0; i < 3; i++) {
      const r = await client.callTool({ name: 'add', arguments: { a: i, b: 40 } });
      assert.deepEqual(r.content, [{ type: 'text', text: String(i + 40) }]);
    }
    await client.close();
    const port = new URL(srv.url).port;
    assert.equal((await initialize(srv.url, `localhost:${port}`)).status, 200);
    const evil = await initialize(srv.url, `evil.example:${port}`);
    assert.equal(evil.status, 403, evil.text);
    assert.equal((await fetch(new URL('/health', srv.url))).status, 200);
  } finally {
    await stop(srv);
  }
});

test('createMcpExpressApp({ allowedHosts }): those Hosts and no others', { timeout: 60_000 }, async () => {
  const srv = await start({ host: '0.0.0.0', allowedHosts: ['mcp.example'] });
  try {
    const port = new URL(srv.url).port;
    assert.equal((await initialize(srv.url, `mcp.example:${port}`)).status, 200);
    assert.equal((await initialize(srv.url, `localhost:${port}`)).status, 403);
  } finally {
    await stop(srv);
  }
});

test('createMcpExpressApp({ host: "0.0.0.0" }) without allowedHosts: no Host check, as in the SDK', { timeout: 60_000 }, async () => {
  const srv = await start({ host: '0.0.0.0' });
  try {
    assert.match(srv.stderr(), /without DNS rebinding protection/);
    const port = new URL(srv.url).port;
    assert.equal((await initialize(srv.url, `anything.example:${port}`)).status, 200);
  } finally {
    await stop(srv);
  }
});
