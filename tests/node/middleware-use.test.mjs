// `server.use(...)` over the real transports, with the official TS client
// (@modelcontextprotocol/client) on legacy sessions and raw 2026-07-28 requests over HTTP: the
// same cases as tests/python/test_middleware.py — logging (method, params, era, caller), an auth
// check that short-circuits, result rewriting, a throw that becomes a clean error while the server
// keeps serving — and a request no middleware hooks never reaching JS.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Server, McpServer, InMemoryClient, McpError, ToolError } from '../../bindings-node/index.mjs';
import { ROOT, startHttp, post, withTimeout, untilStderr } from './helpers.mjs';
import { Server as LowLevelServer } from 'oxmcp/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from 'oxmcp/types.js';

const FIXTURE = path.join(ROOT, 'tests', 'node', 'fixtures', 'middleware.mjs');

const text = (r) => r.content[0].text;
async function seen(callTool) {
  return JSON.parse(text(await callTool('seen', {})));
}

/** The cases every transport must answer alike; `caller` is who the server sees. */
async function exercise(callTool, listTools, readResource, caller) {
  assert.equal(text(await callTool('add', { a: 1, b: 2 })), '101!', 'params changed on the way in, result on the way out');
  const secret = await callTool('secret', {});
  if (caller === 'admin') {
    assert.equal(secret.isError, undefined);
    assert.match(text(secret), /^the secret/);
  } else {
    assert.equal(secret.isError, true);
    assert.equal(text(secret), `denied for ${caller ?? 'anonymous'}`);
  }
  await assert.rejects(callTool('refused', {}), (e) => e.code === -32602 && /refused by policy/.test(e.message));
  await assert.rejects(callTool('boom', {}), (e) => e.code === -32603 && /Internal error in middleware/.test(e.message) && !/exploded/.test(e.message));
  // ... and the server keeps serving.
  assert.equal(text(await callTool('add', { a: 5, b: 0 })), '105!');
  assert.equal((await listTools()).tools.length, 7);
  assert.equal((await readResource('note://one')).contents[0].text, 'A NOTE');
}

test('server.use over stdio with the official client (legacy session)', { timeout: 30_000 }, async () => {
  const client = new Client({ name: 'mw-stdio', version: '1.0.0' });
  const transport = new StdioClientTransport({ command: process.execPath, args: [FIXTURE], cwd: ROOT, stderr: 'pipe' });
  let stderr = '';
  transport.stderr.on('data', (d) => { stderr += d; });
  await withTimeout(client.connect(transport), 15_000, 'connect');
  try {
    const callTool = (name, args) => client.callTool({ name, arguments: args });
    await exercise(callTool, () => client.listTools(), (uri) => client.readResource({ uri }), undefined);
    await client.ping();
    const s = await seen(callTool);
    assert.equal(s.secretRuns, 0, 'the short-circuit kept the handler from running');
    // Only tools/* reached the logger: not initialize, resources/read or ping.
    assert.deepEqual([...new Set(s.log.map((e) => e.method))].sort(), ['tools/call', 'tools/list']);
    const add = s.log.find((e) => e.name === 'add');
    assert.deepEqual(add, { method: 'tools/call', name: 'add', era: 'legacy', caller: null, sessionId: null });
    assert.match(stderr, /middleware for tools\/call failed: middleware exploded/, 'the throw is logged, not sent');
    assert.equal(s.counts.initialize, 1, 'use(fn) sees initialize too');
    assert.equal(s.counts.ping, 1);
    assert.equal(s.counts['resources/read'], 1);
  } finally {
    await client.close();
  }
});

