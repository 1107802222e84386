// A method outside the spec on the low-level Server (`setRequestHandler` with a schema whose
// method literal is the server's own): the core dispatches it to the handler
// (core/src/server/methods.rs) after the rules every request passes, in both eras over real stdio
// and over real HTTP; a method no one set stays -32601, and a method the core serves itself cannot
// be taken (the core's text). tests/python/test_lowlevel_custom_method.py runs the same cases on
// Python's low-level Server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { z } from 'zod';
import { Server } from 'oxmcp/server/index.js';
import { ROOT, StdioPeer, meta, withTimeout } from './helpers.mjs';

const FIXTURE = path.join(ROOT, 'tests', 'node', 'fixtures', 'lowlevel-custom-method.mjs');

for (const modern of [true, false]) {
  test(`low-level Server: a custom method over stdio (${modern ? '2026-07-28' : 'legacy'})`, { timeout: 60_000 }, async () => {
    const peer = new StdioPeer(FIXTURE);
    try {
      if (!modern) await peer.initialize();
      const result = (r) => {
        const { _meta, ...rest } = r.result;
        return rest;
      };
      const done = modern ? { resultType: 'complete' } : {};
      const full = await peer.request('bookshop/reindex', { full: true }, { modern });
      assert.deepEqual(result(full), { indexed: 3, full: true, shelf: 'all', ...done }, JSON.stringify(full));
      const plain = await peer.request('bookshop/reindex', {}, { modern });
      assert.deepEqual(result(plain), { indexed: 3, full: false, shelf: 'all', ...done });
      const bad = await peer.request('bookshop/reindex', { full: 'not a bool' }, { modern });
      assert.equal(bad.error?.code, -32603, JSON.stringify(bad));
      const unknown = await peer.request('bookshop/burn', {}, { modern });
      assert.equal(unknown.error?.code, -32601, JSON.stringify(unknown));
    } finally {
      peer.kill();
    }
  });
}

test('low-level Server: a custom method over HTTP', { timeout: 60_000 }, async () => {
  const child = spawn(process.execPath, [FIXTURE, 'http'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const line = await withTimeout(new Promise((resolve) => {
      readline.createInterface({ input: child.stdout }).once('line', resolve);
    }), 15_000, 'listening');
    const url = `http://127.0.0.1:${line.split(' ')[1]}/mcp`;
    const post = async (method, params) => {
      const r = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': method },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta() } }),
      });
      return { status: r.status, data: await r.json() };
    };
    const ok = await post('bookshop/reindex', { shelf: 'sf' });
    assert.equal(ok.status, 200, JSON.stringify(ok.data));
    assert.equal(ok.data.result.indexed, 3);
    assert.equal(ok.data.result.shelf, 'sf');
    const unknown = await post('bookshop/burn', {});
    assert.equal(unknown.data.error.code, -32601, JSON.stringify(unknown.data));
  } finally {
    child.kill('SIGKILL');
  }
});

test('low-level Server: a method the core serves cannot be taken', () => {
  const server = new Server({ name: 'bookshop', version: '1.0.0' }, { capabilities: { tools: {} } });
  for (const method of ['tasks/get', 'tasks/result', 'subscriptions/listen', 'rpc.x']) {
    const schema = z.object({ method: z.literal(method) });
    assert.throws(() => server.setRequestHandler(schema, async () => ({})), /invalid method name/, method);
  }
  assert.throws(() => server.setRequestHandler(z.object({ method: z.literal('subscriptions/listen') }), async () => ({})), /the core serves/);
});
