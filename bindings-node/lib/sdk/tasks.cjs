'use strict';
/**
 * The TS SDK v1's experimental tasks API (`server.experimental.tasks.registerToolTask`,
 * `InMemoryTaskStore`, the `taskStore` in a task handler's `extra`) mapped onto the core's Tasks
 * extension (core/src/tasks/).
 *
 * In the SDK, `createTask(args, extra)` makes a task in the server's store and returns at once;
 * work goes on in the background and ends with `taskStore.storeTaskResult(taskId, status, result)`.
 * On oxmcp the tool is an ordinary core tool with `execution.taskSupport` whose handler runs
 * `createTask` and then waits (without a timer on this server's own store) for that task to reach
 * a terminal status, answering with its stored result. So the core decides what the client sees:
 * a 2026-07-28 request whose client declares the tasks extension gets `resultType: "task"` at once
 * and polls `tasks/get`; any other call (a legacy session, a client without the extension) gets the
 * result when the work ends - the SDK's own behaviour for `taskSupport: 'optional'` without task
 * augmentation. `tasks/cancel` aborts the wait and marks the store's task cancelled.
 *
 * The SDK's own 2025-11-25 task protocol (a `tools/call` with `params.task`, `tasks/get`,
 * `tasks/result`, `tasks/list`, `tasks/cancel` on a legacy session, what the SDK client's
 * `experimental.tasks.callToolStream` speaks) is served from the store, as the SDK serves it, by
 * a middleware on those methods that only acts on legacy requests; modern ones go on to the core.
 */
// node:crypto is loaded on the first task, not at import: ~5 ms of every server's start.
const randomBytes = (n) => require('node:crypto').randomBytes(n);
const { McpError, ErrorCode } = require('../errors.cjs');
const { zodShapeVersion, isAnyZodSchema, zodObject } = require('../schema.cjs');
const { RequestHandlerExtra } = require('./extra.cjs');

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
/**
 * zod's refusal of a 2025-11-25 task call's arguments, as the SDK's `Input validation error`
 * result says it. That call is answered from the store by the middleware below, so the core's
 * own invalid-arguments text is not used for it.
 */
function zodIssues(err) {
  const issues = Array.isArray(err?.issues) ? err.issues : [];
  if (!issues.length) return String(err?.message ?? err);
  return issues.slice(0, 10).map((i) => `${(i.path ?? []).join('.') || '(root)'}: ${i.message}`).join('; ');
}

/** Whether a task status is final. */
function isTerminal(status) { return TERMINAL.has(status); }

/** `_meta` key of a `tasks/result` answer (the SDK's `RELATED_TASK_META_KEY`). */
const RELATED_TASK = 'io.modelcontextprotocol/related-task';
/** The legacy task methods the middleware answers (and `initialize`, to declare `capabilities.tasks`). */
const LEGACY_METHODS = ['initialize', 'tools/call', 'tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel'];

/** Lets the task tool wait for a change of an oxmcp store without polling. */
const WATCH = Symbol('oxmcp.taskStoreWatch');

/**
 * Who owns the tasks a request makes or reads, passed where the SDK's `TaskStore` takes its
 * `sessionId`: the authenticated caller's identity (the core's `Caller::key`), with the legacy
 * session when there is one, so that neither another caller nor another session of the same
 * caller reaches them. Without auth, the session alone, as in the SDK. `undefined` only when there
 * is neither (stdio, or no auth and no session): then there is one client.
 */
function ownerOf(caller, sessionId) {
  if (caller && typeof caller.key === 'string') return JSON.stringify([caller.key, sessionId ?? null]);
  return sessionId;
}

/**
 * The SDK's `TaskStore` interface, in memory: tasks keyed by a random id, bound to the owner that
 * made them (`ownerOf`: the caller and its session; another owner's lookup finds nothing), dropped
 * `ttl` ms after they are made or last changed.
 */
class InMemoryTaskStore {
  #tasks = new Map();
  #watchers = new Map();

