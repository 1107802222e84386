// Per-call costs on V8's heap: a call must leave nothing behind that outlives a scavenge, or
// under load V8 grows its new space to the maximum and promotes dead calls into the old space
// (that was ~50 MiB of RSS: bindings-node/src/calls.rs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { startHttp, callTool, exited, ROOT } from './helpers.mjs';

let srv;
before(async () => { srv = await startHttp(path.join(ROOT, 'tests', 'node', 'fixtures', 'lean.mjs')); });
after(async () => { srv.child.kill('SIGTERM'); await exited(srv.child); });

const spaces = async () => JSON.parse((await callTool(srv.url, 'heap_spaces', {})).response.result.content[0].text);

async function drive(tool, calls, conns) {
  let n = 0;
  await Promise.all(Array.from({ length: conns }, async () => {
    while (n < calls) {
      n++;
      const r = await callTool(srv.url, tool, { a: 1, b: 2 });
      assert.equal(r.response?.result?.content?.[0]?.text, '3', r.body);
    }
  }));
}

test('calls of sync, async and ctx-reading handlers die young: the new space grows at most once, the old space barely', async () => {
  const MiB = 2 ** 20;
  const start = await spaces();
  await drive('add_json', 1500, 8);
  await drive('add_async', 1500, 8);
  await drive('add_ctx', 1500, 8);
  const end = await spaces();
  const detail = `new space ${start.new_space / MiB} -> ${end.new_space / MiB} MiB, old space ${start.old_space / MiB} -> ${end.old_space / MiB} MiB`;
  // Before calls.rs: 2 -> 8 MiB and +5 MiB over the same calls. One doubling of the new space
  // is allowed: a debug build on a busy machine keeps more calls in flight across a scavenge
  // (seen in CI: 2 -> 4 MiB, old space +0.75 MiB).
  assert.ok(end.new_space <= 2 * start.new_space, detail);
  assert.ok(end.old_space - start.old_space < 2 * MiB, detail);
});
