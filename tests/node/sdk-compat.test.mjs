// Unit tests of the TS-SDK shapes (bindings-node/lib/sdk/) through the core's HTTP handler:
// oxmcp/server/mcp.js, oxmcp/types.js, oxmcp (v2 names), oxmcp/node, and the Server options they
// rest on. The parity corpus (parity.test.mjs) runs whole servers; these pin each rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { z } from 'zod';
import { Server, McpServer as McpServerV2, createMcpHandler, ProtocolErrorCode } from 'oxmcp';
import { McpServer, ResourceTemplate } from 'oxmcp/server/mcp.js';
import { StreamableHTTPServerTransport } from 'oxmcp/server/streamableHttp.js';
import { StdioServerTransport } from 'oxmcp/server/stdio.js';
import { toNodeHandler } from 'oxmcp/node';
import {
  CallToolRequestSchema, SubscribeRequestSchema, RootsListChangedNotificationSchema, McpError, ErrorCode, UrlElicitationRequiredError,
} from 'oxmcp/types.js';

const info = { name: 't', version: '1.0.0', handleSignals: false };
// The 1.x shapes speak only the initialize-era revisions unless they opt in; these tests also
// send 2026-07-28 requests (InMemoryClient, fetch), so their 1.x servers opt in.
const BOTH_ERAS = { modern: true };
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } };

async function post(url, body, headers = {}) {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  const text = await r.text();
  const data = text.startsWith('{') ? JSON.parse(text) : JSON.parse(text.split('\n').find((l) => l.startsWith('data:')).slice(5));
  return { status: r.status, headers: r.headers, data };
}

