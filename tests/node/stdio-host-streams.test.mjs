// Servers that touch Node's own `process.stdin` / `process.stdout` before serving stdio (a bare
// `process.stdin;`, `import process from "node:process"` as chalk 5 does): Node then puts the
// pipes on fd 0 and 1 in non-blocking mode, and the stdio transport must keep serving - several
// calls, and answers larger than a pipe holds - until the client closes stdin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { ROOT, withTimeout } from './helpers.mjs';

const fixture = (name) => path.join(ROOT, 'tests', 'node', 'fixtures', name);

async function connect(script) {
  const client = new Client({ name: 'host-streams', version: '1.0.0' });
  const transport = new StdioClientTransport({ command: process.execPath, args: [script], cwd: ROOT, stderr: 'pipe' });
  let closed = false;
  client.onclose = () => { closed = true; };
  await withTimeout(client.connect(transport), 15_000, 'connect');
  return { client, closed: () => closed };
}

async function severalCalls(client) {
  for (let i = 0; i < 5; i++) {
    // A pause between calls: the server's reader finds the pipe empty each time.
    await new Promise((r) => setTimeout(r, 50));
    const r = await withTimeout(client.callTool({ name: 'add', arguments: { a: i, b: 1 } }), 10_000, `call ${i}`);
    assert.deepEqual(r.content, [{ type: 'text', text: String(i + 1) }]);
  }
}

test('a bare `process.stdin;` before connect: the server keeps serving', async () => {
  const { client, closed } = await connect(fixture('stdin-touched.mjs'));
  try {
    await severalCalls(client);
    assert.equal(closed(), false);
  } finally {
    await client.close();
  }
});

test('`import process from "node:process"` first: several calls, and answers larger than the pipe', async () => {
  const { client, closed } = await connect(fixture('node-process-import.mjs'));
  try {
    await severalCalls(client);
    for (const kb of [256, 2048]) {
      const r = await withTimeout(client.callTool({ name: 'big', arguments: { kb } }), 20_000, `big ${kb}`);
      assert.equal(r.content[0].text.length, kb * 1024);
    }
    await severalCalls(client);
    assert.equal(closed(), false);
  } finally {
    await client.close();
  }
});
