// Registry scale: a plain zod shape is converted once per shape and not kept, its
// arguments shaped as zod would; registering many tools costs the JS heap linearly, a few hundred
// bytes each. Counted (heap after GC), not timed. The native registry: core/tests/registry_scale.rs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ROOT } from './helpers.mjs';

const require = createRequire(import.meta.url);
const { z } = require('zod');
const { resolveToolInput, resolveSchema, plainArgs } = require(path.join(ROOT, 'bindings-node', 'lib', 'schema.cjs'));

const shapes = {
  generated: () => ({ a: z.number().int(), b: z.int(), note: z.string().default('') }),
  mixed: () => ({ x: z.number(), flag: z.boolean().optional(), s: z.string().describe('a string'), n: z.number().default(3) }),
  object: () => z.object({ a: z.number(), t: z.boolean().default(false) }),
};

for (const [label, make] of Object.entries(shapes)) {
  test(`plain zod shape (${label}): the JSON Schema zod gives, shared, and arguments as zod parses them`, () => {
    const r1 = resolveToolInput(make(), 'test');
    const r2 = resolveToolInput(make(), 'test');
    assert.ok(r1.plain, 'recognised as plain');
    assert.equal(r1.zod, undefined, 'the zod schema is not kept');
    assert.equal(r1.json, r2.json, 'one JSON Schema per shape');
    const fresh = make();
    const viaZod = resolveSchema(fresh, 'input', 'test');
    assert.deepEqual(r1.json, viaZod.json);
    const parser = viaZod.zod;
    const samples = [{}, { a: 1, b: 2 }, { a: 1, b: 2, note: 'n', extra: 1 }, { x: 1.5, flag: true, s: 'q' }, { x: 2, s: '', n: 0, constructor: 1 }];
    for (const args of samples) {
      const want = parser.safeParse(args);
      if (want.success) assert.deepEqual(plainArgs(r1.plain, r1.defaults, args), want.data, JSON.stringify(args));
    }
  });
}

test('a plain shape\'s JSON Schema is written as zod writes it (text, member order included), without zod', () => {
  const fields = {
    n: () => z.number(), i: () => z.int(), ni: () => z.number().int(), s: () => z.string(), b: () => z.boolean(),
    nd: () => z.number().describe('a number'), id: () => z.int().describe(''), sd: () => z.string().describe('q "x" \u2028'),
    o: () => z.string().optional(), od: () => z.boolean().optional().describe('maybe'), io: () => z.number().int().optional(),
    d: () => z.string().default(''), dd: () => z.number().default(-0).describe('zero'), di: () => z.int().default(7),
    db: () => z.boolean().default(true), df: () => z.string().default(() => 'f'), dbig: () => z.number().default(1e21),
  };
  const names = Object.keys(fields);
  // Every field alone, and shapes of several (required and optional members interleaved).
  const shapes = names.map((k) => ({ [k]: fields[k]() }));
  for (let i = 0; i < names.length; i += 4) shapes.push(Object.fromEntries(names.slice(i, i + 6).map((k) => [k, fields[k]()])));
  shapes.push({ 'a b': z.number(), 'é': z.string().default('é'), '': z.boolean() });
  for (const target of [undefined, 'draft-2020-12', 'draft-7']) {
    for (const shape of shapes) {
      const r = resolveToolInput(shape, 'test', target);
      assert.ok(r.plain, `plain: ${Object.keys(shape)}`);
      const want = JSON.stringify(z.toJSONSchema(z.object(shape), { target: target ?? 'draft-2020-12', io: 'input', unrepresentable: 'any' }));
      assert.equal(r.text, want, `${target}: ${Object.keys(shape)}`);
      assert.equal(JSON.stringify(r.json), want);
    }
  }
  // zod's own conversion for any other target.
  const r = resolveToolInput({ a: z.number() }, 'test', 'openapi-3.0');
  assert.equal(r.text, JSON.stringify(z.toJSONSchema(z.object({ a: z.number() }), { target: 'openapi-3.0', io: 'input', unrepresentable: 'any' })));
});

test('zod schemas with checks, transforms or other types keep zod', () => {
  for (const s of [
    { e: z.string().email() },
    { n: z.number().min(1) },
    { t: z.string().transform((v) => v.toUpperCase()) },
    { o: z.object({ a: z.string() }) },
    { d: z.string().default(() => 'x').meta({ title: 'T' }) },
    z.object({ a: z.string() }).strict(),
    z.object({ n: z.number() }).refine((v) => v.n % 2 === 0),
  ]) {
    const r = resolveToolInput(s, 'test');
    assert.equal(r.plain, undefined);
    assert.ok(r.zod, 'kept for parsing');
  }
});

