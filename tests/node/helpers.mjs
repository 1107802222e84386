// Test helpers: real subprocesses over stdio and HTTP, bounded in time.
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import readline from 'node:readline';
import assert from 'node:assert/strict';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const FIXTURE = path.join(ROOT, 'tests', 'node', 'fixtures', 'server.mjs');
export const MODERN = '2026-07-28';

export function meta(extra = {}) {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'node-tests', version: '0' },
    'io.modelcontextprotocol/clientCapabilities': {},
    ...extra,
  };
}

export function withTimeout(p, ms, what) {
  let t;
  return Promise.race([p, new Promise((_, rej) => { t = setTimeout(() => rej(new Error(`timed out after ${ms} ms: ${what}`)), ms); })]).finally(() => clearTimeout(t));
}

/** Wait (bounded) until a server from `startHttp` has written `needle` on its stderr. */
export async function untilStderr(srv, needle, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!srv.stderr().includes(needle)) {
    if (Date.now() > deadline) throw new Error(`no ${JSON.stringify(needle)} on stderr within ${ms} ms: ${srv.stderr()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Wait for a child to exit; resolves { code, signal }. */
export function exited(child, ms = 10_000) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return withTimeout(new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal }))), ms, 'child exit');
}

/** A stdio MCP server subprocess with a line-oriented JSON-RPC client. */
export class StdioPeer {
  constructor(script = FIXTURE, args = []) {
    this.child = spawn(process.execPath, [script, ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    this.stderr = '';
    this.child.stderr.on('data', (d) => { this.stderr += d; });
    this.messages = [];
    this.waiters = [];
    this.nextId = 1;
    readline.createInterface({ input: this.child.stdout }).on('line', (line) => {
      const msg = JSON.parse(line);
      this.messages.push(msg);
      for (const w of [...this.waiters]) if (w.pred(msg)) { this.waiters.splice(this.waiters.indexOf(w), 1); w.resolve(msg); }
    });
  }
  send(msg) { this.child.stdin.write(JSON.stringify(msg) + '\n'); }
  waitFor(pred, ms = 10_000, what = 'message') {
    const found = this.messages.find(pred);
    if (found) return Promise.resolve(found);
    return withTimeout(new Promise((resolve) => this.waiters.push({ pred, resolve })), ms, `${what}; stderr: ${this.stderr}`);
  }
  async request(method, params = {}, { modern = true, ms = 10_000 } = {}) {
    const id = this.nextId++;
    const p = modern ? { ...params, _meta: { ...meta(), ...(params._meta ?? {}) } } : params;
    this.send({ jsonrpc: '2.0', id, method, params: p });
    return this.waitFor((m) => m.id === id && (m.result !== undefined || m.error !== undefined), ms, `response to ${method}`);
  }
  async initialize() {
    const r = await this.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'node-tests', version: '0' } }, { modern: false });
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return r;
  }
  kill() { if (this.child.exitCode === null) this.child.kill('SIGKILL'); }
}

/**
 * An HTTP MCP server subprocess on 127.0.0.1 (a free port); resolves once it listens. `prefix`:
 * a command the server runs under (e.g. `['taskset', '-c', '0']`).
 */
export async function startHttp(script = FIXTURE, args = [], { prefix = [] } = {}) {
  const argv = [process.execPath, script, '--http', '127.0.0.1:0', ...args];
  const child = spawn(prefix.length ? prefix[0] : argv[0], [...prefix.slice(1), ...(prefix.length ? argv : argv.slice(1))],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stdout.on('data', (d) => { stdout += d; });
  const url = await withTimeout(new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = /listening on (http:\/\/\S+)/.exec(stderr);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${stderr}`)));
  }), 15_000, 'server to listen');
  return { child, url, stderr: () => stderr, stdout: () => stdout, kill: () => { if (child.exitCode === null) child.kill('SIGKILL'); } };
}

