// Streamable HTTP on a Unix domain socket: `listen({ uds })`, the official TypeScript client over it
// (a `fetch` that speaks HTTP over the socket: Node's `http.request({ socketPath })`), the file's
// mode, the loopback Host rule, `uds` with `port` refused, and the file removed at `close()`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { z } from 'zod';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Server } from 'oxmcp';

/** A WHATWG `fetch` over the Unix socket `socketPath` (streamed bodies, so SSE works). */
function socketFetch(socketPath) {
  return (input, init = {}) => new Promise((resolve, reject) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const req = http.request({
      socketPath,
      method: init.method ?? 'GET',
      path: url.pathname + url.search,
      headers: Object.fromEntries(new Headers(init.headers)),
    }, (res) => {
      const headers = new Headers();
      for (const [k, v] of Object.entries(res.headers)) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
      const empty = [204, 205, 304].includes(res.statusCode);
      if (empty) res.resume();
      resolve(new Response(empty ? null : Readable.toWeb(res), { status: res.statusCode, headers }));
    });
    req.on('error', reject);
    init.signal?.addEventListener('abort', () => req.destroy(new Error('aborted')), { once: true });
    req.end(init.body ?? undefined);
  });
}

// Unix sockets: not Windows named pipes.
const unixOnly = { skip: process.platform === 'win32' && 'Unix sockets only' };

function makeServer() {
  const s = new Server({ name: 'uds', version: '1', handleSignals: false });
  s.registerTool('add', { inputSchema: z.object({ a: z.number(), b: z.number() }) },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
  return s;
}

function rawPost(socketPath, host) {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
  return new Promise((resolve, reject) => {
    const req = http.request({
      socketPath, method: 'POST', path: '/mcp',
      headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('the official client over a Unix socket; mode, Host rule, removal at close', unixOnly, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oxmcp-uds-'));
  const sock = path.join(dir, 'mcp.sock');
  const server = makeServer();
  try {
    const at = await server.listen({ uds: sock });
    assert.equal(at.uds, sock);
    assert.equal(at.url, 'http://localhost/mcp');
    const st = fs.lstatSync(sock);
    assert.ok(st.isSocket());
    assert.equal(st.mode & 0o777, 0o600);

    const client = new Client({ name: 'uds-client', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(at.url), { fetch: socketFetch(sock) }));
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['add']);
    const r = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    assert.deepEqual(r.content, [{ type: 'text', text: '5' }]);
    await client.close();

    const evil = await rawPost(sock, 'evil.example');
    assert.equal(evil.status, 403);
    assert.match(evil.text, /Forbidden: Host not allowed/);
  } finally {
    await server.close();
  }
  assert.ok(!fs.existsSync(sock), 'the socket file is removed at close()');
  fs.rmSync(dir, { recursive: true, force: true });
});

test('udsMode sets the mode; uds with port is refused', unixOnly, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oxmcp-uds-'));
  const sock = path.join(dir, 'mcp.sock');
  const server = makeServer();
  try {
    await assert.rejects(server.listen({ uds: sock, port: 8000 }), (e) => {
      assert.equal(e.code, 'INVALID_OPTION');
      assert.match(e.message, /uds replaces host and port/);
      return true;
    });
    await server.listen({ uds: sock, udsMode: 0o660 });
    assert.equal(fs.lstatSync(sock).mode & 0o777, 0o660);
  } finally {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
