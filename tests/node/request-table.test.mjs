// The shared request table (tests/config/requests.json, also replayed by the Rust and Python
// tests): every row gets the same answer from Node's listen(), nodeHandler() and fetch mounts, as
// from the other languages' servers and mounts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Server } from 'oxmcp';
import { ROOT } from './helpers.mjs';

const TABLE = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'config', 'requests.json'), 'utf8'));

function fixture(config) {
  const s = new Server({ name: 'table', version: '1.0.0', handleSignals: false, ...config });
  s.registerTool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }, ({ text }) => text);
  s.registerTool('second', {}, () => '2');
  // Past tool_timeout_ms (the core answers at it); unref'd, so that it holds no test open.
  s.registerTool('wait', {}, () => new Promise((r) => setTimeout(() => r('late'), 30000).unref()));
  let entered, released;
  const inFlight = new Promise((r) => { entered = r; });
  const releasing = new Promise((r) => { released = r; });
  s.registerTool('hold', { maxConcurrency: 1 }, async () => { entered(); await releasing; return 'released'; });
  s.registerTool('entered', {}, async () => { await inFlight; return 'held'; });
  s.registerTool('release', {}, () => { released(); return 'released'; });
  return s;
}

/** A node:http server on 127.0.0.1 around `handler`; resolves to its port and a close(). */
function serve(handler) {
  const srv = http.createServer(handler);
  return new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve({ port: srv.address().port, close: () => new Promise((r) => srv.close(r)) })));
}

/** The fetch mount behind node:http: the request as a WHATWG Request, the Response written back. */
function viaFetch(s) {
  return async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const headers = new Headers();
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
    const response = await s.fetch(new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body: Buffer.concat(chunks) }));
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  };
}

const MOUNTS = {
  listen: async (s) => {
    const { url } = await s.listen({ host: '127.0.0.1', port: 0 });
    return { port: Number(new URL(url).port), close: () => s.close() };
  },
  nodeHandler: (s) => serve(s.nodeHandler()),
  fetch: (s) => serve(viaFetch(s)),
};

/** The HTTP method, headers and body a row describes (the same construction in every runner). */
function requestOf(c, port) {
  const headers = { host: `127.0.0.1:${port}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  let body;
  if (c.raw) {
    body = c.raw.body;
  } else if (c.legacy) {
    headers['mcp-protocol-version'] = '2025-11-25';
    body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: c.legacy.method, params: c.legacy.params });
  } else {
    const spec = c.modern;
    const version = spec.version ?? '2026-07-28';
    const params = structuredClone(spec.params);
    if (c.pad) params.arguments.text += 'x'.repeat(c.pad);
    const meta = { 'io.modelcontextprotocol/protocolVersion': version };
    if (!spec.no_caps) meta['io.modelcontextprotocol/clientCapabilities'] = {};
    Object.assign(headers, { 'mcp-protocol-version': version, 'mcp-method': spec.method });
    if (params.name !== undefined) headers['mcp-name'] = params.name;
    body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: spec.method, params: { ...params, _meta: meta } });
  }
  if (c.size) body = body.padEnd(c.size, ' ');
  for (const [k, v] of Object.entries(c.headers ?? {})) {
    if (v === null) delete headers[k]; else headers[k] = v;
  }
  return { headers, body };
}

function send(port, { headers, body }) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The parts of an answer a row's `expect` names. */
function outcome(c, status, text) {
  const messages = text.startsWith('{') ? [JSON.parse(text)]
    : text.split('\n').filter((l) => l.startsWith('data:') && l.slice(5).trim()).map((l) => JSON.parse(l.slice(5)));
  // The answer to the row's request (id 1), or an error that could name no id (a parse error).
  const answer = messages.find((m) => m.id === 1) ?? messages.find((m) => !('id' in m) && m.error);
  const want = c.expect;
  const got = { status };
  if ('code' in want) got.code = answer?.error ? answer.error.code : null;
  if ('message' in want) got.message = answer?.error ? answer.error.message : null;
  if ('oauth_error' in want) got.oauth_error = typeof messages[0]?.error === 'string' ? messages[0].error : null;
  if ('text' in want) got.text = answer?.result ? answer.result.content[0].text : null;
  if ('cursor' in want) got.cursor = Boolean(answer?.result && 'nextCursor' in answer.result);
  return got;
}

const callOf = (name) => ({ modern: { method: 'tools/call', params: { name, arguments: {} } }, expect: { text: '' } });

/** A `hold: true` row: sent while a `hold` call is in flight (see the table's `about`). */
async function sendWhileHeld(port, c) {
  const textOf = (name, r) => outcome(callOf(name), r.status, r.text).text;
  const held = send(port, requestOf(callOf('hold'), port));
  assert.equal(textOf('entered', await send(port, requestOf(callOf('entered'), port))), 'held');
  const answer = await send(port, requestOf(c, port));
  await send(port, requestOf(callOf('release'), port));
  assert.equal(textOf('hold', await held), 'released');
  return answer;
}

for (const [mount, start] of Object.entries(MOUNTS)) {
  for (const config of Object.keys(TABLE.configs).sort()) {
    test(`${mount}, ${config}: every row gets the shared answer`, async () => {
      const s = fixture(TABLE.configs[config]);
      const srv = await start(s);
      try {
        const differ = [];
        for (const c of TABLE.cases.filter((x) => x.config === config)) {
          const { status, text } = c.hold ? await sendWhileHeld(srv.port, c) : await send(srv.port, requestOf(c, srv.port));
          const got = outcome(c, status, text);
          try {
            assert.deepStrictEqual(got, c.expect);
          } catch {
            differ.push(`${c.name}: expected ${JSON.stringify(c.expect)}, got ${JSON.stringify(got)} (${text.slice(0, 200)})`);
          }
        }
        assert.deepEqual(differ, []);
      } finally {
        await srv.close();
      }
    });
  }
}
