// The official TypeScript client (@modelcontextprotocol/client 2.x) against the Node
// everything server, over stdio and over Streamable HTTP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { ROOT, startHttp, exited, withTimeout } from './helpers.mjs';

const EVERYTHING = path.join(ROOT, 'examples', 'node', 'everything.mjs');

async function exercise(client) {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const n of ['test_simple_text', 'test_image_content', 'test_error_handling', 'test_tool_with_progress']) assert.ok(names.includes(n), n);
  const simple = await client.callTool({ name: 'test_simple_text', arguments: {} });
  assert.deepEqual(simple.content, [{ type: 'text', text: 'This is a simple text response for testing.' }]);
  const img = await client.callTool({ name: 'test_image_content', arguments: {} });
  assert.equal(img.content[0].type, 'image');
  assert.equal(img.content[0].mimeType, 'image/png');
  const err = await client.callTool({ name: 'test_error_handling', arguments: {} });
  assert.equal(err.isError, true);
  const progress = [];
  const p = await client.callTool({ name: 'test_tool_with_progress', arguments: {} }, { onprogress: (n) => progress.push(n.progress) });
  assert.equal(p.content[0].text, 'Progress test completed');
  assert.deepEqual(progress, [0, 50, 100]);
  const r = await client.readResource({ uri: 'test://template/42/data' });
  assert.deepEqual(JSON.parse(r.contents[0].text), { id: '42', templateTest: true, data: 'Data for ID: 42' });
  const prompt = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'testValue1', arg2: 'testValue2' } });
  assert.match(prompt.messages[0].content.text, /testValue1.*testValue2/);
  const c = await client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'te' } });
  assert.deepEqual(c.completion.values, ['test', 'testing', 'testValue1']);
}

test('official client over stdio', async () => {
  const client = new Client({ name: 'sdk-stdio', version: '1.0.0' });
  const transport = new StdioClientTransport({ command: process.execPath, args: [EVERYTHING], cwd: ROOT, stderr: 'pipe' });
  await withTimeout(client.connect(transport), 15_000, 'connect');
  try {
    await withTimeout(exercise(client), 20_000, 'exercise');
  } finally {
    await client.close();
  }
});

test('official client over Streamable HTTP', async () => {
  const srv = await startHttp(EVERYTHING);
  const client = new Client({ name: 'sdk-http', version: '1.0.0' });
  try {
    await withTimeout(client.connect(new StreamableHTTPClientTransport(new URL(srv.url))), 15_000, 'connect');
    await withTimeout(exercise(client), 20_000, 'exercise');
    await client.close();
  } finally {
    srv.child.kill('SIGTERM');
    assert.equal((await exited(srv.child)).code, 0, srv.stderr());
  }
});
