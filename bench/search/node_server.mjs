// The tool-search benchmark's Node server (bench/search.py): N tools from the shared fixture
// (tool i is fixture tool i % 1000 with the suffix _{i / 1000}), oxmcp/tools/search on, over stdio.
//
//     node bench/search/node_server.mjs N
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Server } from 'oxmcp';

const n = Number(process.argv[2]);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const defs = JSON.parse(fs.readFileSync(path.join(root, 'tests', 'config', 'tools-1000.json'), 'utf8')).tools;
const server = new Server({ name: 'oxmcp-search-bench', version: '1', toolSearchMethod: true });
const ok = async () => ({ content: [{ type: 'text', text: 'ok' }] });
const tools = [];
for (let i = 0; i < n; i++) {
  const d = defs[i % defs.length];
  tools.push({ name: `${d.name}_${Math.floor(i / defs.length)}`, description: d.description, inputSchema: d.inputSchema, handler: ok });
}
server.addTools(tools);
await server.serveStdio();
