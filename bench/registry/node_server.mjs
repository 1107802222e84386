// Registry-scale benchmark server, Node: N generated tools on oxmcp or the TS SDK v2, over stdio.
//
//   node node_server.mjs oxmcp N
//   node node_server.mjs ts-sdk N        # @modelcontextprotocol/server 2.x from $BENCH_NODE_DIR
//
// Every tool is `tool_i(a: int, b: int, note: string = "")` with a description and a zod input
// schema (zod from $BENCH_NODE_DIR for both, so both pay for the same zod objects).
import { createRequire } from 'node:module';
import path from 'node:path';

const nodeDir = process.env.BENCH_NODE_DIR || '/tmp/bench-node';
const peer = createRequire(path.join(nodeDir, 'package.json'));
const { z } = peer('zod');
const [which, nArg] = process.argv.slice(2);
const n = Number(nArg);

function register(server) {
  for (let i = 0; i < n; i++) {
    server.registerTool(
      `tool_${i}`,
      {
        description: `Add a and b (generated tool ${i}).`,
        inputSchema: { a: z.number().int(), b: z.number().int(), note: z.string().default('') },
      },
      async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
    );
  }
  return server;
}

if (which === 'oxmcp') {
  const { Server } = await import('oxmcp');
  const server = register(new Server({ name: 'bench-registry-oxmcp', version: '0.1.0' }));
  await server.serveStdio();
} else {
  const { McpServer } = peer('@modelcontextprotocol/server');
  const { serveStdio } = peer('@modelcontextprotocol/server/stdio');
  const server = register(new McpServer({ name: 'bench-registry-ts-sdk', version: '1.0.0' }));
  serveStdio(() => server);
}
