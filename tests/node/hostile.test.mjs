// The shared hostile-input corpus (tests/hostile/corpus.json) against the Node everything server,
// and OpenTelemetry export from it: real processes, real HTTP on 127.0.0.1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { ROOT, exited, withTimeout } from './helpers.mjs';

const CORPUS = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'hostile', 'corpus.json'), 'utf8'));
const EVERYTHING = path.join(ROOT, 'examples', 'node', 'everything.mjs');

/** A case's body, as the corpus's `body_forms` describe. */
function bodyOf(form) {
  const call = (id) => CORPUS.call_template.replace('$ID', id);
  if (form.text !== undefined) return Buffer.from(form.text, 'utf8');
  if (form.hex !== undefined) return Buffer.from(form.hex, 'hex');
  if (form.repeat) return Buffer.from(form.repeat.map(([chunk, n]) => chunk.replace('$CALL', call('1')).repeat(n)).join(''), 'utf8');
  let out = call(form.call);
  const x = 'x'.repeat(form.x ?? 0);
  for (const [from, to] of form.replace ?? []) {
    assert.ok(out.includes(from), from);
    out = out.replace(from, () => to.replaceAll('$X', x));
  }
  return Buffer.from(out + (form.append ?? ''), 'utf8');
}

/** One POST on its own connection. A body over the 4 MiB cap is refused from its Content-Length
 * alone, so for such a body the answer is awaited before the body is sent. */
function post(port, headers, body) {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST',
      headers: { ...headers, 'content-length': body.length, connection: 'close' } }, (res) => {
      answered = true;
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', (e) => { if (!answered) reject(e); });
    if (body.length > 4 << 20) {
      req.flushHeaders();
      setTimeout(() => { if (!answered) req.end(body); }, 2000);
    } else {
      req.end(body);
    }
  });
}

function start(env) {
  const child = spawn(process.execPath, [EVERYTHING, '--http', '127.0.0.1:0'],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  let stderr = '';
  const port = withTimeout(new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${stderr}`)));
  }), 15_000, 'server to listen');
  return { child, port, stderr: () => stderr };
}

test('hostile corpus: spec status and code for every case, no handler run, still serving', async (t) => {
  const srv = start({ OXMCP_LOG: 'warn,oxmcp::audit=info', OXMCP_LOG_FORMAT: 'json' });
  t.after(() => { if (srv.child.exitCode === null) srv.child.kill('SIGKILL'); });
  const port = await srv.port;
  for (const c of CORPUS.cases) {
    const r = await post(port, { ...CORPUS.default_headers, ...(c.headers ?? {}) }, bodyOf(c.body));
    assert.equal(r.status, c.status, `${c.name}: ${r.body.slice(0, 300)}`);
    if (c.code !== undefined) assert.equal(JSON.parse(r.body).error.code, c.code, c.name);
  }
  const good = await post(port, CORPUS.default_headers, Buffer.from(CORPUS.call_template.replace('$ID', '424242')));
  assert.equal(good.status, 200, good.body);
  assert.equal(JSON.parse(good.body).result.content[0].type, 'text');
  const audit = () => srv.stderr().split('\n').filter((l) => l.includes('"oxmcp::audit"')).map((l) => JSON.parse(l));
  for (let i = 0; i < 100 && !audit().some((a) => a.fields.request_id === '424242'); i++) await new Promise((r) => setTimeout(r, 50));
  const lines = audit();
  assert.equal(lines.length, 1, `only the good call reached a handler: ${JSON.stringify(lines)}`);
  assert.equal(lines[0].fields.name, 'test_simple_text');
  assert.equal(lines[0].fields.outcome, 'ok');
  srv.child.kill('SIGTERM');
  assert.equal((await exited(srv.child)).code, 0);
});

test('OpenTelemetry: the request span is exported over OTLP with the caller\'s trace', async (t) => {
  const bodies = [];
  const collector = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') bodies.push(Buffer.concat(chunks));
      res.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': 0 }).end();
    });
  });
  await new Promise((r) => collector.listen(0, '127.0.0.1', r));
  t.after(() => collector.close());
  const srv = start({
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${collector.address().port}/v1/traces`,
    OTEL_SERVICE_NAME: 'node-otel-test',
  });
  t.after(() => { if (srv.child.exitCode === null) srv.child.kill('SIGKILL'); });
  const port = await srv.port;
  const traceId = crypto.randomBytes(16).toString('hex');
  const parentId = crypto.randomBytes(8).toString('hex');
  const body = JSON.parse(CORPUS.call_template.replace('$ID', '7'));
  body.params._meta.traceparent = `00-${traceId}-${parentId}-01`;
  body.params._meta.tracestate = 'vendor=abc';
  const r = await post(port, CORPUS.default_headers, Buffer.from(JSON.stringify(body)));
  assert.equal(r.status, 200, r.body);
  // A graceful stop flushes the spans still queued.
  srv.child.kill('SIGTERM');
  assert.equal((await exited(srv.child)).code, 0, srv.stderr());
  for (let i = 0; i < 100 && bodies.length === 0; i++) await new Promise((res) => setTimeout(res, 50));
  const data = Buffer.concat(bodies);
  assert.ok(data.includes(Buffer.from(traceId, 'hex')), 'the exported span continues the caller\'s trace');
  assert.ok(data.includes(Buffer.from(parentId, 'hex')), 'the caller\'s span is its parent');
  for (const s of ['node-otel-test', 'tools/call test_simple_text', 'vendor=abc']) assert.ok(data.includes(Buffer.from(s)), s);
  // The MCP semantic conventions' attributes, by key and value (OTLP protobuf keeps them as text).
  for (const s of ['mcp.method.name', 'tools/call', 'gen_ai.tool.name', 'test_simple_text', 'gen_ai.operation.name', 'execute_tool']) {
    assert.ok(data.includes(Buffer.from(s)), s);
  }
});

test('maxStringBytes: a longer JSON string is 413 + -32600 before any handler runs', async () => {
  const { Server } = await import('oxmcp');
  let ran = 0;
  const s = new Server({ name: 'caps', version: '1', handleSignals: false });
  s.registerTool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, ({ text }) => {
    ran += 1;
    return text;
  });
  const { port } = await s.listen({ host: '127.0.0.1', port: 0, maxStringBytes: 4096 });
  try {
    const call = (text) => Buffer.from(CORPUS.call_template.replace('$ID', '1')
      .replace('"name":"test_simple_text","arguments":{}', `"name":"echo","arguments":{"text":"${text}"}`));
    const headers = { ...CORPUS.default_headers, 'mcp-name': 'echo' };
    const long = await post(port, headers, call('x'.repeat(5000)));
    assert.equal(long.status, 413, long.body);
    assert.equal(JSON.parse(long.body).error.code, -32600);
    assert.match(JSON.parse(long.body).error.message, /4096-byte string limit/);
    assert.equal(ran, 0);
    const ok = await post(port, headers, call('x'.repeat(4000)));
    assert.equal(ok.status, 200, ok.body);
    assert.equal(JSON.parse(ok.body).result.content[0].text.length, 4000);
  } finally {
    await s.close();
  }
});
