// The TS SDK v1's `server.experimental.tasks.registerToolTask` on the core's Tasks
// extension, `extra.sessionId` in every handler and `serverInfo.version` without one,
// over real HTTP and stdio with the official v1 SDK client (from .cache/peers-node) on legacy
// sessions and raw 2026-07-28 requests (the task handle, sessionless calls).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, startHttp, post, withTimeout } from './helpers.mjs';
import { PEERS } from '../parity/node_runner.mjs';
import { InMemoryTaskStore } from 'oxmcp/experimental/tasks/stores/in-memory.js';
import * as experimental from 'oxmcp/experimental/tasks';
import { McpServer } from 'oxmcp/server/mcp.js';
import { Server as LowLevelServer } from 'oxmcp/server/index.js';
import { McpServer as McpServerV2 } from 'oxmcp';

const FIXTURE = path.join(ROOT, 'tests', 'node', 'fixtures', 'sdk-tasks.mjs');
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
const OXMCP_VERSION = createRequire(import.meta.url)('../../package.json').version;

async function v1() {
  const peers = createRequire(path.join(PEERS, 'package.json'));
  const load = (p) => import(pathToFileURL(peers.resolve(`@modelcontextprotocol/sdk/${p}`)).href);
  const [c, s, h] = await Promise.all([load('client/index.js'), load('client/stdio.js'), load('client/streamableHttp.js')]);
  return { Client: c.Client, Stdio: s.StdioClientTransport, Http: h.StreamableHTTPClientTransport };
}

async function rpc(url, method, params, caps = TASKS) {
  const headers = params.taskId ? { 'mcp-name': params.taskId } : {};
  const r = await post(url, method, params, { headers, metaExtra: { 'io.modelcontextprotocol/clientCapabilities': caps } });
  assert.ok(r.response, r.body);
  return r.response;
}

async function until(url, taskId, pred) {
  for (let i = 0; i < 200; i++) {
    const t = (await rpc(url, 'tasks/get', { taskId })).result;
    if (pred(t)) return t;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`task ${taskId} never got there`);
}
const terminal = (t) => ['completed', 'failed', 'cancelled'].includes(t.status);
const text = (r) => r.content[0].text;

test('registerToolTask: the official v1 client (legacy) gets the stored results; the listing is the SDK\'s', { timeout: 40_000 }, async () => {
  const { Client, Http, Stdio } = await v1();
  const srv = await startHttp(FIXTURE);
  try {
    for (const transport of [new Http(new URL(srv.url)), new Stdio({ command: process.execPath, args: [FIXTURE], cwd: ROOT, stderr: 'pipe' })]) {
      const client = new Client({ name: 'v1-tasks', version: '1.0.0' });
      await withTimeout(client.connect(transport), 15_000, 'connect');
      try {
        assert.deepEqual(client.getServerVersion(), { name: 'sdk-tasks', version: OXMCP_VERSION }, 'a missing version is filled in');
        const { tools } = await client.listTools();
        const support = Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport]));
        assert.deepEqual(support, { slow_sum: 'optional', long_job: 'optional', flaky_job: 'optional', batch_export: 'required', cancel_seen: 'forbidden', whoami: 'forbidden' });
        assert.equal(text(await client.callTool({ name: 'slow_sum', arguments: { a: 2, b: 40 } })), 'sum=42');
        const flaky = await client.callTool({ name: 'flaky_job', arguments: {} });
        assert.deepEqual([flaky.isError, text(flaky)], [true, 'the job failed']);
        // A 'required' task tool: the v1 client refuses it itself after listTools.
        await assert.rejects(client.callTool({ name: 'batch_export', arguments: { rows: 1 } }), /requires task-based execution/);
      } finally {
        await client.close();
      }
    }
    // Raw, on a legacy session, without a task: the SDK's McpServer answers a tool error result.
    const init = await fetch(srv.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }),
    });
    const sid = init.headers.get('mcp-session-id');
    await init.text();
    const r = await fetch(srv.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'batch_export', arguments: { rows: 1 } } }),
    });
    const body = await r.text();
    const answer = JSON.parse(body.startsWith('{') ? body : /^data: (.*)$/m.exec(body)[1]);
    assert.deepEqual(answer.result, {
      content: [{ type: 'text', text: "MCP error -32601: Tool batch_export requires task augmentation (taskSupport: 'required')" }],
      isError: true,
    }, body);
  } finally {
    srv.kill();
  }
});

