// A refusal of a tool's arguments is the core's decision; a tool (or its compatibility layer) only
// words it (`refusalText`): the text of an isError result, or the message of a -32602, whose code
// and data.violations stay the core's. No words (undefined) keeps the core's text, and a refused
// call never runs. The same server and assertions as tests/python/test_refusal_words.py. Over real HTTP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { post } from './helpers.mjs';

async function start(t, validation) {
  const { Server } = await import('oxmcp');
  const { z } = await import('zod');
  const s = new Server({ name: 'refusal-words', version: '1', handleSignals: false, validation });
  let ran = 0;
  const words = async (args, violations) => (args.n === 0 ? undefined
    : `refused ${JSON.stringify(args)} at ${violations.map((v) => v.pointer).join(',')}`);
  s.registerTool('count', { inputSchema: { n: z.number().int().min(1) }, refusalText: words }, ({ n }) => {
    ran += 1;
    return `counted ${n}`;
  });
  s.registerTool('calls', { description: 'how often count ran' }, () => String(ran));
  const { url } = await s.listen({ host: '127.0.0.1', port: 0 });
  t.after(() => s.close());
  return url;
}

const call = async (url, name, args) => (await post(url, 'tools/call', { name, arguments: args })).response;

test('the tool words a refusal the core decided', async (t) => {
  const url = await start(t, 'tool_error');
  let r = (await call(url, 'count', { n: '-3' })).result;
  assert.equal(r.isError, true, JSON.stringify(r));
  assert.deepEqual(r.content, [{ type: 'text', text: 'refused {"n":"-3"} at /n' }]);
  assert.equal(r.structuredContent, undefined);
  r = (await call(url, 'count', { n: 0 })).result;
  assert.equal(r.isError, true, JSON.stringify(r));
  assert.equal(r.content[0].text, 'Invalid arguments for tool count:\n/n: 0 is less than the minimum of 1');
  assert.equal((await call(url, 'calls', {})).result.content[0].text, '0', 'a refused call never runs');
  r = (await call(url, 'count', { n: 2 })).result;
  assert.equal(r.content[0].text, 'counted 2');
});

test('a worded JSON-RPC refusal keeps the core\'s code and data', async (t) => {
  const url = await start(t, 'jsonrpc_error');
  const e = (await call(url, 'count', {})).error;
  assert.equal(e.code, -32602);
  assert.equal(e.message, 'refused {} at ');
  assert.deepEqual(e.data.violations.map((v) => v.pointer), ['']);
});

test('refusalText is checked when the tool is registered', async () => {
  const { Server } = await import('oxmcp');
  const s = new Server({ name: 'x', version: '1', handleSignals: false });
  assert.throws(() => s.registerTool('a', { refusalText: 'no' }, () => 'a'), /refusalText must be a function/);
  assert.throws(() => s.addTools([{ name: 'b', handler: () => 'b', refusalText: () => 'b' }]), /registerTool only/);
});