test('server.use over HTTP: the official client (legacy) and 2026-07-28 requests', { timeout: 40_000 }, async () => {
  const srv = await startHttp(FIXTURE);
  try {
    for (const who of ['guest', 'admin']) {
      const client = new Client({ name: `mw-http-${who}`, version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(srv.url), { requestInit: { headers: { authorization: `Bearer ${who}-tok` } } });
      await withTimeout(client.connect(transport), 15_000, 'connect');
      try {
        const callTool = (name, args) => client.callTool({ name, arguments: args });
        await exercise(callTool, () => client.listTools(), (uri) => client.readResource({ uri }), who);
        const s = await seen(callTool);
        const mine = s.log.filter((e) => e.caller === who && e.era === 'legacy');
        assert.ok(mine.some((e) => e.method === 'tools/list'), JSON.stringify(s.log));
        assert.ok(transport.sessionId, 'a legacy HTTP session');
        assert.ok(mine.every((e) => e.sessionId === transport.sessionId), 'ctx.sessionId is the session id');
      } finally {
        await client.close();
      }
    }

    // The modern era: the same answers from raw requests, no session.
    const auth = { headers: { authorization: 'Bearer guest-tok' } };
    const rpc = async (method, params) => {
      const r = await post(srv.url, method, params, auth);
      assert.ok(r.response, r.body);
      if (r.response.error) throw Object.assign(new Error(r.response.error.message), { code: r.response.error.code });
      return r.response.result;
    };
    const callTool = (name, args) => rpc('tools/call', { name, arguments: args });
    await exercise(callTool, () => rpc('tools/list', {}), (uri) => rpc('resources/read', { uri }), 'guest');
    const s = await seen(callTool);
    const modern = s.log.filter((e) => e.era === 'modern');
    assert.ok(modern.length >= 6, JSON.stringify(s.log));
    assert.ok(modern.every((e) => e.caller === 'guest' && e.sessionId === null));
    assert.equal(s.secretRuns, 1, 'only the admin ran the secret tool');
    // A short-circuit on a modern request is shaped as the core's own answers are.
    const denied = await callTool('secret', {});
    assert.equal(denied.resultType, 'complete');
    // An MRTR round through a middleware that changes the arguments: the state is bound to the
    // arguments the client sent, so the retry opens it and other arguments do not (the same case
    // as core/tests/security/mrtr.rs and tests/python/test_middleware.py).
    const caps = { ...auth, metaExtra: { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } } };
    const r1 = (await post(srv.url, 'tools/call', { name: 'ask', arguments: { a: 1 } }, caps)).response.result;
    assert.equal(r1.resultType, 'input_required', JSON.stringify(r1));
    const retry = { name: 'ask', arguments: { a: 1 }, inputResponses: { k: { action: 'accept', content: {} } }, requestState: r1.requestState };
    const r2 = (await post(srv.url, 'tools/call', retry, { ...caps, id: 2 })).response;
    assert.deepEqual([r2.result?.resultType, r2.result?.content[0].text], ['complete', '2 accept'], JSON.stringify(r2));
    const r3 = (await post(srv.url, 'tools/call', { ...retry, arguments: { a: 2 } }, { ...caps, id: 3 })).response;
    assert.equal(r3.error?.code, -32602, JSON.stringify(r3));
  } finally {
    srv.kill();
  }
});

test('a request whose client left while it waited for the JS thread reaches no middleware', { timeout: 30_000 }, async () => {
  const srv = await startHttp(FIXTURE);
  try {
    const auth = { headers: { authorization: 'Bearer guest-tok' } };
    const call = (name, args, extra = {}) => post(srv.url, 'tools/call', { name, arguments: args }, { ...auth, ...extra });
    const seenNow = async () => JSON.parse((await call('seen', {})).response.result.content[0].text);
    const before = (await seenNow()).counts['tools/call'];
    const blocked = call('block_js', { ms: 3000, tag: 'mw' });
    await untilStderr(srv, 'block_js mw'); // the JS thread is inside block_js
    const ac = new AbortController();
    const pending = call('add', { a: 1, b: 2 }, { signal: ac.signal }).catch((e) => e);
    await new Promise((r) => setTimeout(r, 300)); // the request waits in the core for the JS thread
    ac.abort();
    assert.equal((await pending).name, 'AbortError');
    assert.equal((await blocked).response.result.content[0].text, 'blocked');
    // Counted since: block_js and this `seen`; the abandoned `add`, queued before it, is not.
    const s = await seenNow();
    assert.equal(s.counts['tools/call'], before + 2, JSON.stringify(s.counts));
    assert.ok(!s.log.some((e) => e.name === 'add'), 'the abandoned call reached no middleware');
  } finally {
    srv.kill();
  }
});

