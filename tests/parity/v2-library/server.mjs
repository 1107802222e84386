// A library catalogue in the TS SDK v2 style: static resources with metadata, a template with two
// variables and completion that reads the other argument (context.arguments), prompts with and
// without arguments, resources returning several contents. Served by createMcpHandler with a
// pre-parsed body (toNodeHandler(handler)(req, res, body)) or serveStdio.
import { createServer } from 'node:http';
import { McpServer, ResourceTemplate, createMcpHandler } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { toNodeHandler } from '@modelcontextprotocol/node';
import * as z from 'zod';

const BOOKS = { fiction: ['dune', 'emma'], science: ['cosmos', 'origin'] };

function factory() {
  const server = new McpServer({ name: 'library', version: '0.9.0' }, { instructions: 'A small catalogue.' });
  server.registerResource('catalogue', 'library://catalogue', { title: 'Catalogue', description: 'Every shelf', mimeType: 'application/json' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(BOOKS) }],
  }));
  server.registerResource('shelves', 'library://shelves', { mimeType: 'text/plain' }, async (uri) => ({
    contents: Object.keys(BOOKS).map((s) => ({ uri: `${uri.href}/${s}`, mimeType: 'text/plain', text: s })),
  }));
  server.registerResource(
    'book',
    new ResourceTemplate('library://{shelf}/{title}', {
      list: undefined,
      complete: {
        shelf: (v) => Object.keys(BOOKS).filter((s) => s.startsWith(v)),
        title: (v, context) => (BOOKS[context?.arguments?.shelf] ?? []).filter((t) => t.startsWith(v)),
      },
    }),
    { title: 'A book', description: 'One book on one shelf' },
    async (uri, { shelf, title }) => ({ contents: [{ uri: uri.href, text: `${title} (${shelf})` }] }),
  );
  server.registerPrompt('recommend', { title: 'Recommend', description: 'Recommend a book' }, async () => ({
    description: 'A recommendation',
    messages: [{ role: 'user', content: { type: 'text', text: 'Recommend a book from the catalogue' } }],
  }));
  server.registerPrompt(
    'compare',
    { description: 'Compare two books', argsSchema: z.object({ first: z.string().describe('First title'), second: z.string() }) },
    async ({ first, second }) => ({
      messages: [
        { role: 'user', content: { type: 'text', text: `Compare ${first} and ${second}` } },
        { role: 'user', content: { type: 'resource', resource: { uri: 'library://catalogue', mimeType: 'application/json', text: JSON.stringify(BOOKS) } } },
      ],
    }),
  );
  return server;
}

if (process.env.TRANSPORT === 'http') {
  const handle = toNodeHandler(createMcpHandler(factory));
  createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
    await handle(req, res, body);
  }).listen(Number(process.env.PORT), '127.0.0.1');
} else {
  serveStdio(factory);
}
