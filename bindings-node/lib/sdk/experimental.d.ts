// `oxmcp/experimental` and `oxmcp/experimental/tasks`: the TS SDK v1's experimental tasks API
// (lib/sdk/tasks.cjs maps it onto the core's Tasks extension).
import type { RequestHandlerExtra, RegisteredHandle } from './mcp.js';
export {
  CancelTaskRequestSchema, CancelTaskResultSchema, ClientTasksCapabilitySchema, CreateTaskResultSchema,
  GetTaskPayloadRequestSchema, GetTaskRequestSchema, GetTaskResultSchema, ListTasksRequestSchema,
  ListTasksResultSchema, RelatedTaskMetadataSchema, ServerTasksCapabilitySchema, TaskCreationParamsSchema,
  TaskSchema, TaskStatusNotificationParamsSchema, TaskStatusNotificationSchema,
} from './types.js';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
export interface Task {
  taskId: string;
  status: TaskStatus;
  ttl: number | null;
  createdAt: string;
  lastUpdatedAt: string;
  pollInterval?: number;
  statusMessage?: string;
}
export interface CreateTaskOptions { ttl?: number | null; pollInterval?: number; context?: { [key: string]: unknown } }
export type RequestId = string | number;

/** The SDK's TaskStore interface (every method takes the requesting session's id). */
export interface TaskStore {
  createTask(taskParams: CreateTaskOptions, requestId: RequestId, request: { method: string; params?: any }, sessionId?: string): Promise<Task>;
  getTask(taskId: string, sessionId?: string): Promise<Task | null>;
  storeTaskResult(taskId: string, status: 'completed' | 'failed', result: any, sessionId?: string): Promise<void>;
  getTaskResult(taskId: string, sessionId?: string): Promise<any>;
  updateTaskStatus(taskId: string, status: TaskStatus, statusMessage?: string, sessionId?: string): Promise<void>;
  listTasks(cursor?: string, sessionId?: string): Promise<{ tasks: Task[]; nextCursor?: string }>;
}
/** The store as a handler's `extra.taskStore` sees it: bound to the request and its session. */
export interface RequestTaskStore {
  createTask(taskParams?: CreateTaskOptions): Promise<Task>;
  getTask(taskId: string): Promise<Task>;
  storeTaskResult(taskId: string, status: 'completed' | 'failed', result: any): Promise<void>;
  getTaskResult(taskId: string): Promise<any>;
  updateTaskStatus(taskId: string, status: TaskStatus, statusMessage?: string): Promise<void>;
  listTasks(cursor?: string): Promise<{ tasks: Task[]; nextCursor?: string }>;
}

export declare class InMemoryTaskStore implements TaskStore {
  createTask(taskParams: CreateTaskOptions, requestId: RequestId, request: { method: string; params?: any }, sessionId?: string): Promise<Task>;
  getTask(taskId: string, sessionId?: string): Promise<Task | null>;
  storeTaskResult(taskId: string, status: 'completed' | 'failed', result: any, sessionId?: string): Promise<void>;
  getTaskResult(taskId: string, sessionId?: string): Promise<any>;
  updateTaskStatus(taskId: string, status: TaskStatus, statusMessage?: string, sessionId?: string): Promise<void>;
  listTasks(cursor?: string, sessionId?: string): Promise<{ tasks: Task[]; nextCursor?: string }>;
  cleanup(): void;
  getAllTasks(): Task[];
}
export declare class InMemoryTaskMessageQueue {
  enqueue(taskId: string, message: unknown, sessionId?: string, maxSize?: number): Promise<void>;
  dequeue(taskId: string, sessionId?: string): Promise<unknown>;
  dequeueAll(taskId: string, sessionId?: string): Promise<unknown[]>;
}
export declare function isTerminal(status: TaskStatus): boolean;

export interface CreateTaskRequestHandlerExtra extends RequestHandlerExtra {
  readonly taskStore: RequestTaskStore;
  readonly taskRequestedTtl: number | undefined;
}
export interface ToolTaskHandler {
  createTask: (...args: any[]) => { task: Task } | Promise<{ task: Task }>;
  /** Kept for the SDK's shape; oxmcp's core answers tasks/get itself. */
  getTask?: (...args: any[]) => unknown;
  /** Kept for the SDK's shape; oxmcp's core answers with the stored result. */
  getTaskResult?: (...args: any[]) => unknown;
}
/** `mcpServer.experimental.tasks`. */
export declare class ExperimentalMcpServerTasks {
  registerToolTask(name: string, config: {
    title?: string; description?: string; inputSchema?: unknown; outputSchema?: unknown;
    annotations?: { [key: string]: unknown }; execution?: { taskSupport?: 'optional' | 'required' }; _meta?: { [key: string]: unknown };
  }, handler: ToolTaskHandler): RegisteredHandle & any;
}
