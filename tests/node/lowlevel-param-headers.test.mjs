// The low-level Server's tools get the core's 2026-07-28 tools/call rules over real HTTP: the
// Mcp-Param-* headers of a tool its tools/list handler lists with x-mcp-header are checked as a
// registered tool's are (400 + -32020), and a call without a name, with arguments that are not an
// object, or with a clientInfo that is not an object, is -32602 before the handler runs.
// tests/python/test_lowlevel_param_headers.py runs the same cases on Python's low-level Server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { Server } from 'oxmcp/server/index.js';
import { StreamableHTTPServerTransport } from 'oxmcp/server/streamableHttp.js';
import { ListToolsRequestSchema, CallToolRequestSchema } from 'oxmcp/types.js';

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

async function serve() {
  const server = new Server({ name: 'll-headers', version: '1.0.0' }, { capabilities: { tools: {} }, modern: true });
  let calls = 0;
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 'deploy', inputSchema: { type: 'object', properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' }, note: { type: 'string' } } } }] }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    calls++;
    return { content: [{ type: 'text', text: `${req.params.name} ${JSON.stringify(req.params.arguments)} after ${calls} calls` }] };
  });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  const http = createServer((req, res) => transport.handleRequest(req, res));
  await new Promise((r) => http.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${http.address().port}/mcp`;
  const post = async (method, params, headers = {}, meta = META) => {
    const r = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } }),
    });
    const text = await r.text();
    const data = text.startsWith('{') ? JSON.parse(text) : JSON.parse(text.split('\n').find((l) => l.startsWith('data:')).slice(5));
    return { status: r.status, data };
  };
  return { post, close: async () => { await new Promise((r) => http.close(r)); await server.close(); } };
}

test('low-level Server: the Mcp-Param-* headers of a listed tool are checked', { timeout: 60_000 }, async () => {
  const { post, close } = await serve();
  try {
    const listed = await post('tools/list', {});
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.data.result.tools.map((t) => t.name), ['deploy']);
    const call = { name: 'deploy', arguments: { region: 'eu-west', note: 'n' } };
    const ok = await post('tools/call', call, { 'mcp-name': 'deploy', 'mcp-param-region': 'eu-west' });
    assert.equal(ok.status, 200, JSON.stringify(ok.data));
    assert.match(ok.data.result.content[0].text, /after 1 calls/);
    for (const [headers, why] of [[{}, 'missing'], [{ 'mcp-param-region': 'us-east' }, 'does not match']]) {
      const refused = await post('tools/call', call, { 'mcp-name': 'deploy', ...headers });
      assert.equal(refused.status, 400, JSON.stringify(refused.data));
      assert.equal(refused.data.error.code, -32020);
      assert.ok(refused.data.error.message.includes(why), refused.data.error.message);
    }
    // No header is expected for an argument that is absent.
    const absent = await post('tools/call', { name: 'deploy', arguments: { note: 'n' } }, { 'mcp-name': 'deploy' });
    assert.equal(absent.status, 200, JSON.stringify(absent.data));
    assert.match(absent.data.result.content[0].text, /after 2 calls/);
  } finally {
    await close();
  }
});

test('low-level Server: the call shape and clientInfo are checked before the handler', { timeout: 60_000 }, async () => {
  const { post, close } = await serve();
  try {
    const noName = await post('tools/call', { arguments: {} });
    assert.equal(noName.data.error?.code, -32602, JSON.stringify(noName.data));
    const badArgs = await post('tools/call', { name: 'deploy', arguments: [1] }, { 'mcp-name': 'deploy' });
    assert.equal(badArgs.data.error?.code, -32602, JSON.stringify(badArgs.data));
    const badInfo = await post('tools/list', {}, {}, { ...META, 'io.modelcontextprotocol/clientInfo': 'not an object' });
    assert.equal(badInfo.status, 400);
    assert.equal(badInfo.data.error?.code, -32602, JSON.stringify(badInfo.data));
    const ok = await post('tools/call', { name: 'deploy', arguments: {} }, { 'mcp-name': 'deploy' });
    assert.equal(ok.status, 200);
    assert.match(ok.data.result.content[0].text, /after 1 calls/, 'no refused call reached it');
  } finally {
    await close();
  }
});
