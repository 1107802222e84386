// The Node floor: what Node itself costs to answer an MCP tools/call, with no MCP library.
//
//   node bench/servers/node_floor.mjs --port 8000   # Streamable HTTP-shaped POST on any path
//   node bench/servers/node_floor.mjs --stdio       # newline-delimited JSON-RPC
//
// The Node counterpart of the shared kit's Rust "ceiling" (bare hyper + serde_json): node:http,
// one POST route, JSON.parse of the body, add/echo/tools/list/server/discover dispatched by hand,
// the same result shapes written with JSON.stringify. No schema validation, no sessions, no
// headers checked. Its RSS and CPU are the part of a Node MCP server that no MCP library can
// remove (the Node RSS targets are ratios against the TS SDK, and this row shows how much of
// the budget Node alone takes). Not an MCP server: a measuring stick.
import http from 'node:http';
import readline from 'node:readline';

const TOOLS = {
  tools: [
    {
      name: 'add',
      description: 'Add two integers.',
      inputSchema: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['a', 'b'] },
      outputSchema: { type: 'object', properties: { result: { type: 'integer' } }, required: ['result'] },
    },
    {
      name: 'echo',
      description: 'Echo the text back.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    },
  ],
  ttlMs: 0,
  cacheScope: 'public',
  resultType: 'complete',
};
const LIST_RESULT = JSON.stringify(TOOLS);
const DISCOVER_RESULT = JSON.stringify({
  supportedVersions: ['2026-07-28'],
  capabilities: { tools: {} },
  serverInfo: { name: 'node-floor', version: '0.1.0' },
  resultType: 'complete',
});

const err = (id, code, message) => JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error: { code, message } });
const raw = (id, result) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}`;
const text = (s, structured) => ({
  content: [{ type: 'text', text: s }],
  ...(structured === undefined ? {} : { structuredContent: structured }),
  isError: false,
  resultType: 'complete',
});

/** One JSON-RPC message in, `[status, body | undefined]` out (undefined: a notification). */
function handle(body) {
  let m;
  try {
    m = JSON.parse(body);
  } catch {
    return [400, err(null, -32700, 'Parse error')];
  }
  if (m === null || typeof m !== 'object' || m.id === undefined) return [202, undefined];
  const { id, method, params } = m;
  if (method === 'tools/call') {
    const args = params?.arguments ?? {};
    if (params?.name === 'add' && Number.isInteger(args.a) && Number.isInteger(args.b)) {
      const sum = args.a + args.b;
      return [200, JSON.stringify({ jsonrpc: '2.0', id, result: text(String(sum), { result: sum }) })];
    }
    if (params?.name === 'echo' && typeof args.text === 'string') {
      return [200, JSON.stringify({ jsonrpc: '2.0', id, result: text(args.text) })];
    }
    return [200, err(id, -32602, params?.name === 'add' || params?.name === 'echo' ? 'Invalid params' : 'Unknown tool')];
  }
  if (method === 'tools/list') return [200, raw(id, LIST_RESULT)];
  if (method === 'server/discover') return [200, raw(id, DISCOVER_RESULT)];
  return [200, err(id, -32601, 'Method not found')];
}

const argv = process.argv.slice(2);
if (argv.includes('--stdio')) {
  const rl = readline.createInterface({ input: process.stdin });
  rl.on('line', (line) => {
    if (!line.trim()) return;
    const [, out] = handle(line);
    if (out !== undefined) process.stdout.write(out + '\n');
  });
} else {
  const i = argv.indexOf('--port');
  const port = i >= 0 ? Number(argv[i + 1]) : 8000;
  http
    .createServer((req, res) => {
      if (req.method !== 'POST') {
        res.writeHead(405).end();
        return;
      }
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const [status, out] = handle(Buffer.concat(chunks).toString('utf8'));
        if (out === undefined) {
          res.writeHead(status).end();
        } else {
          res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) }).end(out);
        }
      });
    })
    .listen(port, '127.0.0.1');
}