test('registerToolTask: the v1 client\'s experimental tasks API (2025-11-25 task augmentation) over HTTP and stdio', { timeout: 40_000 }, async () => {
  const { Client, Http, Stdio } = await v1();
  const srv = await startHttp(FIXTURE);
  try {
    for (const transport of [new Http(new URL(srv.url)), new Stdio({ command: process.execPath, args: [FIXTURE], cwd: ROOT, stderr: 'pipe' })]) {
      const client = new Client({ name: 'v1-task-stream', version: '1.0.0' });
      await withTimeout(client.connect(transport), 15_000, 'connect');
      try {
        assert.deepEqual(client.getServerCapabilities().tasks, { requests: { tools: { call: {} } } }, 'the declared tasks capability');
        await client.listTools();
        const stream = async (name, args) => {
          const seen = [];
          let final;
          for await (const m of client.experimental.tasks.callToolStream({ name, arguments: args })) {
            seen.push(m.type);
            if (m.type === 'result') final = m.result;
            if (m.type === 'error') final = m.error;
            if (m.type === 'taskCreated') assert.match(m.task.taskId, /^[0-9a-f]{32}$/);
          }
          return { seen, final };
        };
        const sum = await stream('slow_sum', { a: 20, b: 22 });
        assert.equal(sum.seen[0], 'taskCreated');
        assert.equal(text(sum.final), 'sum=42');
        assert.ok(sum.final._meta['io.modelcontextprotocol/related-task'].taskId);
        assert.equal(text((await stream('batch_export', { rows: 2 })).final), 'exported 2', 'a required task tool runs');
        assert.equal((await stream('flaky_job', {})).final.code, -32603, 'a failed task is an error, as the SDK client reports it');
        const refused = await client.request({ method: 'tools/call', params: { name: 'slow_sum', arguments: { a: 'x', b: 1 }, task: { ttl: 30_000 } } },
          (await import(pathToFileURL(createRequire(path.join(PEERS, 'package.json')).resolve('@modelcontextprotocol/sdk/types.js')).href)).CallToolResultSchema);
        assert.equal(refused.isError, true, 'arguments zod refuses: an error result, no task');
        assert.match(text(refused), /^Input validation error: a: /);

        // Create, list, cancel: the store's task is cancelled and the background work sees it.
        const created = await client.request({ method: 'tools/call', params: { name: 'long_job', arguments: { tag: 'legacy' }, task: { ttl: 30_000 } } },
          (await import(pathToFileURL(createRequire(path.join(PEERS, 'package.json')).resolve('@modelcontextprotocol/sdk/types.js')).href)).CreateTaskResultSchema);
        const id = created.task.taskId;
        assert.equal(created.task.ttl, 60_000, 'createTask chose the ttl');
        const listed = await client.experimental.tasks.listTasks();
        assert.ok(listed.tasks.some((t) => t.taskId === id && t.status === 'working'));
        const cancelled = await client.experimental.tasks.cancelTask(id);
        assert.equal(cancelled.status, 'cancelled');
        await assert.rejects(client.experimental.tasks.cancelTask(id), (e) => e.code === -32602);
        await assert.rejects(client.experimental.tasks.getTask('nope'), (e) => e.code === -32602);
        let seen;
        for (let i = 0; i < 50 && seen !== 'true'; i++) {
          seen = text(await client.callTool({ name: 'cancel_seen', arguments: { tag: 'legacy' } }));
          if (seen !== 'true') await new Promise((r) => setTimeout(r, 25));
        }
        assert.equal(seen, 'true');
      } finally {
        await client.close();
      }
    }
  } finally {
    srv.kill();
  }
});

test('registerToolTask on 2026-07-28 requests: a task handle, tasks/get, tasks/cancel reaching the store', { timeout: 40_000 }, async () => {
  const srv = await startHttp(FIXTURE);
  try {
    const created = (await rpc(srv.url, 'tools/call', { name: 'slow_sum', arguments: { a: 1, b: 2 } })).result;
    assert.equal(created.resultType, 'task', JSON.stringify(created));
    let t = await until(srv.url, created.taskId, terminal);
    assert.equal(t.status, 'completed');
    assert.equal(text(t.result), 'sum=3');

    const required = (await rpc(srv.url, 'tools/call', { name: 'batch_export', arguments: { rows: 7 } })).result;
    assert.equal(required.resultType, 'task');
    t = await until(srv.url, required.taskId, terminal);
    assert.equal(text(t.result), 'exported 7');

    const failed = (await rpc(srv.url, 'tools/call', { name: 'flaky_job', arguments: {} })).result;
    t = await until(srv.url, failed.taskId, terminal);
    assert.deepEqual([t.status, t.result.isError, text(t.result)], ['completed', true, 'the job failed']);

    const long = (await rpc(srv.url, 'tools/call', { name: 'long_job', arguments: { tag: 'x1' } })).result;
    assert.equal(long.resultType, 'task');
    assert.equal((await rpc(srv.url, 'tasks/get', { taskId: long.taskId })).result.status, 'working');
    await rpc(srv.url, 'tasks/cancel', { taskId: long.taskId });
    t = await until(srv.url, long.taskId, terminal);
    assert.equal(t.status, 'cancelled');
    let seen;
    for (let i = 0; i < 50 && seen !== 'true'; i++) {
      seen = text((await rpc(srv.url, 'tools/call', { name: 'cancel_seen', arguments: { tag: 'x1' } })).result);
      if (seen !== 'true') await new Promise((r) => setTimeout(r, 25));
    }
    assert.equal(seen, 'true', 'the store\'s task was marked cancelled, so the background work saw it');

    // Without the extension: an optional task tool answers in the call; a required one is -32021.
    const plain = (await rpc(srv.url, 'tools/call', { name: 'slow_sum', arguments: { a: 5, b: 5 } }, {})).result;
    assert.deepEqual([plain.resultType, text(plain)], ['complete', 'sum=10']);
    assert.equal((await rpc(srv.url, 'tools/call', { name: 'batch_export', arguments: { rows: 1 } }, {})).error.code, -32021);
  } finally {
    srv.kill();
  }
});

