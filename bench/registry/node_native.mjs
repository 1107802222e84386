// What the native layer alone costs per registered tool, in-process, no zod, no oxmcp JS:
//
//   OXMCP_NATIVE=path/to/oxmcp.node node --expose-gc bench/registry/node_native.mjs N
//
// N `NativeServer.addTool` calls with prebuilt definitions (the benchmark's tool: its JSON Schema
// as text, handled by the dispatcher), then the definitions dropped and a GC: RSS per tool, and
// CPU per call (process.cpuUsage: all threads). Not a test.
import { createRequire } from 'node:module';
import fs from 'node:fs';

const native = createRequire(import.meta.url)(process.env.OXMCP_NATIVE);
const rss = () => Number(fs.readFileSync('/proc/self/status', 'utf8').match(/VmRSS:\s+(\d+)/)[1]) * 1024;
const cpu = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };
const n = Number(process.argv[2] ?? 5000);
const text = JSON.stringify({
  $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object',
  properties: { a: { type: 'integer' }, b: { type: 'integer' }, note: { type: 'string', default: '' } }, required: ['a', 'b'],
});
const server = new native.NativeServer({ name: 'native', version: '0' });
server.setToolDispatcher(() => []);
let defs = Array.from({ length: n }, (_, i) => ({ name: `tool_${i}`, description: `Add a and b (generated tool ${i}).`, inputSchemaJson: text }));
globalThis.gc?.();
const r0 = rss();
const t0 = cpu();
for (const d of defs) server.addTool(d, null, undefined, undefined, undefined, undefined);
const us = ((cpu() - t0) * 1000) / n;
defs = null;
globalThis.gc?.();
console.log(JSON.stringify({ n, usPerAddTool: +us.toFixed(1), rssPerTool: Math.round((rss() - r0) / n) }));
process.exit(0);
