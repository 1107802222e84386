// Registration, validation, return kinds and error mapping, over real HTTP on 127.0.0.1.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHttp, callTool, post, exited, mixedCalls, untilStderr } from './helpers.mjs';

let srv;
before(async () => { srv = await startHttp(); });
after(async () => { srv.child.kill('SIGTERM'); await exited(srv.child); });

const result = async (name, args) => {
  const r = await callTool(srv.url, name, args);
  assert.equal(r.status, 200, r.body);
  assert.ok(r.response, r.body);
  return r.response.result ?? r.response;
};
const count = async (name) => Number((await result('call_count', { name })).content[0].text);

test('tools/list shows JSON Schema verbatim and zod converted to 2020-12 (input side)', async () => {
  const r = await post(srv.url, 'tools/list');
  const tools = Object.fromEntries(r.response.result.tools.map((t) => [t.name, t]));
  assert.deepEqual(tools.add_json.inputSchema, { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['a', 'b'], additionalProperties: false });
  const z = tools.add_zod.inputSchema;
  assert.equal(z.$schema, 'https://json-schema.org/draft/2020-12/schema');
  assert.equal(z.type, 'object');
  assert.deepEqual(z.required, ['a'], 'input side: a defaulted key is not required');
  assert.equal(z.properties.b.default, 10);
  assert.equal(tools.add_zod.outputSchema.properties.sum.type, 'number');
  assert.equal(tools.greet_shape.inputSchema.properties.name.type, 'string');
  assert.equal(tools.add_json.description, 'adds (JSON Schema)');
});

test('JSON Schema tool: valid call', async () => {
  const r = await result('add_json', { a: 2, b: 3 });
  assert.deepEqual(r.content, [{ type: 'text', text: '5' }]);
  assert.equal(r.resultType, 'complete');
});

test('the core validates arguments before JS runs', async () => {
  const before = await count('add_json');
  const r = await result('add_json', { a: 'two', b: 3 });
  assert.equal(r.isError, true);
  assert.match(r.content[0].text, /a/);
  const r2 = await result('add_json', { a: 1, b: 2, extra: true });
  assert.equal(r2.isError, true);
  assert.equal(await count('add_json'), before, 'the handler did not run for invalid arguments');
  const zb = await count('add_zod');
  const r3 = await result('add_zod', { a: 1.5 });
  assert.equal(r3.isError, true);
  assert.equal(await count('add_zod'), zb);
});

test('zod: defaults applied, output structured, transforms and refinements run after core validation', async () => {
  const r = await result('add_zod', { a: 1 });
  assert.deepEqual(r.structuredContent, { sum: 11 });
  assert.equal(r.content[0].type, 'text');
  assert.deepEqual(JSON.parse(r.content[0].text), { sum: 11 });
  assert.equal((await result('greet_shape', { name: 'ada' })).content[0].text, 'HELLO ADA');
  const odd = await result('even_only', { n: 3 });
  assert.equal(odd.isError, true);
  assert.match(odd.content[0].text, /n must be even/);
  assert.equal((await result('even_only', { n: 4 })).content[0].text, '4 is even');
});

