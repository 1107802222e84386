// Protocol rules decided once, in the core. The invalid-arguments text is the core's. Arguments that pass the input schema but fail
// zod (a refinement JSON Schema cannot express) go to the core as {path, message}; the core renders
// the same text as for a schema violation, and as the Python binding gives
// (tests/python/test_core_rules.py): an isError result or -32602 as `validation` says. A list a
// tool returns with no outputSchema is made content by the core (ToolResult::from_list).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { post } from './helpers.mjs';

async function start(t, validation) {
  const { Server } = await import('oxmcp');
  const { z } = await import('zod');
  const lower = z.string().refine((s) => s === s.toLowerCase(), 'must be lower case');
  const s = new Server({ name: 'refusing', version: '1', handleSignals: false, validation });
  s.registerTool('shout', { inputSchema: { word: lower } }, ({ word }) => word.toUpperCase());
  s.registerTool('data_list', { description: 'x' }, () => [1, { k: 'v' }, 'x']);
  s.registerTool('empty_list', { description: 'x' }, () => []);
  s.registerTool('block_list', { description: 'x' }, () => ['a', { type: 'text', text: 'b' }]);
  s.registerPrompt('greet', { argsSchema: { name: lower } }, ({ name }) => `Hello ${name}`);
  const { url } = await s.listen({ host: '127.0.0.1', port: 0 });
  t.after(() => s.close());
  return url;
}

test('host validation failures get the core\'s text (isError for tools, -32602 for prompts)', async (t) => {
  const url = await start(t, 'tool_error');
  let r = (await post(url, 'tools/call', { name: 'shout', arguments: { word: 'LOUD' } })).response.result;
  assert.equal(r.isError, true, JSON.stringify(r));
  const lines = r.content[0].text.split('\n');
  assert.equal(lines[0], 'Invalid arguments for tool shout:');
  assert.equal(lines.length, 2, r.content[0].text);
  assert.ok(lines[1].startsWith('/word: ') && lines[1].includes('must be lower case'), lines[1]);
  assert.equal(r.structuredContent, undefined);
  r = (await post(url, 'tools/call', { name: 'shout', arguments: { word: 3 } })).response.result;
  assert.ok(r.content[0].text.startsWith('Invalid arguments for tool shout:\n/word: '), r.content[0].text);
  r = (await post(url, 'tools/call', { name: 'shout', arguments: { word: 'ok' } })).response.result;
  assert.equal(r.content[0].text, 'OK');
  const e = (await post(url, 'prompts/get', { name: 'greet', arguments: { name: 'ADA' } })).response.error;
  assert.equal(e.code, -32602);
  assert.equal(e.message, 'Invalid arguments for prompt greet');
  assert.equal(e.data.violations.length, 1);
  assert.equal(e.data.violations[0].pointer, '/name');
  assert.match(e.data.violations[0].message, /must be lower case/);
});

test('jsonrpc_error mode answers invalid params with the violations', async (t) => {
  const url = await start(t, 'jsonrpc_error');
  const e = (await post(url, 'tools/call', { name: 'shout', arguments: { word: 'LOUD' } })).response.error;
  assert.equal(e.code, -32602);
  assert.equal(e.message, 'Invalid arguments for tool shout');
  assert.deepEqual(e.data.violations.map((v) => v.pointer), ['/word']);
  assert.match(e.data.violations[0].message, /must be lower case/);
});

test('a list with no outputSchema is content by the core\'s rule (the same bytes as Python)', async (t) => {
  const url = await start(t, 'tool_error');
  const content = async (name) => {
    const r = (await post(url, 'tools/call', { name, arguments: {} })).response.result;
    assert.equal(r.isError, undefined, JSON.stringify(r));
    return r.content;
  };
  assert.deepEqual(await content('data_list'), [{ type: 'text', text: '[1,{"k":"v"},"x"]' }]);
  assert.deepEqual(await content('empty_list'), [{ type: 'text', text: '[]' }]);
  assert.deepEqual(await content('block_list'), [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }]);
});
