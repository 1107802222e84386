// Bounds on what a caller can make the server hold, from Node over real HTTP: the same core rule
// and error as in Rust (tests/it/http_legacy.rs) and Python (tests/python/test_bounds.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Server } from 'oxmcp';

async function legacy(url) {
  let sid;
  const send = async (method, params = {}) => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
    if (sid) headers['mcp-session-id'] = sid;
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    if (method === 'initialize') sid = res.headers.get('mcp-session-id') ?? undefined;
    return JSON.parse(await res.text());
  };
  await send('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } });
  assert.ok(sid, 'a stateful server gives a session');
  return send;
}

test('subscriptions are bounded per session', async () => {
  const s = new Server({ name: 'bounds', version: '1.0.0', handleSignals: false, maxSubscriptions: 2 });
  s.resource('r', 'test://r/0', async (uri) => ({ contents: [{ uri: String(uri), text: 'x' }] }));
  const { url } = await s.listen({ host: '127.0.0.1', port: 0 });
  try {
    const send = await legacy(url);
    for (const i of [0, 1]) assert.ok((await send('resources/subscribe', { uri: `test://r/${i}` })).result);
    const over = await send('resources/subscribe', { uri: 'test://r/2' });
    assert.equal(over.error?.code, -32602, JSON.stringify(over));
    assert.match(over.error.message, /Too many subscriptions/);
    assert.ok((await send('resources/subscribe', { uri: 'test://r/0' })).result, 'held already');
    const long = await send('resources/subscribe', { uri: `test://${'x'.repeat(9000)}` });
    assert.equal(long.error?.code, -32602);
    assert.match(long.error.message, /URI too long/);
    assert.ok((await send('ping')).result);
  } finally {
    await s.close();
  }
});

// The per-caller bounds, the same cases as tests/python/test_bounds.py: two named callers, a task
// tool that sleeps (until cancelled) and answers its label, the options under test set small.
const TASKS = { 'io.modelcontextprotocol/tasks': {} };

async function callers(options) {
  const s = new Server({ name: 'bounds', version: '1.0.0', handleSignals: false, ...options });
  s.registerTool('job', {
    inputSchema: { type: 'object', properties: { seconds: { type: 'number' }, label: { type: 'string' } } },
    execution: { taskSupport: 'optional' },
  }, async ({ seconds = 0, label = '' }, ctx) => {
    await new Promise((resolve) => {
      const t = setTimeout(resolve, seconds * 1000);
      ctx.signal?.addEventListener('abort', () => { clearTimeout(t); resolve(); });
    });
    return { content: [{ type: 'text', text: label }] };
  });
  s.registerTool('greet', { inputSchema: { type: 'object', properties: { name: { type: 'string' } } } },
    async ({ name }) => ({ content: [{ type: 'text', text: `Hello, ${name}!` }] }));
  s.resource('r', 'test://r/0', async (uri) => ({ contents: [{ uri: String(uri), text: 'x' }] }));
  const { url } = await s.listen({ host: '127.0.0.1', port: 0, tokens: { alice: 'alice-1', bob: 'bob-1' } });
  return { s, alice: caller(url, 'alice-1'), bob: caller(url, 'bob-1') };
}

