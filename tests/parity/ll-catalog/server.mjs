// Everything by hand on the TS SDK v1's low-level Server: tools (JSON Schema verbatim), resources
// and a template, prompts, completion, and custom resources/subscribe handlers that track who is
// subscribed so that a tool can send notifications/resources/updated to them.
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema, ListToolsRequestSchema, ListResourcesRequestSchema, ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema, ListPromptsRequestSchema, GetPromptRequestSchema, CompleteRequestSchema,
  SubscribeRequestSchema, UnsubscribeRequestSchema, McpError, ErrorCode,
} from '@modelcontextprotocol/sdk/types.js';

const items = { apple: 3, pear: 5 };

function build() {
  const server = new Server(
    { name: 'catalog', version: '3.0.0' },
    { capabilities: { tools: {}, resources: { subscribe: true }, prompts: {}, completions: {} }, instructions: 'Fruit stock.' },
  );
  const subscribed = new Set();
  server.setRequestHandler(SubscribeRequestSchema, async (req) => { subscribed.add(req.params.uri); return {}; });
  server.setRequestHandler(UnsubscribeRequestSchema, async (req) => { subscribed.delete(req.params.uri); return {}; });

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      {
        name: 'restock',
        title: 'Restock',
        description: 'Add stock for an item',
        inputSchema: { type: 'object', properties: { item: { type: 'string', enum: ['apple', 'pear'] }, count: { type: 'integer', minimum: 1 } }, required: ['item', 'count'] },
        annotations: { destructiveHint: false },
      },
      { name: 'subscribers', description: 'How many URIs are subscribed', inputSchema: { type: 'object', properties: {} } },
      { name: 'broken', description: 'Throws', inputSchema: { type: 'object', properties: {} } },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const { name, arguments: args = {} } = req.params;
    if (name === 'restock') {
      items[args.item] += args.count;
      const uri = `stock://${args.item}`;
      if (subscribed.has(uri)) await server.sendResourceUpdated({ uri });
      return { content: [{ type: 'text', text: `${args.item}=${items[args.item]}` }] };
    }
    if (name === 'subscribers') return { content: [{ type: 'text', text: [...subscribed].sort().join(',') || 'none' }] };
    if (name === 'broken') throw new Error('the stock database is offline');
    throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${name}`);
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: [{ uri: 'stock://summary', name: 'summary', mimeType: 'application/json', description: 'All stock' }],
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [{ uriTemplate: 'stock://{item}', name: 'item', description: 'One item' }],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    const { uri } = req.params;
    if (uri === 'stock://summary') return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(items) }] };
    const item = uri.slice('stock://'.length);
    if (!(item in items)) throw new McpError(-32002, `Resource ${uri} not found`);
    return { contents: [{ uri, text: String(items[item]) }] };
  });
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: [{ name: 'order', description: 'Order an item', arguments: [{ name: 'item', description: 'What', required: true }] }],
  }));
  server.setRequestHandler(GetPromptRequestSchema, async (req) => {
    if (req.params.name !== 'order') throw new McpError(ErrorCode.InvalidParams, 'Unknown prompt');
    return { messages: [{ role: 'user', content: { type: 'text', text: `Order more ${req.params.arguments?.item}` } }] };
  });
  server.setRequestHandler(CompleteRequestSchema, async (req) => {
    const v = req.params.argument.value;
    const values = Object.keys(items).filter((k) => k.startsWith(v));
    return { completion: { values, total: values.length, hasMore: false } };
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
