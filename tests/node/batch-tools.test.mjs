// Batch registration: Server.addTools over real stdio (tests/node/fixtures/batch.mjs).
// The same cases as tests/python/test_batch_tools.py: N tools in one batch are all listed
// (paginated), the batch gives one notifications/tools/list_changed, and a bad item refuses the
// whole batch with an error naming it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { StdioPeer, ROOT } from './helpers.mjs';

const LIST_CHANGED = 'notifications/tools/list_changed';
let peer;
before(async () => {
  peer = new StdioPeer(path.join(ROOT, 'tests', 'node', 'fixtures', 'batch.mjs'));
  await peer.initialize();
});
after(() => peer.kill());

const request = async (method, params = {}) => {
  const r = await peer.request(method, params, { modern: false, ms: 15_000 });
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  return r.result;
};
const call = async (name, args) => (await request('tools/call', { name, arguments: args })).content[0].text;
const toolNames = async () => {
  const names = [];
  let cursor;
  for (let pages = 0; pages < 100; pages++) {
    const r = await request('tools/list', cursor ? { cursor } : {});
    assert.ok(r.tools.length <= 50);
    names.push(...r.tools.map((t) => t.name));
    cursor = r.nextCursor;
    if (!cursor) return names;
  }
  throw new Error('too many pages');
};
const settle = (ms = 500) => new Promise((r) => setTimeout(r, ms));
const listChangedSince = (mark) => peer.messages.slice(mark).filter((m) => m.method === LIST_CHANGED).length;

test('a batch before serving is listed', async () => {
  const names = await toolNames();
  assert.deepEqual(names.slice(0, 31), [...Array.from({ length: 30 }, (_, i) => `start_${i}`), 'start_named']);
  assert.equal(await call('start_named', { a: 2, b: 3 }), 'x0: 5');
});

test('a batch while serving is listed, with one list_changed', async () => {
  const before = (await toolNames()).length;
  await settle(200);
  const mark = peer.messages.length;
  assert.equal(await call('add_batch', { prefix: 'gen_', n: 240 }), 'added 240');
  await settle();
  assert.equal(listChangedSince(mark), 1);
  const names = await toolNames();
  assert.equal(names.length, before + 240);
  assert.deepEqual(names.slice(before), Array.from({ length: 240 }, (_, i) => `gen_${i}`));
  assert.equal(await call('gen_239', { a: 1 }), 'gen_239: 1');
});

for (const [bad, named] of [['name', "'bad name!'"], ['twice', "'bad_0'"], ['taken', "'add_batch'"]]) {
  test(`a bad item (${bad}) refuses the whole batch, naming it`, async () => {
    const before = await toolNames();
    await settle(200);
    const mark = peer.messages.length;
    const text = await call('add_batch', { prefix: 'bad_', n: 5, bad });
    assert.ok(text.startsWith('refused: ') && text.includes(named), text);
    await settle();
    assert.equal(listChangedSince(mark), 0);
    assert.deepEqual(await toolNames(), before);
  });
}
