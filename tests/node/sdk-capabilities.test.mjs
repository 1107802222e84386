// The capabilities a server written for the TS SDK 1.x declares are the ones the SDK declares for
// it: what it was given, plus what McpServer's registrations add (tools, resources, prompts with
// `listChanged`, completions when an argument completes); the low-level Server exactly what it
// was given. A capability left out is not served: `logging/setLevel` is unknown (-32601) and
// `sendLoggingMessage` sends nothing, as on the SDK.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ROOT, StdioPeer } from './helpers.mjs';

const FIXTURE = path.join(ROOT, 'tests', 'node', 'fixtures', 'sdk-capabilities.mjs');

async function session(mode, fn) {
  const peer = new StdioPeer(FIXTURE, [mode]);
  try {
    const init = await peer.initialize();
    await fn(peer, init.result.capabilities);
  } finally {
    peer.kill();
  }
}

/** Call tool `log`; the notifications/message seen before its answer. */
async function logCall(peer) {
  const before = peer.messages.length;
  const r = await peer.request('tools/call', { name: 'log', arguments: {} }, { modern: false });
  assert.equal(r.result?.content?.[0]?.text, 'logged', JSON.stringify(r));
  return peer.messages.slice(before).filter((m) => m.method === 'notifications/message');
}

test('McpServer (v1) with nothing declared: tools only, no logging', async () => {
  await session('plain', async (peer, caps) => {
    assert.deepEqual(caps, { tools: { listChanged: true } });
    const level = await peer.request('logging/setLevel', { level: 'debug' }, { modern: false });
    assert.equal(level.error?.code, -32601, JSON.stringify(level));
    assert.deepEqual(await logCall(peer), []);
    assert.equal((await peer.request('resources/list', {}, { modern: false })).error?.code, -32601);
  });
});

test('McpServer (v1): what it was given, merged with what its registrations add', async () => {
  await session('declared', async (peer, caps) => {
    assert.deepEqual(caps, {
      logging: {},
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
    });
    assert.deepEqual((await peer.request('logging/setLevel', { level: 'debug' }, { modern: false })).result, {});
    assert.deepEqual((await logCall(peer)).map((m) => m.params), [{ level: 'error', data: 'hello' }]);
  });
});

test('the low-level Server (v1): exactly the capabilities it was given', async () => {
  await session('lowlevel', async (peer, caps) => {
    assert.deepEqual(caps, { tools: {} });
    assert.equal((await peer.request('logging/setLevel', { level: 'debug' }, { modern: false })).error?.code, -32601);
    assert.deepEqual(await logCall(peer), []);
  });
});

test('McpServer (v1): what oninitialized registers is in the client\'s first list', async () => {
  // The SDK runs the hook before it reads the next message; the three messages arrive together.
  const peer = new StdioPeer(FIXTURE, ['oninit']);
  try {
    peer.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } } });
    peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    peer.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    const list = await peer.waitFor((m) => m.id === 2);
    assert.deepEqual(list.result.tools.map((t) => t.name).sort(), ['late', 'log']);
  } finally {
    peer.kill();
  }
});
