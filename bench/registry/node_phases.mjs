// Where a Node server's start and memory go with N generated zod tools, in-process:
//
//   node --expose-gc bench/registry/node_phases.mjs N register   # oxmcp registerTool per tool
//   node --expose-gc bench/registry/node_phases.mjs N zod-only   # build the same zod shapes, register nothing
//
// CPU ms (process.cpuUsage: all threads) per phase: Node's own start, require('zod'), import
// oxmcp + new Server, N times (build the shape + registerTool), and in that loop the native
// addTool alone; then RSS and JS heap after a GC (bytes per tool against the same process at
// start). zod from $BENCH_NODE_DIR as bench/registry/node_server.mjs loads it. Not a test.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';

const cpu = () => { const c = process.cpuUsage(); return (c.user + c.system) / 1000; };
const rss = () => Number(fs.readFileSync('/proc/self/status', 'utf8').match(/VmRSS:\s+(\d+)/)[1]) * 1024;
const marks = [['node start', cpu()]];
const peer = createRequire(path.join(process.env.BENCH_NODE_DIR || '/tmp/bench-node', 'package.json'));
const { z } = peer('zod');
marks.push(['zod import', cpu()]);
const { Server } = await import('oxmcp');
const server = new Server({ name: 'phases', version: '0' });
marks.push(['oxmcp import + new Server', cpu()]);
const n = Number(process.argv[2] ?? 5000);
const mode = process.argv[3] ?? 'register';
globalThis.gc?.();
const r0 = rss();
const h0 = process.memoryUsage().heapUsed;
let native = 0;
const add = server.native.addTool.bind(server.native);
server.native.addTool = (...a) => { const t = cpu(); try { return add(...a); } finally { native += cpu() - t; } };
let keep = 0;
for (let i = 0; i < n; i++) {
  const inputSchema = { a: z.number().int(), b: z.number().int(), note: z.string().default('') };
  if (mode === 'zod-only') { keep += Object.keys(inputSchema).length; continue; }
  server.registerTool(`tool_${i}`, { description: `Add a and b (generated tool ${i}).`, inputSchema },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
}
marks.push([mode === 'zod-only' ? `${n} zod shapes` : `${n} x (zod shape + registerTool)`, cpu()]);
await new Promise((r) => setTimeout(r, 500));
globalThis.gc?.();
const out = { n, mode, cpuMs: {} };
marks.forEach(([k, v], i) => { out.cpuMs[k] = Math.round(i ? v - marks[i - 1][1] : v); });
if (mode !== 'zod-only') out.cpuMs['of which native addTool'] = Math.round(native);
out.rssPerTool = Math.round((rss() - r0) / n);
out.heapPerTool = Math.round((process.memoryUsage().heapUsed - h0) / n);
console.log(JSON.stringify(out));
process.exit(0);
