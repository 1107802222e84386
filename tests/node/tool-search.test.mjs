// Tool search from Node: the `toolSearch` options travel through the binding to the core, and a
// caller's allow-list hides tools from search and from the call proxy, over real HTTP. The
// ranking itself is the core's (core/tests/security/tool_search.rs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Server } from 'oxmcp';
import { ROOT, post } from './helpers.mjs';

const FIXTURE = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'config', 'tools-1000.json'), 'utf8'));
const TOKENS = { alice: { tokens: ['alice-token'], tools: ['slack_*'] }, root: 'root-token' };
const names = (tools) => tools.map((t) => t.name);

test('search_tools and oxmcp/tools/search answer from the core; hidden tools stay hidden', async () => {
  const s = new Server({ name: 's', version: '1', handleSignals: false, toolSearch: 'bm25', toolSearchMaxResults: 3, toolSearchMethod: true });
  s.addTools(FIXTURE.tools.map((t) => ({ ...t, handler: async () => ({ content: [{ type: 'text', text: `ran ${t.name}` }] }) })));
  const { url } = await s.listen({ host: '127.0.0.1', port: 0, tokens: TOKENS });
  try {
    const as = (token) => ({ headers: { authorization: `Bearer ${token}` } });
    const list = await post(url, 'tools/list', {}, as('root-token'));
    assert.deepEqual(names(list.response.result.tools), ['search_tools', 'call_tool']);
    for (const q of FIXTURE.queries) {
      const r = await post(url, 'tools/call', { name: 'search_tools', arguments: { query: q.query } }, as('root-token'));
      assert.deepEqual(names(r.response.result.structuredContent.result).slice(0, q.top.length), q.top, q.name);
    }
    const call = await post(url, 'tools/call', { name: 'call_tool', arguments: { name: 'k8s_delete_pod', arguments: { id: 'p' } } }, as('root-token'));
    assert.equal(call.response.result.content[0].text, 'ran k8s_delete_pod');

    for (const query of ['delete a kubernetes pod', 'slack message', 'list']) {
      const r = await post(url, 'oxmcp/tools/search', { query, limit: 50 }, as('alice-token'));
      const found = names(r.response.result.tools);
      assert.ok(found.length > 0 && found.every((n) => n.startsWith('slack_')), `${query}: ${found}`);
    }
    const hidden = await post(url, 'tools/call', { name: 'call_tool', arguments: { name: 'k8s_delete_pod', arguments: { id: 'p' } } }, as('alice-token'));
    assert.equal(hidden.response.error.message, 'Unknown tool: k8s_delete_pod');
  } finally {
    await s.close();
  }
});

test('a search option without toolSearch is refused, naming it as spelled', () => {
  assert.throws(() => new Server({ name: 's', version: '1', toolSearchMaxResults: 3 }), { code: 'INVALID_OPTION', message: /toolSearchMaxResults needs tool_search \(bm25 or regex\)/ });
});