test('extra.sessionId: the session id in every handler of a legacy HTTP session; undefined on stdio, stateless and 2026-07-28', { timeout: 40_000 }, async () => {
  const { Client, Http, Stdio } = await v1();
  const probe = async (client) => {
    const tool = text(await client.callTool({ name: 'whoami', arguments: {} }));
    const res = (await client.readResource({ uri: 'session://id' })).contents[0].text;
    const tpl = (await client.readResource({ uri: 'session://tpl/1' })).contents[0].text;
    const prompt = (await client.getPrompt({ name: 'session', arguments: { topic: 't' } })).messages[0].content.text;
    const done = (await client.complete({ ref: { type: 'ref/prompt', name: 'session' }, argument: { name: 'topic', value: 'v' } })).completion.values[0];
    return [tool, res, tpl, prompt, done];
  };
  const srv = await startHttp(FIXTURE);
  const stateless = await startHttp(FIXTURE, ['--stateless']);
  try {
    const transport = new Http(new URL(srv.url));
    const client = new Client({ name: 'v1-session', version: '1.0.0' });
    await client.connect(transport);
    const sid = transport.sessionId;
    assert.ok(sid);
    assert.deepEqual(await probe(client), [sid, sid, sid, `t:${sid}`, `v:${sid}`]);
    await client.close();

    for (const t of [new Http(new URL(stateless.url)), new Stdio({ command: process.execPath, args: [FIXTURE], cwd: ROOT, stderr: 'pipe' })]) {
      const c = new Client({ name: 'v1-nosession', version: '1.0.0' });
      await c.connect(t);
      assert.deepEqual(await probe(c), ['none', 'none', 'none', 't:none', 'v:none']);
      await c.close();
    }
    // 2026-07-28 requests have no session.
    const modern = async (method, params) => (await rpc(srv.url, method, params, {})).result;
    assert.deepEqual([
      text(await modern('tools/call', { name: 'whoami', arguments: {} })),
      (await modern('resources/read', { uri: 'session://id' })).contents[0].text,
      (await modern('resources/read', { uri: 'session://tpl/1' })).contents[0].text,
      (await modern('prompts/get', { name: 'session', arguments: { topic: 't' } })).messages[0].content.text,
      (await modern('completion/complete', { ref: { type: 'ref/prompt', name: 'session' }, argument: { name: 'topic', value: 'v' } })).completion.values[0],
    ], ['none', 'none', 'none', 't:none', 'v:none']);
  } finally {
    srv.kill();
    stateless.kill();
  }
});

test('the experimental subpaths, the store, and serverInfo.version defaults', async () => {
  for (const n of ['InMemoryTaskStore', 'InMemoryTaskMessageQueue', 'ExperimentalMcpServerTasks', 'isTerminal', 'GetTaskRequestSchema', 'TaskSchema']) {
    assert.ok(experimental[n], n);
  }
  const store = new InMemoryTaskStore();
  const t = await store.createTask({ ttl: 1000 }, 1, { method: 'tools/call' }, 'sess-a');
  assert.equal(t.status, 'working');
  assert.equal(await store.getTask(t.taskId, 'sess-b'), null, 'another session does not see it');
  await store.storeTaskResult(t.taskId, 'completed', { content: [] }, 'sess-a');
  await assert.rejects(store.updateTaskStatus(t.taskId, 'working', undefined, 'sess-a'), /terminal/);
  assert.deepEqual(await store.getTaskResult(t.taskId), { content: [] });
  assert.equal((await store.listTasks(undefined, 'sess-a')).tasks.length, 1);
  store.cleanup();

  // Opts in: the 1.x shape is served in the initialize-era revisions only by default.
  const s = new McpServer({ name: 'x', version: '1' }, { modern: true });
  assert.throws(() => s.experimental.tasks.registerToolTask('f', { execution: { taskSupport: 'forbidden' } }, { createTask() {} }), /forbidden/);
  assert.throws(() => s.experimental.tasks.registerToolTask('g', {}, {}), /createTask/);

  // No version: accepted by McpServer (v1 and v2) and the low-level Server, as in the SDKs.
  assert.doesNotThrow(() => new LowLevelServer({ name: 'nv' }, { capabilities: {} }));
  for (const Cls of [McpServer, McpServerV2]) {
    const d = await new Cls({ name: 'nv' }, { modern: true }).client().discover();
    assert.deepEqual(d._meta['io.modelcontextprotocol/serverInfo'], { name: 'nv', version: OXMCP_VERSION });
  }
});
