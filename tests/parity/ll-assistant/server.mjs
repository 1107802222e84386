// The TS SDK v1's low-level Server asking the client from inside a call: sampling with
// server.createMessage, elicitation with extra.sendRequest and a result schema, progress with
// extra.sendNotification and the request's _meta.progressToken, log messages with
// server.sendLoggingMessage(params, extra.sessionId).
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';

function build() {
  const server = new Server({ name: 'assistant', version: '1.0.0' }, { capabilities: { tools: {}, logging: {} } });
  const noArgs = { type: 'object', properties: {} };
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      { name: 'draft', description: 'Draft a reply with the client model', inputSchema: { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'] } },
      { name: 'ask_name', description: 'Ask the user for a name', inputSchema: noArgs },
      { name: 'steps', description: 'Three steps with progress and logs', inputSchema: noArgs },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    switch (req.params.name) {
      case 'draft': {
        const r = await server.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: `Write about ${req.params.arguments.topic}` } }], maxTokens: 50 });
        return { content: [{ type: 'text', text: `[${r.model}] ${r.content.text}` }] };
      }
      case 'ask_name': {
        const r = await extra.sendRequest({ method: 'elicitation/create', params: { message: 'Your name?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } } }, ElicitResultSchema);
        return { content: [{ type: 'text', text: `${r.action} ${JSON.stringify(r.content ?? null)}` }] };
      }
      case 'steps': {
        const token = req.params._meta?.progressToken;
        for (let i = 1; i <= 3; i++) {
          if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: 3 } });
        }
        await server.sendLoggingMessage({ level: 'warning', logger: 'steps', data: 'three steps done' }, extra.sessionId);
        return { content: [{ type: 'text', text: 'done' }] };
      }
      default:
        throw new Error(`no tool ${req.params.name}`);
    }
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
