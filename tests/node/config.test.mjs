// The core's one configuration schema from Node: the shared table of invalid configurations
// (tests/config/cases.json, also replayed by the Rust and Python tests) gives the same text here,
// and listener options given to the constructor are the defaults of listen(), over real HTTP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Server, registerAppResource, RESOURCE_MIME_TYPE } from 'oxmcp';
import { ROOT, MODERN, meta, post } from './helpers.mjs';

const TABLE = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'config', 'cases.json'), 'utf8'));
const cases = [...TABLE.cases, ...TABLE.edges.refused];
const accepted = [...TABLE.accepted, ...TABLE.edges.accepted];

// A row's `at`: the constructor, one listener, or the mount (nodeHandler(options), and
// configureHttp(options), which fetch() serves with), over the row's `server` options.
async function replay(c, each = () => {}) {
  if (c.at === 'server') {
    const s = new Server({ name: 't', version: '1', handleSignals: false, ...c.config });
    await s.close();
    return;
  }
  const s = new Server({ name: 't', version: '1', handleSignals: false, ...(c.server ?? {}) });
  try {
    if (c.at === 'mount') {
      s.nodeHandler(c.config);
      each();
      s.configureHttp(c.config);
    } else {
      await s.listen({ port: 0, ...c.config });
    }
  } finally {
    await s.close();
  }
}

const label = (c) => `${c.at}: ${JSON.stringify(c.config)}`;

test('refused: every row of the shared table, with its exact error', async (t) => {
  for (const c of cases) {
    let errs = [];
    try {
      await replay(c, () => { throw new Error('nodeHandler accepted it'); });
    } catch (e) {
      errs.push(e);
    }
    // The mount's two ways in refuse alike: configureHttp after nodeHandler refused.
    if (c.at === 'mount') {
      const s = new Server({ name: 't', version: '1', handleSignals: false, ...(c.server ?? {}) });
      try { s.configureHttp(c.config); } catch (e) { errs.push(e); }
      await s.close();
      assert.equal(errs.length, 2, `${label(c)}: configureHttp accepted it`);
    }
    assert.ok(errs.length, `${label(c)} was accepted`);
    for (const err of errs) {
      assert.equal(err.code, 'INVALID_OPTION', label(c));
      assert.equal(err.message, c.error, label(c));
    }
  }
});

test('accepted: every row of the shared table, with its effective values', async () => {
  const { createRequire } = await import('node:module');
  const { loadNative } = createRequire(import.meta.url)(path.join(ROOT, 'bindings-node', 'lib', 'native.cjs'));
  const { effectiveOptions } = loadNative();
  for (const c of accepted) {
    await replay(c);
    const effective = effectiveOptions({ ...(c.server ?? {}), ...c.config });
    for (const [k, v] of Object.entries(c.effective ?? {})) assert.deepEqual(effective[k], v, `${label(c)}: ${k}`);
  }
});

test("tools: a tool's own limits give the shared outcome", async () => {
  for (const c of TABLE.tools) {
    const s = new Server({ name: 't', version: '1', handleSignals: false });
    const l = c.limits;
    let err;
    try {
      s.registerTool('echo', { inputSchema: { type: 'object' }, timeoutMs: l.timeout_ms, maxConcurrency: l.max_concurrency, taskAfterMs: l.task_after_ms }, () => ({ content: [] }));
    } catch (e) {
      err = e;
    }
    await s.close();
    if (c.error) {
      assert.ok(err, `${JSON.stringify(l)} was accepted`);
      assert.equal(err.code, 'INVALID_DEFINITION', JSON.stringify(l));
      assert.equal(err.message, c.error);
    } else {
      assert.equal(err, undefined, JSON.stringify(l));
    }
  }
});

