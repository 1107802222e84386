// What `import ... from 'oxmcp'` costs V8 while a server starts. What the process allocates then
// and still holds counts, copied then promoted, towards the 1 MiB of survivors after which V8
// doubles its young generation for good (2 MiB more resident: docs/PERFORMANCE.md, "Node start-up
// kept light"). So the root entry loads only what its own names need, and the sources are ASCII.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './helpers.mjs';

const NODE_DIR = path.join(ROOT, 'bindings-node');

/** The files under bindings-node/lib that a process has loaded after `script` (an ES module). */
function loadedAfter(script) {
  const probe = `${script}
import { createRequire } from 'node:module';
const cache = createRequire(import.meta.url).cache;
process.stdout.write(JSON.stringify(Object.keys(cache)));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', probe], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
  return JSON.parse(out).filter((f) => f.startsWith(NODE_DIR)).map((f) => path.relative(NODE_DIR, f));
}

// Loaded on first use only: the v1 schema table, the low-level facade, the task layer and the
// handlers' `extra` (the first McpServer, `experimental`, the first call), createMcpHandler's
// module, the HTTP mounts, `use()`'s middleware chain and the plain zod shapes (the first zod
// schema).
const LAZY = ['lib/sdk/types.cjs', 'lib/sdk/facade.cjs', 'lib/sdk/tasks.cjs', 'lib/sdk/extra.cjs', 'lib/sdk/v2.cjs', 'lib/http.cjs',
  'lib/middleware.cjs', 'lib/plain-shape.cjs'];

test('the root import and a Server with a tool load none of the first-use modules', () => {
  const loaded = loadedAfter(`import { Server } from 'oxmcp';
const s = new Server({ name: 'startup', version: '1' });
s.registerTool('add', { inputSchema: { type: 'object', properties: { a: { type: 'integer' } } } }, ({ a }) => String(a));`);
  // The probe itself proves it saw the package.
  assert.ok(loaded.includes('lib/server.cjs'), JSON.stringify(loaded));
  for (const f of LAZY) assert.ok(!loaded.includes(f), `${f} loaded by the root import: ${JSON.stringify(loaded)}`);
});

test('each first-use module loads when its name is used, and works', () => {
  const loaded = loadedAfter(`import { McpServer, createMcpHandler } from 'oxmcp';
import { CallToolRequestSchema } from 'oxmcp/types.js';
import { z } from 'zod';
const s = new McpServer({ name: 'startup', version: '1' });
s.registerTool('who', {}, (extra) => ({ content: [{ type: 'text', text: typeof extra.sendNotification }] }));
const r = await s.client().request('tools/call', { name: 'who', arguments: {} });
if (r.content[0].text !== 'function') throw new Error('extra: ' + JSON.stringify(r));
s.registerTool('inc', { inputSchema: { n: z.number().default(41) } }, ({ n }) => ({ content: [{ type: 'text', text: String(n + 1) }] }));
const r3 = await s.client().request('tools/call', { name: 'inc', arguments: {} });
if (r3.content[0].text !== '42') throw new Error('plain shape: ' + JSON.stringify(r3));
if (typeof s.experimental.tasks.registerToolTask !== 'function') throw new Error('no registerToolTask');
if (CallToolRequestSchema.method !== 'tools/call') throw new Error('schema without its method');
if (typeof createMcpHandler(() => new McpServer({ name: 'h', version: '1' })).fetch !== 'function') throw new Error('no fetch');
if (typeof s.nodeHandler() !== 'function') throw new Error('no nodeHandler');
s.use('tools/call', async (ctx, next) => next());
const r2 = await s.client().request('tools/call', { name: 'who', arguments: {} });
if (r2.content[0].text !== 'function') throw new Error('after use: ' + JSON.stringify(r2));`);
  for (const f of LAZY) assert.ok(loaded.includes(f), `${f} not loaded: ${JSON.stringify(loaded)}`);
});

test('the JS sources are ASCII (one other character makes V8 keep a source two bytes a character)', () => {
  const files = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) { if (e.name !== 'node_modules') walk(p); } else if (/\.(c|m)?js$/.test(e.name)) files.push(p);
    }
  };
  walk(path.join(NODE_DIR, 'lib'));
  walk(path.join(NODE_DIR, 'cli'));
  for (const f of fs.readdirSync(NODE_DIR)) if (/\.(c|m)?js$/.test(f)) files.push(path.join(NODE_DIR, f));
  assert.ok(files.length > 20, `only ${files.length} files found`);
  const bad = files.filter((f) => fs.readFileSync(f).some((b) => b > 0x7f)).map((f) => path.relative(ROOT, f));
  assert.deepEqual(bad, []);
});