/** POST one modern JSON-RPC request; returns { status, headers, messages, body }. */
export async function post(url, method, params = {}, { id = 1, headers = {}, signal, metaExtra = {}, raw } = {}) {
  const body = raw ?? JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta(metaExtra) } });
  const h = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
    ...headers,
  };
  if (params.name !== undefined || params.uri !== undefined) h['mcp-name'] = params.name ?? params.uri;
  const res = await fetch(url, { method: 'POST', headers: h, body, signal });
  const text = await res.text();
  const ctype = res.headers.get('content-type') ?? '';
  let messages = [];
  if (ctype.startsWith('text/event-stream')) {
    messages = text.split('\n\n').map((ev) => ev.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('')).filter(Boolean).map((d) => JSON.parse(d));
  } else if (text) {
    messages = [JSON.parse(text)];
  }
  return { status: res.status, headers: res.headers, messages, body: text, response: messages.find((m) => m.id === id) };
}

export async function callTool(url, name, args, opts) {
  const r = await post(url, 'tools/call', args === undefined ? { name } : { name, arguments: args }, opts);
  return r;
}

/** `n` calls in flight at once to the fixture server's tools, six kinds in turn (sync, async,
 * throwing, a ToolError, structured, an MCP error): each must get its own answer. */
export async function mixedCalls(url, n) {
  const result = async (name, args) => {
    const r = await callTool(url, name, args);
    assert.equal(r.status, 200, r.body);
    assert.ok(r.response, r.body);
    return r.response.result ?? r.response;
  };
  const calls = [];
  for (let i = 0; i < n; i++) {
    switch (i % 6) {
      case 0: calls.push(result('add_json', { a: i, b: 2 * i }).then((r) => assert.equal(r.content[0].text, String(3 * i)))); break;
      case 1: calls.push(result('async_ok').then((r) => assert.equal(r.content[0].text, 'async'))); break;
      case 2: calls.push(result('throws_error').then((r) => assert.equal(r.content[0].text, 'Error executing tool throws_error'))); break;
      case 3: calls.push(result('throws_tool_error').then((r) => assert.equal(r.content[0].text, 'bad input: try again'))); break;
      case 4: calls.push(result('ret_structured').then((r) => assert.deepEqual(r.structuredContent, { n: 42 }))); break;
      default: calls.push(callTool(url, 'throws_mcp_error', {}).then((r) => assert.equal(r.response.error.code, -32602)));
    }
  }
  await Promise.all(calls);
}

/**
 * DPoP material (RFC 9449): an issuer's RSA key and its JWKS, a client's P-256 key, an access
 * token the issuer bound to the client key (`cnf.jkt`), and `proof(claims)` for a POST to
 * `resource` with that token.
 */
export function dpopKeys({ issuer = 'https://auth.example.com', resource = 'https://mcp.example.com/mcp' } = {}) {
  const as = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const client = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const cjwk = client.publicKey.export({ format: 'jwk' });
  const sha = (s) => crypto.createHash('sha256').update(s).digest('base64url');
  // RFC 7638: the required members, in lexicographic order, compact.
  const jkt = sha(JSON.stringify({ crv: cjwk.crv, kty: cjwk.kty, x: cjwk.x, y: cjwk.y }));
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const head = b64({ alg: 'RS256', typ: 'JWT', kid: 'k1' });
  const body = b64({ iss: issuer, aud: resource, exp: now + 300, iat: now, sub: 'dpop-user', scope: 'mcp:tools', cnf: { jkt } });
  const token = `${head}.${body}.${crypto.sign('RSA-SHA256', Buffer.from(`${head}.${body}`), as.privateKey).toString('base64url')}`;
  const proof = (claims = {}) => {
    const h = b64({ typ: 'dpop+jwt', alg: 'ES256', jwk: cjwk });
    const c = b64({ htm: 'POST', htu: resource, iat: now, jti: crypto.randomUUID(), ath: sha(token), ...claims });
    const sig = crypto.sign('sha256', Buffer.from(`${h}.${c}`), { key: client.privateKey, dsaEncoding: 'ieee-p1363' });
    return `${h}.${c}.${sig.toString('base64url')}`;
  };
  const jwks = { keys: [{ ...as.publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'RS256' }] };
  const oauth = { resource, issuer, jwks };
  return { token, proof, oauth, headers: (p) => ({ headers: { authorization: `DPoP ${token}`, dpop: p } }) };
}
