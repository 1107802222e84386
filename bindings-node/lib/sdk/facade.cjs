'use strict';
/**
 * `mcpServer.server`: the TS SDK's low-level `Server` as real McpServer-based servers use it
 * (`setRequestHandler` for resources/subscribe, `registerCapabilities`, `sendResourceUpdated`,
 * `sendLoggingMessage`, `createMessage`/`elicitInput`/`listRoots` inside a handler). The methods
 * oxmcp's core answers itself (tools, resources, prompts, completion) cannot be replaced here:
 * setting them fails as loudly as the SDK's own "already exists" assertion.
 */
const { AsyncLocalStorage } = require('node:async_hooks');
const { McpError, ErrorCode, fromNative } = require('../errors.cjs');
const { SESSIONLESS } = require('./extra.cjs');
const { mergeCapabilities } = require('./protocol.cjs');

/** The legacy session whose notification is being handled (oninitialized, notification handlers). */
const sessionScope = new AsyncLocalStorage();

/**
 * The JSON-RPC method a request/notification handler is set for: the method itself (v2:
 * `setRequestHandler('resources/subscribe', fn)`), or v1's schema, a zod
 * `{ method: z.literal(m) }` or an oxmcp types.js schema.
 */
function methodOf(schema) {
  if (typeof schema === 'string' && schema) return schema;
  if (schema && typeof schema.method === 'string') return schema.method;
  const shape = schema?.shape ?? schema?._zod?.def?.shape;
  const m = shape?.method;
  const v = m?.value ?? m?._zod?.def?.values?.[0] ?? m?._def?.value;
  if (typeof v !== 'string') throw new TypeError('setRequestHandler(method, handler): method must be a method name or a request schema with a literal `method`');
  return v;
}

/** Answered by the core from what McpServer registered. */
const CORE_METHODS = new Set([
  'initialize', 'ping', 'tools/list', 'tools/call', 'resources/list', 'resources/read', 'resources/templates/list',
  'prompts/list', 'prompts/get', 'completion/complete',
]);
/** The core answers these itself (it records subscriptions and the log level per session); a handler is kept, not called. */
const ACCEPTED_METHODS = new Set(['resources/subscribe', 'resources/unsubscribe', 'logging/setLevel']);

/** The lists a client's first requests read; what `oninitialized` registers must be in them. */
const LIST_METHODS = ['tools/list', 'resources/list', 'resources/templates/list', 'prompts/list'];
/** How long a list request waits for its session's `notifications/initialized` to be handled. */
const INITIALIZED_WAIT_MS = 1000;

function deferred() {
  let resolve;
  const promise = new Promise((r) => { resolve = r; });
  return { promise, resolve };
}

class LowLevelFacade {
  #owner;
  #current;
  #capabilities;
  /** The capabilities McpServer's registrations added (`_registered`). */
  #auto = {};
  #exact = false;
  /** Legacy sessions initialized and not yet `notifications/initialized` (key: session id or ''). */
  #initialized = new Map();
  #gated = false;
  #requestHandlers = new Map();
  #notificationHandlers = new Map();
  #transport;
  /** Open legacy sessions, newest last (key: session id, or '' for stdio). */
  #sessions = new Map();

