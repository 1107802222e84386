#!/usr/bin/env node
// oxmcp quick start: one tool with a zod schema, one resource, one prompt.
//
//   node examples/node/quickstart.mjs                       # stdio (for an MCP client config)
//   node examples/node/quickstart.mjs --http 127.0.0.1:8000 # Streamable HTTP at /mcp
import { Server, runFromArgs } from 'oxmcp';
import { z } from 'zod';

const server = new Server({ name: 'quickstart', version: '1.0.0', instructions: 'A tiny demo server.' });

server.registerTool('add', {
  title: 'Add',
  description: 'Add two numbers',
  inputSchema: { a: z.number(), b: z.number() },
  outputSchema: { sum: z.number() },
}, ({ a, b }) => ({ sum: a + b }));

server.registerResource('motd', 'demo://motd', { mimeType: 'text/plain' }, () => 'Hello from oxmcp!');

server.registerPrompt('review', { argsSchema: { code: z.string() } }, ({ code }) => `Please review this code:\n\n${code}`);

await runFromArgs(server);
