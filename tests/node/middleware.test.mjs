// The core's middleware chain through the native hook (NativeServer.addMiddleware / callNext):
// JS middleware sees the method and params, changes them or the result, short-circuits, and is
// never called for methods it does not hook. `server.use(...)` (the Node API) builds on this.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Server, InMemoryClient } from '../../bindings-node/index.mjs';

function server() {
  const s = new Server({ name: 'mw', version: '1.0.0' });
  s.registerTool('add', { inputSchema: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } } } },
    ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
  return s;
}

test('a JS middleware changes params and results, only for the methods it hooks', async () => {
  const s = server();
  // The call table's native side (NativeCalls: settle, callNext, ctx accessors). A second
  // calls() replaces the end listener, which this test does not use (no ctx.signal).
  const calls = s.native.calls(() => {});
  const seen = [];
  s.native.addMiddleware((method, params, id) => {
    seen.push(method);
    (async () => {
      const out = await calls.callNext(id, { ...params, arguments: { ...params.arguments, b: 100 } });
      out.content[0].text += '!';
      calls.settle(id, { result: out });
    })().catch((e) => calls.settle(id, { error: { code: -32603, message: String(e) } }));
    return undefined;
  }, ['tools/call']);
  const c = new InMemoryClient(s);
  const r = await c.callTool('add', { a: 1, b: 2 });
  assert.equal(r.content[0].text, '101!');
  await c.listTools();
  assert.deepEqual(seen, ['tools/call'], 'tools/list is not hooked: JS is not called');
});

test('a JS middleware short-circuits or refuses with a JSON-RPC error', async () => {
  const s = server();
  s.native.addMiddleware((method) => {
    if (method === 'tools/list') return { result: { tools: [] } };
    return { error: { code: -32602, message: 'denied' } };
  });
  const c = new InMemoryClient(s);
  const listed = await c.listTools();
  assert.deepEqual(listed.tools, []);
  assert.equal(listed.resultType, 'complete');
  await assert.rejects(c.callTool('add', { a: 1, b: 1 }), (e) => e.code === -32602);
});
