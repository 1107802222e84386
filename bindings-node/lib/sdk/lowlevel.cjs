'use strict';
/**
 * `oxmcp/server/index.js`: the TS SDK's low-level `Server`, for servers that answer the spec's
 * methods by hand (`setRequestHandler(ListToolsRequestSchema, ...)`, `CallToolRequestSchema`,
 * resources, prompts, completion) instead of registering through McpServer.
 *
 * The core still owns the wire, validation and dispatch: each tool / resource / template /
 * prompt the list handlers return is registered natively with the matching call/read/get handler
 * behind it. The list handlers run on every list request, as in the SDK (a link of the core's
 * middleware chain applies what they return to the registry, then the core answers from it, with
 * its allow-lists and pagination), and before a read of a URI that is not a registered resource
 * (one created since the last list); also at `connect(transport)` and on `sendToolListChanged()`
 * and its siblings. Session traffic
 * (oninitialized, notification handlers, listRoots/createMessage/elicitInput outside a call,
 * sendLoggingMessage) is the same as `McpServer.server`'s (facade.cjs).
 */
const { loadNative } = require('../native.cjs');
const { McpError, fromNative } = require('../errors.cjs');
const { Context, Calls } = require('../context.cjs');
const { LowLevelFacade, methodOf, CORE_METHODS, ACCEPTED_METHODS } = require('./facade.cjs');
const { mergeCapabilities } = require('./protocol.cjs');
const { RequestHandlerExtra, SESSIONLESS } = require('./extra.cjs');
const { PASSED_AUTH, markServing } = require('../server.cjs');
const { current, withVersion } = require('./mcp.cjs');
const http = require('../http.cjs');
const middleware = require('../middleware.cjs');
const { ToolError } = require('../errors.cjs');
const { nativeDef } = require('../defs.cjs');

/** Methods this Server answers through the core from the handlers set for them. */
const SPEC = new Set(['tools/list', 'tools/call', 'resources/list', 'resources/templates/list', 'resources/read', 'prompts/list', 'prompts/get', 'completion/complete']);
/** The list requests whose handler runs per request. */
const LISTS = ['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list'];
/** Which registered kind a method's resync applies. */
const KIND_OF = Object.freeze({
  'tools/list': 'tools', 'tools/call': 'tools', 'resources/list': 'resources', 'resources/read': 'resources',
  'resources/templates/list': 'templates', 'prompts/list': 'prompts', 'prompts/get': 'prompts', 'completion/complete': 'prompts',
});

/**
 * A method that is none of those the facade knows (the spec's and the session's): the host's own
 * (`setRequestHandler` with a schema whose method literal is its own), which the core decides on.
 */
