// The TS SDK v1 experimental tasks API through oxmcp's subpaths.
import { McpServer } from 'oxmcp/server/mcp.js';
import { InMemoryTaskStore } from 'oxmcp/experimental/tasks/stores/in-memory.js';
import { isTerminal, type TaskStore } from 'oxmcp/experimental/tasks';

const taskStore: TaskStore = new InMemoryTaskStore();
const server = new McpServer({ name: 'tasks', version: '1.0.0' }, { taskStore });
server.experimental.tasks.registerToolTask('job', { description: 'a job', execution: { taskSupport: 'optional' } }, {
  async createTask(extra: any) {
    const task = await extra.taskStore.createTask({ ttl: 1000 });
    return { task };
  },
  getTask: async (extra: any) => extra.taskStore.getTask(extra.taskId),
  getTaskResult: async (extra: any) => extra.taskStore.getTaskResult(extra.taskId),
});
const done: boolean = isTerminal('completed');
void done;
const noVersion = new McpServer({ name: 'no-version' });
void noVersion;
import { Server as LowLevel } from 'oxmcp/server/index.js';
new LowLevel({ name: 'll' }, { capabilities: { tools: {} } }).use('tools/call', async (ctx, next) => (ctx.name ? next() : undefined));
