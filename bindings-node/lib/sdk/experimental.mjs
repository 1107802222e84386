// `oxmcp/experimental` and `oxmcp/experimental/tasks` (the TS SDK v1 paths `@modelcontextprotocol/sdk/experimental(/tasks)`).
import cjs from './experimental.cjs';
export const {
  InMemoryTaskStore, InMemoryTaskMessageQueue, ExperimentalMcpServerTasks, isTerminal,
  CancelTaskRequestSchema, CancelTaskResultSchema, ClientTasksCapabilitySchema, CreateTaskResultSchema,
  GetTaskPayloadRequestSchema, GetTaskRequestSchema, GetTaskResultSchema, ListTasksRequestSchema,
  ListTasksResultSchema, RelatedTaskMetadataSchema, ServerTasksCapabilitySchema, TaskCreationParamsSchema,
  TaskSchema, TaskStatusNotificationParamsSchema, TaskStatusNotificationSchema,
  // The schemas are added by name (Object.fromEntries), which the checker cannot follow.
} = /** @type {typeof cjs & Record<string, any>} */ (cjs);
