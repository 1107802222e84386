// Every way of writing a server in Node gets the same access rules from the core: a caller whose
// token allows one tool (and one prompt, one resource) sees and uses only those, over real HTTP,
// in both eras: oxmcp's Server, the TS SDK v1 McpServer and the v2 McpServer shape. The Python
// side (tests/python/test_access_everywhere.py) runs the same cases for its server styles.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { Server } from 'oxmcp';
import { McpServer as McpServerV2 } from 'oxmcp';
import { McpServer as McpServerV1 } from 'oxmcp/server/mcp.js';

const TOKENS = {
  one: { tokens: ['t-one'], tools: ['open'], prompts: ['open'], resources: ['mem://open'] },
  all: { tokens: ['t-all'] },
};

const STYLES = {
  oxmcp: () => {
    const s = new Server({ name: 's', version: '1', handleSignals: false });
    for (const n of ['open', 'secret']) {
      s.registerTool(n, {}, async () => ({ content: [{ type: 'text', text: `${n} ran` }] }));
      s.registerPrompt(n, {}, async () => ({ messages: [{ role: 'user', content: { type: 'text', text: n } }] }));
      s.registerResource(n, `mem://${n}`, {}, async (uri) => ({ contents: [{ uri: String(uri), text: `${n} text` }] }));
    }
    return s;
  },
  'sdk-v1': () => {
    // Opts in to 2026-07-28 (the 1.x shape is served in the initialize-era revisions by default).
    const s = new McpServerV1({ name: 's', version: '1' }, { modern: true });
    for (const n of ['open', 'secret']) {
      s.tool(n, async () => ({ content: [{ type: 'text', text: `${n} ran` }] }));
      s.prompt(n, async () => ({ messages: [{ role: 'user', content: { type: 'text', text: n } }] }));
      s.resource(n, `mem://${n}`, async (uri) => ({ contents: [{ uri: uri.href, text: `${n} text` }] }));
    }
    return s;
  },
  'sdk-v2': () => {
    const s = new McpServerV2({ name: 's', version: '1' });
    for (const n of ['open', 'secret']) {
      s.registerTool(n, { inputSchema: z.object({}) }, async () => ({ content: [{ type: 'text', text: `${n} ran` }] }));
      s.registerPrompt(n, {}, async () => ({ messages: [{ role: 'user', content: { type: 'text', text: n } }] }));
      s.registerResource(n, `mem://${n}`, {}, async (uri) => ({ contents: [{ uri: uri.href, text: `${n} text` }] }));
    }
    return s;
  },
};

const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

function client(url, token, modern) {
  let sid;
  const send = async (method, params = {}) => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` };
    if (modern) {
      params = { ...params, _meta: MODERN_META };
      Object.assign(headers, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method });
      if (params.name !== undefined || params.uri !== undefined) headers['mcp-name'] = params.name ?? params.uri;
    } else {
      headers['mcp-protocol-version'] = '2025-11-25';
      if (sid) headers['mcp-session-id'] = sid;
    }
    const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    const text = await res.text();
    if (method === 'initialize') sid = res.headers.get('mcp-session-id') ?? undefined;
    const data = text.startsWith('event:') || text.startsWith('data:') ? text.split('\n').find((l) => l.startsWith('data:')).slice(5) : text;
    return JSON.parse(data);
  };
  const ready = modern
    ? Promise.resolve()
    : send('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: token, version: '1' } });
  return async (method, params) => {
    await ready;
    return send(method, params);
  };
}

const names = (r, member, key) => r.result[member].map((e) => e[key]).sort();

for (const [style, make] of Object.entries(STYLES)) {
  for (const modern of [true, false]) {
    test(`${style}, ${modern ? '2026-07-28' : '2025-11-25'}: a caller allowed one tool sees and uses only it`, async () => {
      const s = make();
      const { url } = await s.listen({ host: '127.0.0.1', port: 0, tokens: TOKENS });
      try {
        const one = client(url, 't-one', modern);
        assert.deepEqual(names(await one('tools/list'), 'tools', 'name'), ['open']);
        const ran = await one('tools/call', { name: 'open', arguments: {} });
        assert.equal(ran.result?.content?.[0]?.text, 'open ran', JSON.stringify(ran));
        const hidden = await one('tools/call', { name: 'secret', arguments: {} });
        const unknown = await one('tools/call', { name: 'nope', arguments: {} });
        assert.equal(hidden.error?.code, -32602, JSON.stringify(hidden));
        assert.equal(hidden.error.message, unknown.error.message.replace('nope', 'secret'));
        assert.deepEqual(names(await one('prompts/list'), 'prompts', 'name'), ['open']);
        assert.ok((await one('prompts/get', { name: 'secret' })).error);
        assert.deepEqual(names(await one('resources/list'), 'resources', 'uri'), ['mem://open']);
        assert.ok((await one('resources/read', { uri: 'mem://secret' })).error);
        const everyone = client(url, 't-all', modern);
        assert.deepEqual(names(await everyone('tools/list'), 'tools', 'name'), ['open', 'secret']);
        assert.equal((await everyone('tools/call', { name: 'secret', arguments: {} })).result?.content?.[0]?.text, 'secret ran');
      } finally {
        await s.close();
      }
    });
  }
}
