// The examples run as documented: sqlite-explorer over stdio, quickstart over HTTP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import { StdioPeer, startHttp, callTool, post, exited, ROOT } from './helpers.mjs';

test('sqlite-explorer: list_tables, describe_table, query, schema://{table}, prompt, read-only', async (t) => {
  const peer = new StdioPeer(path.join(ROOT, 'examples', 'node', 'sqlite-explorer.mjs'));
  t.after(() => peer.kill());
  const list = await peer.request('tools/call', { name: 'list_tables', arguments: {} });
  assert.deepEqual(list.result.structuredContent, { tables: ['albums', 'artists'] });
  const desc = await peer.request('tools/call', { name: 'describe_table', arguments: { table: 'artists' } });
  assert.deepEqual(desc.result.structuredContent.columns.map((c) => c.name), ['id', 'name', 'country']);
  const missing = await peer.request('tools/call', { name: 'describe_table', arguments: { table: 'nope' } });
  assert.equal(missing.result.isError, true);
  const q = await peer.request('tools/call', { name: 'query', arguments: { sql: 'SELECT title FROM albums WHERE year > ? ORDER BY year', params: [1990] } });
  assert.deepEqual(q.result.structuredContent.rows, [{ title: 'Homogenic' }, { title: 'Vespertine' }]);
  const write = await peer.request('tools/call', { name: 'query', arguments: { sql: 'DELETE FROM albums' } });
  assert.equal(write.result.isError, true);
  const sneaky = await peer.request('tools/call', { name: 'query', arguments: { sql: 'WITH x AS (SELECT 1) DELETE FROM albums' } });
  assert.equal(sneaky.result.isError, true);
  const attach = await peer.request('tools/call', { name: 'query', arguments: { sql: `ATTACH DATABASE '${path.join(os.tmpdir(), 'x.db')}' AS other` } });
  assert.equal(attach.result.isError, true);
  // Filters out every row, so no row limit stops it: only the demo's time limit does.
  const endless = await peer.request('tools/call', { name: 'query', arguments: { sql: 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c WHERE x < 0' } });
  assert.equal(endless.result.isError, true);
  assert.match(endless.result.content[0].text, /longer than 2 s/);
  const count = await peer.request('tools/call', { name: 'query', arguments: { sql: 'SELECT count(*) AS n FROM albums' } });
  assert.deepEqual(count.result.structuredContent.rows, [{ n: 5 }], 'nothing was deleted');
  const schema = await peer.request('resources/read', { uri: 'schema://artists' });
  assert.match(schema.result.contents[0].text, /CREATE TABLE artists/);
  const nf = await peer.request('resources/read', { uri: 'schema://nope' });
  assert.equal(nf.error.code, -32602);
  const prompt = await peer.request('prompts/get', { name: 'explore_table', arguments: { table: 'albums' } });
  assert.match(prompt.result.messages[0].content.text, /describe_table on "albums"/);
  const comp = await peer.request('completion/complete', { ref: { type: 'ref/resource', uri: 'schema://{table}' }, argument: { name: 'table', value: 'al' } });
  assert.deepEqual(comp.result.completion.values, ['albums']);
  peer.child.stdin.end();
  assert.equal((await exited(peer.child)).code, 0, peer.stderr);
});

test('quickstart over HTTP', async () => {
  const srv = await startHttp(path.join(ROOT, 'examples', 'node', 'quickstart.mjs'));
  try {
    const r = await callTool(srv.url, 'add', { a: 2, b: 40 });
    assert.deepEqual(r.response.result.structuredContent, { sum: 42 });
    const m = await post(srv.url, 'resources/read', { uri: 'demo://motd' });
    assert.equal(m.response.result.contents[0].text, 'Hello from oxmcp!');
  } finally {
    srv.child.kill('SIGTERM');
    assert.equal((await exited(srv.child)).code, 0);
  }
});
