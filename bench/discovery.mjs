#!/usr/bin/env node
// Discovery benchmark (Node): N tools defined with `defineTool` in M modules of a directory made
// in a temp dir; the time of `await server.discover(dir)` (imports + registrations), best and
// median of R runs, each in a fresh process (so the imports are real).
//
//   node bench/discovery.mjs                       # 1,000 tools in 100 modules, 5 runs
//   node bench/discovery.mjs --tools 1000 --modules 1000
//
// Not a test: timings depend on the machine and the build (say which in RESULTS.md).
// The Python twin is bench/discovery.py.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { tools: { type: 'string', default: '1000' }, modules: { type: 'string', default: '100' }, runs: { type: 'string', default: '5' } } });
const [tools, modules, runs] = [Number(values.tools), Number(values.modules), Number(values.runs)];

const SCHEMA = "{ type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['a', 'b'] }";
const root = mkdtempSync(path.join(tmpdir(), 'oxmcp-bench-discovery-'));
try {
  // `from 'oxmcp'` in the generated modules resolves to this checkout.
  mkdirSync(path.join(root, 'node_modules'));
  symlinkSync(path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..'), path.join(root, 'node_modules', 'oxmcp'), 'dir');
  const per = Math.ceil(tools / modules);
  for (let m = 0; m < modules; m++) {
    const dir = path.join(root, `group_${String(Math.floor(m / 10)).padStart(3, '0')}`);
    mkdirSync(dir, { recursive: true });
    let body = "import { defineTool } from 'oxmcp';\n";
    for (let i = m * per; i < Math.min(tools, (m + 1) * per); i++) {
      body += `export const tool_${i} = defineTool('tool_${i}', { description: 'Tool ${i}: add two integers', inputSchema: ${SCHEMA} }, ({ a, b }) => String(a + b));\n`;
    }
    writeFileSync(path.join(dir, `mod_${String(m).padStart(4, '0')}.mjs`), body);
  }
  const child = `import { Server } from 'oxmcp';
const server = new Server({ name: 'bench', version: '1' });
const t0 = performance.now();
await server.discover(${JSON.stringify(root)});
const ms = performance.now() - t0;
if (server.listTools().length !== ${tools}) throw new Error('tools: ' + server.listTools().length);
console.log(ms / 1000);`;
  const times = [];
  for (let r = 0; r < runs; r++) {
    times.push(Number(execFileSync(process.execPath, ['--input-type=module', '-e', child], { encoding: 'utf8', cwd: root })));
  }
  times.sort((a, b) => a - b);
  console.log(JSON.stringify({ language: 'node', tools, modules, best_s: Number(times[0].toFixed(4)), median_s: Number(times[Math.floor(runs / 2)].toFixed(4)) }));
} finally {
  rmSync(root, { recursive: true, force: true });
}