function caller(url, token) {
  const c = {
    url,
    session: undefined,
    async post(method, params = {}, { modern = true } = {}) {
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` };
      if (modern) {
        params = { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { extensions: TASKS } } };
        Object.assign(headers, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method });
        if (method === 'tools/call') headers['mcp-name'] = params.name;
        else if (params.taskId) headers['mcp-name'] = params.taskId;
      } else {
        headers['mcp-protocol-version'] = '2025-11-25';
        if (c.session) headers['mcp-session-id'] = c.session;
      }
      const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
      if (method === 'initialize') c.session = res.headers.get('mcp-session-id') ?? undefined;
      let text = await res.text();
      if (text.startsWith('event:') || text.startsWith('data:')) text = text.split('\n').find((l) => l.startsWith('data:')).slice(5);
      return { status: res.status, body: JSON.parse(text) };
    },
    initialize() {
      c.session = undefined;
      return c.post('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } }, { modern: false });
    },
    task(seconds = 0, label = 't') {
      return c.post('tools/call', { name: 'job', arguments: { seconds, label } });
    },
    async taskId(seconds = 0, label = 't') {
      const r = await c.task(seconds, label);
      assert.equal(r.body.result?.resultType, 'task', JSON.stringify(r.body));
      return r.body.result.taskId;
    },
    async settled(taskId) {
      for (let i = 0; i < 200; i++) {
        const t = (await c.post('tasks/get', { taskId })).body.result;
        if (['completed', 'failed', 'cancelled'].includes(t.status)) return t;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('task never settled');
    },
  };
  return c;
}

function refused(answer, status, code, text) {
  assert.equal(answer.status, status, JSON.stringify(answer.body));
  assert.equal(answer.body.error?.code, code, JSON.stringify(answer.body));
  assert.ok(answer.body.error.message.includes(text), answer.body.error.message);
}

const uri40 = (i) => `test://r/${i}/${'x'.repeat(28)}`;

test('subscription bytes are bounded per session', async () => {
  const { s, alice } = await callers({ maxSubscriptionBytes: 100 });
  try {
    await alice.initialize();
    for (const i of [0, 1]) assert.ok((await alice.post('resources/subscribe', { uri: uri40(i) }, { modern: false })).body.result);
    refused(await alice.post('resources/subscribe', { uri: uri40(2) }, { modern: false }), 200, -32602, 'may total 100 bytes');
    assert.ok((await alice.post('resources/subscribe', { uri: uri40(0) }, { modern: false })).body.result, 'held already');
  } finally {
    await s.close();
  }
});

test('sessions are bounded per caller', async () => {
  const { s, alice, bob } = await callers({ maxSessionsPerCaller: 2 });
  try {
    for (const _ of [0, 1]) assert.equal((await alice.initialize()).status, 200);
    const first = alice.session;
    refused(await alice.initialize(), 503, -32603, 'too many sessions');
    assert.equal(alice.session, undefined);
    assert.equal((await bob.initialize()).status, 200, 'another caller is not affected');
    assert.ok(bob.session);
    const del = await fetch(alice.url, { method: 'DELETE', headers: { authorization: 'Bearer alice-1', 'mcp-session-id': first, 'mcp-protocol-version': '2025-11-25' } });
    assert.equal(del.status, 200);
    assert.equal((await alice.initialize()).status, 200, 'ending one makes room');
  } finally {
    await s.close();
  }
});

test('an idle session is ended', async () => {
  const { s, alice } = await callers({ sessionIdleMs: 1000 });
  try {
    await alice.initialize();
    for (const _ of [0, 1, 2]) {
      await new Promise((r) => setTimeout(r, 400));
      assert.equal((await alice.post('ping', {}, { modern: false })).status, 200, 'used, it lives on');
    }
    await new Promise((r) => setTimeout(r, 1500));
    const r = await alice.post('ping', {}, { modern: false });
    assert.equal(r.status, 404, JSON.stringify(r.body));
  } finally {
    await s.close();
  }
});

test('tasks are bounded per caller, finished ones included', async () => {
  const { s, alice, bob } = await callers({ maxTasksPerCaller: 2 });
  try {
    for (const _ of [0, 1]) await alice.settled(await alice.taskId());
    refused(await alice.task(), 429, -31429, 'Too many tasks');
    await bob.taskId();
  } finally {
    await s.close();
  }
});

test('running tasks are bounded per caller and hold no request place', async () => {
  const { s, alice, bob } = await callers({ maxInFlight: 2, maxRunningTasksPerCaller: 2 });
  try {
    const ids = [await alice.taskId(30), await alice.taskId(30)];
    refused(await alice.task(30), 429, -31429, 'Too many running tasks');
    // Alice's running tasks hold none of the two in-flight places: bob is served.
    const g = await bob.post('tools/call', { name: 'greet', arguments: { name: 'bob' } });
    assert.equal(g.status, 200);
    assert.equal(g.body.result.content[0].text, 'Hello, bob!');
    await bob.taskId();
    assert.equal((await alice.post('tasks/cancel', { taskId: ids[0] })).status, 200);
    assert.equal((await alice.settled(ids[0])).status, 'cancelled');
    let again;
    for (let i = 0; i < 100 && (again = await alice.task(30)).status !== 200; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(again.status, 200, 'a task that ends gives its place back');
    for (const id of [ids[1], again.body.result.taskId]) await alice.post('tasks/cancel', { taskId: id });
  } finally {
    await s.close();
  }
});

test('a task result over the cap fails the task', async () => {
  const { s, alice } = await callers({ maxTaskResultBytes: 1000 });
  try {
    const t = await alice.settled(await alice.taskId(0, 'x'.repeat(1000)));
    assert.equal(t.status, 'failed', JSON.stringify(t));
    assert.equal(t.error.code, -32603);
    assert.match(t.error.message, /Task result too large/);
    assert.equal(t.result, undefined);
    assert.equal((await alice.settled(await alice.taskId(0, 'small'))).status, 'completed');
  } finally {
    await s.close();
  }
});

test('one caller at every bound leaves another unaffected', async () => {
  const { s, alice, bob } = await callers({
    maxInFlight: 2, maxSessionsPerCaller: 1, maxSubscriptions: 1, maxSubscriptionBytes: 64,
    maxTasksPerCaller: 3, maxRunningTasksPerCaller: 2, maxListenTaskIds: 2,
  });
  try {
    // Alice holds everything she may: a session with its subscription, two running tasks, then
    // three tasks (one running, two finished).
    assert.equal((await alice.initialize()).status, 200);
    assert.ok((await alice.post('resources/subscribe', { uri: 'test://r/0' }, { modern: false })).body.result);
    refused(await alice.post('resources/subscribe', { uri: 'test://r/1' }, { modern: false }), 200, -32602, 'Too many subscriptions');
    const running = [await alice.taskId(30), await alice.taskId(30)];
    refused(await alice.task(30), 429, -31429, 'Too many running tasks');
    await alice.post('tasks/cancel', { taskId: running[0] });
    await alice.settled(running[0]);
    await alice.settled(await alice.taskId(0));
    refused(await alice.task(30), 429, -31429, 'Too many tasks');
    refused(await alice.initialize(), 503, -32603, 'too many sessions');
    // Bob gets all of it.
    assert.equal((await bob.initialize()).status, 200);
    assert.ok((await bob.post('resources/subscribe', { uri: 'test://r/1' }, { modern: false })).body.result);
    assert.equal((await bob.post('tools/call', { name: 'greet', arguments: { name: 'bob' } })).status, 200);
    const done = await bob.settled(await bob.taskId(0, "bob's"));
    assert.equal(done.status, 'completed');
    assert.equal(done.result.content[0].text, "bob's");
    assert.equal((await bob.post('tasks/cancel', { taskId: await bob.taskId(30) })).status, 200);
    for (const id of running) await alice.post('tasks/cancel', { taskId: id });
  } finally {
    await s.close();
  }
});
