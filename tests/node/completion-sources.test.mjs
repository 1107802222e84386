// Completers given at registration (`complete: { arg: values | enum | function }`): the fixture
// served over HTTP answers `completion/complete` as the Rust and Python fixtures do (the shared
// cases in tests/fixtures/completion/cases.json); arrays and enums are matched by the core.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import net from 'node:net';
import { createRequire } from 'node:module';
import { Server } from 'oxmcp';

const require = createRequire(import.meta.url);
const { splitCompleters } = require('../../bindings-node/lib/prompt-args.cjs');

const FIXTURE = fileURLToPath(new URL('../fixtures/completion/', import.meta.url));
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

const freePort = () => new Promise((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address();
    s.close(() => resolve(port));
  });
});

async function listening(port, child) {
  for (let i = 0; i < 1000; i++) {
    if (child.exitCode !== null) throw new Error(`the fixture exited with ${child.exitCode}`);
    const ok = await new Promise((resolve) => {
      const c = net.connect(port, '127.0.0.1', () => { c.end(); resolve(true); });
      c.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the fixture did not listen');
}

async function complete(port, ref, name, value) {
  const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json', accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28', 'mcp-method': 'completion/complete',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'completion/complete', params: { ref, argument: { name, value }, _meta: META } }),
  });
  assert.equal(res.status, 200);
  return res.json();
}

test('the shared cases over HTTP', async () => {
  const { cases } = JSON.parse(readFileSync(`${FIXTURE}cases.json`, 'utf8'));
  const port = await freePort();
  const child = spawn(process.execPath, [`${FIXTURE}server.mjs`, '--http', `127.0.0.1:${port}`], { stdio: ['ignore', 'ignore', 'inherit'] });
  try {
    await listening(port, child);
    for (const [ref, name, typed, want] of cases) {
      const got = await complete(port, ref, name, typed);
      assert.deepEqual(got.result.completion.values, want, JSON.stringify([ref, name, typed, got]));
    }
  } finally {
    child.kill('SIGTERM');
  }
});

test('a numeric enum completes to its names, a zod enum to its options; a bad completer is refused', () => {
  // What `enum Level { Low, High }` compiles to: names and reverse numeric entries.
  const Level = { Low: 0, High: 1, 0: 'Low', 1: 'High' };
  const fn = () => [];
  const { values, fns } = splitCompleters({ level: Level, mode: { options: ['fast', 'safe'] }, free: fn }, 'p');
  assert.deepEqual(values, { level: ['Low', 'High'], mode: ['fast', 'safe'] });
  assert.deepEqual(fns, { free: fn });
  const s = new Server({ name: 'c', version: '1' });
  assert.throws(
    () => s.registerPrompt('q', { arguments: [{ name: 'x' }], complete: { x: 3 } }, () => 'x'),
    /registerPrompt\(q\): complete.x: a completer is an array of values, an enum or a function/,
  );
});

test("a completer for an argument or variable the primitive lacks is the core's refusal, with Python's text", () => {
  const s = new Server({ name: 'c', version: '1' });
  assert.throws(
    () => s.registerPrompt('q', { arguments: [{ name: 'x' }], complete: { y: ['a'] } }, () => 'x'),
    { name: 'RegistrationError', message: "prompt 'q' has no argument 'y' to complete" },
  );
  assert.throws(
    () => s.registerResource('d', 'docs://{section}', { complete: { page: () => [] } }, () => ''),
    { message: "resource 'docs://{section}' has no template variable 'page' to complete" },
  );
  assert.throws(
    () => s.registerResource('m', 'docs://motd', { complete: { x: ['a'] } }, () => ''),
    { message: "resource 'docs://motd' has no template variable 'x' to complete" },
  );
  // Nothing of a refused registration is kept.
  s.registerPrompt('q', { arguments: [{ name: 'x' }], complete: { x: ['a'] } }, () => 'x');
});
