// The TS SDK v1's low-level Server whose lists change while it serves: a tool creates notes (each
// a resource) and unlocks a second tool, and nothing calls send*ListChanged. The SDK runs the list
// handlers on every request, so a note is listed and readable as soon as it exists.
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema, ListToolsRequestSchema, ListResourcesRequestSchema, ReadResourceRequestSchema,
  McpError, ErrorCode,
} from '@modelcontextprotocol/sdk/types.js';

const notes = new Map();
let unlocked = false;

function build() {
  const server = new Server({ name: 'dynamic', version: '1.0.0' }, { capabilities: { tools: {}, resources: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      {
        name: 'create_note',
        description: 'Create a note',
        inputSchema: { type: 'object', properties: { name: { type: 'string' }, text: { type: 'string' } }, required: ['name', 'text'] },
      },
      ...(unlocked ? [{ name: 'count_notes', description: 'How many notes exist', inputSchema: { type: 'object', properties: {} } }] : []),
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const { name, arguments: args = {} } = req.params;
    if (name === 'create_note') {
      notes.set(args.name, args.text);
      unlocked = true;
      return { content: [{ type: 'text', text: `created note:///${args.name}` }] };
    }
    if (name === 'count_notes' && unlocked) return { content: [{ type: 'text', text: String(notes.size) }] };
    throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${name}`);
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: [...notes.keys()].sort().map((n) => ({ uri: `note:///${n}`, name: n, mimeType: 'text/plain' })),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    const { uri } = req.params;
    const name = uri.slice('note:///'.length);
    if (!notes.has(name)) throw new McpError(-32002, `Resource ${uri} not found`);
    return { contents: [{ uri, mimeType: 'text/plain', text: notes.get(name) }] };
  });
  return server;
}

if (process.env.TRANSPORT === 'http') {
  const transports = {};
  createServer(async (req, res) => {
    const sid = req.headers['mcp-session-id'];
    let transport = sid && transports[sid];
    if (!transport) {
      transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (id) => { transports[id] = transport; } });
      await build().connect(transport);
    }
    await transport.handleRequest(req, res);
  }).listen(Number(process.env.PORT), '127.0.0.1');
} else {
  await build().connect(new StdioServerTransport());
}