  constructor(owner, current, capabilities) {
    this.#owner = owner;
    this.#current = current;
    this.#capabilities = { ...(capabilities ?? {}) };
    const native = owner.native;
    if (typeof native.onSession === 'function') native.onSession((session, method, params) => this.#onSession(session, method, params));
    /** @type {(() => void) | undefined} */
    this.oninitialized = undefined;
    /** @type {(() => void) | undefined} */
    this.onclose = undefined;
    /** @type {((e: Error) => void) | undefined} */
    this.onerror = undefined;
  }

  get transport() { return this.#transport; }
  _connected(t) {
    this.#transport = t;
  }
  /** Before the transport serves: the first message read may be the client's `initialize`. */
  _gate() {
    if (typeof this.oninitialized === 'function' && !this.#gated && typeof this.#owner.use === 'function') {
      this.#gated = true;
      // The SDK runs oninitialized's synchronous part before it reads the client's next message,
      // so what the hook registers (tools that depend on the client's capabilities) is in the
      // client's first list. The core answers lists without JS: a legacy session's list requests
      // wait (at most INITIALIZED_WAIT_MS) until its `notifications/initialized` was handled.
      this.#owner.use(['initialize', ...LIST_METHODS], async (ctx, next) => {
        if (ctx.era !== 'legacy') return next();
        if (ctx.method === 'initialize') {
          // On stdio the client's next messages can be read while this answer is being made: the
          // gate is set before it. An HTTP session's id exists once answered, and its client
          // sends nothing before it has the answer.
          const stdio = ctx.sessionId === undefined && !(this.#owner[SESSIONLESS] || this[SESSIONLESS]);
          if (stdio && !this.#initialized.has('')) this.#initialized.set('', deferred());
          const r = await next();
          if (!stdio && ctx.sessionId !== undefined && !this.#initialized.has(ctx.sessionId)) this.#initialized.set(ctx.sessionId, deferred());
          return r;
        }
        const pending = this.#initialized.get(ctx.sessionId ?? '');
        if (pending) await Promise.race([pending.promise, new Promise((r) => setTimeout(r, INITIALIZED_WAIT_MS).unref())]);
        return next();
      });
    }
  }
  _closed() {
    this.#transport = undefined;
    try { this.onclose?.(); } catch {}
  }

  connect(transport) { return this.#owner.connect(transport); }
  close() { return this.#owner.close(); }

  registerCapabilities(capabilities) {
    this.#capabilities = mergeCapabilities(this.#capabilities, capabilities);
    this.#publish();
  }
  getCapabilities() { return this.#capabilities; }

  /**
   * From now on the core declares what the SDK 1.x declares: the capabilities the server was
   * given (and `registerCapabilities`), plus those McpServer's registrations add (`_registered`),
   * instead of what oxmcp would declare for the same registry. A method of an undeclared
   * capability is then unknown (-32601), as on the SDK.
   */
  _declareExactly() {
    this.#exact = true;
    this.#publish();
  }
  /** McpServer registered a kind of thing: the SDK registers its capability with the first one. */
  _registered(capabilities) {
    this.#auto = mergeCapabilities(this.#auto, capabilities);
    this.#publish();
  }
  /** Whether the server declares capability `k` (the SDK drops what needs an undeclared one). */
  _declares(k) { return !this.#exact || mergeCapabilities(this.#capabilities, this.#auto)[k] !== undefined; }
  #publish() {
    if (this.#exact) this.#owner.native.declareExactly(mergeCapabilities(this.#capabilities, this.#auto));
  }

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

  /** A legacy session's notification (core: server/initiated.rs). */
  #onSession(session, method, params) {
    const key = session.id ?? '';
    if (!session.isOpen()) {
      this.#sessions.delete(key);
      return;
    }
    this.#sessions.delete(key);
    this.#sessions.set(key, session);
    sessionScope.run(session, () => {
      try {
        if (method === 'notifications/initialized') {
          try {
            this.oninitialized?.();
          } finally {
            const pending = this.#initialized.get(key);
            if (pending) {
              this.#initialized.delete(key);
              pending.resolve();
            }
          }
        }
        if (method === 'resources/subscribe' || method === 'resources/unsubscribe') {
          // The core answered and recorded the subscription; the server's own handler hears of it.
          const rh = this.#requestHandlers.get(method);
          if (rh) Promise.resolve(rh({ method, params }, { sessionId: this.#owner[SESSIONLESS] || this[SESSIONLESS] ? undefined : session.id ?? undefined, signal: new AbortController().signal })).catch((e) => this.#reportError(e));
          return;
        }
        const h = this.#notificationHandlers.get(method);
        if (h) {
          Promise.resolve(h(params === undefined || params === null ? { method } : { method, params })).catch((e) => this.#reportError(e));
        }
      } catch (e) {
        this.#reportError(e);
      }
    });
  }

  #reportError(e) {
    try {
      if (this.onerror) this.onerror(e);
      else process.stderr.write(`oxmcp: a session notification handler failed: ${e && e.stack ? e.stack : e}\n`);
    } catch {}
  }

  /** Outside a call: the session being notified, else `sessionId`'s, else the newest open one. */
  #session(sessionId) {
    const scoped = sessionScope.getStore();
    if (scoped && (sessionId === undefined || scoped.id === sessionId)) return scoped;
    for (const [k, s] of this.#sessions) if (!s.isOpen()) this.#sessions.delete(k);
    if (sessionId !== undefined) return this.#sessions.get(sessionId);
    return [...this.#sessions.values()].pop();
  }

  getClientCapabilities() { return this.#ctx()?.clientCapabilities ?? this.#session()?.clientCapabilities; }
  getClientVersion() { return this.#ctx()?.clientInfo ?? this.#session()?.clientInfo ?? undefined; }

  async sendLoggingMessage(params, sessionId) {
    // The SDK sends log messages only when the server declares logging.
    if (!this._declares('logging')) return;
    const ctx = this.#ctx();
    if (ctx && ctx.era === 'legacy' && (ctx.sessionId !== undefined || this.#owner[SESSIONLESS] || this[SESSIONLESS])) {
      // On HTTP the SDK sends this notification unrelated to the running request: over the
      // session's standalone (GET) stream, and nowhere when there is none (a stateless transport,
      // a client that opened none). `extra.sendNotification` is the request's own stream.
      const s = ctx.sessionId === undefined ? undefined : this.#sessions.get(ctx.sessionId);
      if (s?.isOpen()) s.log(params.level, params.data === undefined ? null : params.data, params.logger);
      return undefined;
    }
    if (ctx) return ctx.log(params.level, params.data, params.logger);
    // Outside a request: that session, or every open legacy session (each filtered by its level).
    const targets = sessionId !== undefined ? [this.#session(sessionId)].filter(Boolean) : (sessionScope.getStore() ? [sessionScope.getStore()] : [...this.#sessions.values()]);
    for (const s of targets) {
      if (s.isOpen()) s.log(params.level, params.data === undefined ? null : params.data, params.logger);
    }
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

  /** The SDK's notifier of a URL-mode elicitation completed out of band: a function that sends
   * `notifications/elicitation/complete` to the client of the session (inside a handler, its
   * call's); nowhere when the call has none (2026-07-28), as the SDK drops it there. */
  createElicitationCompletionNotifier(elicitationId) {
    if (!this.getClientCapabilities()?.elicitation?.url) {
      throw new Error('Client does not support URL elicitation (required for notifications/elicitation/complete)');
    }
    const ctx = this.#ctx();
    const s = ctx ? ctx.session : this.#session();
    return async () => { if (s?.isOpen()) s.notify('notifications/elicitation/complete', { elicitationId }); };
  }

  async notification(n) {
    switch (n?.method) {
      case 'notifications/elicitation/complete': {
        const ctx = this.#ctx();
        const s = ctx ? ctx.session : this.#session();
        if (s?.isOpen()) s.notify(n.method, n.params ?? {});
        return undefined;
      }
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

  /** Inside a handler: through its ctx (MRTR in the modern era). Outside: to a legacy session. */
  async #ask(method, params) {
    const ctx = this.#ctx();
    if (ctx) {
      if (method === 'sampling/createMessage') return ctx.sample(params ?? {});
      if (method === 'elicitation/create') return ctx.elicit(params ?? {});
      if (method === 'roots/list') return ctx.roots();
      throw new McpError(ErrorCode.InvalidRequest, `request(${JSON.stringify(method)}) cannot be sent to the client from a handler`);
    }
    const s = this.#session();
    if (!s || !s.isOpen()) {
      throw new McpError(ErrorCode.InvalidRequest, `${method} outside a request needs an open legacy session; the modern era (2026-07-28) has none: ask inside a handler (see docs/COMPATIBILITY.md)`);
    }
    try {
      return await s.request(method, params ?? undefined);
    } catch (e) {
      throw fromNative(e);
    }
  }
  async createMessage(params) { return this.#ask('sampling/createMessage', params); }
  async elicitInput(params) { return this.#ask('elicitation/create', params); }
  async listRoots(params) { return this.#ask('roots/list', params); }
  async ping() { return this.#ctx() ? {} : this.#ask('ping'); }
  async request(req, resultSchema) {
    const out = await this.#ask(req?.method, req?.params);
    return resultSchema && typeof resultSchema.parse === 'function' ? resultSchema.parse(out) : out;
  }
}

module.exports = { LowLevelFacade, methodOf, CORE_METHODS, ACCEPTED_METHODS };
