// Tasks made through the TS SDK's task API (`registerToolTask` with an `InMemoryTaskStore`) belong
// to the caller that made them, over real HTTP with two named tokens: another caller neither lists
// nor reads them, with a session of its own, without one (the core refuses a legacy request
// without `Mcp-Session-Id` on a stateful server, 400), or on a server that keeps no sessions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from 'oxmcp/server/mcp.js';
import { InMemoryTaskStore } from 'oxmcp/experimental/tasks/stores/in-memory.js';

const TOKENS = { alice: { tokens: ['alice-tok'] }, bob: { tokens: ['bob-tok'] } };

function server(options = {}) {
  const taskStore = new InMemoryTaskStore();
  const s = new McpServer({ name: 'owners', version: '1.0.0' }, { capabilities: { tasks: { requests: { tools: { call: {} } } } }, taskStore, modern: true, ...options });
  s.experimental.tasks.registerToolTask('job', { execution: { taskSupport: 'optional' } }, {
    async createTask({ taskStore: store }) {
      const task = await store.createTask({ ttl: 60_000, pollInterval: 20 });
      await store.storeTaskResult(task.taskId, 'completed', { content: [{ type: 'text', text: 'private result' }] });
      return { task };
    },
    getTask: async ({ taskId, taskStore: store }) => store.getTask(taskId),
    getTaskResult: async ({ taskId, taskStore: store }) => store.getTaskResult(taskId),
  });
  return s;
}

/** A legacy (2025-11-25) client: its token, and its session once it initialized. */
function legacy(url, token) {
  let sid;
  const send = async (method, params = {}, { session = true } = {}) => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`, 'mcp-protocol-version': '2025-11-25' };
    if (session && sid) headers['mcp-session-id'] = sid;
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    const text = await res.text();
    const data = text.startsWith('event:') || text.startsWith('data:') ? text.split('\n').find((l) => l.startsWith('data:')).slice(5) : text;
    if (method === 'initialize') sid = res.headers.get('mcp-session-id') ?? undefined;
    return { status: res.status, body: data ? JSON.parse(data) : undefined };
  };
  const init = () => send('initialize', { protocolVersion: '2025-11-25', capabilities: { tasks: {} }, clientInfo: { name: token, version: '1' } });
  return { send, init, get sid() { return sid; } };
}

async function madeByAlice(url) {
  const alice = legacy(url, 'alice-tok');
  await alice.init();
  const made = await alice.send('tools/call', { name: 'job', arguments: {}, task: { ttl: 60_000 } });
  const taskId = made.body?.result?.task?.taskId;
  assert.equal(typeof taskId, 'string', JSON.stringify(made));
  const own = await alice.send('tasks/get', { taskId });
  assert.equal(own.body.result.status, 'completed', JSON.stringify(own));
  return { alice, taskId };
}

test('a caller without Mcp-Session-Id on a stateful server is refused, and cannot list or read tasks', async () => {
  const s = server();
  const { url } = await s.listen({ host: '127.0.0.1', port: 0, tokens: TOKENS });
  try {
    const { taskId } = await madeByAlice(url);
    const bob = legacy(url, 'bob-tok');
    for (const [method, params] of [['tasks/list', {}], ['tasks/get', { taskId }], ['tasks/result', { taskId }]]) {
      const r = await bob.send(method, params, { session: false });
      assert.equal(r.status, 400, `${method}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.error.message, /Mcp-Session-Id header is required/);
    }
    await bob.init();
    const listed = await bob.send('tasks/list');
    assert.deepEqual(listed.body.result.tasks, [], JSON.stringify(listed.body));
    const read = await bob.send('tasks/get', { taskId });
    assert.ok(read.body.error, JSON.stringify(read.body));
  } finally {
    await s.close();
  }
});

test('on a server without sessions, tasks are still the caller\'s own', async () => {
  const s = server({ legacyStateless: true });
  const { url } = await s.listen({ host: '127.0.0.1', port: 0, tokens: TOKENS });
  try {
    const { alice, taskId } = await madeByAlice(url);
    const mine = await alice.send('tasks/list');
    assert.deepEqual(mine.body.result.tasks.map((t) => t.taskId), [taskId]);
    const bob = legacy(url, 'bob-tok');
    await bob.init();
    assert.equal(bob.sid, undefined, 'no session on a stateless server');
    const listed = await bob.send('tasks/list');
    assert.deepEqual(listed.body.result.tasks, [], JSON.stringify(listed.body));
    const read = await bob.send('tasks/result', { taskId });
    assert.ok(read.body.error, JSON.stringify(read.body));
    assert.doesNotMatch(JSON.stringify(read.body), /private result/);
  } finally {
    await s.close();
  }
});
