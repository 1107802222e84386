// Real stdio subprocesses, process lifetime (close, SIGTERM, stdin EOF), and the fetch / Node
// http mounts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { spawn } from 'node:child_process';
import { StdioPeer, exited, startHttp, callTool, meta, ROOT, withTimeout } from './helpers.mjs';
import { Server } from 'oxmcp';

test('stdio: modern requests, legacy initialize, list_changed, exit 0 at stdin EOF', async (t) => {
  const peer = new StdioPeer();
  t.after(() => peer.kill());
  const r = await peer.request('tools/call', { name: 'add_json', arguments: { a: 20, b: 22 } });
  assert.deepEqual(r.result.content, [{ type: 'text', text: '42' }]);
  const init = await peer.initialize();
  assert.equal(init.result.protocolVersion, '2025-11-25');
  assert.equal(init.result.serverInfo.name, 'node-test-server');
  const legacy = await peer.request('tools/call', { name: 'sync_ok', arguments: {} }, { modern: false });
  assert.deepEqual(legacy.result.content, [{ type: 'text', text: 'sync' }]);
  await peer.request('tools/call', { name: 'add_tool', arguments: { name: 'stdio_late' } }, { modern: false });
  await peer.waitFor((m) => m.method === 'notifications/tools/list_changed', 5000, 'list_changed');
  const late = await peer.request('tools/call', { name: 'stdio_late', arguments: {} }, { modern: false });
  assert.equal(late.result.content[0].text, 'I am stdio_late');
  peer.child.stdin.end();
  const { code } = await exited(peer.child);
  assert.equal(code, 0, peer.stderr);
});

test('stdio: notifications/cancelled aborts ctx.signal; a slow call does not block others', async (t) => {
  const peer = new StdioPeer();
  t.after(() => peer.kill());
  await peer.initialize();
  peer.send({ jsonrpc: '2.0', id: 100, method: 'tools/call', params: { name: 'wait_for_abort', arguments: { id: 'stdio-1' } } });
  peer.send({ jsonrpc: '2.0', id: 101, method: 'tools/call', params: { name: 'slow', arguments: { ms: 4000 } } });
  await new Promise((r) => setTimeout(r, 200));
  const fast = await peer.request('tools/call', { name: 'sync_ok', arguments: {} }, { modern: false });
  assert.equal(fast.result.content[0].text, 'sync');
  assert.ok(!peer.messages.some((m) => m.id === 101), 'answered while the slow call still runs');
  peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 100, reason: 'test' } });
  let seen = 'false';
  for (let i = 0; i < 50 && seen !== 'true'; i++) {
    await new Promise((r) => setTimeout(r, 50));
    seen = (await peer.request('tools/call', { name: 'was_aborted', arguments: { id: 'stdio-1' } }, { modern: false })).result.content[0].text;
  }
  assert.equal(seen, 'true');
  assert.equal((await peer.waitFor((m) => m.id === 101, 10_000)).result.content[0].text, 'slept 4000');
  assert.equal(peer.messages.find((m) => m.id === 100), undefined, 'nothing is sent for a cancelled request');
  peer.child.stdin.end();
  assert.equal((await exited(peer.child)).code, 0);
});

test('HTTP: the process stays alive while listening and exits 0 on SIGTERM', async () => {
  const srv = await startHttp();
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(srv.child.exitCode, null, 'still listening');
  assert.equal((await callTool(srv.url, 'sync_ok', {})).response.result.content[0].text, 'sync');
  srv.child.kill('SIGTERM');
  const { code, signal } = await exited(srv.child);
  assert.equal(signal, null, srv.stderr());
  assert.equal(code, 0, srv.stderr());
  assert.equal(srv.stdout(), '', 'nothing on stdout');
});

test('stdio: SIGTERM exits 0 too', async () => {
  const peer = new StdioPeer();
  await peer.request('tools/call', { name: 'sync_ok', arguments: {} });
  peer.child.kill('SIGTERM');
  const { code, signal } = await exited(peer.child);
  assert.equal(signal, null, peer.stderr);
  assert.equal(code, 0, peer.stderr);
});

