// Progress and logging from inside tools, as TS SDK v1 servers write them: extra.sendNotification
// for notifications/progress with the request's progressToken, server.sendLoggingMessage inside
// the handler, extra.signal / extra.requestId / extra._meta, and the logging capability.
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

function build() {
  const server = new McpServer({ name: 'progress', version: '1.2.0' }, { capabilities: { logging: {} } });
  server.registerTool(
    'long_task',
    { description: 'Counts to n, reporting progress', inputSchema: { n: z.number().int().min(1).max(5) } },
    async ({ n }, extra) => {
      const token = extra._meta?.progressToken;
      for (let i = 1; i <= n; i++) {
        if (token !== undefined) {
          await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: n, message: `step ${i}` } });
        }
      }
      return { content: [{ type: 'text', text: `done ${n}; aborted=${extra.signal.aborted}; hasId=${extra.requestId !== undefined}` }] };
    },
  );
  server.registerTool('chatty', { description: 'Logs at three levels' }, async (extra) => {
    await server.sendLoggingMessage({ level: 'debug', data: 'debug detail' }, extra.sessionId);
    await server.sendLoggingMessage({ level: 'info', logger: 'chatty', data: { event: 'started' } }, extra.sessionId);
    await server.sendLoggingMessage({ level: 'error', data: 'something bad' }, extra.sessionId);
    return { content: [{ type: 'text', text: 'logged' }] };
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
