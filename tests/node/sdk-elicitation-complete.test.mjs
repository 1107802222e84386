// A server written for the TypeScript SDK (unchanged, under `node --import oxmcp/register`, the SDK
// not installed) tells its client that a URL-mode elicitation completed out of band:
// `server.server.createElicitationCompletionNotifier(id)()` inside a tool sends
// notifications/elicitation/complete to that call's session over real stdio, and is refused, as the
// SDK refuses it, for a client that did not declare URL elicitation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { ROOT, exited, withTimeout } from './helpers.mjs';

const SERVER = `
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
const server = new McpServer({ name: 'url-elicit', version: '1.0.0' });
server.registerTool('finish', { description: 'Completes elicitation e-1' }, async () => {
  try {
    await server.server.createElicitationCompletionNotifier('e-1')();
    return { content: [{ type: 'text', text: 'sent' }] };
  } catch (e) {
    return { content: [{ type: 'text', text: e.message }], isError: true };
  }
});
await server.connect(new StdioServerTransport());
`;

async function session(t, capabilities) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oxmcp-elicit-complete-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.symlinkSync(ROOT, path.join(dir, 'node_modules', 'oxmcp'), 'dir');
  fs.writeFileSync(path.join(dir, 'server.mjs'), SERVER);
  const child = spawn(process.execPath, ['--import', 'oxmcp/register', 'server.mjs'], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const seen = [];
  const waiting = new Map();
  readline.createInterface({ input: child.stdout }).on('line', (l) => {
    const m = JSON.parse(l);
    seen.push(m);
    waiting.get(m.id)?.(m);
  });
  const ask = (id, method, params) => {
    const answer = new Promise((r) => waiting.set(id, r));
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return withTimeout(answer, 15_000, `${method}: ${stderr}`);
  };
  try {
    await ask(1, 'initialize', { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 't', version: '1' } });
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    const call = await ask(2, 'tools/call', { name: 'finish', arguments: {} });
    return { call: call.result, notes: seen.filter((m) => m.method === 'notifications/elicitation/complete') };
  } finally {
    child.stdin.end();
    await exited(child).catch(() => child.kill('SIGKILL'));
  }
}

test('a tool sends notifications/elicitation/complete to a client that declared URL elicitation', async (t) => {
  const { call, notes } = await session(t, { elicitation: { url: {} } });
  assert.deepEqual(call.content, [{ type: 'text', text: 'sent' }]);
  assert.deepEqual(notes.map((m) => m.params), [{ elicitationId: 'e-1' }]);
});

test('the notifier is refused for a client without URL elicitation, and nothing is sent', async (t) => {
  const { call, notes } = await session(t, { elicitation: { form: {} } });
  assert.equal(call.isError, true);
  assert.match(call.content[0].text, /Client does not support URL elicitation/);
  assert.deepEqual(notes, []);
});
