// The public typings compile against a sample TS file (ESM and CJS entries); index.d.mts and
// index.d.cts are generated from index.d.ts; the native typings are not `any` for options.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { ROOT } from './helpers.mjs';

const require = createRequire(import.meta.url);

test('tsc --noEmit on tests/node/types/*', () => {
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '-p', path.join('tests', 'node', 'tsconfig.json')], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
});

test('index.d.mts and index.d.cts are generated from index.d.ts by the build', () => {
  const read = (f) => fs.readFileSync(path.join(ROOT, 'bindings-node', f), 'utf8');
  const { HEADER } = require('../../bindings-node/scripts/gen-dts.cjs');
  assert.equal(read('index.d.mts'), HEADER + read('index.d.ts'));
  assert.equal(read('index.d.cts'), HEADER + read('index.d.ts'));
  // Not in git: the build (npm install's `prepare`) writes them.
  const tracked = spawnSync('git', ['ls-files', 'bindings-node/index.d.mts', 'bindings-node/index.d.cts'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(tracked.stdout.trim(), '');
});

test('the native typings give the options their types, not any', () => {
  const native = read('native.d.ts');
  assert.match(native, /constructor\(options: import\('\.\/index'\)\.ServerOptions, declare\?: Array<'tools' \| 'resources' \| 'prompts'>\)/);
  assert.match(native, /listenHttp\(options: import\('\.\/index'\)\.ListenOptions\)/);
  assert.match(native, /configureMount\(options: import\('\.\/index'\)\.HttpOptions\)/);
  // Definitions are #[napi(object)] structs (bindings-node/src/defs.rs): every member typed, none `any`.
  assert.match(native, /addTool\(def: NativeToolDef,/);
  assert.match(native, /addResource\(def: NativeResourceDef,/);
  assert.match(native, /addResourceTemplate\(def: NativeResourceTemplateDef,/);
  assert.match(native, /addPrompt\(def: NativePromptDef,/);
  assert.match(native, /export interface ToolBatchItem \{\s*def: NativeToolDef/);
  const defs = ['NativeToolDef', 'NativeResourceDef', 'NativeResourceTemplateDef', 'NativePromptDef', 'ToolBatchItem']
    .map((n) => native.match(new RegExp(`export interface ${n} \\{[\\s\\S]*?\\n\\}`))?.[0] ?? assert.fail(`no interface ${n}`));
  const adds = native.split('\n').filter((l) => /^\s*add(Tool|Tools|Resource|ResourceTemplate|Prompt)\(/.test(l));
  assert.equal(adds.length, 5);
  for (const text of [...defs, ...adds]) assert.doesNotMatch(text, /\bany\b/, text);
  assert.match(defs[0], /name: string\n/);
  assert.match(defs[0], /inputSchemaJson\?: string\n/);
  assert.match(defs[0], /annotations\?: import\('\.\/index'\)\.ToolAnnotations/);
  assert.match(defs[0], /execution\?: \{ taskSupport\?: 'forbidden' \| 'optional' \| 'required'/);
  assert.match(defs[1], /uri: string\n\s*name: string\n/);
  function read(f) { return fs.readFileSync(path.join(ROOT, 'bindings-node', f), 'utf8'); }
});

test('ESM and CommonJS entries export the same Server class', async () => {
  const esm = await import('oxmcp');
  const { createRequire } = await import('node:module');
  const cjs = createRequire(import.meta.url)('oxmcp');
  assert.equal(esm.Server, cjs.Server);
  assert.equal(esm.default.Server, cjs.Server);
  assert.ok(esm.McpServer.prototype instanceof esm.Server, 'McpServer is a Server');
});
