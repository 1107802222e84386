// A TypeScript SDK v1 server with task tools (`server.experimental.tasks.registerToolTask`, an
// `InMemoryTaskStore` given to McpServer), written from the SDK's experimental tasks docs: the
// work runs in the background and ends with `taskStore.storeTaskResult`. Called without task
// augmentation (as the official clients' callTool does), an 'optional' task tool answers with the
// stored result once the work ends; a 'required' one is refused by the client after listTools.
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import { z } from 'zod';

const taskStore = new InMemoryTaskStore();

function build() {
  const server = new McpServer(
    { name: 'tasks-demo', version: '1.0.0' },
    { capabilities: { tasks: { requests: { tools: { call: {} } } } }, taskStore },
  );
  server.experimental.tasks.registerToolTask(
    'slow_sum',
    {
      title: 'Slow sum',
      description: 'Adds two numbers in the background',
      inputSchema: { a: z.number(), b: z.number() },
      execution: { taskSupport: 'optional' },
    },
    {
      async createTask({ a, b }, { taskStore: store, taskRequestedTtl }) {
        const task = await store.createTask({ ttl: taskRequestedTtl ?? 60_000, pollInterval: 20 });
        setTimeout(() => {
          store.storeTaskResult(task.taskId, 'completed', { content: [{ type: 'text', text: `sum=${a + b}` }] }).catch(() => {});
        }, 50);
        return { task };
      },
      async getTask(_args, { taskId, taskStore: store }) {
        return store.getTask(taskId);
      },
      async getTaskResult(_args, { taskId, taskStore: store }) {
        return store.getTaskResult(taskId);
      },
    },
  );
  server.experimental.tasks.registerToolTask(
    'flaky_job',
    { description: 'Fails in the background', execution: { taskSupport: 'optional' } },
    {
      async createTask({ taskStore: store }) {
        const task = await store.createTask({ ttl: 60_000, pollInterval: 20 });
        setTimeout(() => {
          store.storeTaskResult(task.taskId, 'failed', { content: [{ type: 'text', text: 'the job failed' }], isError: true }).catch(() => {});
        }, 30);
        return { task };
      },
      async getTask({ taskId, taskStore: store }) { return store.getTask(taskId); },
      async getTaskResult({ taskId, taskStore: store }) { return store.getTaskResult(taskId); },
    },
  );
  server.experimental.tasks.registerToolTask(
    'batch_export',
    { description: 'Only runs as a task', inputSchema: { rows: z.number() } },
    {
      async createTask({ rows }, { taskStore: store }) {
        const task = await store.createTask({ ttl: 60_000, pollInterval: 20 });
        setTimeout(() => {
          store.storeTaskResult(task.taskId, 'completed', { content: [{ type: 'text', text: `exported ${rows}` }] }).catch(() => {});
        }, 30);
        return { task };
      },
      async getTask(_args, { taskId, taskStore: store }) { return store.getTask(taskId); },
      async getTaskResult(_args, { taskId, taskStore: store }) { return store.getTaskResult(taskId); },
    },
  );
  server.registerTool('ping', { description: 'A plain tool beside the task tools' }, async () => ({
    content: [{ type: 'text', text: 'pong' }],
  }));
  return server;
}

if (process.env.TRANSPORT === 'http') {
  // Stateless: a server and transport per request, as in the SDK's stateless example.
  createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const server = build();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => { transport.close(); server.close(); });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }).listen(Number(process.env.PORT), '127.0.0.1');
} else {
  await build().connect(new StdioServerTransport());
}