test('a function default runs per call, as with zod', () => {
  let k = 0;
  const r = resolveToolInput({ id: z.number().default(() => ++k) }, 'test');
  assert.ok(r.plain);
  const first = plainArgs(r.plain, r.defaults, {}).id;
  assert.equal(plainArgs(r.plain, r.defaults, {}).id, first + 1);
  assert.deepEqual(plainArgs(r.plain, r.defaults, { id: 7 }), { id: 7 });
});

const cost = (n, kind) => JSON.parse(execFileSync(process.execPath,
  ['--expose-gc', path.join(ROOT, 'tests', 'node', 'fixtures', 'registry_scale.mjs'), String(n), kind],
  { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));

test('registering N zod tools is linear and keeps neither the zod objects nor much else per tool', () => {
  const [a, b, c] = [300, 1000, 3000].map((n) => cost(n, 'zod'));
  assert.equal(c.tools, 3000);
  assert.deepEqual(c.zodKept, [false, false, false], "the user's zod field objects (and a default's inner schema) were collected");
  // What one more tool keeps (the fixed cost of zod's first conversion cancels out): ~0.8-1 KB.
  // The user's zod objects and a JSON Schema of each tool's own would be ~13 KB, the def of a
  // `.default()` field (with the inner schema) 1.9 KB: the bound below holds neither.
  const late = (c.heap - b.heap) / 2000;
  const early = (b.heap - a.heap) / 700;
  assert.ok(late < 1536, `${late} B of JS heap per tool`);
  assert.ok(late < early * 1.5 + 256, `per-tool heap grows with N: ${early} -> ${late} B`);
  const [j1, j2] = [1000, 3000].map((n) => cost(n, 'json'));
  const json = (j2.heap - j1.heap) / 2000;
  assert.ok(json < 2048, `${json} B of JS heap per JSON Schema tool`);
});

// The native definition structs (bindings-node/src/defs.rs): what a definition lists is what it
// was given, schemas as JSON text, other members through extraJson.
const { nativeDef } = require(path.join(ROOT, 'bindings-node', 'lib', 'defs.cjs'));
const { Server } = require('oxmcp');

test('nativeDef: typed members, schemas as JSON text, the rest verbatim in extraJson', () => {
  const d = nativeDef('tool', { name: 't', title: 7, description: 'd', inputSchema: { type: 'object' }, 'x-vendor': { a: 1 }, annotations: { readOnlyHint: true }, skipped: undefined });
  assert.deepEqual(d, { name: 't', description: 'd', annotations: { readOnlyHint: true }, inputSchemaJson: '{"type":"object"}', extraJson: '{"title":7,"x-vendor":{"a":1}}' });
  assert.deepEqual(nativeDef('resource', { uri: 'a://b', name: 'b', size: 'big' }), { uri: 'a://b', name: 'b', extraJson: '{"size":"big"}' });
  assert.throws(() => nativeDef('prompt', { title: 'no name' }), { code: 'INVALID_DEFINITION' });
  assert.throws(() => nativeDef('tool', { name: 'big', inputSchema: { type: 'object', default: 1n } }), { code: 'INVALID_SCHEMA' });
});

test('definitions are listed as given through the native structs (tools, resources, templates, prompts)', async () => {
  // Without the catalog's digests (docs/CATALOG.md), which would add to each definition's `_meta`.
  const server = new Server({ name: 'defs', version: '0', catalogDigests: false });
  const tool = {
    title: 'T', description: 'd', annotations: { readOnlyHint: true, custom: 'x' }, icons: [{ src: 'https://e.x/i.png' }],
    _meta: { k: [1, 2] }, inputSchema: { type: 'object', properties: { q: { type: 'string', default: 'é"\\' } } },
    outputSchema: { type: 'object', properties: { r: { type: 'number' } } },
  };
  server.registerTool('t', tool, () => ({ structuredContent: { r: 1 }, content: [] }));
  server.registerResource('r', 'mem://r', { title: 'R', mimeType: 'text/plain', size: 12, annotations: { priority: 0.5 } }, () => 'x');
  server.registerResource('tpl', 'mem://f/{id}', { description: 'files' }, () => 'x');
  server.registerPrompt('p', { title: 'P', arguments: [{ name: 'a', required: true, description: 'arg' }] }, () => 'x');
  const c = server.client();
  const [listed] = (await c.listTools()).tools;
  assert.deepEqual(listed, { name: 't', title: 'T', description: 'd', annotations: tool.annotations, icons: tool.icons, _meta: tool._meta, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema });
  assert.deepEqual((await c.listResources()).resources, [{ uri: 'mem://r', name: 'r', title: 'R', mimeType: 'text/plain', size: 12, annotations: { priority: 0.5 } }]);
  assert.deepEqual((await c.listResourceTemplates()).resourceTemplates, [{ uriTemplate: 'mem://f/{id}', name: 'tpl', description: 'files' }]);
  assert.deepEqual((await c.listPrompts()).prompts, [{ name: 'p', title: 'P', arguments: [{ name: 'a', required: true, description: 'arg' }] }]);
  await server.close();
});
