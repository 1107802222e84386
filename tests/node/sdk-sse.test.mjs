// `oxmcp/server/sse.js` (the TS SDK v1 `SSEServerTransport`, the 2024-11-05 HTTP+SSE transport)
// over real HTTP on 127.0.0.1, routed by a node:http server as a v1 server routes it, with the
// TS SDK v1 `SSEClientTransport` from .cache/peers-node: initialize, list, call, a progress
// notification and a sampling request the client answers; then an unknown session.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { McpServer } from 'oxmcp/server/mcp.js';
import { SSEServerTransport } from 'oxmcp/server/sse.js';
import { mirrorOf } from '../../bindings-node/lib/dropin-table.cjs';
import { ROOT, withTimeout } from './helpers.mjs';

const SDK = path.join(ROOT, '.cache', 'peers-node', 'node_modules', '@modelcontextprotocol', 'sdk', 'dist', 'esm');
const sdk = (p) => import(pathToFileURL(path.join(SDK, p)).href);

test('SSEServerTransport with the TS SDK v1 SSEClientTransport', { timeout: 30_000 }, async () => {
  const { Client } = await sdk('client/index.js');
  const { SSEClientTransport } = await sdk('client/sse.js');
  const { CreateMessageRequestSchema } = await sdk('types.js');

  const server = new McpServer({ name: 'sse', version: '1.0.0' });
  server.tool('add', { a: z.number(), b: z.number() }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
  server.tool('ask', { q: z.string() }, async ({ q }, extra) => {
    await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: extra._meta?.progressToken, progress: 1 } });
    const r = await extra.sendRequest({ method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: q } }], maxTokens: 5 } });
    return { content: [{ type: 'text', text: r.content.text }] };
  });

  const transports = {};
  const httpServer = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://localhost');
    if (req.method === 'GET' && url.pathname === '/sse') {
      const t = new SSEServerTransport('/messages', res);
      transports[t.sessionId] = t;
      res.on('close', () => { delete transports[t.sessionId]; });
      await server.connect(t);
    } else if (req.method === 'POST' && url.pathname === '/messages') {
      const t = transports[url.searchParams.get('sessionId')];
      if (!t) { res.writeHead(400).end('No transport found for sessionId'); return; }
      // As the SDK, it answers 500 and throws for a transport whose stream is not open.
      await t.handlePostMessage(req, res).catch(() => {});
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise((r) => httpServer.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${httpServer.address().port}`;
  try {
    const client = new Client({ name: 'c', version: '1' }, { capabilities: { sampling: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, async (r) => ({
      role: 'assistant', model: 'm', content: { type: 'text', text: r.params.messages[0].content.text.toUpperCase() },
    }));
    await withTimeout(client.connect(new SSEClientTransport(new URL(`${base}/sse`))), 15_000, 'connect');
    const [sid] = Object.keys(transports);
    assert.match(sid, /^[0-9a-f]{32}$/);
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name).sort(), ['add', 'ask']);
    assert.equal((await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).content[0].text, '5');
    const progress = [];
    const r = await client.callTool({ name: 'ask', arguments: { q: 'hi' } }, undefined, { onprogress: (p) => progress.push(p.progress) });
    assert.equal(r.content[0].text, 'HI');
    assert.deepEqual(progress, [1]);

    // A stream the core does not know (the host kept a transport whose stream it never opened).
    const stray = new SSEServerTransport('/messages', new http.ServerResponse(new http.IncomingMessage()));
    transports[stray.sessionId] = stray;
    const refused = await fetch(`${base}/messages?sessionId=${stray.sessionId}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(refused.status, 500, 'handlePostMessage before the stream, as the SDK answers it');
    await client.close();
  } finally {
    httpServer.closeAllConnections();
    await new Promise((r) => httpServer.close(r));
    await server.close();
  }
});

test("SSEServerTransport's allowedHosts become the core's Host rule", { timeout: 30_000 }, async () => {
  const server = new McpServer({ name: 'sse-hosts', version: '1.0.0' });
  const httpServer = http.createServer(async (req, res) => {
    const t = new SSEServerTransport('/messages', res, { allowedHosts: ['mcp.example.test'], enableDnsRebindingProtection: true });
    await server.connect(t).catch(() => {});
  });
  await new Promise((r) => httpServer.listen(0, '127.0.0.1', r));
  const port = httpServer.address().port;
  // Host is a forbidden header for fetch: a raw request sets it.
  const get = (host) => new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/sse', headers: { host, accept: 'text/event-stream' } }, (res) => {
      resolve(res.statusCode);
      res.destroy();
    });
    req.on('error', reject);
    req.end();
  });
  try {
    assert.equal(await get(`127.0.0.1:${port}`), 403, 'a host outside allowedHosts is refused, loopback included');
    assert.equal(await get('mcp.example.test'), 200);
  } finally {
    httpServer.closeAllConnections();
    await new Promise((r) => httpServer.close(r));
    await server.close();
  }
});

test('the zero-change table maps the v1 sse.js', () => {
  assert.equal(mirrorOf('@modelcontextprotocol/sdk/server/sse.js'), 'oxmcp/server/sse.js');
});