  #find(taskId, sessionId) {
    const s = this.#tasks.get(taskId);
    if (!s) return undefined;
    if (sessionId !== undefined && s.sessionId !== undefined && s.sessionId !== sessionId) return undefined;
    return s;
  }

  #expireLater(taskId, s) {
    if (s.timer) clearTimeout(s.timer);
    s.timer = undefined;
    if (s.task.ttl) {
      s.timer = setTimeout(() => this.#tasks.delete(taskId), s.task.ttl);
      s.timer.unref?.();
    }
  }

  #changed(taskId) {
    const ws = this.#watchers.get(taskId);
    if (ws) for (const w of [...ws]) w();
  }

  /** Call `fn` on every change of `taskId`; returns the unsubscribe function. */
  [WATCH](taskId, fn) {
    let ws = this.#watchers.get(taskId);
    if (!ws) this.#watchers.set(taskId, (ws = new Set()));
    ws.add(fn);
    return () => {
      ws.delete(fn);
      if (!ws.size) this.#watchers.delete(taskId);
    };
  }

  async createTask(taskParams = {}, requestId, request, sessionId) {
    const taskId = randomBytes(16).toString('hex');
    const now = new Date().toISOString();
    const task = {
      taskId,
      status: 'working',
      ttl: taskParams.ttl ?? null,
      createdAt: now,
      lastUpdatedAt: now,
      pollInterval: taskParams.pollInterval ?? 1000,
    };
    const s = { task, request, requestId, sessionId, result: undefined, timer: undefined };
    this.#tasks.set(taskId, s);
    this.#expireLater(taskId, s);
    return { ...task };
  }

  async getTask(taskId, sessionId) {
    const s = this.#find(taskId, sessionId);
    return s ? { ...s.task } : null;
  }

  async storeTaskResult(taskId, status, result, sessionId) {
    const s = this.#find(taskId, sessionId);
    if (!s) throw new Error(`Task with ID ${taskId} not found`);
    if (isTerminal(s.task.status)) throw new Error(`Cannot store result for task ${taskId} in terminal status '${s.task.status}'`);
    s.result = result;
    s.task.status = status;
    s.task.lastUpdatedAt = new Date().toISOString();
    this.#expireLater(taskId, s);
    this.#changed(taskId);
  }

  async getTaskResult(taskId, sessionId) {
    const s = this.#find(taskId, sessionId);
    if (!s) throw new Error(`Task with ID ${taskId} not found`);
    if (s.result === undefined) throw new Error(`Task ${taskId} has no result stored`);
    return s.result;
  }

  async updateTaskStatus(taskId, status, statusMessage, sessionId) {
    const s = this.#find(taskId, sessionId);
    if (!s) throw new Error(`Task with ID ${taskId} not found`);
    if (isTerminal(s.task.status)) throw new Error(`Cannot update task ${taskId} from terminal status '${s.task.status}' to '${status}'`);
    s.task.status = status;
    if (statusMessage) s.task.statusMessage = statusMessage;
    s.task.lastUpdatedAt = new Date().toISOString();
    if (isTerminal(status)) this.#expireLater(taskId, s);
    this.#changed(taskId);
  }

  async listTasks(cursor, sessionId) {
    const ids = [...this.#tasks.keys()].filter((id) => this.#find(id, sessionId));
    let start = 0;
    if (cursor) {
      const i = ids.indexOf(cursor);
      if (i < 0) throw new Error(`Invalid cursor: ${cursor}`);
      start = i + 1;
    }
    const page = ids.slice(start, start + 10);
    return {
      tasks: page.map((id) => ({ ...this.#tasks.get(id).task })),
      nextCursor: start + 10 < ids.length ? page[page.length - 1] : undefined,
    };
  }

  /** Drop every task and timer. */
  cleanup() {
    for (const s of this.#tasks.values()) if (s.timer) clearTimeout(s.timer);
    this.#tasks.clear();
  }

  /** Every task (for tests and debugging). */
  getAllTasks() { return [...this.#tasks.values()].map((s) => ({ ...s.task })); }
}

/**
 * The SDK's per-task FIFO queue of side-channel messages (`tasks/result` delivery). oxmcp's core
 * delivers a task's input requests through `tasks/get`, so nothing reads it; it is here so that a
 * server passing one to its constructor ports unchanged.
 */
class InMemoryTaskMessageQueue {
  #queues = new Map();
  async enqueue(taskId, message, _sessionId, maxSize) {
    const q = this.#queues.get(taskId) ?? [];
    if (maxSize !== undefined && q.length >= maxSize) throw new Error(`Task message queue overflow: queue size (${q.length}) exceeds maximum (${maxSize})`);
    q.push(message);
    this.#queues.set(taskId, q);
  }
  async dequeue(taskId) { return this.#queues.get(taskId)?.shift(); }
  async dequeueAll(taskId) {
    const q = this.#queues.get(taskId) ?? [];
    this.#queues.delete(taskId);
    return q;
  }
}

/** The `taskStore` a handler's `extra` carries: the server's store bound to this request and session. */
function requestTaskStore(store, request, sessionId) {
  const found = async (taskId) => {
    const t = await store.getTask(taskId, sessionId);
    if (!t) throw new McpError(ErrorCode.InvalidParams, `Task "${taskId}" not found`);
    return t;
  };
  return {
    createTask: (params = {}) => store.createTask(params, request.id, { method: request.method, params: request.params }, sessionId),
    getTask: found,
    storeTaskResult: (taskId, status, result) => store.storeTaskResult(taskId, status, result, sessionId),
    getTaskResult: (taskId) => store.getTaskResult(taskId, sessionId),
    updateTaskStatus: async (taskId, status, statusMessage) => {
      const t = await found(taskId);
      if (isTerminal(t.status)) {
        throw new McpError(ErrorCode.InvalidParams, `Cannot update task "${taskId}" from terminal status "${t.status}" to "${status}"`);
      }
      return store.updateTaskStatus(taskId, status, statusMessage, sessionId);
    },
    listTasks: (cursor) => store.listTasks(cursor, sessionId),
  };
}

/** Resolve when `taskId` is terminal in `store` (or reject when `signal` aborts). */
function settled(store, taskId, sessionId, pollMs, signal) {
  return new Promise((resolve, reject) => {
    let stop = () => {};
    let timer;
    let checking = false;
    const done = (f, v) => { stop(); clearTimeout(timer); signal.removeEventListener('abort', onAbort); f(v); };
    const onAbort = () => done(reject, signal.reason ?? new DOMException('aborted', 'AbortError'));
    const check = async () => {
      if (checking) return;
      checking = true;
      try {
        const t = await store.getTask(taskId, sessionId);
        if (!t) return done(reject, new McpError(ErrorCode.InternalError, `Task ${taskId} not found while waiting for it`));
        if (isTerminal(t.status)) return done(resolve, t);
      } catch (e) {
        return done(reject, e);
      } finally {
        checking = false;
      }
      if (!watching) timer = setTimeout(check, pollMs);
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    const watching = typeof store[WATCH] === 'function';
    if (watching) stop = store[WATCH](taskId, check);
    check();
  });
}

/** `server.experimental.tasks` of an `McpServer`. */
class ExperimentalMcpServerTasks {
  #server;
  #register;
  #store;
  #capabilities;
  #sessionless;
  /** name -> { handler, hasInput, zod } of each task tool, for the legacy task requests. */
  #taskTools = new Map();
  #installed = false;

  /**
   * @param {any} server the McpServer
   * @param {(name: string, config: object, cb: Function) => any} register its registerTool
   * @param {() => any} store the server's task store (options.taskStore, else its own in-memory one)
   * @param {() => object} capabilities the capabilities the server declares (for `capabilities.tasks`)
   * @param {() => boolean} sessionless whether the server serves without sessions (SDK's view)
   */
  constructor(server, register, store, capabilities = () => ({}), sessionless = () => false) {
    this.#server = server;
    this.#register = register;
    this.#store = store;
    this.#capabilities = capabilities;
    this.#sessionless = sessionless;
  }

  /**
   * `registerToolTask(name, { title, description, inputSchema, outputSchema, annotations,
   * execution, _meta }, { createTask, getTask, getTaskResult })`. `execution.taskSupport` is
   * 'required' unless given ('forbidden' is refused, as in the SDK).
   */
  registerToolTask(name, config = {}, handler) {
    const execution = { taskSupport: 'required', ...(config.execution ?? {}) };
    if (execution.taskSupport === 'forbidden') {
      throw new Error(`Cannot register task-based tool '${name}' with taskSupport 'forbidden'. Use registerTool() instead.`);
    }
    if (!handler || typeof handler.createTask !== 'function') {
      throw new TypeError(`registerToolTask(${name}): the handler needs createTask (and getTask, getTaskResult)`);
    }
    this.#install();
    const hasInput = config.inputSchema !== undefined && config.inputSchema !== null;
    const run = async (args, extra) => {
      const store = this.#store();
      const sessionId = ownerOf(extra.caller, extra.sessionId);
      const request = { id: extra.requestId, method: 'tools/call', params: { name, arguments: args } };
      const taskStore = requestTaskStore(store, request, sessionId);
      Object.defineProperties(extra, {
        taskStore: { value: taskStore, enumerable: true },
        taskRequestedTtl: { value: undefined, enumerable: true },
      });
      const created = await (hasInput ? handler.createTask(args, extra) : handler.createTask(extra));
      const taskId = created?.task?.taskId;
      if (typeof taskId !== 'string') throw new McpError(ErrorCode.InternalError, `createTask of tool ${name} did not return { task }`);
      let final;
      try {
        final = await settled(store, taskId, sessionId, Math.max(10, Math.min(created.task.pollInterval ?? 1000, 1000)), extra.signal);
      } catch (e) {
        if (extra.signal.aborted) {
          // Cancelled (tasks/cancel, or the request went away): tell the store, so the work can stop.
          await store.updateTaskStatus(taskId, 'cancelled', 'Client cancelled task execution.', sessionId).catch(() => {});
        }
        throw e;
      }
      if (final.status === 'cancelled') throw new McpError(ErrorCode.InternalError, `Task ${taskId} was cancelled`);
      return store.getTaskResult(taskId, sessionId);
    };
    const cb = hasInput ? (args, extra) => run(args, extra) : (extra) => run(undefined, extra);
    const handle = this.#register(name, { ...config, execution }, cb);
    const shape = config.inputSchema;
    // zod 3 or zod 4, as the server wrote it: its own zod checks the arguments, as in the SDK.
    const zod = zodShapeVersion(shape) !== null ? zodObject(shape, `tool ${name}`) : isAnyZodSchema(shape) ? shape : undefined;
    this.#taskTools.set(name, { handler, hasInput, zod, taskSupport: execution.taskSupport });
    return handle;
  }

  /** The legacy task protocol, once per server: a middleware on its methods only. */
  #install() {
    if (this.#installed) return;
    this.#installed = true;
    this.#server.use(LEGACY_METHODS, (ctx, next) => (ctx.era === 'legacy' ? this.#legacy(ctx, next) : next()));
  }

  async #legacy(ctx, next) {
    const p = ctx.params ?? {};
    const sid = ownerOf(ctx.caller, this.#sessionless() ? undefined : ctx.sessionId);
    const store = this.#store();
    const found = async (taskId, what = 'Task not found') => {
      const t = await store.getTask(taskId, sid);
      if (!t) throw new McpError(ErrorCode.InvalidParams, what === 'get' ? 'Failed to retrieve task: Task not found' : `Task not found: ${taskId}`);
      return t;
    };
    switch (ctx.method) {
      case 'initialize': {
        const r = await next();
        const tasks = this.#capabilities()?.tasks;
        if (tasks && r?.capabilities && r.capabilities.tasks === undefined) r.capabilities = { ...r.capabilities, tasks };
        return r;
      }
      case 'tools/call': {
        const tool = this.#taskTools.get(p.name);
        if (tool && tool.taskSupport === 'required' && (!p.task || typeof p.task !== 'object')) {
          // The SDK's McpServer turns its own "requires task augmentation" McpError into a tool
          // error result, as it does every error of a tools/call.
          return { content: [{ type: 'text', text: `MCP error ${ErrorCode.MethodNotFound}: Tool ${p.name} requires task augmentation (taskSupport: 'required')` }], isError: true };
        }
        if (!p.task || typeof p.task !== 'object' || !tool) return next();
        // A 2025-11-25 task request: createTask answers `{ task }` at once, the client polls the store.
        let args = p.arguments ?? {};
        if (tool.zod) {
          const parsed = await tool.zod.safeParseAsync(args);
          if (!parsed.success) return { content: [{ type: 'text', text: `Input validation error: ${zodIssues(parsed.error)}` }], isError: true };
          args = parsed.data;
        }
        const extra = new RequestHandlerExtra(ctx, undefined, 'tools/call', this.#sessionless());
        const request = { id: ctx.requestId, method: 'tools/call', params: p };
        Object.defineProperties(extra, {
          taskStore: { value: requestTaskStore(store, request, sid), enumerable: true },
          taskRequestedTtl: { value: p.task.ttl ?? undefined, enumerable: true },
        });
        const created = await (tool.hasInput ? tool.handler.createTask(args, extra) : tool.handler.createTask(extra));
        if (typeof created?.task?.taskId !== 'string') throw new McpError(ErrorCode.InternalError, `createTask of tool ${p.name} did not return { task }`);
        return { task: created.task };
      }
      case 'tasks/get':
        return { ...(await found(p.taskId, 'get')) };
      case 'tasks/result': {
        await found(p.taskId);
        await settled(store, p.taskId, sid, 100, ctx.signal);
        const result = await store.getTaskResult(p.taskId, sid);
        return { ...result, _meta: { ...(result?._meta ?? {}), [RELATED_TASK]: { taskId: p.taskId } } };
      }
      case 'tasks/list': {
        try {
          const { tasks, nextCursor } = await store.listTasks(p.cursor, sid);
          return nextCursor === undefined ? { tasks, _meta: {} } : { tasks, nextCursor, _meta: {} };
        } catch (e) {
          throw new McpError(ErrorCode.InvalidParams, `Failed to list tasks: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
      case 'tasks/cancel': {
        const t = await found(p.taskId);
        if (isTerminal(t.status)) throw new McpError(ErrorCode.InvalidParams, `Cannot cancel task in terminal status: ${t.status}`);
        await store.updateTaskStatus(p.taskId, 'cancelled', 'Client cancelled task execution.', sid);
        return { _meta: {}, ...(await found(p.taskId)) };
      }
      default:
        return next();
    }
  }
}

module.exports = { InMemoryTaskStore, InMemoryTaskMessageQueue, ExperimentalMcpServerTasks, isTerminal, requestTaskStore };
