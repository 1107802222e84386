// The core's one configuration schema from Node: the shared table of invalid configurations
// (tests/config/cases.json, also replayed by the Rust and Python tests) gives the same text here,
// and listener options given to the constructor are the defaults of listen(), over real HTTP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Server } from 'oxmcp';
import { ROOT, MODERN, meta } from './helpers.mjs';

const { cases } = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'config', 'cases.json'), 'utf8'));

for (const c of cases) {
  test(`refused (${c.at}): ${JSON.stringify(c.config)}`, async () => {
    let err;
    try {
      if (c.at === 'server') {
        new Server({ name: 't', version: '1', ...c.config });
      } else {
        const s = new Server({ name: 't', version: '1', handleSignals: false });
        try {
          await s.listen({ port: 0, ...c.config });
        } finally {
          await s.close();
        }
      }
    } catch (e) {
      err = e;
    }
    assert.ok(err, 'accepted');
    assert.equal(err.code, 'INVALID_OPTION');
    assert.equal(err.message, c.error);
  });
}

test('listener options given to the constructor are the defaults of listen()', async () => {
  const s = new Server({ name: 't', version: '1', handleSignals: false, maxBodyBytes: 600, path: '/x', forcePrivateCache: true, cacheScope: 'public' });
  s.registerTool('echo', { inputSchema: { type: 'object' } }, () => ({ content: [] }));
  try {
    const { url, port } = await s.listen({ port: 0 });
    assert.equal(url, `http://127.0.0.1:${port}/x`);
    const post = (body) => fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
      body,
    });
    const ok = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta() } }));
    assert.equal(ok.status, 200);
    assert.equal((await ok.json()).result.cacheScope, 'private');
    const big = await post(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: meta(), pad: 'x'.repeat(1000) } }));
    assert.equal(big.status, 413);
  } finally {
    await s.close();
  }
});

// The native layer throws errors whose `code` napi sets from the Rust error's typed status, so
// nothing in JS parses a "CODE: message" text (which a message could forge).
test('native errors carry err.code natively, synchronous and from a rejected Promise', async () => {
  const { createRequire } = await import('node:module');
  const { loadNative } = createRequire(import.meta.url)(path.join(ROOT, 'bindings-node', 'lib', 'native.cjs'));
  const { NativeServer } = loadNative();
  assert.throws(() => new NativeServer({ name: 't', version: '1', pageSize: 0 }),
    (e) => e instanceof Error && e.code === 'INVALID_OPTION' && e.message === 'pageSize must be at least 1');
  const native = new NativeServer({ name: 't', version: '1' });
  const net = await import('node:net');
  const busy = net.createServer();
  await new Promise((r) => busy.listen(0, '127.0.0.1', r));
  try {
    await assert.rejects(native.listenHttp({ port: busy.address().port }),
      (e) => e instanceof Error && e.code === 'LISTEN_FAILED' && !e.message.startsWith('LISTEN_FAILED'));
  } finally {
    busy.close();
  }
  await native.close();
  assert.throws(() => native.serveStdio(), (e) => e.code === 'CLOSED' && e.message === 'this server was closed; create a new one');
});

test('declared extensions join the capabilities, from the option or the TS SDK\'s capabilities', async () => {
  const cc = 'io.modelcontextprotocol/oauth-client-credentials';
  for (const s of [
    new Server({ name: 't', version: '1', handleSignals: false, extensions: { [cc]: {} } }),
    new Server({ name: 't', version: '1', handleSignals: false }, { capabilities: { tools: {}, extensions: { [cc]: {} } } }),
  ]) {
    s.registerTool('echo', { inputSchema: { type: 'object' } }, () => ({ content: [] }));
    try {
      const { url } = await s.listen({ port: 0 });
      const r = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }),
      });
      const { result } = await r.json();
      assert.deepEqual(result.capabilities.extensions, { [cc]: {} });
      assert.ok(result.capabilities.tools);
    } finally {
      await s.close();
    }
  }
});
