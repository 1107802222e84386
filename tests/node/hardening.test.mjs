// Issue 11 (the security review) against the Node everything server over real HTTP: the findings
// that are not plain corpus cases (those are in tests/hostile/corpus.json). The same checks run
// against the Rust server (tests/it/hardening.rs) and the Python one (tests/python/test_hardening.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawn } from 'node:child_process';
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

test('finding 2: long URIs are refused at once (-32602) and ping stays prompt', async (t) => {
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

test('finding 12: template values cannot walk out of the template', async (t) => {
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

test('finding 6: a forged log line stays inside its field (text and JSON)', async (t) => {
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

test('finding 13: a non-loopback bind without allowed_hosts refuses to start', async () => {
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

test('finding 11: failed authentications are limited per client address (429 + Retry-After)', async (t) => {
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

test('findings 5 and 8: batches are charged per element; a session is bound to its creator', async (t) => {
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