test('return kinds', async () => {
  assert.deepEqual((await result('ret_string')).content, [{ type: 'text', text: 'plain string' }]);
  assert.deepEqual((await result('ret_undefined')).content, []);
  const obj = await result('ret_object');
  assert.deepEqual(JSON.parse(obj.content[0].text), { k: 'v' });
  assert.equal(obj.structuredContent, undefined, 'no outputSchema: no structuredContent');
  const s = await result('ret_structured');
  assert.deepEqual(s.structuredContent, { n: 42 });
  const bad = await callTool(srv.url, 'ret_bad_structured', {});
  const badR = bad.response.result;
  assert.ok(bad.response.error || badR.isError, `structured output violating outputSchema is rejected: ${bad.body}`);
  const arr = await result('ret_array');
  assert.deepEqual(arr.content.map((c) => c.type), ['text', 'text', 'image']);
  assert.equal(arr.content[2].data, Buffer.from([137, 80, 78, 71]).toString('base64'));
  assert.equal(arr.content[2].mimeType, 'image/png');
  const au = await result('ret_audio');
  assert.deepEqual(au.content, [{ type: 'audio', data: Buffer.from('RIFF').toString('base64'), mimeType: 'audio/wav' }]);
  const res = await result('ret_resource');
  assert.deepEqual(res.content[0], { type: 'resource', resource: { uri: 'mem://x', mimeType: 'text/plain', text: 'embedded' } });
  assert.deepEqual(res.content[1], { type: 'resource_link', uri: 'mem://y', name: 'y' });
  const full = await result('ret_full');
  assert.deepEqual(full.content, [{ type: 'text', text: 'full' }]);
  assert.deepEqual(full.structuredContent, { ok: true });
  assert.equal((await result('ret_number')).content[0].text, '7');
});

test('calls answered together in one dispatcher batch each get their own answer', async () => {
  // Many calls in flight at once reach JS in batches (bindings-node/src/batch.rs): answers must
  // not mix, and one handler's throw or Promise does not touch the others in its batch.
  await mixedCalls(srv.url, 60);
});

test('sync, async, throwing and rejecting handlers', async () => {
  assert.equal((await result('sync_ok')).content[0].text, 'sync');
  assert.equal((await result('async_ok')).content[0].text, 'async');
  const te = await result('throws_tool_error');
  assert.equal(te.isError, true);
  assert.equal(te.content[0].text, 'bad input: try again');
  const ate = await result('rejects_tool_error');
  assert.equal(ate.isError, true);
  assert.equal(ate.content[0].text, 'async tool error');
  for (const name of ['throws_error', 'rejects']) {
    const r = await result(name);
    assert.equal(r.isError, true, name);
    assert.doesNotMatch(r.content[0].text, /hunter2|secret/, 'the error text stays private');
    // The core's one text, as in Rust and Python (tests/it/isolation.rs, test_native.py).
    assert.equal(r.content[0].text, `Error executing tool ${name}`);
  }
  assert.match(srv.stderr(), /db password is hunter2/, 'the stack is logged to stderr');
  assert.match(srv.stderr(), /rejected secret/);
  const mcp = await callTool(srv.url, 'throws_mcp_error', {});
  assert.equal(mcp.response.error.code, -32602);
  assert.deepEqual(mcp.response.error.data, { field: 'x' });
  // Not content blocks: data, shown as its JSON (the Python rule), not a failure.
  const notBlocks = await result('returns_bad_content');
  assert.deepEqual(notBlocks.content, [{ type: 'text', text: '[{"type":"nonsense"}]' }]);
});