function listen(handler) {
  return new Promise((resolve) => {
    const s = createServer(handler);
    s.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${s.address().port}/mcp`, close: () => new Promise((r) => s.close(r)) }));
  });
}

test('Server: inputSchema {} is a tool without arguments, and its handler gets (args, ctx)', async () => {
  const s = new Server(info);
  s.registerTool('none', { inputSchema: {} }, (args, ctx) => `args=${JSON.stringify(args)} ctx=${typeof ctx.log}`);
  const c = s.client();
  const { tools } = await c.listTools();
  assert.deepEqual(tools[0].inputSchema, { type: 'object', properties: {} });
  assert.equal((await c.callTool('none', {})).content[0].text, 'args={} ctx=function');
});

test("Server: errorMessages 'message' puts a throw's message in the isError text; the default hides it", async () => {
  for (const errorMessages of ['message', undefined]) {
    const s = new Server({ ...info, errorMessages, logErrors: () => {} });
    s.registerTool('boom', {}, () => { throw new Error('Entity X not found'); });
    const r = await s.client().callTool('boom', {});
    assert.equal(r.isError, true);
    if (errorMessages) assert.equal(r.content[0].text, 'Entity X not found');
    else assert.ok(!r.content[0].text.includes('Entity X'), r.content[0].text);
    assert.ok(!r.content[0].text.includes(' at '), 'no stack');
  }
  assert.throws(() => new Server({ ...info, errorMessages: 'all' }), /errorMessages/);
});

test('McpServer (v1 path): listing with draft-07 zod and taskSupport, SDK error rules, positional forms', async () => {
  const s = new McpServer(info, BOTH_ERAS);
  s.tool('add', 'Add', { a: z.number() }, { readOnlyHint: true }, ({ a }, extra) => ({ content: [{ type: 'text', text: `${a} ${typeof extra.sendNotification}` }] }));
  s.tool('annotated', { idempotentHint: true }, () => ({ content: [{ type: 'text', text: 'ok' }] }));
  s.registerTool('mcp', { inputSchema: {} }, () => { throw new McpError(ErrorCode.InvalidParams, 'bad'); });
  s.registerTool('url', {}, () => { throw new UrlElicitationRequiredError([{ mode: 'url', url: 'https://example.com', message: 'go', elicitationId: 'e1' }]); });
  const c = s.client();
  const tools = Object.fromEntries((await c.listTools()).tools.map((t) => [t.name, t]));
  assert.equal(tools.add.inputSchema.$schema, 'http://json-schema.org/draft-07/schema#');
  assert.deepEqual(tools.add.annotations, { readOnlyHint: true });
  assert.deepEqual(tools.add.execution, { taskSupport: 'forbidden' });
  assert.deepEqual(tools.annotated.annotations, { idempotentHint: true });
  assert.deepEqual(Object.keys(tools.annotated.inputSchema.properties), []);
  assert.equal((await c.callTool('add', { a: 2 })).content[0].text, '2 function');
  const m = await c.callTool('mcp', {});
  assert.deepEqual([m.isError, m.content[0].text], [true, 'MCP error -32602: bad']);
  await assert.rejects(c.callTool('url', {}), (e) => e.code === -32042);
});

test('McpServer (v2 root): 2020-12 zod, no execution added; extra carries ctx.mcpReq', async () => {
  const s = new McpServerV2(info);
  s.registerTool('who', { inputSchema: z.object({ x: z.string() }) }, ({ x }, ctx) => ({
    content: [{ type: 'text', text: `${x} ${ctx.mcpReq.method} ${ctx.mcpReq.signal instanceof AbortSignal} ${ctx.mcpReq.id !== undefined}` }],
  }));
  const c = s.client();
  const [tool] = (await c.listTools()).tools;
  assert.equal(tool.inputSchema.$schema, 'https://json-schema.org/draft/2020-12/schema');
  assert.equal(tool.execution, undefined);
  assert.equal((await c.callTool('who', { x: 'y' })).content[0].text, 'y tools/call true true');
});

test('McpServer: handles disable, enable and update registrations', async () => {
  const s = new McpServer(info, BOTH_ERAS);
  const h = s.registerTool('a', {}, () => ({ content: [{ type: 'text', text: 'a' }] }));
  const names = async () => (await s.client().listTools()).tools.map((t) => t.name);
  h.disable();
  assert.deepEqual(await names(), []);
  h.enable();
  assert.deepEqual(await names(), ['a']);
  h.update({ name: 'b' });
  assert.deepEqual(await names(), ['b']);
  h.remove();
  assert.deepEqual(await names(), []);
});

test('McpServer.server: setRequestHandler refuses the methods McpServer answers and custom methods, keeps subscribe', () => {
  const s = new McpServer(info, BOTH_ERAS);
  assert.throws(() => s.server.setRequestHandler(CallToolRequestSchema, () => ({})), /already exists/);
  assert.throws(() => s.server.setRequestHandler(z.object({ method: z.literal('x/custom') }), () => ({})), (e) => e.code === -32601);
  s.server.setRequestHandler(SubscribeRequestSchema, async () => ({}));
  s.server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {});
  s.server.registerCapabilities({ resources: { subscribe: true } });
  assert.deepEqual(s.server.getCapabilities(), { resources: { subscribe: true } });
  assert.equal(s.server.getClientCapabilities(), undefined, 'outside a handler there is no client');
  return assert.rejects(s.server.listRoots(), (e) => e.code === -32600);
});

test('ResourceTemplate (v1) needs its callbacks object; a read returns what the callback returned', async () => {
  assert.throws(() => new ResourceTemplate('x://{id}'), /callbacks/);
  const s = new McpServer(info, BOTH_ERAS);
  s.registerResource('x', new ResourceTemplate('x://{id}', { list: undefined }), { mimeType: 'text/plain' }, (uri, { id }) => ({ contents: [{ uri: uri.href, text: id }] }));
  assert.deepEqual((await s.client().readResource('x://7')).contents, [{ uri: 'x://7', text: '7' }]);
});

test('completion results of a ported (McpServer) server carry total and hasMore, as the SDK gives them', async () => {
  const s = new McpServerV2(info);
  s.registerPrompt('p', { argsSchema: { city: z.string() }, complete: { city: () => ['a', 'b'] } }, ({ city }) => city);
  const r = await s.client().request('completion/complete', { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'city', value: '' } });
  assert.deepEqual(r.completion, { values: ['a', 'b'], total: 2, hasMore: false });
});

test('StreamableHTTPServerTransport: stateless has no session id; sessionful reports it to onsessioninitialized', async () => {
  let seen;
  const servers = [];
  const stateless = await listen(async (req, res) => {
    const s = new McpServer(info, BOTH_ERAS);
    servers.push(s);
    const t = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await s.connect(t);
    await t.handleRequest(req, res);
  });
  const s2 = new McpServer(info, BOTH_ERAS);
  s2.registerTool('hi', {}, () => ({ content: [{ type: 'text', text: 'hi' }] }));
  const t2 = new StreamableHTTPServerTransport({ sessionIdGenerator: () => 'ignored', onsessioninitialized: (id) => { seen = id; } });
  await s2.connect(t2);
  const sessionful = await listen((req, res) => t2.handleRequest(req, res));
  try {
    const a = await post(stateless.url, INIT);
    assert.equal(a.status, 200);
    assert.equal(a.headers.get('mcp-session-id'), null);
    assert.equal(a.data.result.serverInfo.name, 't');
    const b = await post(sessionful.url, INIT);
    const sid = b.headers.get('mcp-session-id');
    assert.ok(sid && sid === seen && t2.sessionId === sid);
    const call = await post(sessionful.url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'hi', arguments: {} } }, { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-06-18' });
    assert.equal(call.data.result.content[0].text, 'hi');
  } finally {
    await Promise.all([stateless.close(), sessionful.close(), s2.close(), ...servers.map((s) => s.close())]);
  }
});

test('createMcpHandler + toNodeHandler: one factory call, stateless legacy, 405 for legacy GET', async () => {
  let calls = 0;
  const handler = createMcpHandler(() => {
    calls += 1;
    const s = new McpServerV2(info);
    s.registerTool('x', {}, () => ({ content: [{ type: 'text', text: 'x' }] }));
    return s;
  });
  const srv = await listen(toNodeHandler(handler));
  try {
    const a = await post(srv.url, INIT);
    assert.equal(a.headers.get('mcp-session-id'), null);
    const b = await post(srv.url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'x', arguments: {} } }, { 'mcp-protocol-version': '2025-06-18' });
    assert.equal(b.data.result.content[0].text, 'x');
    assert.equal((await fetch(srv.url, { headers: { accept: 'text/event-stream' } })).status, 405);
    assert.equal(calls, 1);
    assert.equal(ProtocolErrorCode.ResourceNotFound, -32002);
  } finally {
    await srv.close();
    await handler.close();
  }
});

test('createMcpHandler: a factory that reads its context gets { era, authInfo } per distinct context, and handlers see authInfo', async () => {
  const built = [];
  const handler = createMcpHandler((ctx) => {
    built.push({ era: ctx.era, clientId: ctx.authInfo?.clientId });
    const s = new McpServerV2(info);
    // No input schema: the SDK calls the handler with its context only; v2 puts authInfo under ctx.http.
    s.registerTool('whoami', {}, (c) => ({ content: [{ type: 'text', text: c.http?.authInfo?.clientId ?? 'anonymous' }] }));
    if (ctx.authInfo?.scopes?.includes('admin')) s.registerTool('drop_all', {}, () => ({ content: [{ type: 'text', text: 'dropped' }] }));
    return s;
  });
  const rpc = async (method, params, authInfo) => {
    const request = new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const text = await (await handler.fetch(request, { authInfo })).text();
    return JSON.parse(text.startsWith('{') ? text : text.split('\n').find((l) => l.startsWith('data:')).slice(5));
  };
  const admin = { token: 't-admin', clientId: 'alice', scopes: ['admin'] };
  const reader = { token: 't-reader', clientId: 'bob', scopes: ['read'] };
  try {
    const names = async (auth) => (await rpc('tools/list', {}, auth)).result.tools.map((t) => t.name).sort();
    assert.deepEqual(await names(admin), ['drop_all', 'whoami']);
    assert.deepEqual(await names(reader), ['whoami']);
    assert.deepEqual(await names(undefined), ['whoami']);
    assert.equal((await rpc('tools/call', { name: 'drop_all', arguments: {} }, reader)).error.code, -32602);
    assert.equal((await rpc('tools/call', { name: 'whoami', arguments: {} }, reader)).result.content[0].text, 'bob');
    assert.equal((await rpc('tools/call', { name: 'whoami', arguments: {} }, admin)).result.content[0].text, 'alice');
    assert.equal((await rpc('tools/call', { name: 'whoami', arguments: {} }, undefined)).result.content[0].text, 'anonymous');
    // One instance per distinct (era, authInfo), reused by later requests with the same context.
    assert.deepEqual(built, [{ era: 'legacy', clientId: 'alice' }, { era: 'legacy', clientId: 'bob' }, { era: 'legacy', clientId: undefined }]);
    // At most 64 instances are kept: 64 more contexts push alice's out, and her next request builds anew.
    for (let i = 0; i < 64; i += 1) await rpc('tools/list', {}, { token: `t${i}`, clientId: `c${i}`, scopes: [] });
    const before = built.length;
    await rpc('tools/list', {}, admin);
    assert.equal(built.length, before + 1);
  } finally {
    await handler.close();
  }
});

test('StdioServerTransport refuses streams other than the process stdio', () => {
  assert.throws(() => new StdioServerTransport({}, {}), /stdin\/stdout/);
});

test('low-level Server (oxmcp/server/index.js): hand-written list/call handlers, re-listed on sendToolListChanged', async () => {
  const { Server: LowLevel } = await import('oxmcp/server/index.js');
  const { ListToolsRequestSchema } = await import('oxmcp/types.js');
  const { InMemoryClient } = await import('oxmcp');
  const s = new LowLevel({ name: 'll', version: '1.0.0' }, { capabilities: { tools: {} }, modern: true });
  const tools = [{ name: 'a', inputSchema: { type: 'object', properties: {} } }];
  s.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  s.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    if (req.params.name === 'b') throw new Error('b is broken');
    return { content: [{ type: 'text', text: `${req.params.name} ${extra.mcpReq.method}` }] };
  });
  const c = new InMemoryClient(s);
  try {
    assert.deepEqual((await c.listTools()).tools.map((t) => t.name), ['a']);
    assert.equal((await c.callTool('a', {})).content[0].text, 'a tools/call');
    tools.push({ name: 'b', inputSchema: { type: 'object', properties: {} } });
    s.sendToolListChanged();
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual((await c.listTools()).tools.map((t) => t.name), ['a', 'b']);
    await assert.rejects(c.callTool('b', {}), (e) => e.code === -32603 && /b is broken/.test(e.message));
  } finally {
    await s.close();
  }
});

test('low-level Server: a call its client cancelled while it waited for the JS thread never reaches the handler', { timeout: 30_000 }, async () => {
  const { StdioPeer } = await import('./helpers.mjs');
  const path = await import('node:path');
  const peer = new StdioPeer(path.join(import.meta.dirname, 'fixtures', 'lowlevel-busy.mjs'));
  try {
    await peer.initialize();
    const call = (id, name) => peer.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });
    call(100, 'block');
    for (let i = 0; i < 500 && !peer.stderr.includes('blocking'); i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok(peer.stderr.includes('blocking'), peer.stderr); // the server's JS thread is inside `block`
    call(101, 'count');
    await new Promise((r) => setTimeout(r, 300)); // the call waits in the core; then the client cancels it
    peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 101 } });
    assert.equal((await peer.waitFor((m) => m.id === 100)).result.content[0].text, 'blocked');
    const runs = await peer.request('tools/call', { name: 'runs', arguments: {} }, { modern: false });
    assert.equal(runs.result.content[0].text, '0', `the cancelled call did not run; stderr: ${peer.stderr}`);
    assert.ok(!peer.messages.some((m) => m.id === 101), 'a cancelled request gets no response');
  } finally {
    peer.child.kill();
  }
});

test('server.sendLoggingMessage inside a legacy HTTP handler is not on the request\'s stream (the SDK 1.x sends it on the standalone stream, which a stateless transport has not); extra.sendNotification is', async () => {
  const servers = [];
  const srv = await listen(async (req, res) => {
    const s = new McpServer(info, { capabilities: { logging: {} } });
    servers.push(s);
    s.registerTool('log', {}, async (extra) => {
      await s.sendLoggingMessage({ level: 'info', data: 'unrelated' }, extra.sessionId);
      await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: 'related' } });
      return { content: [{ type: 'text', text: 'done' }] };
    });
    const t = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await s.connect(t);
    await t.handleRequest(req, res);
  });
  try {
    assert.equal((await post(srv.url, INIT)).status, 200);
    const r = await fetch(srv.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'log', arguments: {} } }),
    });
    const text = await r.text();
    assert.match(text, /"done"/);
    assert.match(text, /"related"/);
    assert.doesNotMatch(text, /"unrelated"/);
  } finally {
    await Promise.all([srv.close(), ...servers.map((s) => s.close())]);
  }
});

test('WebStandardStreamableHTTPServerTransport (the SDK path server/webStandardStreamableHttp.js): handleRequest(Request) answers a Response, stateless or with sessions; authInfo, which it cannot pass on, is refused', async () => {
  const { WebStandardStreamableHTTPServerTransport } = await import('oxmcp/server/webStandardStreamableHttp.js');
  const req = (body, headers = {}) => new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  const json = async (r) => { const t = await r.text(); return JSON.parse(t.startsWith('{') ? t : t.split('\n').find((l) => l.startsWith('data:')).slice(5)); };
  const s = new McpServer(info);
  s.registerTool('greet', { inputSchema: { name: z.string() } }, ({ name }) => ({ content: [{ type: 'text', text: `Hello, ${name}` }] }));
  const t = new WebStandardStreamableHTTPServerTransport();
  await s.connect(t);
  let seen;
  const s2 = new McpServer(info);
  const t2 = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => 'ignored', onsessioninitialized: (id) => { seen = id; } });
  await s2.connect(t2);
  try {
    const a = await t.handleRequest(req(INIT));
    assert.ok(a instanceof Response);
    assert.equal(a.headers.get('mcp-session-id'), null);
    assert.equal((await json(a)).result.serverInfo.name, 't');
    const b = await t.handleRequest(req({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'greet', arguments: { name: 'Ada' } } }, { 'mcp-protocol-version': '2025-06-18' }));
    assert.equal((await json(b)).result.content[0].text, 'Hello, Ada');
    const c = await t2.handleRequest(req(INIT));
    const sid = c.headers.get('mcp-session-id');
    assert.ok(sid && sid === seen && t2.sessionId === sid);
    await assert.rejects(t.handleRequest(req(INIT), { authInfo: { token: 'x', clientId: 'c', scopes: [] } }), /authInfo/);
  } finally {
    await Promise.all([s.close(), s2.close()]);
  }
});

test('McpServer (v1): prompt arguments are listed as the SDK 1.x lists them (each zod field\'s own description; required unless the field is optional)', async () => {
  const s = new McpServer(info, BOTH_ERAS);
  s.registerPrompt('p', {
    argsSchema: { city: z.string().describe('The city'), state: z.string().describe('Name of the state').optional(), unit: z.string().default('C') },
  }, ({ city }) => ({ messages: [{ role: 'user', content: { type: 'text', text: city } }] }));
  const { prompts } = await s.client().listPrompts();
  assert.deepEqual(prompts[0].arguments, [
    { name: 'city', description: 'The city', required: true },
    { name: 'state', required: false },
    { name: 'unit', required: true },
  ]);
});