test('close() ends listen() and the process exits by itself', async () => {
  const script = `
    import { Server } from 'oxmcp';
    const s = new Server({ name: 'c', version: '1' });
    s.registerTool('t', {}, () => 'ok');
    const { url } = await s.listen({ host: '127.0.0.1', port: 0 });
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 't' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't', _meta: ${JSON.stringify(meta())} } }) });
    process.stderr.write('status ' + r.status + ' ' + (await r.text()) + '\\n');
    await s.close();
    process.stderr.write('closed\\n');
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => { err += d; });
  const { code } = await exited(child, 15_000);
  assert.equal(code, 0, err);
  assert.match(err, /status 200 .*"ok"/);
  assert.match(err, /closed/);
});

test('fetch mount: server.fetch(Request) → Response, including SSE and the Host guard', async () => {
  const { createServer } = await import('./fixtures/server.mjs');
  const s = createServer();
  const req = (name, args, extra = {}, host = '127.0.0.1') => new Request('http://127.0.0.1/anything', {
    method: 'POST',
    headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: args, _meta: meta(extra) } }),
  });
  const res = await s.fetch(req('add_json', { a: 1, b: 1 }));
  assert.equal(res.status, 200);
  assert.equal((await res.json()).result.content[0].text, '2');
  const sse = await s.fetch(req('progress', {}, { progressToken: 1 }));
  assert.match(sse.headers.get('content-type'), /event-stream/);
  const body = await sse.text();
  assert.match(body, /notifications\/progress/);
  assert.match(body, /progressed/);
  const evil = await s.fetch(req('add_json', { a: 1, b: 1 }, {}, 'evil.example.com'));
  assert.equal(evil.status, 403);
  s.configureHttp({ allowedHosts: ['mcp.example.com'] });
  assert.equal((await s.fetch(req('add_json', { a: 1, b: 1 }, {}, 'mcp.example.com'))).status, 200);
  // The in-memory client rides on the same path.
  s.configureHttp({});
  const c = s.client();
  assert.equal((await c.callTool('add_json', { a: 3, b: 4 })).content[0].text, '7');
});

test('Node http mount: http.createServer(server.nodeHandler())', async (t) => {
  const { createServer } = await import('./fixtures/server.mjs');
  const s = createServer();
  const hs = http.createServer(s.nodeHandler());
  await new Promise((r) => hs.listen(0, '127.0.0.1', r));
  t.after(() => new Promise((r) => hs.close(r)));
  const url = `http://127.0.0.1:${hs.address().port}/mcp`;
  const r = await callTool(url, 'add_json', { a: 5, b: 6 });
  assert.equal(r.status, 200);
  assert.equal(r.response.result.content[0].text, '11');
  const p = await callTool(url, 'progress', {}, { metaExtra: { progressToken: 'x' } });
  assert.ok(p.messages.some((m) => m.method === 'notifications/progress'));
  assert.equal(p.response.result.content[0].text, 'progressed');
  const ac = new AbortController();
  const runs = async () => Number((await callTool(url, 'call_count', { name: 'wait_for_abort' })).response.result.content[0].text);
  const before = await runs();
  const pending = callTool(url, 'wait_for_abort', { id: 'node-http-1' }, { signal: ac.signal }).catch((e) => e.name);
  // Disconnect once the handler runs (a call abandoned before its handler starts never runs it).
  for (let i = 0; i < 500 && (await runs()) === before; i++) await new Promise((r) => setTimeout(r, 20));
  ac.abort();
  assert.equal(await pending, 'AbortError');
  let seen = 'false';
  for (let i = 0; i < 50 && seen !== 'true'; i++) {
    await new Promise((r) => setTimeout(r, 50));
    seen = (await callTool(url, 'was_aborted', { id: 'node-http-1' })).response.result.content[0].text;
  }
  assert.equal(seen, 'true', 'closing the Node response cancels the core request');
});

test('registration errors and unknown options are typed', () => {
  const s = new Server({ name: 'x', version: '1' });
  s.registerTool('dup', {}, () => 'a');
  assert.throws(() => s.registerTool('dup', {}, () => 'b'), (e) => e.name === 'RegistrationError' && e.code === 'DUPLICATE_NAME');
  assert.throws(() => s.registerTool('bad', { inputSchema: { type: 'object', properties: { a: { type: 12 } } } }, () => 'b'), (e) => e.code === 'INVALID_SCHEMA');
  assert.throws(() => new Server({ name: 'x', version: '1', notAnOption: 1 }), (e) => e.code === 'INVALID_OPTION' && e.message === 'unknown option `notAnOption`');
  const ok = new Server({ name: 'x', version: '1', validation: 'jsonRpcError', cacheTtlMs: 1000, cacheScope: 'public', pageSize: 2, stateKey: 'k'.repeat(32), includeServerInfo: false });
  assert.ok(ok);
});

test('server options reach the core: validation mode, cache hints, page size, server info', async () => {
  const s = new Server({ name: 'opt', version: '1', validation: 'jsonRpcError', cache: { 'tools/list': { ttlMs: 5000, scope: 'public' } }, pageSize: 2, includeServerInfo: false });
  for (const n of ['a', 'b', 'c']) s.registerTool(n, { inputSchema: { type: 'object', properties: { x: { type: 'integer' } }, required: ['x'] } }, ({ x }) => String(x));
  const c = s.client();
  const page = await c.listTools();
  assert.equal(page.tools.length, 2);
  assert.ok(page.nextCursor);
  assert.equal(page.ttlMs, 5000);
  assert.equal(page.cacheScope, 'public');
  assert.equal(page._meta?.['io.modelcontextprotocol/serverInfo'], undefined);
  await assert.rejects(c.callTool('a', { x: 'no' }), (e) => e.code === -32602);
});

test('security options reach the core: forcePrivateCache, maxInFlight, per-tool maxConcurrency/requiredScopes', async () => {
  const s = new Server({ name: 'sec', version: '1', cacheScope: 'public', forcePrivateCache: true, maxInFlight: 8 });
  s.registerTool('one_at_a_time', { maxConcurrency: 1, requiredScopes: ['tools:run'] }, async () => { await new Promise((r) => setTimeout(r, 50)); return 'ok'; });
  const c = s.client();
  const list = await c.listTools();
  assert.equal(list.cacheScope, 'private', 'forcePrivateCache overrides cacheScope: public');
  // Without HTTP auth there is no caller to check scopes against; the call runs.
  assert.equal((await c.callTool('one_at_a_time', {})).content[0].text, 'ok');
  assert.throws(() => new Server({ name: 'x', version: '1', maxInFlight: -1 }), /maxInFlight/);
});
