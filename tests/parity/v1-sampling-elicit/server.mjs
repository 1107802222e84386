// Server→client requests from inside tools, as TS SDK v1 servers write them:
// server.server.createMessage (sampling), server.server.elicitInput (form elicitation),
// extra.sendRequest with a result schema, and server.server.getClientCapabilities().
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CreateMessageResultSchema, ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

function build() {
  const server = new McpServer({ name: 'asker', version: '1.0.0' });
  server.registerTool('summarize', { description: 'Summarize text with the client model', inputSchema: { text: z.string() } }, async ({ text }) => {
    const r = await server.server.createMessage({
      messages: [{ role: 'user', content: { type: 'text', text: `Summarize: ${text}` } }],
      maxTokens: 100,
    });
    return { content: [{ type: 'text', text: `${r.model}: ${r.content.type === 'text' ? r.content.text : '?'}` }] };
  });
  server.registerTool('confirm', { description: 'Ask the user to confirm', inputSchema: { action: z.string() } }, async ({ action }) => {
    const caps = server.server.getClientCapabilities();
    if (!caps?.elicitation) return { content: [{ type: 'text', text: 'no elicitation' }], isError: true };
    const r = await server.server.elicitInput({
      message: `Really ${action}?`,
      requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
    });
    return { content: [{ type: 'text', text: `${r.action}:${JSON.stringify(r.content)}` }] };
  });
  server.registerTool('ask_raw', { description: 'extra.sendRequest with schemas' }, async (extra) => {
    const e = await extra.sendRequest({ method: 'elicitation/create', params: { message: 'Name?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } } }, ElicitResultSchema);
    const s = await extra.sendRequest({ method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 } }, CreateMessageResultSchema);
    return { content: [{ type: 'text', text: `${e.action} ${s.stopReason}` }] };
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
