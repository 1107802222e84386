// The TS SDK v1's older registration calls — server.tool / server.resource / server.prompt in
// their positional forms — served over stateless Streamable HTTP (a new server and transport per
// request, `sessionIdGenerator: undefined`, `enableJsonResponse: true`) or stdio.
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

function build() {
  const server = new McpServer({ name: 'shorthand', version: '0.3.1' }, { instructions: 'Use echo first.' });
  server.tool('ping', async () => ({ content: [{ type: 'text', text: 'pong' }] }));
  server.tool('echo', 'Echo a message back', { message: z.string() }, async ({ message }) => ({
    content: [{ type: 'text', text: `Echo: ${message}` }],
  }));
  server.tool('add', 'Add two numbers', { a: z.number(), b: z.number() }, { readOnlyHint: true, title: 'Adder' }, async ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }));
  server.tool('annotated', { idempotentHint: true }, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
  server.tool('thrower', 'Throws a plain object', {}, async () => {
    throw 'a string, not an Error';
  });
  server.resource('config', 'config://app', async (uri) => ({
    contents: [{ uri: uri.href, text: 'debug=true' }],
  }));
  server.resource('logo', 'config://logo', { mimeType: 'image/png', description: 'A pixel' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'image/png', blob: Buffer.from([137, 80, 78, 71]).toString('base64') }],
  }));
  server.prompt('greet', async () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }] }));
  server.prompt('review', 'Review code', { code: z.string(), language: z.string().optional() }, ({ code, language }) => ({
    messages: [
      { role: 'user', content: { type: 'text', text: `Review this ${language ?? 'code'}:\n${code}` } },
      { role: 'assistant', content: { type: 'text', text: 'Sure.' } },
    ],
  }));
  return server;
}

if (process.env.TRANSPORT === 'http') {
  createServer(async (req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }));
      return;
    }
    const server = build();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      transport.close();
      server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  }).listen(Number(process.env.PORT), '127.0.0.1');
} else {
  const transport = new StdioServerTransport();
  await build().connect(transport);
}
