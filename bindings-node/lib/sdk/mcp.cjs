'use strict';
/**
 * `McpServer` in the shape of the TypeScript SDK (v1 `@modelcontextprotocol/sdk/server/mcp.js` and
 * v2 `@modelcontextprotocol/server`): the same registration calls with the SDK's callback
 * signatures (`(args, extra)`), `connect(transport)`, the `server.server` escape hatch and the
 * send* notifications, over oxmcp's `Server`. The core still validates, dispatches and serves.
 */
const { AsyncLocalStorage } = require('node:async_hooks');
const { Server, ResourceTemplate: BaseTemplate, SDK_SHAPES, SESSIONLESS, PASSED_AUTH, hasCompleters } = require('../server.cjs');
const { isAnyZodSchema } = require('../schema.cjs');
// lib/sdk/facade.cjs, lib/sdk/tasks.cjs and lib/sdk/extra.cjs are loaded by the first McpServer,
// the first use of `experimental` and the first handler call: `import { Server } from 'oxmcp'`
// alone does not build them (lib/sdk/protocol.cjs says why that matters).
let extraModule;

/** oxmcp's package version: `serverInfo.version` of a ported server that gives none. */

/**
 * Both TS SDKs accept `new McpServer({ name })` with no version and then send `serverInfo`
 * without one, which their own clients refuse; oxmcp accepts it too and sends its own package
 * version, as FastMCP and the Python SDK send theirs (docs/COMPATIBILITY.md).
 */
function withVersion(info) {
  if (info && typeof info === 'object' && info.version === undefined) return { ...info, version: require('../../../package.json').version };
  return info;
}

/** The call whose handler is running: lets `server.sendLoggingMessage(...)` inside a tool reach its client. */
const current = new AsyncLocalStorage();

/** The SDK's `ResourceTemplate(uriTemplate, { list, complete })`; `list` must be given (undefined is allowed). */
class ResourceTemplate extends BaseTemplate {
  constructor(uriTemplate, callbacks) {
    if (callbacks === undefined || callbacks === null || typeof callbacks !== 'object') {
      throw new TypeError('ResourceTemplate(uriTemplate, { list, complete? }): the callbacks object is required (list may be undefined)');
    }
    super(uriTemplate, callbacks);
  }
  /** The SDK exposes the callbacks this way. */
  get listCallback() { return undefined; }
  completeCallback(variable) { return this.complete[variable]; }
}

/** v1 counts `{}` and any object with a zod value (zod 3 or 4) as a raw shape (`isZodRawShapeCompat`). */
function isRawShape(v) {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || isAnyZodSchema(v)) return false;
  const values = Object.values(v);
  return values.length === 0 || values.some(isAnyZodSchema);
}

class McpServer extends Server {
  /** v2 (`@modelcontextprotocol/server`): zod converted to 2020-12, no `execution` unless given. */
  /** @type {Readonly<{ schemaTarget: string, taskSupport: boolean }>} */
  /** Whether the SDK generation speaks only the `initialize`-era revisions (the 1.x class says so). */
  /** @type {boolean} */
  static handshakeOnly = false;
  /** @type {Readonly<{ schemaTarget: 'draft-2020-12' | 'draft-7', taskSupport: boolean }>} */
  static sdkShapes = Object.freeze({ schemaTarget: 'draft-2020-12', taskSupport: false });
  #facade;
  #transports = new Set();
  #taskStore;
  #experimental;

  /**
   * @param {{ name: string, version: string, title?: string }} serverInfo
   * @param {{ capabilities?: object, instructions?: string, [k: string]: unknown }} [options]
   */
  constructor(serverInfo, options = {}) {
    // The SDK's task options are this layer's (see lib/sdk/tasks.cjs), not the core's.
    const { taskStore, taskMessageQueue, ...rest } = options ?? {};
    // An SDK generation that speaks only the handshake era is served in it unless the server opts
    // in to 2026-07-28 (`modern: true`): its lifecycle hooks were written for that era.
    const eras = new.target.handshakeOnly ? { modern: false } : {};
    super(withVersion(serverInfo), { errorMessages: 'message', catalogDigests: false, [SDK_SHAPES]: new.target.sdkShapes, ...eras, ...rest });
    const { LowLevelFacade } = require('./facade.cjs');
    this.#facade = new LowLevelFacade(this, current, options?.capabilities);
    // The SDK 1.x declares what it was given plus what is registered; the v2 shape keeps oxmcp's.
    if (new.target.handshakeOnly) this.#facade._declareExactly();
    this.#taskStore = taskStore;
  }

