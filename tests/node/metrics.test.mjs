// The `metrics` option from Node over real HTTP: a scripted workload, then a scrape shows its exact
// counts, with the names the Rust (core/tests/metrics.rs) and Python (tests/python/test_metrics.py)
// servers give, since the core counts them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Server } from 'oxmcp';

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

test('a scrape counts the workload exactly; unknown names add no series', async () => {
  const s = new Server({ name: 'metrics', version: '1.0.0', handleSignals: false, metrics: { token: 's3cret' } });
  const num = { type: 'object', properties: { a: { type: 'integer' } } };
  s.registerTool('add', { inputSchema: num }, async () => ({ content: [{ type: 'text', text: '2' }] }));
  s.registerTool('fail', { inputSchema: num }, async () => { throw new Error('no'); });
  s.resource('r', 'test://r/0', async (uri) => ({ contents: [{ uri: String(uri), text: 'x' }] }));
  const { url } = await s.listen({ host: '127.0.0.1', port: 0 });
  const call = async (method, params) => {
    const name = params.name ?? params.uri;
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json', accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28', 'mcp-method': method, 'mcp-name': name,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: META } }),
    });
    return JSON.parse(await res.text());
  };
  const metrics = new URL('/metrics', url);
  try {
    for (let i = 0; i < 2; i++) assert.ok((await call('tools/call', { name: 'add', arguments: { a: 1 } })).result);
    assert.equal((await call('tools/call', { name: 'fail', arguments: {} })).result.isError, true);
    for (const name of ['nope', 'other-nope']) {
      assert.equal((await call('tools/call', { name, arguments: {} })).error.code, -32602);
    }
    assert.ok((await call('resources/read', { uri: 'test://r/0' })).result);
    assert.equal((await fetch(metrics)).status, 401);
    const res = await fetch(metrics, { headers: { authorization: 'Bearer s3cret' } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    const samples = text.split('\n').filter((l) => l && !l.startsWith('#'));
    for (const want of [
      'oxmcp_requests_total{method="tools/call",era="modern",outcome="ok"} 3',
      'oxmcp_requests_total{method="tools/call",era="modern",outcome="invalid_params"} 2',
      'oxmcp_calls_total{kind="tool",name="add",outcome="ok"} 2',
      'oxmcp_calls_total{kind="tool",name="fail",outcome="is_error"} 1',
      'oxmcp_calls_total{kind="tool",name="unknown",outcome="error"} 2',
      'oxmcp_calls_total{kind="resource",name="r",outcome="ok"} 1',
      'oxmcp_call_duration_seconds_count{kind="tool",name="add"} 2',
      'oxmcp_calls_in_flight 0',
      'oxmcp_auth_failures_total 1',
    ]) assert.ok(samples.includes(want), `missing ${want} in:\n${text}`);
    for (const absent of ['nope', 'test://r/0', 'oxmcp_redis_']) assert.ok(!text.includes(absent), absent);
    assert.equal(samples.filter((l) => l.startsWith('oxmcp_calls_total{')).length, 4, text);
  } finally {
    await s.close();
  }
});

test('metrics on the endpoint path stop the start', async () => {
  assert.throws(() => new Server({ name: 'metrics', version: '1.0.0', handleSignals: false, metrics: { path: '/mcp' } }),
    /metrics\.path "\/mcp" is a path the MCP endpoint serves/);
  const s = new Server({ name: 'metrics', version: '1.0.0', handleSignals: false, metrics: true });
  await assert.rejects(s.listen({ host: '127.0.0.1', port: 0, path: '/metrics' }), /metrics\.path "\/metrics" is a path the MCP endpoint serves/);
  await s.close();
});
