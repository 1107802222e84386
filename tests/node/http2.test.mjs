// HTTP/2 on the Streamable HTTP port (h2c by prior knowledge), through Node's own `http2` client:
// concurrent calls multiplexed on one connection, `:authority` checked as `Host` is, the refusals
// spoken in HTTP/2 (a connection over the cap, a refused stream whose body is still arriving), and
// the `http2` option passed down to the core. The raw-frame probes (stream limit, rapid reset) are
// in tests/python/test_http2.py: the rules live in the core, and one language drives them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http2 from 'node:http2';
import net from 'node:net';

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

function call(session, id, authority, body) {
  return new Promise((resolve, reject) => {
    const headers = {
      ':method': 'POST', ':path': '/mcp', 'content-type': 'application/json',
      accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call', 'mcp-name': 'search',
    };
    if (authority) headers[':authority'] = authority;
    const req = session.request(headers);
    let answer = {};
    let text = '';
    req.on('response', (h) => { answer = h; });
    req.setEncoding('utf8');
    req.on('data', (d) => { text += d; });
    req.on('end', () => resolve({ status: answer[':status'], text, headers: answer }));
    req.on('error', reject);
    req.end(body ?? JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'search', arguments: {}, _meta: META } }));
  });
}

async function serve(t, options = {}) {
  const { Server } = await import('oxmcp');
  const s = new Server({ name: 'h2', version: '1', handleSignals: false });
  s.registerTool('search', { description: 'x' }, () => 'found');
  const { url } = await s.listen({ host: '127.0.0.1', port: 0, ...options });
  t.after(() => s.close());
  return new URL(url).port;
}

test('fifty concurrent calls on one HTTP/2 connection', async (t) => {
  const port = await serve(t);
  const session = http2.connect(`http://127.0.0.1:${port}`);
  t.after(() => session.close());
  const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => call(session, i + 1)));
  for (const [i, a] of answers.entries()) {
    assert.equal(a.status, 200);
    const msg = JSON.parse(a.text.split('\n').find((l) => l.includes('"jsonrpc"')).replace(/^data:\s*/, ''));
    assert.equal(msg.id, i + 1);
    assert.equal(msg.result.content[0].text, 'found');
  }
  // A foreign `:authority` is refused as a foreign `Host` is (DNS rebinding).
  assert.equal((await call(session, 99, 'evil.example')).status, 403);
});

test('http2: false serves HTTP/1.1 only', async (t) => {
  const port = await serve(t, { http2: false });
  const session = http2.connect(`http://127.0.0.1:${port}`);
  const failed = await new Promise((resolve) => {
    session.on('error', () => resolve(true));
    session.on('close', () => resolve(true));
    call(session, 1).then(() => resolve(false), () => resolve(true));
  });
  session.destroy();
  assert.equal(failed, true);
});

test('a refused stream whose body is still arriving gets its answer', async (t) => {
  // 100 kB: more than HTTP/2's initial window, so the client sends the rest only as the server
  // reads. The foreign `:authority` is refused from the head; the body is read before the 403.
  const port = await serve(t);
  const session = http2.connect(`http://127.0.0.1:${port}`);
  t.after(() => session.close());
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(100_000) } });
  for (let i = 0; i < 3; i++) assert.equal((await call(session, i, 'evil.example', body)).status, 403);
});

test('a connection over the cap is refused in HTTP/2: 503, -31503, Retry-After, then GOAWAY', async (t) => {
  const port = await serve(t, { maxConnections: 1 });
  // One connection served and kept alive holds the one place.
  const held = net.connect({ host: '127.0.0.1', port });
  t.after(() => held.destroy());
  await once(held, 'connect');
  held.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
  const [first] = await once(held, 'data');
  assert.match(first.toString(), /^HTTP\/1\.1 200/);

  const session = http2.connect(`http://127.0.0.1:${port}`);
  t.after(() => session.destroy());
  session.on('error', () => {});
  const goaway = once(session, 'goaway');
  const r = await call(session, 1);
  assert.equal(r.status, 503, r.text);
  assert.match(String(r.headers['retry-after']), /^\d+$/);
  assert.equal(JSON.parse(r.text).error.code, -31503);
  await goaway;
});
