'use strict';
/**
 * `mcpServer.server`: the TS SDK's low-level `Server` as real McpServer-based servers use it
 * (`setRequestHandler` for resources/subscribe, `registerCapabilities`, `sendResourceUpdated`,
 * `sendLoggingMessage`, `createMessage`/`elicitInput`/`listRoots` inside a handler). The methods
 * oxmcp's core answers itself (tools, resources, prompts, completion) cannot be replaced here:
 * setting them fails as loudly as the SDK's own "already exists" assertion.
 */
const { McpError, ErrorCode } = require('../errors.cjs');

/** The JSON-RPC method a request/notification schema stands for: a zod `{ method: z.literal(m) }` or an oxmcp types.js schema. */
function methodOf(schema) {
  if (schema && typeof schema.method === 'string') return schema.method;
  const shape = schema?.shape ?? schema?._zod?.def?.shape;
  const m = shape?.method;
  const v = m?.value ?? m?._zod?.def?.values?.[0] ?? m?._def?.value;
  if (typeof v !== 'string') throw new TypeError('setRequestHandler(schema, handler): schema must be a request schema with a literal `method`');
  return v;
}

/** Answered by the core from what McpServer registered. */
const CORE_METHODS = new Set([
  'initialize', 'ping', 'tools/list', 'tools/call', 'resources/list', 'resources/read', 'resources/templates/list',
  'prompts/list', 'prompts/get', 'completion/complete',
]);
/** The core answers these itself (it records subscriptions and the log level per session); a handler is kept, not called. */
const ACCEPTED_METHODS = new Set(['resources/subscribe', 'resources/unsubscribe', 'logging/setLevel']);

function mergeCaps(a, b) {
  const out = { ...a };
  for (const [k, v] of Object.entries(b ?? {})) {
    out[k] = v && typeof v === 'object' && !Array.isArray(v) && a?.[k] && typeof a[k] === 'object' ? mergeCaps(a[k], v) : v;
  }
  return out;
}

class LowLevelFacade {
  #owner;
  #current;
  #capabilities;
  #requestHandlers = new Map();
  #notificationHandlers = new Map();
  #transport;

  constructor(owner, current, capabilities) {
    this.#owner = owner;
    this.#current = current;
    this.#capabilities = { ...(capabilities ?? {}) };
    /** @type {(() => void) | undefined} */
    this.oninitialized = undefined;
    /** @type {(() => void) | undefined} */
    this.onclose = undefined;
    /** @type {((e: Error) => void) | undefined} */
    this.onerror = undefined;
  }

  get transport() { return this.#transport; }
  _connected(t) { this.#transport = t; }
  _closed() {
    this.#transport = undefined;
    try { this.onclose?.(); } catch {}
  }

  connect(transport) { return this.#owner.connect(transport); }
  close() { return this.#owner.close(); }

  registerCapabilities(capabilities) {
    this.#capabilities = mergeCaps(this.#capabilities, capabilities);
  }
  getCapabilities() { return this.#capabilities; }

  setRequestHandler(schema, handler) {
    const method = methodOf(schema);
    if (CORE_METHODS.has(method)) {
      throw new Error(`A request handler for ${method} already exists, which would be overridden: oxmcp's McpServer answers ${method} from registerTool/registerResource/registerPrompt (for a hand-written ${method}, use the low-level Server from oxmcp/server/index.js)`);
    }
    if (!ACCEPTED_METHODS.has(method)) {
      throw new McpError(ErrorCode.MethodNotFound, `oxmcp does not dispatch custom request methods (${method}); see docs/COMPATIBILITY.md`);
    }
    this.#requestHandlers.set(method, handler);
  }
  removeRequestHandler(method) { this.#requestHandlers.delete(method); }
  assertCanSetRequestHandler(method) {
    if (CORE_METHODS.has(method) || this.#requestHandlers.has(method)) throw new Error(`A request handler for ${method} already exists, which would be overridden`);
  }

  setNotificationHandler(schema, handler) {
    this.#notificationHandlers.set(methodOf(schema), handler);
  }
  removeNotificationHandler(method) { this.#notificationHandlers.delete(method); }

  /** The call whose handler is running, or undefined outside one. */
  #ctx() { return this.#current.getStore(); }

  getClientCapabilities() { return this.#ctx()?.clientCapabilities; }
  getClientVersion() { return this.#ctx()?.clientInfo; }

  async sendLoggingMessage(params, _sessionId) {
    const ctx = this.#ctx();
    if (ctx) return ctx.log(params.level, params.data, params.logger);
    // Outside a request there is no client to address: see docs/COMPATIBILITY.md.
    return undefined;
  }
  async sendResourceUpdated(params) {
    this.#owner.notifyResourceUpdated(params.uri);
  }
  sendResourceListChanged() { this.#listChanged('resources'); }
  sendToolListChanged() { this.#listChanged('tools'); }
  sendPromptListChanged() { this.#listChanged('prompts'); }
  #listChanged(kind) {
    const native = this.#owner.native;
    if (typeof native.notifyListChanged === 'function') native.notifyListChanged(kind);
  }

  async notification(n) {
    switch (n?.method) {
      case 'notifications/message': return this.sendLoggingMessage(n.params ?? {});
      case 'notifications/resources/updated': return this.sendResourceUpdated(n.params ?? {});
      case 'notifications/resources/list_changed': return this.sendResourceListChanged();
      case 'notifications/tools/list_changed': return this.sendToolListChanged();
      case 'notifications/prompts/list_changed': return this.sendPromptListChanged();
      default: {
        const ctx = this.#ctx();
        if (ctx && n?.method === 'notifications/progress') return ctx.progress(n.params.progress, n.params.total, n.params.message);
        throw new McpError(ErrorCode.InvalidRequest, `notification(${JSON.stringify(n?.method)}) is not sent by oxmcp`);
      }
    }
  }

  #inCall(what) {
    const ctx = this.#ctx();
    if (!ctx) {
      throw new McpError(ErrorCode.InvalidRequest, `${what} outside a request handler is not supported by oxmcp yet: call it inside a tool/resource/prompt handler (see docs/COMPATIBILITY.md)`);
    }
    return ctx;
  }
  async createMessage(params) { return this.#inCall('createMessage').sample(params); }
  async elicitInput(params) { return this.#inCall('elicitInput').elicit(params); }
  async listRoots() { return this.#inCall('listRoots').roots(); }
  async ping() { return {}; }
  async request(req, resultSchema) {
    const ctx = this.#inCall(`request(${req?.method})`);
    let out;
    if (req.method === 'sampling/createMessage') out = await ctx.sample(req.params ?? {});
    else if (req.method === 'elicitation/create') out = await ctx.elicit(req.params ?? {});
    else if (req.method === 'roots/list') out = await ctx.roots();
    else throw new McpError(ErrorCode.InvalidRequest, `request(${JSON.stringify(req.method)}) cannot be sent to the client by oxmcp`);
    return resultSchema && typeof resultSchema.parse === 'function' ? resultSchema.parse(out) : out;
  }
}

module.exports = { LowLevelFacade, methodOf, mergeCaps };