test('a handler that never settles is bounded by its timeout, and its signal aborts', async () => {
  const t0 = Date.now();
  const r = await callTool(srv.url, 'never_settles', {});
  const took = Date.now() - t0;
  assert.ok(took < 5000, `took ${took} ms`);
  const res = r.response.result;
  assert.ok(r.response.error || res.isError, r.body);
  assert.match(JSON.stringify(r.response), /time/i);
  let seen = 'false';
  for (let i = 0; i < 40 && seen !== 'true'; i++) {
    seen = (await result('was_aborted', { id: 'never:TimeoutError' })).content[0].text;
    if (seen !== 'true') await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(seen, 'true', 'ctx.signal aborted with a TimeoutError');
});

test('ctx.signal read for the first time after the call timed out is aborted', async () => {
  const r = await callTool(srv.url, 'late_signal', {});
  assert.match(JSON.stringify(r.response), /time/i);
  let seen = 'false';
  for (let i = 0; i < 40 && seen !== 'true'; i++) {
    await new Promise((r) => setTimeout(r, 50));
    seen = (await result('was_aborted', { id: 'late:TimeoutError' })).content[0].text;
  }
  assert.equal(seen, 'true', 'the late ctx.signal aborted with a TimeoutError');
});

test('a ctx kept past its call says the call ended, and its signal stays quiet', async () => {
  assert.equal((await result('keep_ctx')).content[0].text, 'kept');
  const r = JSON.parse((await result('read_kept_ctx')).content[0].text);
  assert.match(r.requestId, /^threw .*CALL_ENDED/);
  assert.equal(r.aborted, false);
});

test('ctx carries the request id, era, version and client info', async () => {
  const r = await callTool(srv.url, 'ctx_info', {}, { id: 'abc-1' });
  const info = JSON.parse(r.response.result.content[0].text);
  assert.equal(info.requestId, 'abc-1');
  assert.equal(info.era, 'modern');
  assert.equal(info.protocolVersion, '2026-07-28');
  assert.deepEqual(info.clientInfo, { name: 'node-tests', version: '0' });
  assert.equal(info.aborted, false);
});

test('progress and log notifications stream on the response (SSE)', async () => {
  const r = await callTool(srv.url, 'progress', {}, { metaExtra: { progressToken: 'tok', 'io.modelcontextprotocol/logLevel': 'info' } });
  assert.match(r.headers.get('content-type'), /text\/event-stream/);
  const progress = r.messages.filter((m) => m.method === 'notifications/progress');
  assert.deepEqual(progress.map((m) => m.params.progress), [1, 2]);
  assert.equal(progress[0].params.progressToken, 'tok');
  const logs = r.messages.filter((m) => m.method === 'notifications/message');
  assert.deepEqual(logs.map((m) => m.params.data), [{ step: 'logged' }]);
  assert.equal(r.response.result.content[0].text, 'progressed');
});

test('a slow handler does not delay others', async () => {
  let slowDone = false;
  const slow = callTool(srv.url, 'slow', { ms: 5000 }).then((r) => { slowDone = true; return r; });
  await new Promise((r) => setTimeout(r, 100));
  const t0 = Date.now();
  for (let i = 0; i < 5; i++) assert.equal((await result('sync_ok')).content[0].text, 'sync');
  // Answered while the slow call still runs: they did not queue behind it.
  assert.ok(!slowDone, `5 fast calls took ${Date.now() - t0} ms, longer than the slow one`);
  assert.equal((await slow).response.result.content[0].text, 'slept 5000');
});

test('AbortSignal fires when the HTTP client disconnects', async () => {
  const ac = new AbortController();
  const before = await count('wait_for_abort');
  const pending = callTool(srv.url, 'wait_for_abort', { id: 'disc-1' }, { signal: ac.signal }).catch((e) => e);
  // Disconnect once the handler runs (a call abandoned before its handler starts never runs it).
  for (let i = 0; i < 500 && (await count('wait_for_abort')) === before; i++) await new Promise((r) => setTimeout(r, 20));
  ac.abort();
  assert.equal((await pending).name, 'AbortError');
  let seen = 'false';
  for (let i = 0; i < 50 && seen !== 'true'; i++) {
    await new Promise((r) => setTimeout(r, 50));
    seen = (await result('was_aborted', { id: 'disc-1' })).content[0].text;
  }
  assert.equal(seen, 'true', 'ctx.signal aborted after the disconnect');
});

// The client goes away while its call waits for the JS thread (busy in block_js): the handler
// must never run. Tool calls reach JS in the dispatcher's batches, resources one by one.
for (const [kind, send, counter] of [
  ['a tool call', (signal) => callTool(srv.url, 'wait_for_abort', { id: 'queued-1' }, { signal }), 'wait_for_abort'],
  ['a resource read', (signal) => post(srv.url, 'resources/read', { uri: 'mem://counted' }, { signal }), 'read_counted'],
]) {
  test(`${kind} whose client left while it waited for the JS thread never reaches its handler`, async () => {
    const wait = (ms) => new Promise((r) => setTimeout(r, ms));
    const before = await count(counter);
    const blocked = result('block_js', { ms: 3000, tag: counter });
    await untilStderr(srv, `block_js ${counter}`); // the JS thread is inside block_js
    const ac = new AbortController();
    const pending = send(ac.signal).catch((e) => e);
    await wait(300); // the call waits in the core for the JS thread
    ac.abort();
    assert.equal((await pending).name, 'AbortError');
    assert.equal((await blocked).content[0].text, 'blocked');
    // The abandoned call was queued before this one: had it run, the count would show it.
    assert.equal(await count(counter), before, 'the abandoned call did not run');
  });
}

test('runtime add/remove: tools/list changes and subscriptions/listen gets list_changed', async () => {
  const ac = new AbortController();
  const res = await fetch(srv.url, {
    method: 'POST',
    signal: ac.signal,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'listen-1', method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: (await import('./helpers.mjs')).meta() } }),
  });
  assert.equal(res.status, 200);
  const reader = res.body.getReader();
  let buf = '';
  const readUntil = async (re, ms = 5000) => {
    const deadline = Date.now() + ms;
    while (!re.test(buf)) {
      if (Date.now() > deadline) throw new Error(`no ${re} in ${buf}`);
      const { value, done } = await Promise.race([reader.read(), new Promise((r) => setTimeout(() => r({ value: undefined, done: false }), 200))]);
      if (done) throw new Error(`stream ended: ${buf}`);
      if (value) buf += new TextDecoder().decode(value);
    }
  };
  await readUntil(/subscriptions\/acknowledged/);
  assert.equal((await result('add_tool', { name: 'late_tool' })).content[0].text, 'added');
  await readUntil(/notifications\/tools\/list_changed/);
  let names = (await post(srv.url, 'tools/list')).response.result.tools.map((t) => t.name);
  assert.ok(names.includes('late_tool'));
  assert.equal((await result('late_tool')).content[0].text, 'I am late_tool');
  assert.equal((await result('remove_tool', { name: 'late_tool' })).content[0].text, 'true');
  names = (await post(srv.url, 'tools/list')).response.result.tools.map((t) => t.name);
  assert.ok(!names.includes('late_tool'));
  const gone = await callTool(srv.url, 'late_tool', {});
  assert.equal(gone.response.error.code, -32602);
  ac.abort();
});

