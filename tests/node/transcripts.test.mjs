// The golden JSON-RPC transcripts (tests/transcripts/*.json) replayed against the Node
// everything-server (examples/node/everything.mjs), over Streamable HTTP and stdio, a fresh
// process per file and transport. Format and matching rules: tests/transcripts/README.md; the
// Rust replayer is tests/it/transcripts.rs and the Python one tests/python/test_transcripts.py:
// this one follows them rule for rule, so the three servers are held to the same bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import { ROOT, exited, withTimeout } from './helpers.mjs';

const TRANSCRIPTS = path.join(ROOT, 'tests', 'transcripts');
const EVERYTHING = path.join(ROOT, 'examples', 'node', 'everything.mjs');
const MODERN_KEY = 'io.modelcontextprotocol/protocolVersion';
const EXCHANGE_KEYS = new Set(['request', 'response', 'notifications', 'match', 'http', 'comment']);

function load(name) {
  const t = JSON.parse(fs.readFileSync(path.join(TRANSCRIPTS, `${name}.json`), 'utf8'));
  assert.ok(t.exchanges.length, name);
  for (const ex of t.exchanges) for (const k of Object.keys(ex)) assert.ok(EXCHANGE_KEYS.has(k), `${name}: ${k}`);
  return t;
}
const FILES = fs.readdirSync(TRANSCRIPTS).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();

// -- matching "for meaning" -------------------------------------------------------------------

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

function normalize(v) {
  if (Array.isArray(v)) return v.map(normalize);
  if (!isObj(v)) return v;
  const out = {};
  for (let [k, x] of Object.entries(v)) {
    if (k === 'serverInfo' || k === 'instructions') continue;
    if (k === '_meta' && isObj(x)) {
      x = Object.fromEntries(Object.entries(x).filter(([mk]) => mk !== 'io.modelcontextprotocol/serverInfo'));
      if (!Object.keys(x).length) continue;
    }
    if (k === 'requestState' && typeof x === 'string') x = '<requestState>';
    out[k] = normalize(x);
  }
  return out;
}

/** null when `actual` matches `expected`; otherwise where and why not. */
function match(expected, actual, subset, at = '') {
  if (expected === '<any>') return null;
  if (isObj(expected) && isObj(actual)) {
    if (!subset) {
      const extra = Object.keys(actual).find((k) => !(k in expected));
      if (extra !== undefined) return `${at}/${extra}: unexpected key`;
    }
    for (const [k, ev] of Object.entries(expected)) {
      if (!(k in actual)) return `${at}/${k}: missing`;
      const err = match(ev, actual[k], subset, `${at}/${k}`);
      if (err) return err;
    }
    return null;
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (!subset) {
      if (expected.length !== actual.length) return `${at}: ${actual.length} elements, expected ${expected.length}`;
      for (let i = 0; i < expected.length; i++) {
        const err = match(expected[i], actual[i], false, `${at}/${i}`);
        if (err) return err;
      }
      return null;
    }
    let j = 0;
    for (let i = 0; i < expected.length; i++) {
      while (j < actual.length && match(expected[i], actual[j], true) !== null) j++;
      if (j === actual.length) return `${at}/${i}: no matching element for ${JSON.stringify(expected[i])}`;
      j++;
    }
    return null;
  }
  // JSON equality. JSON.parse cannot tell 1 from 1.0, so a float-vs-integer difference is not
  // visible here (the Rust and Python replayers check it).
  if (typeof expected === 'object' || typeof actual === 'object' || expected !== actual) {
    return `${at}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
  }
  return null;
}

function check(name, transport, i, ex, actual, what, expected) {
  const e = normalize(expected);
  const a = normalize(actual);
  const err = match(e, a, ex.match === 'subset');
  assert.equal(err, null, `${name} over ${transport}, exchange #${i} (${what}): ${err}\n  request:  ${JSON.stringify(ex.request)}\n  expected: ${JSON.stringify(e)}\n  actual:   ${JSON.stringify(a)}`);
}

function substitute(v, state) {
  if (v === '<requestState>') {
    assert.ok(state !== null, '<requestState> used before any response carried one');
    return state;
  }
  if (Array.isArray(v)) return v.map((x) => substitute(x, state));
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x, state)]));
  return v;
}

