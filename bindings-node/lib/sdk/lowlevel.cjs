'use strict';
/**
 * `oxmcp/server/index.js`: the TS SDK's low-level `Server`, for servers that answer the spec's
 * methods by hand (`setRequestHandler(ListToolsRequestSchema, ...)`, `CallToolRequestSchema`,
 * resources, prompts, completion) instead of registering through McpServer.
 *
 * The core still owns the wire, validation and dispatch: on `connect(transport)` the list
 * handlers are asked once for what exists, each tool / resource / template / prompt is
 * registered natively with the matching call/read/get handler behind it, and
 * `sendToolListChanged()` (and siblings) asks again and applies the difference. Session traffic
 * (oninitialized, notification handlers, listRoots/createMessage/elicitInput outside a call,
 * sendLoggingMessage) is the same as `McpServer.server`'s (facade.cjs).
 */
const { loadNative } = require('../native.cjs');
const { McpError, fromNative } = require('../errors.cjs');
const { Context, Calls } = require('../context.cjs');
const { LowLevelFacade, methodOf } = require('./facade.cjs');
const { mergeCapabilities } = require('./protocol.cjs');
const { RequestHandlerExtra, SESSIONLESS } = require('./extra.cjs');
const { current, withVersion } = require('./mcp.cjs');
const http = require('../http.cjs');
const middleware = require('../middleware.cjs');
const { ToolError } = require('../errors.cjs');
const { nativeDef } = require('../defs.cjs');

const DEFAULT_TIMEOUT_MS = 300_000;
/** Methods this Server answers through the core from the handlers set for them. */
const SPEC = new Set(['tools/list', 'tools/call', 'resources/list', 'resources/templates/list', 'resources/read', 'prompts/list', 'prompts/get', 'completion/complete']);

function isThenable(v) {
  return v !== null && (typeof v === 'object' || typeof v === 'function') && typeof v.then === 'function';
}

/** A throw -> the envelope the core answers with: the SDK's Protocol makes every throw a JSON-RPC error. */
function failure(err) {
  if (err && (err.code === 'INPUT_REQUIRED' || err.code === 'CANCELLED')) return { control: err.code };
  if (err && err.name === 'AbortError') return { control: 'CANCELLED' };
  const code = err instanceof McpError || Number.isSafeInteger(err?.code) ? err.code : -32603;
  return { error: { code, message: (err && err.message) || 'Internal error', data: err?.data } };
}

class Server extends LowLevelFacade {
  #native;
  #calls;
  #handlers = new Map();
  #registered = { tools: new Set(), resources: new Set(), templates: new Set(), prompts: new Set() };
  #running = new Set();
  #connected = false;

  /**
   * @param {{ name: string, version: string, title?: string }} serverInfo
   * @param {{ capabilities?: object, instructions?: string }} [options]
   */
  constructor(serverInfo, options = {}) {
    serverInfo = withVersion(serverInfo);
    if (!serverInfo || typeof serverInfo.name !== 'string' || typeof serverInfo.version !== 'string') {
      throw new TypeError('new Server({ name, version }, options) needs string name and version');
    }
    const { NativeServer } = loadNative();
    let native;
    try {
      native = new NativeServer({ ...serverInfo, ...(options.instructions ? { instructions: options.instructions } : {}), toolTimeoutMs: DEFAULT_TIMEOUT_MS });
    } catch (e) {
      throw fromNative(e);
    }
    const owner = { native, notifyResourceUpdated: (uri) => native.notifyResourceUpdated(uri) };
    super(owner, current, options.capabilities);
    owner.connect = (t) => this.connect(t);
    owner.close = () => this.close();
    this.#native = native;
    this.#calls = new Calls(native);
  }