test('resources and prompts', async () => {
  const r = await post(srv.url, 'resources/read', { uri: 'mem://greeting' });
  assert.deepEqual(r.response.result.contents, [{ uri: 'mem://greeting', mimeType: 'text/plain', text: 'hello resource' }]);
  const p = await post(srv.url, 'prompts/get', { name: 'echo_prompt', arguments: { msg: 'hi' } });
  assert.deepEqual(p.response.result.messages, [{ role: 'user', content: { type: 'text', text: 'echo: hi' } }]);
  const list = await post(srv.url, 'prompts/list');
  assert.deepEqual(list.response.result.prompts[0].arguments, [{ name: 'msg', required: true }]);
});

test('the completion cap is the core\'s: 100 values, total and hasMore (as in Rust and Python)', async () => {
  const ref = { type: 'ref/prompt', name: 'many_completions' };
  const all = await post(srv.url, 'completion/complete', { ref, argument: { name: 'x', value: '' } });
  const c = all.response.result.completion;
  assert.deepEqual(c.values, Array.from({ length: 100 }, (_, i) => `v${String(i).padStart(3, '0')}`));
  assert.equal(c.total, 150);
  assert.equal(c.hasMore, true);
  const few = (await post(srv.url, 'completion/complete', { ref, argument: { name: 'x', value: 'v14' } })).response.result.completion;
  assert.equal(few.values.length, 10);
  assert.equal(few.hasMore, undefined);
});

test('a list of plain data with no output schema is its JSON as one text block (the Python rule)', async () => {
  assert.deepEqual((await result('ret_data_list')).content, [{ type: 'text', text: '[1,{"k":"v"},"x"]' }]);
  assert.deepEqual((await result('ret_empty_list')).content, [{ type: 'text', text: '[]' }]);
  assert.equal((await result('ret_data_list')).isError, undefined);
});
