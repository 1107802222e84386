// The low-level Server's handlers set by method name (the TS SDK v2's form) as well as by v1's
// request schema, driven by the TS SDK 1.x client over stdio (a legacy session: subscriptions
// and client notifications exist there). The client comes from .cache/peers-node (scripts/setup.sh).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, withTimeout } from './helpers.mjs';

const SDK = path.join(ROOT, '.cache', 'peers-node', 'node_modules', '@modelcontextprotocol', 'sdk', 'dist', 'esm');
const FIXTURE = path.join(ROOT, 'tests', 'node', 'fixtures', 'lowlevel-method-names.mjs');

test("setRequestHandler('resources/subscribe', fn) and other method names on the low-level Server", { timeout: 60_000 }, async () => {
  const { Client } = await import(pathToFileURL(path.join(SDK, 'client', 'index.js')).href);
  const { StdioClientTransport } = await import(pathToFileURL(path.join(SDK, 'client', 'stdio.js')).href);
  const client = new Client({ name: 'names', version: '1.0.0' }, { capabilities: { roots: { listChanged: true } } });
  const transport = new StdioClientTransport({ command: process.execPath, args: [FIXTURE], cwd: ROOT, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr += d; });
  await withTimeout(client.connect(transport), 15_000, 'connect').catch((e) => { throw new Error(`${e.message}\n${stderr}`); });
  try {
    const report = async () => (await client.callTool({ name: 'subscribers', arguments: {} })).content[0].text;
    assert.deepEqual((await client.readResource({ uri: 'memo://a' })).contents, [{ uri: 'memo://a', text: 'A' }]);
    assert.equal(await report(), 'none; roots changed 0');
    await client.subscribeResource({ uri: 'memo://a' });
    assert.equal(await report(), 'memo://a; roots changed 0');
    await client.sendRootsListChanged();
    await client.unsubscribeResource({ uri: 'memo://a' });
    assert.equal(await report(), 'none; roots changed 1');
  } finally {
    await client.close();
  }
});
