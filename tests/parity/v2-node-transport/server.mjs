// TS SDK v2 wired by hand, as @modelcontextprotocol/node's README shows: a new McpServer and a
// stateless NodeStreamableHTTPServerTransport per request on node:http with the body parsed first,
// or `connect(new StdioServerTransport())`. Tools without inputSchema get `(extra)`; registered
// tools are disabled, enabled and updated at runtime.
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import * as z from 'zod';

let counter = 0;

function build() {
  const server = new McpServer({ name: 'toolbox', version: '2.1.0', title: 'Toolbox' });
  server.registerTool('counter', { description: 'Increment a counter' }, async (ctx) => {
    counter += 1;
    return { content: [{ type: 'text', text: `count=${counter} signal=${ctx.mcpReq.signal instanceof AbortSignal} method=${ctx.mcpReq.method}` }] };
  });
  server.registerTool(
    'pixel',
    { description: 'A one-pixel image and a link', annotations: { readOnlyHint: true, openWorldHint: false } },
    async () => ({
      content: [
        { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
        { type: 'resource_link', uri: 'file:///tmp/pixel.png', name: 'pixel.png', mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'memo://1', mimeType: 'text/plain', text: 'embedded' } },
      ],
    }),
  );
  server.registerTool(
    'divide',
    {
      description: 'Divide a by b',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      outputSchema: z.object({ quotient: z.number() }),
    },
    async ({ a, b }) => {
      if (b === 0) return { content: [{ type: 'text', text: 'division by zero' }], isError: true };
      return { content: [{ type: 'text', text: String(a / b) }], structuredContent: { quotient: a / b } };
    },
  );
  const hidden = server.registerTool('hidden', { description: 'Disabled at start' }, async () => ({ content: [{ type: 'text', text: 'visible now' }] }));
  hidden.disable();
  const renamed = server.registerTool('old_name', { description: 'Renamed at start', inputSchema: z.object({ x: z.string() }) }, async ({ x }) => ({
    content: [{ type: 'text', text: `x=${x}` }],
  }));
  renamed.update({ name: 'new_name', description: 'Renamed' });
  return server;
}

if (process.env.TRANSPORT === 'http') {
  createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
    const server = build();
    const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => server.close());
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }).listen(Number(process.env.PORT), '127.0.0.1');
} else {
  await build().connect(new StdioServerTransport());
}