test('use(): a request no middleware hooks never calls JS; order, next(params), errors', async () => {
  const s = new Server({ name: 'mw-unit', version: '1.0.0' });
  s.registerTool('add', { inputSchema: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } } } },
    ({ a, b }) => String(a + b));
  const order = [];
  s.use(async (ctx, next) => { order.push(`all:${ctx.method}`); return next(); });
  s.use({ onListTools: async (ctx, next) => { order.push('list'); const r = await next(); return { ...r, tools: [] }; } });
  s.use('tools/call', (ctx, next) => { order.push('call'); return next({ ...ctx.params, arguments: { a: 40, b: 2 } }); });
  const c = new InMemoryClient(s);
  assert.equal((await c.callTool('add', { a: 1, b: 1 })).content[0].text, '42');
  assert.deepEqual((await c.listTools()).tools, []);
  assert.deepEqual(order, ['all:tools/call', 'call', 'all:tools/list', 'list']);

  // Counting native calls: a server whose middleware hooks only tools/call is never called for the rest.
  const lean = new Server({ name: 'mw-lean', version: '1.0.0' });
  lean.registerTool('one', {}, () => '1');
  let calls = 0;
  lean.use('tools/call', (ctx, next) => { calls += 1; return next(); });
  const lc = new InMemoryClient(lean);
  await lc.listTools();
  await lc.request('server/discover', {});
  assert.equal(calls, 0);
  await lc.callTool('one', {});
  assert.equal(calls, 1);

  // An MRTR round passes through: next() rejects with the input request, which the core answers.
  const ask = new Server({ name: 'mw-mrtr', version: '1.0.0' });
  ask.registerTool('ask', {}, async (ctx) => `answer ${(await ctx.elicit('k', { message: 'ok?', requestedSchema: { type: 'object', properties: {} } })).action}`);
  let rounds = 0;
  ask.use('tools/call', async (ctx, next) => { rounds += 1; return next(); });
  const ac = new InMemoryClient(ask, { capabilities: { elicitation: {} } });
  const r1 = await ac.callTool('ask', {});
  assert.equal(r1.resultType, 'input_required');
  const r2 = await ac.callTool('ask', {}, { inputResponses: { k: { action: 'accept', content: {} } }, requestState: r1.requestState });
  assert.deepEqual([r2.resultType, r2.content[0].text, rounds], ['complete', 'answer accept', 2]);

  assert.throws(() => s.use({ onCallTools: () => {} }), /unknown hook onCallTools/);
  assert.throws(() => s.use(42), TypeError);
  // A rethrown error of next() stays that error (code, message).
  const r = new Server({ name: 'mw-rethrow', version: '1.0.0' });
  r.use('tools/call', async (ctx, next) => {
    try { return await next(); } catch (e) { assert.ok(e instanceof McpError); throw e; }
  });
  await assert.rejects(new InMemoryClient(r).callTool('nope', {}), (e) => e.code === -32602);

  // The server's rule for unexpected throws: McpServer (the SDK's rule) shows the message; a
  // ToolError on tools/call is an isError result; elsewhere it is -32603 with its message.
  const m = new McpServer({ name: 'mw-sdk', version: '1.0.0' });
  m.registerTool('one', {}, async () => ({ content: [{ type: 'text', text: '1' }] }));
  m.use(() => { throw new Error('plain boom'); });
  await assert.rejects(new InMemoryClient(m).callTool('one', {}), (e) => e.code === -32603 && e.message === 'plain boom');
  const t = new Server({ name: 'mw-toolerror', version: '1.0.0' });
  t.registerTool('one', {}, () => '1');
  t.use(async () => { throw new ToolError('not today'); });
  const te = await new InMemoryClient(t).callTool('one', {});
  assert.deepEqual([te.isError, te.content[0].text], [true, 'not today']);
  await assert.rejects(new InMemoryClient(t).listTools(), (e) => e.code === -32603 && e.message === 'not today');

  // The low-level Server has it too.
  // Opts in: the 1.x low-level shape is served in the initialize-era revisions only by default.
  const ll = new LowLevelServer({ name: 'mw-ll', version: '1.0.0' }, { capabilities: { tools: {} }, modern: true });
  ll.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'echo', inputSchema: { type: 'object' } }] }));
  ll.setRequestHandler(CallToolRequestSchema, async (req) => ({ content: [{ type: 'text', text: `echo ${req.params.name}` }] }));
  ll.use('tools/call', async (ctx, next) => { await next(); ctx.result.content[0].text += ' (seen)'; });
  ll.use({ onListTools: () => { throw new Error('no listing'); } });
  const lc2 = new InMemoryClient(ll);
  assert.equal((await lc2.callTool('echo', {})).content[0].text, 'echo echo (seen)');
  await assert.rejects(lc2.listTools(), (e) => e.code === -32603 && e.message === 'no listing');
});

test('a misbehaving middleware gets the shared texts (tests/config/middleware.json)', async () => {
  const { readFileSync } = await import('node:fs');
  const table = JSON.parse(readFileSync(path.join(ROOT, 'tests', 'config', 'middleware.json'), 'utf8'));
  for (const row of table.cases) {
    const s = new Server({ name: 'mw-table', version: '1.0.0', exposeErrors: Boolean(row.shown), logErrors: () => {} });
    s.use({
      onListTools: async () => {
        if (row.does === 'answers') return row.value ?? undefined;
        throw new Error('boom');
      },
    });
    await assert.rejects(new InMemoryClient(s).listTools(),
      (e) => (assert.deepEqual([e.code, e.message], [row.expect.code, row.expect.message], row.name), true));
  }
});