test("a resource's or prompt's timeout is the core's rule: its own, else the server's toolTimeoutMs", async () => {
  const { InMemoryClient } = await import('oxmcp');
  const never = () => new Promise(() => {});
  const bad = new Server({ name: 't', version: '1', handleSignals: false });
  assert.throws(() => bad.registerResource('a', 'x://a', { timeoutMs: 0 }, never),
    (e) => e.code === 'INVALID_DEFINITION' && e.message === "resource 'x://a': its timeout must be above 0 and at most 9007199254740991 ms");
  assert.throws(() => bad.registerPrompt('p', { timeoutMs: -1 }, never),
    (e) => e.code === 'INVALID_DEFINITION' && e.message === "prompt 'p': its timeout must be above 0 and at most 9007199254740991 ms");
  await bad.close();
  // The server's bound applies to a read with none of its own; a prompt's own bound to it.
  const s = new Server({ name: 't', version: '1', handleSignals: false, toolTimeoutMs: 50 });
  s.registerResource('a', 'x://a', {}, never);
  s.registerPrompt('p', { timeoutMs: 60 }, never);
  const c = new InMemoryClient(s);
  for (const ask of [() => c.readResource('x://a'), () => c.getPrompt('p', {})]) {
    await assert.rejects(ask(), (e) => e.code === -32603 && e.message === 'Timed out');
  }
  await s.close();
});

test("a tool's timeout result is worded by toolTimeoutText (the core's rule, as in Python)", async () => {
  const { InMemoryClient } = await import('oxmcp');
  const never = () => new Promise(() => {});
  for (const [text, expected] of [[undefined, 'Tool hang timed out'],
    ["Tool '{name}' execution timed out after {timeout}s", "Tool 'hang' execution timed out after 0.05s"]]) {
    const s = new Server({ name: 't', version: '1', handleSignals: false, ...(text ? { toolTimeoutText: text } : {}) });
    s.registerTool('hang', { inputSchema: { type: 'object' }, timeoutMs: 50 }, never);
    const r = await new InMemoryClient(s).callTool('hang', {});
    assert.equal(r.isError, true);
    assert.equal(r.content[0].text, expected);
    await s.close();
  }
});

test("the TS SDK's default limits are the core's", async () => {
  const { createRequire } = await import('node:module');
  const { loadNative } = createRequire(import.meta.url)(path.join(ROOT, 'bindings-node', 'lib', 'native.cjs'));
  const core = loadNative().effectiveOptions({});
  const oxmcp = await import('oxmcp');
  assert.equal(oxmcp.DEFAULT_MAX_REQUEST_BODY_SIZE, core.max_body_bytes);
  assert.equal(oxmcp.STDIO_DEFAULT_MAX_BUFFER_SIZE, core.max_line_bytes);
  assert.equal(oxmcp.default.DEFAULT_MAX_REQUEST_BODY_SIZE, core.max_body_bytes);
});

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

// A mount refuses a body its Content-Length declares over the cap before it reads the body, as
// the built-in server does (tests/python/test_mcp_http_mirrors.py holds the ASGI mount to the same).
test('a mount answers a declared body over maxBodyBytes with 413 before the body is sent', async () => {
  const http = await import('node:http');
  const s = new Server({ name: 't', version: '1', handleSignals: false });
  const hs = http.createServer(s.nodeHandler({ maxBodyBytes: 600 }));
  await new Promise((r) => hs.listen(0, '127.0.0.1', r));
  try {
    const status = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no answer before the body')), 5000);
      const req = http.request({ host: '127.0.0.1', port: hs.address().port, path: '/mcp', method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': 5000 } },
      (res) => {
        clearTimeout(timer);
        res.resume();
        resolve(res.statusCode);
        req.destroy();
      });
      req.on('error', () => {});
      req.flushHeaders(); // the body is never sent
    });
    assert.equal(status, 413);
  } finally {
    hs.close();
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

test('an extension the option declares is declared with its settings, also one the registrations need', async () => {
  const ui = 'io.modelcontextprotocol/ui';
  const seen = [];
  for (const extensions of [undefined, { [ui]: {} }]) {
    const s = new Server({ name: 't', version: '1', handleSignals: false, ...(extensions ? { extensions } : {}) });
    registerAppResource(s, 'view', 'ui://demo/view.html', {}, () => '<p>hi</p>');
    try {
      const { url } = await s.listen({ port: 0 });
      const r = await post(url, 'server/discover');
      seen.push(r.response.result.capabilities.extensions[ui]);
    } finally {
      await s.close();
    }
  }
  // What a ui:// resource needs by itself, then what the option says in its place.
  assert.deepEqual(seen, [{ mimeTypes: [RESOURCE_MIME_TYPE] }, {}]);
});
