'use strict';
// `oxmcp/experimental` and `oxmcp/experimental/tasks` for require(): the TS SDK v1 paths
// `@modelcontextprotocol/sdk/experimental(/tasks)` - the task store, `ExperimentalMcpServerTasks`
// and the task schemas (lib/sdk/tasks.cjs says how tasks map onto the core's Tasks extension).
const tasks = require('./tasks.cjs');
const types = require('./types.cjs');

const SCHEMAS = [
  'CancelTaskRequestSchema', 'CancelTaskResultSchema', 'ClientTasksCapabilitySchema', 'CreateTaskResultSchema',
  'GetTaskPayloadRequestSchema', 'GetTaskRequestSchema', 'GetTaskResultSchema', 'ListTasksRequestSchema',
  'ListTasksResultSchema', 'RelatedTaskMetadataSchema', 'ServerTasksCapabilitySchema', 'TaskCreationParamsSchema',
  'TaskSchema', 'TaskStatusNotificationParamsSchema', 'TaskStatusNotificationSchema',
];

module.exports = {
  InMemoryTaskStore: tasks.InMemoryTaskStore,
  InMemoryTaskMessageQueue: tasks.InMemoryTaskMessageQueue,
  ExperimentalMcpServerTasks: tasks.ExperimentalMcpServerTasks,
  isTerminal: tasks.isTerminal,
  ...Object.fromEntries(SCHEMAS.map((n) => [n, types[n]])),
};