  /** `server.experimental.tasks.registerToolTask(...)` (the SDK's experimental tasks API). */
  get experimental() {
    if (this.#experimental === undefined) {
      const { ExperimentalMcpServerTasks, InMemoryTaskStore } = require('./tasks.cjs');
      this.#experimental = {
        tasks: new ExperimentalMcpServerTasks(this, (n, c, f) => this.registerTool(n, c, f), () => (this.#taskStore ??= new InMemoryTaskStore()),
          () => this.#facade.getCapabilities(), () => this[SESSIONLESS] === true),
      };
    }
    return this.#experimental;
  }

  /** The low-level server of the SDK (`setRequestHandler`, `registerCapabilities`, `sendResourceUpdated`, ...). */
  get server() { return this.#facade; }

  /** Serve on `transport` (`StdioServerTransport` or `StreamableHTTPServerTransport` from oxmcp). */
  async connect(transport) {
    if (!transport || typeof transport._oxmcpAttach !== 'function') {
      throw new TypeError('connect(transport): pass a transport from oxmcp/server/stdio.js or oxmcp/server/streamableHttp.js (oxmcp serves the wire itself)');
    }
    this.#transports.add(transport);
    this.#facade._gate();
    await transport._oxmcpAttach(this);
    this.#facade._connected(transport);
  }

  isConnected() { return this.#transports.size > 0; }

  async close() {
    const ts = [...this.#transports];
    this.#transports.clear();
    await super.close();
    for (const t of ts) t._oxmcpDetached?.();
    this.#facade._closed();
  }

  /** Run `fn` as the handler of call `ctx`: `server.sendLoggingMessage` inside it goes to that call's client. */
  #run(ctx, fn) {
    return current.run(ctx, fn);
  }

  #extra(ctx, method) {
    const { RequestHandlerExtra } = (extraModule ??= require('./extra.cjs'));
    return new RequestHandlerExtra(ctx, undefined, method, this[SESSIONLESS] === true, this[PASSED_AUTH]);
  }

  // ---------------------------------------------------------------- registration, SDK signatures

  // @ts-expect-error the SDK's handle (enabled, enable, disable, update, remove), not the base's RegisteredTool
  registerTool(name, config, cb) {
    config = config ?? {};
    const hasInput = config.inputSchema !== undefined && config.inputSchema !== null;
    const wrapped = (args, ctx) => this.#run(ctx, () => (hasInput ? cb(args, this.#extra(ctx, 'tools/call')) : cb(this.#extra(ctx, 'tools/call'))));
    const handle = this.#controllable('tool', name, config, cb, super.registerTool(name, config, wrapped));
    this.#facade._registered({ tools: { listChanged: true } });
    return handle;
  }

  /**
   * v1: `tool(name, cb)`, `tool(name, description, cb)`, `tool(name, paramsShape, cb)`,
   * `tool(name, annotations, cb)`, `tool(name, description, paramsShape, annotations, cb)`, ...
   */
  // @ts-expect-error the SDK's handle, as registerTool
  tool(name, ...rest) {
    const cb = rest.pop();
    const config = {};
    if (typeof rest[0] === 'string') config.description = rest.shift();
    if (rest.length && isRawShape(rest[0])) {
      config.inputSchema = rest.shift();
      if (rest.length && rest[0] && typeof rest[0] === 'object') config.annotations = rest.shift();
    } else if (rest.length && rest[0] && typeof rest[0] === 'object') {
      config.annotations = rest.shift();
    }
    return this.registerTool(name, config, cb);
  }

  registerResource(name, uriOrTemplate, metadata, cb) {
    if (typeof metadata === 'function' && cb === undefined) [metadata, cb] = [{}, metadata];
    const template = uriOrTemplate instanceof BaseTemplate;
    const wrapped = template
      ? (url, vars, ctx) => this.#run(ctx, () => cb(url, vars, this.#extra(ctx, 'resources/read')))
      : (url, ctx) => this.#run(ctx, () => cb(url, this.#extra(ctx, 'resources/read')));
    const handle = this.#controllable('resource', name, metadata, cb, super.registerResource(name, uriOrTemplate, metadata ?? {}, wrapped), uriOrTemplate);
    this.#facade._registered({ resources: { listChanged: true } });
    if (template && Object.values(uriOrTemplate.complete ?? {}).some((f) => typeof f === 'function')) this.#facade._registered({ completions: {} });
    return handle;
  }

  /** v1: `resource(name, uriOrTemplate, cb)` or `resource(name, uriOrTemplate, metadata, cb)`. */
  resource(name, uriOrTemplate, ...rest) {
    const cb = rest.pop();
    return this.registerResource(name, uriOrTemplate, rest[0] ?? {}, cb);
  }

  registerPrompt(name, config, cb) {
    if (typeof config === 'function' && cb === undefined) [config, cb] = [{}, config];
    config = config ?? {};
    const hasArgs = config.argsSchema !== undefined && config.argsSchema !== null;
    const wrapped = (args, ctx) => this.#run(ctx, () => (hasArgs ? cb(args, this.#extra(ctx, 'prompts/get')) : cb(this.#extra(ctx, 'prompts/get'))));
    const handle = this.#controllable('prompt', name, config, cb, super.registerPrompt(name, config, wrapped));
    this.#facade._registered({ prompts: { listChanged: true } });
    if (hasCompleters(name, config)) this.#facade._registered({ completions: {} });
    return handle;
  }

  /** v1: `prompt(name, cb)`, `prompt(name, description, cb)`, `prompt(name, argsShape, cb)`, `prompt(name, description, argsShape, cb)`. */
  prompt(name, ...rest) {
    const cb = rest.pop();
    const config = {};
    if (typeof rest[0] === 'string') config.description = rest.shift();
    if (rest.length) config.argsSchema = rest.shift();
    return this.registerPrompt(name, config, cb);
  }

  /** The SDK's Registered* handle: enable/disable/update/remove. */
  #controllable(kind, name, config, cb, reg, uri) {
    const self = this;
    let live = reg;
    let enabled = true;
    const register = (n, c, f) => {
      if (kind === 'tool') return self.registerTool(n, c, f);
      if (kind === 'prompt') return self.registerPrompt(n, c, f);
      return self.registerResource(n, uri, c, f);
    };
    const handle = {
      name,
      get enabled() { return enabled; },
      enable() { if (!enabled) { enabled = true; live = register(name, config, cb)._live; } },
      disable() { if (enabled) { enabled = false; live.remove(); } },
      remove() { if (enabled) live.remove(); enabled = false; },
      update(updates = {}) {
        const next = { ...config, ...updates };
        for (const k of ['name', 'callback', 'enabled']) delete next[k];
        const n = updates.name ?? name;
        const f = updates.callback ?? cb;
        if (enabled) live.remove();
        enabled = updates.enabled ?? true;
        if (enabled) live = register(n, next, f)._live;
      },
    };
    Object.defineProperty(handle, '_live', { value: reg, enumerable: false });
    return handle;
  }

  // ---------------------------------------------------------------- notifications

  /**
   * `notifications/message`. Inside a handler it goes to that request's client (filtered by its
   * log level); outside one, to every legacy session (see docs/COMPATIBILITY.md).
   */
  async sendLoggingMessage(params, sessionId) {
    return this.#facade.sendLoggingMessage(params, sessionId);
  }
  sendResourceListChanged() { this.#facade.sendResourceListChanged(); }
  sendToolListChanged() { this.#facade.sendToolListChanged(); }
  sendPromptListChanged() { this.#facade.sendPromptListChanged(); }
}

/** `oxmcp/server/mcp.js`: the v1 SDK's listing - zod as draft-07, `execution.taskSupport: 'forbidden'` on every plain tool. */
class McpServerV1 extends McpServer {
  static sdkShapes = Object.freeze({ schemaTarget: 'draft-7', taskSupport: true, promptArgsFromFields: true });
  /** The SDK 1.x speaks only the `initialize`-era revisions. */
  static handshakeOnly = true;
}
Object.defineProperty(McpServerV1, 'name', { value: 'McpServer' });

module.exports = { McpServer, McpServerV1, ResourceTemplate, current, withVersion };
