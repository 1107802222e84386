// The security rules against the Node everything server over real HTTP: those that are not
// plain corpus cases (those are in tests/hostile/corpus.json). The same checks run
// against the Rust server (tests/it/hardening.rs) and the Python one (tests/python/test_hardening.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawn } from 'node:child_process';
import http from 'node:http';
import { ROOT, startHttp, post, exited } from './helpers.mjs';

const EVERYTHING = path.join(ROOT, 'examples', 'node', 'everything.mjs');

async function rpc(url, body, headers = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}

async function legacySession(url) {
  const r = await rpc(url, { jsonrpc: '2.0', id: 0, method: 'initialize', params: {
    protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } });
  assert.equal(r.status, 200, JSON.stringify(r.json));
  const h = { 'mcp-session-id': r.headers.get('mcp-session-id'), 'mcp-protocol-version': '2025-06-18' };
  assert.equal((await rpc(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, h)).status, 202);
  return h;
}

function startWith(env) {
  const child = spawn(process.execPath, [EVERYTHING, '--http', '127.0.0.1:0'],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const url = new Promise((resolve, reject) => {
    const poll = setInterval(() => {
      const m = /listening on (http:\/\/\S+)/.exec(stderr);
      if (m) { clearInterval(poll); resolve(m[1]); }
    }, 20);
    child.once('exit', (code) => { clearInterval(poll); reject(new Error(`exited ${code}: ${stderr}`)); });
  });
  return { child, url, stderr: () => stderr };
}

test('long URIs are refused at once (-32602) and ping stays prompt', async (t) => {
  const srv = await startHttp(EVERYTHING);
  t.after(() => srv.kill());
  const h = await legacySession(srv.url);
  const long = `test://template/${'a'.repeat(512 * 1024)}/dat`;
  const floods = [0, 1, 2, 3].map(async (i) => {
    for (let j = 0; j < 5; j++) {
      const r = await rpc(srv.url, { jsonrpc: '2.0', id: i * 100 + j, method: 'resources/read', params: { uri: long } }, h);
      assert.equal(r.json.error.code, -32602);
      assert.match(r.json.error.message, /URI too long/);
    }
  });
  for (let k = 0; k < 10; k++) {
    const t0 = Date.now();
    const r = await rpc(srv.url, { jsonrpc: '2.0', id: `ping${k}`, method: 'ping' }, h);
    assert.equal(r.status, 200);
    assert.ok(Date.now() - t0 < 2000, `ping took ${Date.now() - t0} ms`);
  }
  await Promise.all(floods);
  const under = `test://template/${'a'.repeat(8 * 1024 - 40)}/dat`;
  const t0 = Date.now();
  const r = await rpc(srv.url, { jsonrpc: '2.0', id: 'under', method: 'resources/read', params: { uri: under } }, h);
  assert.equal(r.json.error.code, -32002);
  assert.ok(Date.now() - t0 < 2000);
  const ok = await rpc(srv.url, { jsonrpc: '2.0', id: 'ok', method: 'resources/read', params: { uri: 'test://template/42/data' } }, h);
  assert.equal(ok.status, 200);
  assert.ok(ok.json.result.contents.length > 0);
});

test('template values cannot walk out of the template', async (t) => {
  const srv = await startHttp(EVERYTHING);
  t.after(() => srv.kill());
  for (const uri of ['test://template/..%2F..%2Fetc%2Fpasswd/data', 'test://template/%2E%2E/data',
    'test://template/a%5C..%5Cb/data', 'test://template/../data']) {
    const r = await post(srv.url, 'resources/read', { uri }, { id: uri });
    assert.equal(r.response.error?.message, 'Resource not found', `${uri}: ${r.body}`);
    assert.equal(r.response.result, undefined);
  }
  const ok = await post(srv.url, 'resources/read', { uri: 'test://template/a%20b/data' }, { id: 'ok' });
  assert.equal(ok.status, 200, ok.body);
  assert.match(ok.body, /a b/);
});

test('a forged log line stays inside its field (text and JSON)', async (t) => {
  const forged = 'nope\r\nFORGED oxmcp::audit: auth caller="admin" outcome="ok"';
  for (const format of ['text', 'json']) {
    const srv = startWith({ OXMCP_LOG: 'warn,oxmcp::audit=info', OXMCP_LOG_FORMAT: format });
    t.after(() => { if (srv.child.exitCode === null) srv.child.kill('SIGKILL'); });
    const url = await srv.url;
    const h = await legacySession(url);
    const r = await rpc(url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: forged, arguments: {} } }, h);
    assert.equal(r.status, 200);
    let hits = [];
    for (let i = 0; i < 100 && hits.length === 0; i++) {
      await new Promise((res) => setTimeout(res, 50));
      hits = srv.stderr().split('\n').filter((l) => l.includes('FORGED'));
    }
    assert.ok(hits.length > 0, srv.stderr());
    assert.ok(!srv.stderr().split('\n').some((l) => l.startsWith('FORGED')), `${format}: ${hits}`);
    if (format === 'json') assert.equal(JSON.parse(hits[0]).fields.name, forged);
    else assert.ok(hits[0].includes('name=nope\\r\\nFORGED'), hits[0]);
    srv.child.kill('SIGTERM');
    await exited(srv.child);
  }
});

