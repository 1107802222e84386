// The audit log follows a task: the call that makes it (outcome "task"), its real end (a "task"
// event), and every tasks/get, another caller's refused try included, over real HTTP with named
// tokens. The same case runs against the Python binding (tests/python/test_task_audit.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ROOT, startHttp, post } from './helpers.mjs';

const EVERYTHING = path.join(ROOT, 'examples', 'node', 'everything.mjs');
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

test('a task is audited from its call to its end, and another caller\'s try is recorded', async (t) => {
  const saved = { ...process.env };
  Object.assign(process.env, { OXMCP_TOKENS: 'alice=token-alice,bob=token-bob', OXMCP_LOG: 'warn,oxmcp::audit=info', OXMCP_LOG_FORMAT: 'json' });
  const srv = await startHttp(EVERYTHING);
  process.env = saved;
  t.after(() => srv.kill());
  const as = (who) => ({ headers: { authorization: `Bearer token-${who}` }, metaExtra: { 'io.modelcontextprotocol/clientCapabilities': TASKS } });
  const get = (who, taskId) => post(srv.url, 'tasks/get', { taskId }, { ...as(who), headers: { ...as(who).headers, 'mcp-name': taskId } });
  const made = (await post(srv.url, 'tools/call', { name: 'slow_compute', arguments: { seconds: 0.2 } }, as('alice'))).response;
  assert.equal(made.result.resultType, 'task', JSON.stringify(made));
  const id = made.result.taskId;
  assert.equal((await get('bob', id)).response.error.code, -32602);
  let status;
  for (let i = 0; i < 200 && status !== 'completed'; i += 1) {
    status = (await get('alice', id)).response.result.status;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(status, 'completed');
  srv.child.kill('SIGTERM');
  await new Promise((r) => srv.child.once('exit', r));
  const records = srv.stderr().split('\n').filter((l) => l.includes('"oxmcp::audit"')).map((l) => JSON.parse(l).fields);
  const calls = records.filter((r) => r.message === 'call').map((r) => [r.caller, r.method, r.name, r.outcome].join(' '));
  const ends = records.filter((r) => r.message === 'task').map((r) => [r.caller, r.name, r.task, r.outcome].join(' '));
  assert.ok(calls.includes('alice tools/call slow_compute task'), calls.join('\n'));
  assert.ok(calls.includes(`bob tasks/get ${id} error`), calls.join('\n'));
  assert.ok(calls.includes(`alice tasks/get ${id} ok`), calls.join('\n'));
  assert.ok(ends.includes(`alice slow_compute ${id} completed`), ends.join('\n'));
});
