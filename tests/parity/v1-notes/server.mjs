// A notes server in the TypeScript SDK v1 style (McpServer + registerTool/registerResource/
// registerPrompt, served with StdioServerTransport or a stateful StreamableHTTPServerTransport
// per session on node:http), written from the SDK's README.
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const notes = new Map([['1', { title: 'first', body: 'hello' }]]);

function build() {
  const server = new McpServer({ name: 'notes', version: '1.0.0' });
  server.registerTool(
    'add_note',
    {
      title: 'Add a note',
      description: 'Store a note and return its id',
      inputSchema: { title: z.string().describe('Short title'), body: z.string() },
      outputSchema: { id: z.string(), count: z.number() },
    },
    async ({ title, body }) => {
      const id = String(notes.size + 1);
      notes.set(id, { title, body });
      const out = { id, count: notes.size };
      return { content: [{ type: 'text', text: JSON.stringify(out) }], structuredContent: out };
    },
  );
  server.registerTool(
    'get_note',
    { description: 'Fetch a note by id', inputSchema: { id: z.string() } },
    async ({ id }) => {
      const n = notes.get(id);
      if (!n) throw new Error(`Note ${id} not found`);
      return { content: [{ type: 'text', text: `${n.title}: ${n.body}` }] };
    },
  );
  server.registerTool('count', { description: 'How many notes', inputSchema: {} }, async () => ({
    content: [{ type: 'text', text: String(notes.size) }],
  }));
  server.registerResource(
    'note',
    new ResourceTemplate('note://{id}', { list: undefined }),
    { title: 'A note', mimeType: 'text/plain' },
    async (uri, { id }) => ({ contents: [{ uri: uri.href, text: notes.get(id)?.body ?? '' }] }),
  );
  server.registerResource('readme', 'notes://readme', { description: 'About', mimeType: 'text/markdown' }, async (uri) => ({
    contents: [{ uri: uri.href, text: '# Notes' }],
  }));
  server.registerPrompt(
    'summarize',
    { title: 'Summarize', description: 'Summarize a note', argsSchema: { id: z.string() } },
    ({ id }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Summarize: ${notes.get(id)?.body}` } }] }),
  );
  return server;
}

if (process.env.TRANSPORT === 'http') {
  const transports = {};
  createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
    const sid = req.headers['mcp-session-id'];
    let transport = sid ? transports[sid] : undefined;
    if (!transport) {
      if (req.method !== 'POST' || !isInitializeRequest(body)) {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' }, id: null }));
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => { transports[id] = transport; },
      });
      transport.onclose = () => { if (transport.sessionId) delete transports[transport.sessionId]; };
      await build().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  }).listen(Number(process.env.PORT), '127.0.0.1');
} else {
  await build().connect(new StdioServerTransport());
}
