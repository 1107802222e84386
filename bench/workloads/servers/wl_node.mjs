// The workload benchmark's Node servers: the same tools and resources on oxmcp and on the
// official TypeScript SDK v2 (`createMcpHandler` on node:http, as the shared kit runs it), as
// each library's user writes them. What they serve is in examples/rust/workload_server.rs.
//
//   node wl_node.mjs oxmcp|ts-sdk --port N        Streamable HTTP at 127.0.0.1:N/mcp
//
// Data from WL_DATA; WL_TOOLS=N generated tools, WL_TEMPLATES=N resource templates. The TS SDK
// builds a server per request (its factory); the schemas and data are built once, outside it.
import { createRequire } from 'node:module';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const impl = process.argv[2];
const port = Number(process.argv[process.argv.indexOf('--port') + 1]);
const DATA = process.env.WL_DATA;
const TOOLS = Number(process.env.WL_TOOLS || 0);
const TEMPLATES = Number(process.env.WL_TEMPLATES || 0);
const file = (n) => readFileSync(path.join(DATA, n));
const json = (n) => JSON.parse(file(n).toString('utf8'));
const SIZES = ['large', 'small'];
const RECORDS = Object.fromEntries(SIZES.map((s) => [s, json(`records_${s}.json`)]));
const BLOBS = Object.fromEntries(SIZES.map((s) => [s, file(`blob_${s}.bin`)]));
const TEXTS = Object.fromEntries(SIZES.map((s) => [s, file(`text_${s}.txt`).toString('utf8')]));
const RECORDS_SCHEMA = json('records_schema.json');
const ORDERS_SCHEMA = json('orders_schema.json');
const GEN_SCHEMA = {
  type: 'object',
  properties: { a: { type: 'integer' }, b: { type: 'integer' }, note: { type: 'string' } },
  required: ['a', 'b'],
};

