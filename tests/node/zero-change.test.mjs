// Zero-change mode: a server written for the TypeScript SDK, with the SDK's own imports, runs on
// oxmcp unmodified under `oxmcp run server.js` and `node --import oxmcp/register server.js`, in a
// project where the SDK is not installed at all (so nothing but oxmcp can answer). ESM and
// CommonJS, v1 and v2 spellings; a module oxmcp does not mirror is an error that names it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { ROOT, exited, withTimeout } from './helpers.mjs';

const CLI = path.join(ROOT, 'bindings-node', 'cli', 'main.mjs');

const V1_ESM = `
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
const server = new McpServer({ name: 'weather', version: '1.0.0' });
server.registerTool('forecast', { description: 'The forecast', inputSchema: { city: z.string() } },
  async ({ city }) => ({ content: [{ type: 'text', text: 'Sunny in ' + city }] }));
await server.connect(new StdioServerTransport());
`;

const V1_CJS = `
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { z } = require('zod');
const server = new McpServer({ name: 'weather-cjs', version: '1.0.0' });
server.tool('forecast', { city: z.string() }, async ({ city }) => ({ content: [{ type: 'text', text: 'Rain in ' + city }] }));
server.connect(new StdioServerTransport());
`;

const V2_ESM = `
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';
serveStdio(() => {
  const server = new McpServer({ name: 'weather-v2', version: '2.0.0' });
  server.registerTool('forecast', { inputSchema: z.object({ city: z.string() }) }, async ({ city }) => ({ content: [{ type: 'text', text: 'Snow in ' + city }] }));
  return server;
});
`;

const UNMIRRORED = `
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
`;

/** A project with the server file and node_modules holding only zod and oxmcp (no SDK). */
function project(t, name, source) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oxmcp-zero-change-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.symlinkSync(ROOT, path.join(dir, 'node_modules', 'oxmcp'), 'dir');
  fs.symlinkSync(path.join(ROOT, 'node_modules', 'zod'), path.join(dir, 'node_modules', 'zod'), 'dir');
  fs.writeFileSync(path.join(dir, name), source);
  return path.join(dir, name);
}

/** Run `argv` as a stdio MCP server; initialize, call forecast, and return the text. */
async function forecast(argv, cwd) {
  const child = spawn(process.execPath, argv, { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const lines = readline.createInterface({ input: child.stdout });
  const answers = new Map();
  const waiting = new Map();
  lines.on('line', (l) => {
    const m = JSON.parse(l);
    if (waiting.has(m.id)) waiting.get(m.id)(m); else answers.set(m.id, m);
  });
  const ask = (id, method, params) => {
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return withTimeout(answers.has(id) ? Promise.resolve(answers.get(id)) : new Promise((r) => waiting.set(id, r)), 15_000, `${method}: ${stderr}`);
  };
  try {
    const init = await ask(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } });
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    const call = await ask(2, 'tools/call', { name: 'forecast', arguments: { city: 'Oslo' } });
    return { serverInfo: init.result.serverInfo, text: call.result.content[0].text };
  } finally {
    child.stdin.end();
    await exited(child).catch(() => child.kill('SIGKILL'));
  }
}

test('oxmcp run: an unchanged v1 (ESM) server, the SDK not installed', async (t) => {
  const file = project(t, 'server.mjs', V1_ESM);
  const r = await forecast([CLI, 'run', file], path.dirname(file));
  assert.deepEqual(r, { serverInfo: r.serverInfo, text: 'Sunny in Oslo' });
  assert.equal(r.serverInfo.name, 'weather');
});

test('node --import oxmcp/register: an unchanged v1 (ESM) server, and a CommonJS one', async (t) => {
  const esm = project(t, 'server.mjs', V1_ESM);
  assert.equal((await forecast(['--import', 'oxmcp/register', esm], path.dirname(esm))).text, 'Sunny in Oslo');
  const cjs = project(t, 'server.cjs', V1_CJS);
  assert.equal((await forecast(['--import', 'oxmcp/register', cjs], path.dirname(cjs))).text, 'Rain in Oslo');
});