test('a non-loopback bind without allowed_hosts refuses to start', async () => {
  const env = { ...process.env };
  delete env.OXMCP_ALLOWED_HOSTS;
  delete env.OXMCP_ALLOW_ANY_HOST;
  const child = spawn(process.execPath, [EVERYTHING, '--http', '0.0.0.0:0'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const closed = new Promise((res) => child.stderr.once('close', res));
  const { code } = await exited(child, 20_000);
  await closed;
  assert.notEqual(code, 0, stderr);
  assert.match(stderr, /allowed_hosts/);
  assert.match(stderr, /allow_any_host/);
  assert.doesNotMatch(stderr, /listening on/);
});

test('failed authentications are limited per client address (429 + Retry-After)', async (t) => {
  const http = await import('node:http');
  const { Server } = await import('oxmcp');
  const s = new Server({ name: 'sec', version: '1', handleSignals: false });
  s.registerTool('search', { description: 'x' }, () => 'ok');
  const { url } = await s.listen({ host: '127.0.0.1', port: 0, tokens: { alice: { tokens: ['alice-tok'] } } });
  t.after(() => s.close());
  const u = new URL(url);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } });
  const toolsList = (localAddress, token) => new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list', connection: 'close' };
    if (token) headers.authorization = `Bearer ${token}`;
    const req = http.request({ host: '127.0.0.1', port: u.port, path: u.pathname, method: 'POST', localAddress, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, retryAfter: res.headers['retry-after'] }));
    });
    req.on('error', reject);
    req.end(body);
  });
  for (let i = 0; i < 12; i++) assert.equal((await toolsList('127.0.0.1')).status, 401, 'no token is not a failure');
  for (let i = 0; i < 10; i++) assert.equal((await toolsList('127.0.0.1', `guess${i}`)).status, 401);
  const r = await toolsList('127.0.0.1', 'guess-more');
  assert.equal(r.status, 429);
  assert.ok(Number(r.retryAfter) >= 1 && Number(r.retryAfter) <= 10, r.retryAfter);
  assert.equal((await toolsList('127.0.0.1', 'alice-tok')).status, 429);
  assert.equal((await toolsList('127.0.0.2', 'alice-tok')).status, 200);
});

/** A modern tools/list POST from `localAddress` with a token and extra headers: its status. */
function toolsListFrom(port, localAddress, token, extra = {}) {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } });
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list', connection: 'close', ...extra };
    if (token) headers.authorization = `Bearer ${token}`;
    const req = http.request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', localAddress, headers }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('nodeHandler() limits failed authentications per socket address', async (t) => {
  const { Server } = await import('oxmcp');
  const s = new Server({ name: 'sec', version: '1', handleSignals: false });
  s.registerTool('search', { description: 'x' }, () => 'ok');
  s.configureHttp({ tokens: { alice: { tokens: ['alice-tok'] } } });
  const hs = http.createServer(s.nodeHandler());
  await new Promise((r) => hs.listen(0, '127.0.0.1', r));
  t.after(() => new Promise((r) => hs.close(r)));
  const port = hs.address().port;
  for (let i = 0; i < 10; i++) assert.equal((await toolsListFrom(port, '127.0.0.1', `guess${i}`)).status, 401);
  const r = await toolsListFrom(port, '127.0.0.1', 'guess-more');
  assert.equal(r.status, 429, r.text);
  assert.equal(JSON.parse(r.text).error.code, -31429);
  assert.equal((await toolsListFrom(port, '127.0.0.1', 'alice-tok')).status, 429);
  assert.equal((await toolsListFrom(port, '127.0.0.2', 'alice-tok')).status, 200, 'another client is served');
});