function isCustom(method) {
  return !SPEC.has(method) && !CORE_METHODS.has(method) && !ACCEPTED_METHODS.has(method);
}

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
  #listsHooked = false;
  /** The JSON text of each registered definition, to re-register only what a list handler changed. */
  #defs = new Map();
  /** One resync at a time per list: concurrent list requests must not interleave removes and adds. */
  #resyncs = new Map();

  /**
   * @param {{ name: string, version: string, title?: string }} serverInfo
   * @param {{ capabilities?: object, instructions?: string, modern?: boolean }} [options]
   */
  constructor(serverInfo, options = {}) {
    serverInfo = withVersion(serverInfo);
    if (!serverInfo || typeof serverInfo.name !== 'string' || typeof serverInfo.version !== 'string') {
      throw new TypeError('new Server({ name, version }, options) needs string name and version');
    }
    const { NativeServer } = loadNative();
    let native;
    // Declared from the start: the list handlers may return nothing yet.
    const declare = ['resources', 'prompts'].filter((k) => options.capabilities?.[k]);
    try {
      // The SDK 1.x path: served in the `initialize`-era revisions it speaks, unless the server
      // opts in to 2026-07-28 (`modern: true`), since its hooks (oninitialized, roots read at
      // start) were written for that era.
      native = new NativeServer({ ...serverInfo, ...(options.instructions ? { instructions: options.instructions } : {}), modern: options.modern === true, catalogDigests: false }, declare);
    } catch (e) {
      throw fromNative(e);
    }
    const owner = { native, notifyResourceUpdated: (uri) => native.notifyResourceUpdated(uri) };
    super(owner, current, options.capabilities);
    owner.connect = (t) => this.connect(t);
    owner.close = () => this.close();
    this.#native = native;
    this.#calls = new Calls(native);
    // Declared as the SDK's Server declares: what it was given and `registerCapabilities`.
    this._declareExactly();
  }

  get native() { return this.#native; }

  /** oxmcp's middleware (`lib/middleware.cjs`), as on every oxmcp server class; a throw maps as a handler's does. */
  use(methodsOrFn, fn) {
    this.#install(middleware.parseUse(methodsOrFn, fn));
    return this;
  }

  #install(mw) {
    const onThrow = (err, method) => (err instanceof ToolError && method === 'tools/call'
      ? { result: { content: [{ type: 'text', text: err.message }], isError: true } }
      : failure(err));
    try {
      middleware.install(this.#native, this.#calls, mw, onThrow);
    } catch (e) {
      throw fromNative(e);
    }
  }

  /**
   * The list handlers per request: a list request runs its handler (with the request's `extra`)
   * and applies the result to the registry before the core answers; a `resources/read` of a URI
   * that is not a registered resource runs the resources (and templates) list handlers first, so
   * a resource a tool created is readable before anyone lists it. `tools/call` and `prompts/get`
   * are not hooked (a client calls what it listed), so they cost no hop through JS.
   */
  #hookLists() {
    if (this.#listsHooked) return;
    this.#listsHooked = true;
    this.#install({
      methods: [...LISTS, 'resources/read'],
      fn: async (ctx, next) => {
        if (ctx.method !== 'resources/read') {
          if (this.#handlers.has(ctx.method)) await this.#resync(ctx.method, ctx);
        } else if (this.#handlers.has('resources/list') && !this.#registered.resources.has(ctx.params?.uri)) {
          await this.#resync('resources/read', ctx);
        }
        return next();
      },
    });
  }

  setRequestHandler(schema, handler) {
    const method = methodOf(schema);
    if (!SPEC.has(method) && !isCustom(method)) return super.setRequestHandler(schema, handler);
    if (typeof handler !== 'function') throw new TypeError(`setRequestHandler(${method}): handler must be a function`);
    if (!SPEC.has(method)) {
      // A method outside the spec: the core serves it (core/src/server/methods.rs) and refuses a
      // name it keeps, with its text.
      const invoke = (params, id) => this.#run(id, method, params ?? {}, (r) => r ?? {});
      try { this.#native.addMethod(method, invoke); } catch (e) { throw fromNative(e); }
      // As the SDK: the request parsed with the schema it was set with (a throw is the answer).
      const parse = typeof schema?.parse === 'function' ? (r) => schema.parse(r) : (r) => r;
      this.#handlers.set(method, (request, extra) => handler(parse(request), extra));
      return;
    }
    this.#handlers.set(method, handler);
    if (this.#connected) this.#resync(method).catch((e) => this.onerror?.(e));
  }

  removeRequestHandler(method) {
    if (isCustom(method)) this.#native.removeMethod(method);
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
    this.#hookLists();
    this.#connected = true;
    this._gate();
    await transport._oxmcpAttach(this);
    this._connected(transport);
  }

  // ---------------------------------------------------------------- what transports call

  configureHttp(options) {
    try { this.#native.configureMount(options ?? {}); } catch (e) { throw fromNative(e); }
  }
  async serveStdio() {
    await this.#syncAll();
    this.#hookLists();
    let done;
    try { done = this.#native.serveStdio(); } catch (e) { throw fromNative(e); }
    markServing();
    const p = Promise.resolve(done).catch((e) => { throw fromNative(e); }).finally(() => this.#running.delete(p));
    this.#running.add(p);
    return p;
  }
  fetch(request) {
    return this.#syncAll().then(() => {
      this.#hookLists();
      return http.fetchHandler(this.#native, request);
    });
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

  /**
   * Ask a list handler for everything (following nextCursor); `ctx`: the request it runs for (a
   * middleware context), or none at registration.
   */
  async #list(method, key, ctx) {
    const h = this.#handlers.get(method);
    if (!h) return [];
    const extra = ctx
      ? new RequestHandlerExtra(ctx, undefined, method, this[SESSIONLESS] === true, this[PASSED_AUTH])
      : { signal: new AbortController().signal, sendNotification: async () => {}, sendRequest: async () => { throw new McpError(-32600, 'no client at registration'); } };
    const out = [];
    let cursor;
    for (let page = 0; page < 1000; page++) {
      const params = cursor === undefined ? {} : { cursor };
      if (ctx?.meta) params._meta = ctx.meta;
      const r = await (ctx ? current.run(ctx, () => h({ method, params }, extra)) : h({ method, params }, extra));
      for (const item of r?.[key] ?? []) out.push(item);
      cursor = r?.nextCursor;
      if (!cursor) break;
    }
    return out;
  }

  /** Apply what a list handler returns to the registry; one at a time per kind of list. */
  #resync(method, ctx) {
    const kind = KIND_OF[method];
    const run = (this.#resyncs.get(kind) ?? Promise.resolve()).catch(() => {}).then(() => this.#apply(method, ctx));
    this.#resyncs.set(kind, run);
    return run;
  }

  async #apply(method, ctx) {
    const native = this.#native;
    const reg = (fn) => { try { fn(); } catch (e) { throw fromNative(e); } };
    const kind = KIND_OF[method];
    if (kind === 'tools') {
      this.#sync('tools', await this.#list('tools/list', 'tools', ctx), (d) => d.name, (def) => {
        const invoke = (argsJson, id) => this.#run(id, 'tools/call', { name: def.name, arguments: JSON.parse(argsJson) }, (r) => r);
        reg(() => native.addTool(nativeDef('tool', def), invoke));
      }, (n) => native.removeTool(n));
    } else if (kind === 'resources') {
      this.#sync('resources', await this.#list('resources/list', 'resources', ctx), (d) => d.uri, (def) => {
        const invoke = (uri, _vars, id) => this.#run(id, 'resources/read', { uri }, (r) => r?.contents ?? []);
        reg(() => native.addResource(nativeDef('resource', def), invoke));
      }, (u) => native.removeResource(u));
      if (method === 'resources/read') await this.#resync('resources/templates/list', ctx);
    } else if (kind === 'templates') {
      this.#sync('templates', await this.#list('resources/templates/list', 'resourceTemplates', ctx), (d) => d.uriTemplate, (def) => {
        const invoke = (uri, _vars, id) => this.#run(id, 'resources/read', { uri }, (r) => r?.contents ?? []);
        const completer = this.#completer({ type: 'ref/resource', uri: def.uriTemplate });
        reg(() => native.addResourceTemplate(nativeDef('template', def), invoke, completer));
      }, (t) => native.removeResourceTemplate(t));
    } else if (kind === 'prompts') {
      this.#sync('prompts', await this.#list('prompts/list', 'prompts', ctx), (d) => d.name, (def) => {
        const invoke = (args, id) => this.#run(id, 'prompts/get', { name: def.name, arguments: args ?? {} }, (r) => r);
        const completer = this.#completer({ type: 'ref/prompt', name: def.name });
        reg(() => native.addPrompt(nativeDef('prompt', def), invoke, completer));
      }, (n) => native.removePrompt(n));
      if (method === 'completion/complete') await this.#resync('resources/templates/list', ctx);
    }
  }

  /**
   * Make the registry's `kind` what a list handler returned: add what is new, re-register what
   * changed (or whose completer came or went), remove what is gone; what is unchanged stays as it
   * is, so the calls in flight and the clients see no change for it.
   */
  #sync(kind, items, keyOf, add, remove) {
    const registered = this.#registered[kind];
    const completes = kind !== 'tools' && kind !== 'resources' && this.#handlers.has('completion/complete');
    const seen = new Set();
    for (const def of items) {
      const key = keyOf(def);
      seen.add(key);
      const text = `${completes ? 'c' : '-'}${JSON.stringify(def)}`;
      const id = `${kind}\0${key}`;
      if (registered.has(key)) {
        if (this.#defs.get(id) === text) continue;
        remove(key);
        registered.delete(key);
      }
      add(def);
      registered.add(key);
      this.#defs.set(id, text);
    }
    for (const key of [...registered]) {
      if (seen.has(key)) continue;
      remove(key);
      registered.delete(key);
      this.#defs.delete(`${kind}\0${key}`);
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
    const extra = new RequestHandlerExtra(ctx, undefined, method, this[SESSIONLESS] === true, this[PASSED_AUTH]);
    const ok = (v) => ({ result: pick(v) });
    let out;
    try {
      if (!handler) throw new McpError(-32601, 'Method not found');
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