function lastState(msg, state) {
  const rs = isObj(msg) && isObj(msg.result) ? msg.result.requestState : undefined;
  return typeof rs === 'string' ? rs : state;
}

test('the matcher itself', () => {
  assert.equal(match({ a: 1 }, { a: 1 }, false), null);
  assert.notEqual(match({ a: 1 }, { a: 1, b: 2 }, false), null);
  assert.equal(match({ a: 1 }, { a: 1, b: 2 }, true), null);
  assert.notEqual(match({ a: 1 }, { a: 2 }, true), null);
  assert.equal(match([1, 3], [1, 2, 3], true), null);
  assert.notEqual(match([3, 1], [1, 2, 3], true), null);
  assert.notEqual(match([1, 3], [1, 2, 3], false), null);
  assert.equal(match({ x: '<any>' }, { x: [1] }, false), null);
  assert.notEqual(match({ x: '<any>' }, {}, false), null);
  assert.notEqual(match({ x: 1 }, { x: true }, false), null);
  const v = { result: { requestState: 'abc', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'x' } }, serverInfo: {}, instructions: 'i' } };
  assert.deepEqual(normalize(v), { result: { requestState: '<requestState>' } });
});

test('every transcript is replayed', () => {
  assert.deepEqual(FILES, ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28', 'stdio', 'tool-search']);
});

// -- HTTP -------------------------------------------------------------------------------------

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

async function startHttp(env) {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, '--http', `127.0.0.1:${port}`], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited early: ${stderr}`);
    const up = await new Promise((resolve) => {
      const c = net.connect(port, '127.0.0.1', () => { c.destroy(); resolve(true); });
      c.once('error', () => resolve(false));
    });
    if (up) return { child, port };
    await new Promise((r) => setTimeout(r, 20));
  }
  child.kill('SIGKILL');
  throw new Error('server did not listen in time');
}

async function stop(child) {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    try { await exited(child, 10_000); } catch { child.kill('SIGKILL'); await exited(child, 5_000); }
  }
}

async function replayHttp(name, t) {
  const { child, port } = await startHttp(t.env ?? {});
  try {
    let session = null;
    let initialized = false;
    let state = null;
    for (const [i, ex] of t.exchanges.entries()) {
      const req = substitute(ex.request, state);
      const first = Array.isArray(req) ? (req[0] ?? {}) : req;
      const method = first.method ?? '';
      const params = first.params ?? {};
      const modern = (params._meta ?? {})[MODERN_KEY];
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      if (modern !== undefined) {
        headers['mcp-protocol-version'] = modern;
        headers['mcp-method'] = method;
        const n = method === 'tools/call' || method === 'prompts/get' ? params.name : method === 'resources/read' ? params.uri : undefined;
        if (typeof n === 'string') headers['mcp-name'] = n;
      } else if (initialized) {
        if (session !== null) headers['mcp-session-id'] = session;
        if (t.protocolVersion >= '2025-06-18') headers['mcp-protocol-version'] = t.protocolVersion;
      }
      const resp = await withTimeout(fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', headers, body: JSON.stringify(req) }), 15_000, `${name} #${i}`);
      const body = await resp.text();
      const expectedStatus = ex.http?.status ?? (ex.response === null ? 202 : 200);
      assert.equal(resp.status, expectedStatus, `${name} over http, exchange #${i}: status ${resp.status}\n  request: ${JSON.stringify(req)}\n  body: ${body}`);
      if (ex.response === null) {
        assert.equal(body, '', `${name} over http, exchange #${i}: a 202 has no body`);
        continue;
      }
      const msgs = (resp.headers.get('content-type') ?? '').startsWith('text/event-stream')
        ? body.split('\n').filter((l) => l.startsWith('data:')).map((l) => JSON.parse(l.slice(5).trim()))
        : body ? [JSON.parse(body)] : [];
      assert.ok(msgs.length, `${name} over http, exchange #${i}: no response`);
      const last = msgs.pop();
      check(name, 'http', i, ex, last, 'response', ex.response);
      if ('notifications' in ex) check(name, 'http', i, ex, msgs, 'notifications', ex.notifications);
      if (method === 'initialize') {
        session = resp.headers.get('mcp-session-id');
        initialized = true;
      }
      state = lastState(last, state);
    }
  } finally {
    await stop(child);
  }
}

