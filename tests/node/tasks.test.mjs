// The Tasks extension from Node: the everything server's task fixtures over real HTTP
// (registerTool with execution.taskSupport): create, poll on new requests, input_required →
// tasks/update → completed, cancel, a JSON-RPC error → failed, and a plain call without the
// extension.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ROOT, post, startHttp } from './helpers.mjs';

const EVERYTHING = path.join(ROOT, 'examples', 'node', 'everything.mjs');
const CAPS = { elicitation: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } };

async function rpc(url, method, params, caps = CAPS) {
  const headers = params.taskId ? { 'mcp-name': params.taskId } : {};
  const r = await post(url, method, params, { headers, metaExtra: { 'io.modelcontextprotocol/clientCapabilities': caps } });
  assert.ok(r.response, r.body);
  return r.response;
}

async function until(url, taskId, done) {
  for (let i = 0; i < 200; i++) {
    const t = (await rpc(url, 'tasks/get', { taskId })).result;
    if (done(t)) return t;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('task never got there');
}
const terminal = (t) => ['completed', 'failed', 'cancelled'].includes(t.status);

test('tasks over HTTP: input, update, completion, cancel, failure', { timeout: 60_000 }, async () => {
  const srv = await startHttp(EVERYTHING);
  try {
    const created = (await rpc(srv.url, 'tools/call', { name: 'confirm_delete', arguments: { filename: 'n.txt' } })).result;
    assert.equal(created.resultType, 'task');
    const id = created.taskId;
    let t = await until(srv.url, id, (x) => x.status === 'input_required' || terminal(x));
    assert.equal(t.inputRequests.confirm.method, 'elicitation/create');
    const ack = (await rpc(srv.url, 'tasks/update', { taskId: id, inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } })).result;
    assert.equal(ack.resultType, 'complete');
    assert.equal(ack.taskId, undefined);
    t = await until(srv.url, id, terminal);
    assert.equal(t.status, 'completed');
    assert.equal(t.result.content[0].text, 'Deleted n.txt');

    const slow = (await rpc(srv.url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 30 } })).result;
    await rpc(srv.url, 'tasks/cancel', { taskId: slow.taskId });
    t = (await rpc(srv.url, 'tasks/get', { taskId: slow.taskId })).result;
    assert.equal(t.status, 'cancelled');

    const bad = (await rpc(srv.url, 'tools/call', { name: 'protocol_error_job', arguments: {} })).result;
    t = await until(srv.url, bad.taskId, terminal);
    assert.equal(t.status, 'failed');
    assert.equal(t.error.code, -32603);

    // Without the extension: a plain call (optional) or -32021 (required).
    const plain = (await rpc(srv.url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 0 } }, {})).result;
    assert.equal(plain.resultType, 'complete');
    assert.match(plain.content[0].text, /^Computed job/);
    const refused = await rpc(srv.url, 'tools/call', { name: 'failing_job', arguments: {} }, {});
    assert.equal(refused.error.code, -32021);
    assert.deepEqual(refused.error.data.requiredCapabilities, { extensions: { 'io.modelcontextprotocol/tasks': {} } });
    const unknown = await rpc(srv.url, 'tasks/get', { taskId: 'nope' });
    assert.equal(unknown.error.code, -32602);
  } finally {
    srv.kill();
  }
});
