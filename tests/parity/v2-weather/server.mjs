// A weather server in the TypeScript SDK v2 style: one factory served by serveStdio or by
// createMcpHandler + toNodeHandler on node:http, written from the v2 serving guide.
import { createServer } from 'node:http';
import { McpServer, ResourceTemplate, completable } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import * as z from 'zod';

const CITIES = ['Paris', 'Porto', 'Prague', 'Oslo'];

function factory() {
  const server = new McpServer({ name: 'weather', version: '2.0.0' }, { capabilities: { logging: {} } });
  server.registerTool(
    'forecast',
    {
      description: 'Forecast for a city',
      inputSchema: z.object({ city: z.string(), days: z.number().int().min(1).max(7).default(1) }),
      outputSchema: z.object({ city: z.string(), days: z.number(), summary: z.string() }),
      annotations: { readOnlyHint: true },
    },
    async ({ city, days }) => {
      const out = { city, days, summary: `${city}: sunny for ${days} day(s)` };
      return { content: [{ type: 'text', text: out.summary }], structuredContent: out };
    },
  );
  server.registerTool('fail', { description: 'Always fails', inputSchema: z.object({ why: z.string() }) }, async ({ why }) => {
    throw new Error(`Entity ${why} not found`);
  });
  server.registerResource(
    'city',
    new ResourceTemplate('weather://city/{name}', {
      list: undefined,
      complete: { name: (v) => CITIES.filter((c) => c.toLowerCase().startsWith(v.toLowerCase())) },
    }),
    { description: 'Current weather per city' },
    async (uri, { name }) => ({ contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ name, tempC: 21 }) }] }),
  );
  server.registerPrompt(
    'trip',
    {
      description: 'Plan a trip',
      argsSchema: z.object({ city: completable(z.string(), (v) => CITIES.filter((c) => c.startsWith(v))), style: z.string().optional() }),
    },
    ({ city, style }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Plan a ${style ?? 'relaxed'} trip to ${city}` } }],
    }),
  );
  return server;
}

if (process.env.TRANSPORT === 'http') {
  const handler = createMcpHandler(factory);
  createServer(toNodeHandler(handler)).listen(Number(process.env.PORT), '127.0.0.1');
} else {
  serveStdio(factory);
}
