// Bounds on what a caller can make the server hold, from Node over real HTTP: the same core rule
// and error as in Rust (tests/it/http_legacy.rs) and Python (tests/python/test_bounds.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Server } from 'oxmcp';

async function legacy(url) {
  let sid;
  const send = async (method, params = {}) => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
    if (sid) headers['mcp-session-id'] = sid;
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    if (method === 'initialize') sid = res.headers.get('mcp-session-id') ?? undefined;
    return JSON.parse(await res.text());
  };
  await send('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } });
  assert.ok(sid, 'a stateful server gives a session');
  return send;
}

test('subscriptions are bounded per session', async () => {
  const s = new Server({ name: 'bounds', version: '1.0.0', handleSignals: false, maxSubscriptions: 2 });
  s.resource('r', 'test://r/0', async (uri) => ({ contents: [{ uri: String(uri), text: 'x' }] }));
  const { url } = await s.listen({ host: '127.0.0.1', port: 0 });
  try {
    const send = await legacy(url);
    for (const i of [0, 1]) assert.ok((await send('resources/subscribe', { uri: `test://r/${i}` })).result);
    const over = await send('resources/subscribe', { uri: 'test://r/2' });
    assert.equal(over.error?.code, -32602, JSON.stringify(over));
    assert.match(over.error.message, /Too many subscriptions/);
    assert.ok((await send('resources/subscribe', { uri: 'test://r/0' })).result, 'held already');
    const long = await send('resources/subscribe', { uri: `test://${'x'.repeat(9000)}` });
    assert.equal(long.error?.code, -32602);
    assert.match(long.error.message, /URI too long/);
    assert.ok((await send('ping')).result);
  } finally {
    await s.close();
  }
});
