// The public typings compile against a sample TS file (ESM and CJS entries), and the three
// declaration files stay identical.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './helpers.mjs';

test('tsc --noEmit on tests/node/types/*', () => {
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '-p', path.join('tests', 'node', 'tsconfig.json')], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
});

test('index.d.ts, index.d.mts and index.d.cts are identical', () => {
  const read = (f) => fs.readFileSync(path.join(ROOT, 'bindings-node', f), 'utf8');
  assert.equal(read('index.d.mts'), read('index.d.ts'));
  assert.equal(read('index.d.cts'), read('index.d.ts'));
});

test('ESM and CommonJS entries export the same Server class', async () => {
  const esm = await import('oxmcp');
  const { createRequire } = await import('node:module');
  const cjs = createRequire(import.meta.url)('oxmcp');
  assert.equal(esm.Server, cjs.Server);
  assert.equal(esm.default.Server, cjs.Server);
  assert.equal(esm.McpServer, esm.Server);
});