if (impl === 'oxmcp') {
  const { Server, ResourceTemplate } = await import('oxmcp');
  const server = new Server({ name: 'wl-oxmcp-node', version: '0.1.0', pageSize: Math.max(100, TOOLS + 10),
    maxSessions: 20000, maxSessionsPerCaller: 20000, maxListeners: 4096, maxListenersPerCaller: 4096, maxTasksPerCaller: 1_000_000,
    maxConnections: 4096, maxConnectionsPerClient: 4096 });
  server.registerTool('add', { description: 'Adds a and b', inputSchema: GEN_SCHEMA }, ({ a, b }) => String(a + b));
  server.registerTool('job', { description: 'A task that is done at once', execution: { taskSupport: 'optional' } },
    () => 'job done');
  server.registerTool('touch', { description: 'Marks bench://watched as updated' }, () => {
    server.notifyResourceUpdated('bench://watched');
    return 'touched';
  });
  server.registerResource('watched', 'bench://watched', { mimeType: 'text/plain' },
    () => ({ mimeType: 'text/plain', text: 'watched' }));
  for (const s of SIZES) {
    server.registerTool(`records_${s}`, { description: 'A page of records', outputSchema: RECORDS_SCHEMA }, () => RECORDS[s]);
    server.registerResource(`blob_${s}`, `bench://blob/${s}`, { mimeType: 'application/octet-stream' },
      () => ({ mimeType: 'application/octet-stream', blob: BLOBS[s] }));
    server.registerResource(`text_${s}`, `bench://text/${s}`, { mimeType: 'text/plain' },
      () => ({ mimeType: 'text/plain', text: TEXTS[s] }));
  }
  server.registerTool('orders', { description: 'Checks a batch of orders', inputSchema: ORDERS_SCHEMA },
    ({ orders }) => `orders=${orders.length}`);
  for (let i = 0; i < TOOLS; i++) {
    server.registerTool(`tool_${String(i).padStart(4, '0')}`,
      { description: `Generated tool number ${i}: adds a and b.`, inputSchema: GEN_SCHEMA }, ({ a, b }) => String(a + b));
  }
  for (let i = 0; i < TEMPLATES; i++) {
    server.registerResource(`template_${i}`, new ResourceTemplate(`bench://t${i}/{id}`), { mimeType: 'text/plain' },
      (uri, vars) => ({ mimeType: 'text/plain', text: `t${i}:${vars.id}` }));
  }
  const { runFromArgs } = await import('oxmcp');
  process.argv = [process.argv[0], process.argv[1], '--http', `127.0.0.1:${port}`];
  await runFromArgs(server);
} else {
  const require = createRequire(path.join(process.env.BENCH_NODE_DIR, 'package.json'));
  const { McpServer, ResourceTemplate, createMcpHandler } = require('@modelcontextprotocol/server');
  const { toNodeHandler, localhostHostValidation, localhostOriginValidation } = require('@modelcontextprotocol/node');
  const { z } = require('zod');
  const Record = z.object({ id: z.number().int(), name: z.string(), email: z.string(), score: z.number(),
    active: z.boolean(), tags: z.array(z.string()) });
  const Records = z.object({ items: z.array(Record) });
  const Address = z.object({ street: z.string(), city: z.string(), zip: z.string(), country: z.string() }).strict();
  const Customer = z.object({ name: z.string(), email: z.string(), address: Address }).strict();
  const Item = z.object({ sku: z.string(), qty: z.number().int().min(1), price: z.number(), tags: z.array(z.string()) }).strict();
  const Payment = z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('card'), number: z.string(), expiry: z.string() }).strict(),
    z.object({ kind: z.literal('transfer'), iban: z.string(), reference: z.string() }).strict(),
  ]);
  const Order = z.object({ id: z.string(), customer: Customer, items: z.array(Item), payment: Payment }).strict();
  const Orders = z.object({ orders: z.array(Order) });
  const Gen = z.object({ a: z.number().int(), b: z.number().int(), note: z.string().optional() });
  const templates = Array.from({ length: TEMPLATES }, (_, i) => new ResourceTemplate(`bench://t${i}/{id}`, { list: undefined }));

  function factory() {
    const server = new McpServer({ name: 'wl-ts-sdk', version: '1.0.0' });
    for (const s of SIZES) {
      server.registerTool(`records_${s}`, { description: 'A page of records', outputSchema: Records }, async () => ({
        content: [{ type: 'text', text: JSON.stringify(RECORDS[s]) }], structuredContent: RECORDS[s] }));
      server.registerResource(`blob_${s}`, `bench://blob/${s}`, { mimeType: 'application/octet-stream' }, async (uri) => ({
        contents: [{ uri: uri.href, mimeType: 'application/octet-stream', blob: BLOBS[s].toString('base64') }] }));
      server.registerResource(`text_${s}`, `bench://text/${s}`, { mimeType: 'text/plain' }, async (uri) => ({
        contents: [{ uri: uri.href, mimeType: 'text/plain', text: TEXTS[s] }] }));
    }
    server.registerTool('orders', { description: 'Checks a batch of orders', inputSchema: Orders }, async ({ orders }) => ({
      content: [{ type: 'text', text: `orders=${orders.length}` }] }));
    server.registerTool('add', { description: 'Adds a and b', inputSchema: Gen }, async ({ a, b }) => ({
      content: [{ type: 'text', text: String(a + b) }] }));
    server.registerTool('job', { description: 'A task that is done at once' }, async () => ({
      content: [{ type: 'text', text: 'job done' }] }));
    for (let i = 0; i < TOOLS; i++) {
      server.registerTool(`tool_${String(i).padStart(4, '0')}`, { description: `Generated tool number ${i}: adds a and b.`,
        inputSchema: Gen }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }));
    }
    templates.forEach((t, i) => server.registerResource(`template_${i}`, t, { mimeType: 'text/plain' }, async (uri, vars) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: `t${i}:${vars.id}` }] })));
    return server;
  }
  const validateHost = localhostHostValidation();
  const validateOrigin = localhostOriginValidation();
  const nodeHandler = toNodeHandler(createMcpHandler(factory));
  createServer((req, res) => {
    if (req.url !== '/mcp') { res.statusCode = 404; res.end(); return; }
    if (!validateHost(req, res) || !validateOrigin(req, res)) return;
    nodeHandler(req, res);
  }).listen(port, '127.0.0.1');
}