  get native() { return this.#native; }

  /** oxmcp's middleware (`lib/middleware.cjs`), as on every oxmcp server class; a throw maps as a handler's does. */
  use(methodsOrFn, fn) {
    const mw = middleware.parseUse(methodsOrFn, fn);
    const onThrow = (err, method) => (err instanceof ToolError && method === 'tools/call'
      ? { result: { content: [{ type: 'text', text: err.message }], isError: true } }
      : failure(err));
    try {
      middleware.install(this.#native, this.#calls, mw, onThrow);
    } catch (e) {
      throw fromNative(e);
    }
    return this;
  }

  setRequestHandler(schema, handler) {
    const method = methodOf(schema);
    if (!SPEC.has(method)) return super.setRequestHandler(schema, handler);
    if (typeof handler !== 'function') throw new TypeError(`setRequestHandler(${method}): handler must be a function`);
    this.#handlers.set(method, handler);
    if (this.#connected) this.#resync(method).catch((e) => this.onerror?.(e));
  }

  removeRequestHandler(method) {
    if (this.#handlers.delete(method)) return;
    super.removeRequestHandler(method);
  }

  assertCanSetRequestHandler(method) {
    if (this.#handlers.has(method)) throw new Error(`A request handler for ${method} already exists, which would be overridden`);
  }

  async connect(transport) {
    if (!transport || typeof transport._oxmcpAttach !== 'function') {
      throw new TypeError('connect(transport): pass a transport from oxmcp/server/stdio.js or oxmcp/server/streamableHttp.js');
    }
    await this.#syncAll();
    this.#connected = true;
    await transport._oxmcpAttach(this);
    this._connected(transport);
  }

  // ---------------------------------------------------------------- what transports call

  configureHttp(options) {
    try { this.#native.configureMount(options ?? {}); } catch (e) { throw fromNative(e); }
  }
  async serveStdio() {
    await this.#syncAll();
    let done;
    try { done = this.#native.serveStdio(); } catch (e) { throw fromNative(e); }
    const p = Promise.resolve(done).catch((e) => { throw fromNative(e); }).finally(() => this.#running.delete(p));
    this.#running.add(p);
    return p;
  }
  fetch(request) {
    return this.#syncAll().then(() => http.fetchHandler(this.#native, request));
  }
  async close() {
    try { await this.#native.close(); } catch (e) { throw fromNative(e); }
    await Promise.allSettled([...this.#running]);
    this._closed();
  }

  sendToolListChanged() { this.#resync('tools/list').catch((e) => this.onerror?.(e)); }
  sendResourceListChanged() { this.#resync('resources/list').catch((e) => this.onerror?.(e)); }
  sendPromptListChanged() { this.#resync('prompts/list').catch((e) => this.onerror?.(e)); }

  // ---------------------------------------------------------------- registration from the handlers

  #syncing;
  #syncAll() {
    return (this.#syncing ??= (async () => {
      for (const m of ['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list']) await this.#resync(m);
    })());
  }

  /** Ask a list handler for everything (following nextCursor). */
  async #list(method, key) {
    const h = this.#handlers.get(method);
    if (!h) return [];
    const out = [];
    let cursor;
    for (let page = 0; page < 1000; page++) {
      const r = await h({ method, params: cursor === undefined ? {} : { cursor } }, { signal: new AbortController().signal, sendNotification: async () => {}, sendRequest: async () => { throw new McpError(-32600, 'no client at registration'); } });
      for (const item of r?.[key] ?? []) out.push(item);
      cursor = r?.nextCursor;
      if (!cursor) break;
    }
    return out;
  }

  async #resync(method) {
    const native = this.#native;
    if (method === 'tools/list' || method === 'tools/call') {
      const tools = await this.#list('tools/list', 'tools');
      const seen = new Set();
      for (const def of tools) {
        seen.add(def.name);
        if (this.#registered.tools.has(def.name)) native.removeTool(def.name);
        const invoke = (argsJson, id) => this.#run(id, 'tools/call', { name: def.name, arguments: JSON.parse(argsJson) }, (r) => r);
        try { native.addTool(nativeDef('tool', def), invoke, DEFAULT_TIMEOUT_MS); } catch (e) { throw fromNative(e); }
        this.#registered.tools.add(def.name);
      }
      for (const n of [...this.#registered.tools]) if (!seen.has(n)) { native.removeTool(n); this.#registered.tools.delete(n); }
    } else if (method === 'resources/list' || method === 'resources/read') {
      const resources = await this.#list('resources/list', 'resources');
      const seen = new Set();
      for (const def of resources) {
        seen.add(def.uri);
        if (this.#registered.resources.has(def.uri)) native.removeResource(def.uri);
        const invoke = (uri, _vars, id) => this.#run(id, 'resources/read', { uri }, (r) => r?.contents ?? []);
        try { native.addResource(nativeDef('resource', def), invoke, DEFAULT_TIMEOUT_MS); } catch (e) { throw fromNative(e); }
        this.#registered.resources.add(def.uri);
      }
      for (const u of [...this.#registered.resources]) if (!seen.has(u)) { native.removeResource(u); this.#registered.resources.delete(u); }
      if (method === 'resources/read') await this.#resync('resources/templates/list');
    } else if (method === 'resources/templates/list') {
      const templates = await this.#list('resources/templates/list', 'resourceTemplates');
      const seen = new Set();
      for (const def of templates) {
        seen.add(def.uriTemplate);
        if (this.#registered.templates.has(def.uriTemplate)) native.removeResourceTemplate(def.uriTemplate);
        const invoke = (uri, _vars, id) => this.#run(id, 'resources/read', { uri }, (r) => r?.contents ?? []);
        const completer = this.#completer({ type: 'ref/resource', uri: def.uriTemplate });
        try { native.addResourceTemplate(nativeDef('template', def), invoke, completer, DEFAULT_TIMEOUT_MS); } catch (e) { throw fromNative(e); }
        this.#registered.templates.add(def.uriTemplate);
      }
      for (const t of [...this.#registered.templates]) if (!seen.has(t)) { native.removeResourceTemplate(t); this.#registered.templates.delete(t); }
    } else if (method === 'prompts/list' || method === 'prompts/get' || method === 'completion/complete') {
      const prompts = await this.#list('prompts/list', 'prompts');
      const seen = new Set();
      for (const def of prompts) {
        seen.add(def.name);
        if (this.#registered.prompts.has(def.name)) native.removePrompt(def.name);
        const invoke = (args, id) => this.#run(id, 'prompts/get', { name: def.name, arguments: args ?? {} }, (r) => r);
        const completer = this.#completer({ type: 'ref/prompt', name: def.name });
        try { native.addPrompt(nativeDef('prompt', def), invoke, completer, DEFAULT_TIMEOUT_MS); } catch (e) { throw fromNative(e); }
        this.#registered.prompts.add(def.name);
      }
      for (const n of [...this.#registered.prompts]) if (!seen.has(n)) { native.removePrompt(n); this.#registered.prompts.delete(n); }
      if (method === 'completion/complete') await this.#resync('resources/templates/list');
    }
  }

  #completer(ref) {
    if (!this.#handlers.has('completion/complete')) return undefined;
    return (argument, value, contextArgs, id) => this.#run(id, 'completion/complete', {
      ref, argument: { name: argument, value }, ...(contextArgs && Object.keys(contextArgs).length ? { context: { arguments: contextArgs } } : {}),
    }, (r) => r?.completion ?? { values: [] });
  }

  /** Run the handler of `method` for call `id`; its result, through `pick`, is the answer. */
  #run(id, method, params, pick) {
    // The request ended while it waited for the JS thread: nothing waits for this answer.
    if (!this.#calls.native.claim(id)) return undefined;
    const handler = this.#handlers.get(method);
    const ctx = new Context(this.#calls, id);
    const extra = new RequestHandlerExtra(ctx, undefined, method, this[SESSIONLESS] === true);
    const ok = (v) => ({ result: pick(v) });
    let out;
    try {
      if (!handler) throw new McpError(-32601, `Method not found: ${method}`);
      out = current.run(ctx, () => handler({ method, params: { ...params, _meta: ctx.meta } }, extra));
    } catch (e) {
      return failure(e);
    }
    if (!isThenable(out)) return ok(out);
    const native = this.#calls.native;
    Promise.resolve(out).then(ok, failure).then((env) => {
      try { native.settle(id, env); } catch { try { native.settle(id, null); } catch {} }
    });
    return undefined;
  }
}

module.exports = { Server, mergeCapabilities };
