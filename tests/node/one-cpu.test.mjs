// The tool dispatcher's batches when the server may use one CPU only (bindings-node/src/batch.rs:
// there a batch is handed to the JS thread once a poll of the sockets brings no new call, or after
// 1 ms when requests never stop coming): the fixture server runs under `taskset -c 0`, over real HTTP on 127.0.0.1.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHttp, callTool, exited, mixedCalls, FIXTURE } from './helpers.mjs';

let srv;
before(async () => { srv = await startHttp(FIXTURE, [], { prefix: ['taskset', '-c', '0'] }); });
after(async () => { srv.child.kill('SIGTERM'); await exited(srv.child); });

const result = async (name, args) => {
  const r = await callTool(srv.url, name, args);
  assert.equal(r.status, 200, r.body);
  assert.ok(r.response, r.body);
  return r.response.result ?? r.response;
};

test('the server runs on one CPU', async () => {
  const { readFileSync } = await import('node:fs');
  const allowed = /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync(`/proc/${srv.child.pid}/status`, 'utf8'))[1];
  assert.equal(allowed, '0');
});

test('one CPU: many calls in flight each get their own answer', async () => {
  await mixedCalls(srv.url, 90);
});

test('async handlers that settle in one turn each get their own answer (NativeCalls.settleMany)', async () => {
  // The Promises of one dispatcher batch settle in the same microtask checkpoint, so their
  // answers cross napi together; rejections and ToolErrors among them stay with their call.
  const calls = [];
  for (let i = 0; i < 60; i++) {
    switch (i % 3) {
      case 0: calls.push(result('rejects_tool_error').then((r) => assert.equal(r.content[0].text, 'async tool error'))); break;
      case 1: calls.push(result('rejects').then((r) => assert.equal(r.content[0].text, 'Error executing tool rejects'))); break;
      default: calls.push(result('async_ok').then((r) => assert.equal(r.content[0].text, 'async')));
    }
  }
  await Promise.all(calls);
});

test('one CPU: calls one at a time are answered (a batch of one each)', async () => {
  for (let i = 0; i < 30; i++) {
    assert.equal((await result('add_json', { a: i, b: 1 })).content[0].text, String(i + 1));
  }
});

test('one CPU: a call that never settles still times out, and the others go on', async () => {
  const slow = callTool(srv.url, 'never_settles', {});
  const quick = await Promise.all(Array.from({ length: 8 }, (_, i) => result('add_json', { a: i, b: i })));
  assert.deepEqual(quick.map((r) => r.content[0].text), Array.from({ length: 8 }, (_, i) => String(2 * i)));
  const r = await slow;
  assert.ok(r.response.error || r.response.result.isError, r.body);
  assert.match(JSON.stringify(r.response), /time/i);
});

test('one CPU: a call that waits does not hold back the answer of the call before it', async () => {
  // `block_js` keeps the JS thread while an `add_json` and then a `slow` call come in behind it,
  // so the two share the next batch in that order; the quick answer must not wait for the slow
  // one (tests/python/test_one_cpu.py has the same case).
  const pause = (ms) => new Promise((r) => setTimeout(r, ms));
  const hog = callTool(srv.url, 'block_js', { ms: 300, tag: 'hold-back' });
  await pause(50);
  const quick = result('add_json', { a: 2, b: 3 });
  await pause(50);
  let slowDone = false;
  const slow = result('slow', { ms: 1500 }).then((r) => { slowDone = true; return r; });
  assert.equal((await quick).content[0].text, '5');
  assert.equal(slowDone, false);
  assert.equal((await slow).content[0].text, 'slept 1500');
  assert.equal((await hog).status, 200);
});