test('nodeHandler() answers an upload without a token from its head: 401, its body unread', async (t) => {
  const net = await import('node:net');
  const { Server } = await import('oxmcp');
  const s = new Server({ name: 'sec', version: '1', handleSignals: false });
  s.registerTool('search', { description: 'x' }, () => 'ok');
  s.configureHttp({ tokens: { alice: { tokens: ['alice-tok'] } } });
  const hs = http.createServer(s.nodeHandler());
  await new Promise((r) => hs.listen(0, '127.0.0.1', r));
  t.after(() => new Promise((r) => { hs.closeAllConnections?.(); hs.close(r); }));
  const port = hs.address().port;
  const started = Date.now();
  // Announces 4 MiB, sends 64 KiB, then stalls: answered at once, and the connection closed.
  const answers = await Promise.all(Array.from({ length: 10 }, () => new Promise((resolve, reject) => {
    const c = net.connect({ host: '127.0.0.1', port });
    let out = '';
    c.on('data', (d) => { out += d; });
    c.on('close', () => resolve(out));
    c.on('error', () => resolve(out));
    c.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\n` +
      `accept: application/json, text/event-stream\r\ncontent-length: ${4 * 1024 * 1024}\r\n\r\n`);
    c.write(Buffer.alloc(64 * 1024, 0x20));
    setTimeout(() => reject(new Error(`no answer: ${out}`)), 10000).unref();
  })));
  for (const out of answers) {
    assert.match(out, /^HTTP\/1\.1 401/, out);
    assert.match(out, /connection: close/i, out);
  }
  assert.ok(Date.now() - started < 10000);
  assert.equal((await toolsListFrom(port, '127.0.0.1', 'alice-tok')).status, 200, 'the right token is served, body and all');
});

test('fetch(request, { peer }) limits failed authentications per peer; without a peer there is no address to limit', async () => {
  const { Server } = await import('oxmcp');
  const s = new Server({ name: 'sec', version: '1', handleSignals: false });
  s.registerTool('search', { description: 'x' }, () => 'ok');
  s.configureHttp({ tokens: { alice: { tokens: ['alice-tok'] } } });
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } });
  const call = async (token, peer) => {
    const req = new Request('http://127.0.0.1/mcp', { method: 'POST', body, headers: {
      'content-type': 'application/json', accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list', authorization: `Bearer ${token}` } });
    return (await s.fetch(req, peer ? { peer } : undefined)).status;
  };
  for (let i = 0; i < 10; i++) assert.equal(await call(`g${i}`, '203.0.113.1'), 401);
  assert.equal(await call('alice-tok', '203.0.113.1'), 429);
  assert.equal(await call('alice-tok', '203.0.113.2'), 200);
  for (let i = 0; i < 12; i++) assert.equal(await call(`g${i}`), 401);
  assert.equal(await call('alice-tok'), 200);
});

test('behind a trusted proxy each forwarded client has its own failed-authentication limit', async (t) => {
  const { Server } = await import('oxmcp');
  const s = new Server({ name: 'sec', version: '1', handleSignals: false });
  s.registerTool('search', { description: 'x' }, () => 'ok');
  const { url } = await s.listen({ host: '127.0.0.1', port: 0, tokens: { alice: { tokens: ['alice-tok'] } },
    trustedProxies: ['127.0.0.1'] });
  t.after(() => s.close());
  const port = new URL(url).port;
  const as = (ip) => ({ 'x-forwarded-for': ip });
  for (let i = 0; i < 10; i++) assert.equal((await toolsListFrom(port, '127.0.0.1', `g${i}`, as('203.0.113.5'))).status, 401);
  assert.equal((await toolsListFrom(port, '127.0.0.1', 'alice-tok', as('203.0.113.5'))).status, 429);
  assert.equal((await toolsListFrom(port, '127.0.0.1', 'alice-tok', as('203.0.113.6'))).status, 200, 'another forwarded client');
  // An untrusted peer's X-Forwarded-For is ignored: its guesses count against its own address.
  for (let i = 0; i < 10; i++) assert.equal((await toolsListFrom(port, '127.0.0.2', `g${i}`, as(`198.51.100.${i}`))).status, 401);
  assert.equal((await toolsListFrom(port, '127.0.0.2', 'alice-tok', as('198.51.100.99'))).status, 429);
});

test('connections past max_connections_per_client are refused (429) while another client is served', async (t) => {
  const net = await import('node:net');
  const { Server } = await import('oxmcp');
  const s = new Server({ name: 'sec', version: '1', handleSignals: false });
  s.registerTool('search', { description: 'x' }, () => 'ok');
  const { url } = await s.listen({ host: '127.0.0.1', port: 0, maxConnectionsPerClient: 2 });
  t.after(() => s.close());
  const port = Number(new URL(url).port);
  const held = [];
  for (let i = 0; i < 2; i++) {
    const c = net.connect({ host: '127.0.0.1', port, localAddress: '127.0.0.1' });
    await new Promise((r) => c.once('connect', r));
    held.push(c);
  }
  t.after(() => held.forEach((c) => c.destroy()));
  await new Promise((r) => setTimeout(r, 200));
  const r = await toolsListFrom(port, '127.0.0.1');
  assert.equal(r.status, 429, r.text);
  assert.equal(JSON.parse(r.text).error.code, -31429);
  assert.equal((await toolsListFrom(port, '127.0.0.2')).status, 200);
});

test('batches are charged per element; a session is bound to its creator', async (t) => {
  const { Server } = await import('oxmcp');
  const s = new Server({ name: 'sec', version: '1', handleSignals: false });
  s.registerTool('search', { description: 'x' }, () => 'ok');
  const { url } = await s.listen({ host: '127.0.0.1', port: 0, tokens: 'alice=a1,bob=b1', rateLimit: { rate: 0.5, burst: 5 } });
  t.after(() => s.close());
  const batch = Array.from({ length: 10 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'search', arguments: {} } }));
  const r = await rpc(url, batch, { authorization: 'Bearer a1' });
  assert.equal(r.status, 429, JSON.stringify(r.json));
  assert.ok(r.headers.get('retry-after'));
  const init = await rpc(url, { jsonrpc: '2.0', id: 0, method: 'initialize', params: {
    protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } } }, { authorization: 'Bearer b1' });
  assert.equal(init.status, 200);
  const sid = init.headers.get('mcp-session-id');
  const bob = { authorization: 'Bearer b1', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
  const alice = { ...bob, authorization: 'Bearer a1' };
  assert.equal((await rpc(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, bob)).status, 202);
  assert.equal((await rpc(url, { jsonrpc: '2.0', id: 1, method: 'ping' }, alice)).status, 404);
  for (const method of ['GET', 'DELETE']) {
    const res = await fetch(url, { method, headers: { ...alice, accept: 'text/event-stream' } });
    assert.equal(res.status, 404, method);
    await res.body?.cancel();
  }
  assert.equal((await rpc(url, { jsonrpc: '2.0', id: 2, method: 'ping' }, bob)).status, 200);
});

// ---- the call pipeline's rules (hidden templates, subscriptions, listen slots, Mcp-Param-*
// headers, MRTR state) and the plain-http JWKS warning, replayed from the Rust server's
// tests (tests/it/hardening_calls.rs, tests/it/hardening.rs) against the Node everything server:
// alice has allow-lists, bob sees everything.

const TOKENS = JSON.stringify({
  alice: { tokens: ['alice-tok'], tools: ['test_simple_text', 'test_input_required_result_multi_round'], resources: ['test://static-text'] },
  bob: { tokens: ['bob-tok'] },
});
const QUIET = 400;

async function startWithTokens(t, extra = {}) {
  const srv = startWith({ OXMCP_TOKENS: TOKENS, ...extra });
  t.after(() => { if (srv.child.exitCode === null) srv.child.kill('SIGKILL'); });
  return srv.url;
}

const asCaller = (token, headers = {}) => ({ headers: token ? { authorization: `Bearer ${token}`, ...headers } : headers,
  metaExtra: { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } } });

/** A refusal with the URI or name in it replaced, for comparing two refusals. */
const shape = (r, name) => [r.status, r.response?.error?.code, String(r.response?.error?.message ?? '').replaceAll(name, 'NAME')];

/** An SSE response read event by event (listen POST or legacy GET). */
function openStream(url, method, headers, body) {
  const u = new URL(url);
  const events = [];
  const waiters = [];
  let buf = '';
  const push = (ev) => { const w = waiters.shift(); if (w) w(ev); else events.push(ev); };
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (d) => {
        buf += d;
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const data = buf.slice(0, i).split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('');
          buf = buf.slice(i + 2);
          if (data) push(JSON.parse(data));
        }
      });
      res.on('error', () => {});
      resolve({
        status: res.statusCode,
        /** The next event, or undefined when nothing comes within `ms`. */
        next: (ms = 10_000) => events.length ? Promise.resolve(events.shift()) : new Promise((r) => {
          const timer = setTimeout(() => { waiters.splice(waiters.indexOf(w), 1); r(undefined); }, ms);
          const w = (ev) => { clearTimeout(timer); r(ev); };
          waiters.push(w);
        }),
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

function listenAs(url, token, id, notifications) {
  return openStream(url, 'POST', { authorization: `Bearer ${token}`, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' },
    { jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { notifications, _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } });
}

async function legacyAs(url, token) {
  const auth = { authorization: `Bearer ${token}` };
  const r = await rpc(url, { jsonrpc: '2.0', id: 0, method: 'initialize', params: {
    protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'h', version: '0' } } }, auth);
  assert.equal(r.status, 200, JSON.stringify(r.json));
  const h = { ...auth, 'mcp-session-id': r.headers.get('mcp-session-id'), 'mcp-protocol-version': '2025-11-25' };
  assert.equal((await rpc(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, h)).status, 202);
  return h;
}

async function triggerUpdate(url) {
  const r = await post(url, 'tools/call', { name: 'test_trigger_resource_update', arguments: {} }, asCaller('bob-tok'));
  assert.equal(r.status, 200, r.body);
  assert.ok(r.response.result, r.body);
}

test('completion of a hidden resource template is refused as an unknown resource', async (t) => {
  const url = await startWithTokens(t);
  const complete = (token, uri) => post(url, 'completion/complete',
    { ref: { type: 'ref/resource', uri }, argument: { name: 'id', value: '1' } }, asCaller(token));
  const hidden = 'test://template/{id}/data';
  const none = 'test://no-such/{id}';
  const h = await complete('alice-tok', hidden);
  const n = await complete('alice-tok', none);
  assert.equal(h.response.result, undefined, h.body);
  assert.deepEqual(shape(h, hidden), shape(n, none), `${h.body} / ${n.body}`);
  const b = await complete('bob-tok', hidden);
  assert.equal(b.status, 200, b.body);
  assert.ok(Array.isArray(b.response.result.completion.values), b.body);
});

test('subscriptions never deliver hidden resources (listen and legacy GET)', async (t) => {
  const url = await startWithTokens(t);
  const streams = [];
  t.after(() => streams.forEach((s) => s.close()));
  const exact = await listenAs(url, 'alice-tok', 'exact', { resourceSubscriptions: ['test://watched-resource'] });
  const prefix = await listenAs(url, 'alice-tok', 'prefix', { resourceSubscriptions: ['test:'] });
  const bobs = await listenAs(url, 'bob-tok', 'bob', { resourceSubscriptions: ['test://watched-resource'] });
  streams.push(exact, prefix, bobs);
  for (const st of streams) {
    assert.equal(st.status, 200);
    assert.equal((await st.next()).method, 'notifications/subscriptions/acknowledged');
  }
  await triggerUpdate(url);
  assert.equal((await bobs.next()).params.uri, 'test://watched-resource');
  assert.equal(await exact.next(QUIET), undefined, 'a hidden URI was delivered');
  assert.equal(await prefix.next(QUIET), undefined, 'a prefix reached a hidden URI');

  const h = await legacyAs(url, 'alice-tok');
  const get = await openStream(url, 'GET', { ...h, accept: 'text/event-stream' });
  streams.push(get);
  assert.equal(get.status, 200);
  const subscribe = async (uri) => {
    const r = await rpc(url, { jsonrpc: '2.0', id: 1, method: 'resources/subscribe', params: { uri } }, h);
    return [r.status, JSON.stringify(r.json).replaceAll(uri, 'U')];
  };
  assert.deepEqual(await subscribe('test://watched-resource'), await subscribe('test://no-such'), 'a hidden URI is answered as an unknown one');
  await triggerUpdate(url);
  assert.equal(await get.next(QUIET), undefined, 'the GET stream got a hidden update');
});

test('listen slots are capped per caller', async (t) => {
  const url = await startWithTokens(t, { OXMCP_MAX_LISTENERS_PER_CALLER: '2' });
  const streams = [];
  t.after(() => streams.forEach((s) => s.close()));
  for (let i = 0; i < 2; i++) {
    const st = await listenAs(url, 'alice-tok', `a${i}`, { toolsListChanged: true });
    streams.push(st);
    assert.equal(st.status, 200);
    assert.ok(await st.next());
  }
  const third = await listenAs(url, 'alice-tok', 'a2', { toolsListChanged: true });
  streams.push(third);
  assert.equal(third.status, 503, 'a third stream for alice');
  const other = await listenAs(url, 'bob-tok', 'b0', { toolsListChanged: true });
  streams.push(other);
  assert.equal(other.status, 200, 'bob still gets a slot');
  assert.ok(await other.next());
});

test('Mcp-Param-* headers of a hidden tool reveal nothing', async (t) => {
  const url = await startWithTokens(t);
  const call = (token, name) => post(url, 'tools/call', { name, arguments: { region: 'eu' } }, asCaller(token, { 'mcp-param-region': 'us' }));
  const hidden = await call('alice-tok', 'test_custom_header');
  const unknown = await call('alice-tok', 'no_such_tool');
  assert.notEqual(hidden.response?.error?.code, -32020, hidden.body);
  assert.deepEqual(shape(hidden, 'test_custom_header'), shape(unknown, 'no_such_tool'));
  const b = await call('bob-tok', 'test_custom_header');
  assert.equal(b.response.error.code, -32020, b.body);
});

test('MRTR requestState is bound to the arguments and unreadable', async (t) => {
  const srv = startWith({});
  t.after(() => { if (srv.child.exitCode === null) srv.child.kill('SIGKILL'); });
  const url = await srv.url;
  const name = 'test_input_required_result_multi_round';
  const call = (id, args, extra = {}) => post(url, 'tools/call', { name, arguments: args, ...extra }, { id, ...asCaller(null) });
  const asked = (r) => {
    const keys = Object.keys(r.response.result.inputRequests);
    assert.equal(keys.length, 1, r.body);
    return keys[0];
  };
  const r1 = await call(1, { topic: 'a' });
  const first = asked(r1);
  const r2 = await call(2, { topic: 'a' }, { inputResponses: { [first]: { action: 'accept', content: { name: 'Ada Lovelace' } } },
    requestState: r1.response.result.requestState });
  const second = asked(r2);
  const s2 = r2.response.result.requestState;
  assert.ok(!Buffer.from(s2.split('.')[0], 'base64url').toString('latin1').includes('Ada'), 'the answer is readable in requestState');
  let r = await call(3, { topic: 'b' }, { inputResponses: { [second]: { action: 'accept', content: { name: 'x' } } }, requestState: s2 });
  assert.equal(r.response.error.code, -32602, r.body);
  assert.equal(r.response.error.message, 'Invalid or expired requestState');
  r = await call(4, { topic: 'a' }, { inputResponses: { [first]: { action: 'accept', content: { name: 'Eve' } },
    [second]: { action: 'accept', content: { name: 'Bo' } } }, requestState: s2 });
  assert.equal(r.response.result.resultType, 'complete', r.body);
  const text = r.response.result.content[0].text;
  assert.ok(text.includes('Ada') && !text.includes('Eve'), text);
});

test('a plain-http JWKS URL off loopback is warned about at start-up', async () => {
  const script = `
    const { Server } = await import('oxmcp');
    const s = new Server({ name: 'jwks', version: '1', handleSignals: false });
    s.registerTool('t', { description: 'x' }, () => 'ok');
    await s.listen({ host: '127.0.0.1', port: 0, oauth: { resource: 'https://mcp.example.com/mcp',
      issuer: 'https://idp.example.invalid', jwksUrl: process.argv[1] } });
    console.error('listening');
    await s.close();`;
  for (const [url, warned] of [['http://idp.example.invalid/jwks.json', true], ['http://127.0.0.1:9/jwks.json', false]]) {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, url],
      { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, OXMCP_LOG: 'warn' } });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    const closed = new Promise((res) => child.stderr.once('close', res));
    await exited(child, 20_000);
    await closed;
    assert.match(stderr, /listening/);
    assert.equal(/JWKS URL is plain http/.test(stderr), warned, `${url}: ${stderr}`);
  }
});

test('the everything example has no fixed MRTR state key: without OXMCP_STATE_KEY the core makes a random one', async () => {
  const run = (env) => new Promise((resolve) => {
    const child = spawn(process.execPath, [EVERYTHING], { env, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('exit', () => resolve(stderr));
    child.stdin.end();
  });
  const { OXMCP_STATE_KEY: _, ...env } = process.env;
  assert.match(await run(env), /no MRTR state key configured/);
  assert.doesNotMatch(await run({ ...env, OXMCP_STATE_KEY: 'k'.repeat(32) }), /no MRTR state key configured/);
});
