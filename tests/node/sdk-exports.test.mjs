// Walks the public export list of the installed TypeScript SDK packages (.cache/peers-node, from
// scripts/setup.sh) and checks each name against oxmcp's module at the same path: every name the
// SDK exports is exported by oxmcp too, or listed with a reason on docs/COMPATIBILITY.md
// ("Names not provided"). It prints what oxmcp lacks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PEERS, ROOT } from '../parity/node_runner.mjs';

/** SDK module → the oxmcp module a port imports instead. */
export const MODULES = [
  ['@modelcontextprotocol/sdk/types.js', 'oxmcp/types.js'],
  ['@modelcontextprotocol/sdk/server/mcp.js', 'oxmcp/server/mcp.js'],
  ['@modelcontextprotocol/sdk/server/index.js', 'oxmcp/server/index.js'],
  ['@modelcontextprotocol/sdk/server/stdio.js', 'oxmcp/server/stdio.js'],
  ['@modelcontextprotocol/sdk/server/streamableHttp.js', 'oxmcp/server/streamableHttp.js'],
  ['@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js', 'oxmcp/server/webStandardStreamableHttp.js'],
  ['@modelcontextprotocol/sdk/server/completable.js', 'oxmcp/server/completable.js'],
  ['@modelcontextprotocol/sdk/server/express.js', 'oxmcp/server/express.js'],
  ['@modelcontextprotocol/sdk/experimental/tasks', 'oxmcp/experimental/tasks'],
  ['@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js', 'oxmcp/experimental/tasks/stores/in-memory.js'],
  ['@modelcontextprotocol/server', 'oxmcp'],
  ['@modelcontextprotocol/server/stdio', 'oxmcp/stdio'],
  ['@modelcontextprotocol/node', 'oxmcp/node'],
];

/** Import `spec` as ESM code in .cache/peers-node would (the `import` condition of each package). */
async function importPeer(spec) {
  const helper = path.join(PEERS, 'import-peer.mjs');
  writeFileSync(helper, 'export const load = (s) => import(s);\n');
  return (await import(pathToFileURL(helper).href)).load(spec);
}

async function exportsOf(spec, peer) {
  try {
    return Object.keys(peer ? await importPeer(spec) : await import(spec));
  } catch (e) {
    if (peer) throw e;
    return null; // oxmcp has no such module
  }
}

/** `| module | name | reason |` rows of the "Names not provided" table. */
function listed() {
  const doc = readFileSync(path.join(ROOT, 'docs/COMPATIBILITY.md'), 'utf8');
  const rows = new Map();
  for (const line of doc.split('\n')) {
    const m = /^\|\s*`([^`]+)`\s*\|([^|]+)\|\s*(.+?)\s*\|\s*$/.exec(line);
    if (!m || m[3].length <= 3) continue;
    for (const [, n] of m[2].matchAll(/`([^`]+)`/g)) rows.set(`${m[1]} ${n}`, m[3]);
  }
  return rows;
}

test('every name the SDK packages export is in oxmcp or listed on the compatibility page', async () => {
  const rows = listed();
  const unexplained = [];
  const lacking = [];
  for (const [sdk, mine] of MODULES) {
    const theirs = await exportsOf(sdk, true);
    const ours = new Set((await exportsOf(mine, false)) ?? []);
    for (const name of theirs) {
      if (name === 'default' || name === '__esModule' || ours.has(name)) continue;
      lacking.push(`${sdk} ${name}`);
      if (!rows.has(`${sdk} ${name}`) && !rows.has(`${sdk} *`)) unexplained.push(`${sdk}: ${name}`);
    }
  }
  console.log(`oxmcp lacks ${lacking.length} SDK names (each listed with a reason on docs/COMPATIBILITY.md):\n  ${lacking.join('\n  ')}`);
  assert.deepEqual(unexplained, [], 'names neither exported by oxmcp nor listed on docs/COMPATIBILITY.md');
});

test('oxmcp/types.js schemas stand for the same methods as the SDK schemas', async () => {
  const sdk = await importPeer('@modelcontextprotocol/sdk/types.js');
  const ours = await import('oxmcp/types.js');
  const wrong = [];
  for (const [name, schema] of Object.entries(sdk)) {
    if (!name.endsWith('Schema')) continue;
    const shape = schema?.shape ?? schema?._zod?.def?.shape;
    const method = shape?.method?.value ?? shape?.method?._zod?.def?.values?.[0];
    if (typeof method !== 'string') continue;
    if (ours[name]?.method !== method || ours[name]?.shape?.method?.value !== method) wrong.push(`${name}: ${method} vs ${ours[name]?.method}`);
  }
  assert.deepEqual(wrong, []);
  assert.equal(new ours.McpError(ours.ErrorCode.InvalidParams, 'x').message, new sdk.McpError(sdk.ErrorCode.InvalidParams, 'x').message);
  assert.equal(ours.ErrorCode[-32602], 'InvalidParams');
  assert.equal(ours.LATEST_PROTOCOL_VERSION, sdk.LATEST_PROTOCOL_VERSION);
  assert.deepEqual(ours.SUPPORTED_PROTOCOL_VERSIONS, sdk.SUPPORTED_PROTOCOL_VERSIONS);
  const u = new ours.UrlElicitationRequiredError([{ mode: 'url', url: 'https://x', message: 'm', elicitationId: '1' }]);
  assert.equal(u.code, -32042);
  assert.equal(u.elicitations.length, 1);
  assert.ok(ours.isInitializeRequest({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }));
  assert.ok(!ours.isInitializeRequest({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
});
