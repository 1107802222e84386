// A roots-confined file server on the TS SDK v1's low-level Server, in the style of the reference
// filesystem server: it asks the client for its roots once initialized, listens for
// notifications/roots/list_changed to ask again, and refuses any path outside the roots. When it
// has no roots yet (a client that never initialized a session) it asks inside the call.
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema, ListToolsRequestSchema, RootsListChangedNotificationSchema, McpError, ErrorCode,
} from '@modelcontextprotocol/sdk/types.js';

function rootsToDirs(roots) {
  return roots.filter((r) => r.uri.startsWith('file://')).map((r) => path.resolve(fileURLToPath(r.uri)));
}

function build() {
  const server = new Server({ name: 'roots-files', version: '0.2.0' }, { capabilities: { tools: {} } });
  let allowed; // undefined until the client told us its roots

  async function refresh() {
    const { roots } = await server.listRoots();
    allowed = rootsToDirs(roots);
  }
  server.oninitialized = () => {
    if (server.getClientCapabilities()?.roots) refresh().catch(() => { allowed = []; });
  };
  server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
    await refresh();
  });

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      {
        name: 'read_file',
        description: 'Read a text file inside the client roots',
        inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      },
      { name: 'list_allowed', description: 'How many roots are allowed', inputSchema: { type: 'object', properties: {} } },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args } = request.params;
    const dirs = allowed ?? rootsToDirs((await server.listRoots()).roots);
    if (name === 'list_allowed') return { content: [{ type: 'text', text: String(dirs.length) }] };
    if (name !== 'read_file') throw new McpError(ErrorCode.MethodNotFound, `Unknown tool: ${name}`);
    const target = path.resolve(String(args.path));
    if (!dirs.some((d) => target === d || target.startsWith(d + path.sep))) {
      return { content: [{ type: 'text', text: `Access denied: ${path.basename(target)} is outside the allowed roots` }], isError: true };
    }
    return { content: [{ type: 'text', text: (await readFile(target, 'utf8')).trim() }] };
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