// -- stdio ------------------------------------------------------------------------------------

class Stdio {
  constructor(env) {
    this.child = spawn(process.execPath, [EVERYTHING], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    this.stderr = '';
    this.child.stderr.on('data', (d) => { this.stderr += d; });
    this.queue = [];
    this.waiter = null;
    readline.createInterface({ input: this.child.stdout }).on('line', (line) => {
      this.queue.push(JSON.parse(line));
      if (this.waiter) { const w = this.waiter; this.waiter = null; w(); }
    });
  }
  send(msg) { this.child.stdin.write(JSON.stringify(msg) + '\n'); }
  /** The next message, or null after `ms`. */
  async recvWithin(ms) {
    if (!this.queue.length) {
      let timer;
      await new Promise((resolve) => { this.waiter = resolve; timer = setTimeout(resolve, ms); });
      clearTimeout(timer);
      this.waiter = null;
    }
    return this.queue.length ? this.queue.shift() : null;
  }
  async recv() {
    const m = await this.recvWithin(15_000);
    assert.ok(m !== null, `no message from the server within 15 s; stderr: ${this.stderr}`);
    return m;
  }
}

async function replayStdio(name, t) {
  const s = new Stdio(t.env ?? {});
  try {
    let state = null;
    for (const [i, ex] of t.exchanges.entries()) {
      const req = substitute(ex.request, state);
      s.send(req);
      if (ex.response === null) continue;
      const notes = [];
      let m;
      for (;;) {
        m = await s.recv();
        const done = Array.isArray(req) ? Array.isArray(m) : isObj(m) && !('method' in m) && m.id === req.id;
        if (done) break;
        assert.ok(isObj(m) && 'method' in m && !('id' in m), `${name} over stdio, exchange #${i}: unexpected message ${JSON.stringify(m)}`);
        notes.push(m);
      }
      check(name, 'stdio', i, ex, m, 'response', ex.response);
      if ('notifications' in ex) check(name, 'stdio', i, ex, notes, 'notifications', ex.notifications);
      state = lastState(m, state);
    }
    const extra = await s.recvWithin(200);
    assert.equal(extra, null, `${name}: a message after the last exchange: ${JSON.stringify(extra)}`);
    s.child.stdin.end();
    const { code } = await exited(s.child, 10_000);
    assert.equal(code, 0, `stdio server exit; stderr: ${s.stderr}`);
  } finally {
    if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
  }
}

for (const name of FILES) {
  for (const transport of load(name).transports) {
    test(`transcript ${name} over ${transport}`, { timeout: 60_000 }, () => (transport === 'http' ? replayHttp : replayStdio)(name, load(name)));
  }
}

for (const transport of ['http', 'stdio']) {
  test(`the replayer catches a difference (${transport})`, { timeout: 60_000 }, async () => {
    const t = load('2026-07-28');
    const i = t.exchanges.findIndex((ex) => ex.request.params?.name === 'test_simple_text');
    t.exchanges[i].response.result.content[0].text = 'something else';
    t.exchanges = t.exchanges.slice(0, i + 1);
    await assert.rejects((transport === 'http' ? replayHttp : replayStdio)('altered', t), new RegExp(`exchange #${i} \\(response\\): /result/content/0/text`));
  });
}