test('oxmcp run: an unchanged v2 server (@modelcontextprotocol/server + serveStdio)', async (t) => {
  const file = project(t, 'server.mjs', V2_ESM);
  assert.equal((await forecast([CLI, 'run', file], path.dirname(file))).text, 'Snow in Oslo');
});

test('a module oxmcp does not mirror is an error that names it, and the SDK is never loaded', async (t) => {
  const file = project(t, 'server.mjs', UNMIRRORED);
  const child = spawn(process.execPath, ['--import', 'oxmcp/register', file], { cwd: path.dirname(file), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const { code } = await exited(child);
  assert.notEqual(code, 0);
  assert.match(stderr, /@modelcontextprotocol\/sdk\/server\/auth\/router\.js has no oxmcp counterpart/);
});

test('oxmcp run refuses --http for a script that serves itself over stdio', async (t) => {
  const file = project(t, 'server.mjs', V1_ESM);
  const child = spawn(process.execPath, [CLI, 'run', file, '--http', '127.0.0.1:0'], { cwd: path.dirname(file), stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const { code } = await exited(child, 15_000);
  assert.notEqual(code, 0);
  assert.match(stderr, /serves itself when it runs; run it without --http/);
});

test('@modelcontextprotocol/express: createMcpExpressApp is mirrored, its auth middleware is not, so a server that uses it does not start', async (t) => {
  const file = project(t, 'server.mjs', "import { requireBearerAuth } from '@modelcontextprotocol/express';\nconsole.log(typeof requireBearerAuth);\n");
  const child = spawn(process.execPath, ['--import', 'oxmcp/register', file], { cwd: path.dirname(file), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (d) => { stderr += d; });
  child.stdout.on('data', (d) => { stdout += d; });
  const { code } = await exited(child);
  assert.notEqual(code, 0, stdout);
  assert.match(stderr, /requireBearerAuth/);
});

const V1_EXPRESS = `
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
const app = createMcpExpressApp();
app.post('/mcp', async (req, res) => {
  const server = new McpServer({ name: 'weather-express', version: '1.0.0' });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
});
const listener = app.listen(0, '127.0.0.1', () => console.error('port ' + listener.address().port));
`;

test('node --import oxmcp/register, oxmcp installed elsewhere: the server\'s own express is used', async (t) => {
  // The project has express (the SDK 1.x brought it) and no oxmcp: oxmcp is imported from the
  // checkout, whose node_modules has no express.
  const express = path.join(ROOT, '.cache', 'peers-node', 'node_modules', 'express');
  assert.ok(fs.existsSync(express), `express is not installed in ${express} (scripts/setup.sh)`);
  assert.ok(!fs.existsSync(path.join(ROOT, 'node_modules', 'express')), 'the checkout must not have express of its own');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oxmcp-zero-change-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.symlinkSync(express, path.join(dir, 'node_modules', 'express'), 'dir');
  fs.writeFileSync(path.join(dir, 'server.mjs'), V1_EXPRESS);
  const register = new URL(`file://${path.join(ROOT, 'bindings-node', 'lib', 'register.mjs')}`).href;
  const child = spawn(process.execPath, ['--import', register, 'server.mjs'], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  t.after(async () => { child.kill('SIGTERM'); await exited(child).catch(() => child.kill('SIGKILL')); });
  let stderr = '';
  const port = await withTimeout(new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = /port (\d+)/.exec(stderr);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${stderr}`)));
  }), 15_000, 'server to listen');
  const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  assert.match(text, /"name":"weather-express"/);
});

test('@modelcontextprotocol/sdk/experimental/tasks/interfaces.js is mirrored (isTerminal, as the SDK\'s task examples import it)', async (t) => {
  const file = project(t, 'server.mjs', `
import { isTerminal } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
process.stdout.write(JSON.stringify([isTerminal('completed'), isTerminal('working')]));
`);
  const child = spawn(process.execPath, ['--import', 'oxmcp/register', file], { cwd: path.dirname(file), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let stderr = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  const { code } = await exited(child);
  assert.equal(code, 0, stderr);
  assert.deepEqual(JSON.parse(out), [true, false]);
});
