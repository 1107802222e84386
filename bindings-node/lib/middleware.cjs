'use strict';
/**
 * `server.use(...)`: JS middleware on the core's interceptor chain (core/src/server/middleware.rs)
 * through the native hook (`NativeServer.addMiddleware` / `NativeCalls.callNext`).
 *
 *     server.use(async (ctx, next) => { const r = await next(); ...; return r; });   // every request
 *     server.use('tools/call', fn);  server.use(['tools/list', 'tools/call'], fn);  // only these
 *     server.use({ onCallTool: async (ctx, next) => ..., onListTools: ... });         // FastMCP-shaped hooks
 *
 * Each `use` is one link of the core's chain, hooked only on its methods: a request that no
 * middleware hooks never calls into JS (the core skips it before any threadsafe call). The
 * hooks object follows the Python `Middleware` class (`oxmcp.server.middleware`): `onCallTool` ->
 * `tools/call`, ...; `onRequest` / `onMessage` see every request.
 */
const { MiddlewareContext } = require('./context.cjs');
const { fromNative } = require('./errors.cjs');

/** Hook name -> method (the Python Middleware's `on_*` hooks, camelCased). */
const HOOKS = Object.freeze({
  onInitialize: 'initialize',
  onCallTool: 'tools/call',
  onListTools: 'tools/list',
  onReadResource: 'resources/read',
  onListResources: 'resources/list',
  onListResourceTemplates: 'resources/templates/list',
  onGetPrompt: 'prompts/get',
  onListPrompts: 'prompts/list',
});
const EVERY = ['onMessage', 'onRequest'];

/**
 * Normalise `use`'s arguments to `{ fn(ctx, next), methods: string[] | undefined }`.
 * @returns {{ fn: (ctx: MiddlewareContext, next: Function) => unknown, methods: string[] | undefined }}
 */
function parseUse(a, b) {
  if (typeof a === 'function' && b === undefined) return { fn: a, methods: undefined };
  if ((typeof a === 'string' || Array.isArray(a)) && typeof b === 'function') {
    const methods = typeof a === 'string' ? [a] : [...a];
    if (!methods.length || methods.some((m) => typeof m !== 'string' || !m)) {
      throw new TypeError('use(methods, fn): methods must be a method name or a non-empty array of them');
    }
    return { fn: b, methods };
  }
  if (a && typeof a === 'object' && b === undefined) return fromHooks(a);
  throw new TypeError('use(fn), use(method | methods, fn) or use({ onCallTool, onListTools, ... })');
}

/** A hooks object -> one middleware that runs the hook for the request's method (then onRequest, onMessage). */
function fromHooks(obj) {
  const has = (k) => typeof obj[k] === 'function';
  const known = new Set([...Object.keys(HOOKS), ...EVERY]);
  const own = new Set();
  for (let o = obj; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    for (const k of Object.getOwnPropertyNames(o)) if (/^on[A-Z]/.test(k) && typeof obj[k] === 'function') own.add(k);
  }
  const unknown = [...own].filter((k) => !known.has(k));
  if (unknown.length) {
    throw new TypeError(`use({...}): unknown hook ${unknown.join(', ')}; known: ${[...known].join(', ')}`);
  }
  const every = EVERY.some(has);
  const methods = every ? undefined : Object.entries(HOOKS).filter(([k]) => has(k)).map(([, m]) => m);
  if (methods && !methods.length) throw new TypeError('use({...}): the object has no hook (onCallTool, onListTools, ..., onRequest)');
  const byMethod = Object.fromEntries(Object.entries(HOOKS).map(([k, m]) => [m, k]));
  const fn = (ctx, next) => {
    let handler = next;
    const hook = byMethod[ctx.method];
    for (const k of [hook, 'onRequest', 'onMessage']) {
      if (k && has(k)) {
        const inner = handler;
        handler = () => obj[k](ctx, inner);
      }
    }
    return handler();
  };
  return { fn, methods };
}

/**
 * Add one middleware to `native`'s chain.
 * @param {any} native NativeServer
 * @param {import('./context.cjs').Calls} calls
 * @param {{ fn: Function, methods: string[] | undefined }} mw
 * @param {(err: unknown, method: string) => object} failure the server's rule for a throw (an envelope)
 */
function install(native, calls, mw, failure) {
  const settle = (id, envelope) => {
    try {
      calls.native.settle(id, envelope);
    } catch {
      try { calls.native.settle(id, null); } catch {}
    }
  };
  native.addMiddleware((method, params, id) => {
    // The request ended while it waited for the JS thread: nothing waits for it.
    if (!calls.native.claim(id)) return undefined;
    const ctx = new MiddlewareContext(calls, id, method, params ?? {});
    const next = async (p) => {
      if (p !== undefined) ctx.params = p;
      try {
        ctx.result = await calls.native.callNext(id, ctx.params ?? {});
      } catch (e) {
        // The rest of the chain's JSON-RPC error as a McpError: rethrown, it stays that error.
        throw fromNative(e);
      }
      return ctx.result;
    };
    let out;
    try {
      out = Promise.resolve(mw.fn(ctx, next));
    } catch (e) {
      return failure(e, method);
    }
    out.then(
      (v) => settle(id, answer(v === undefined ? ctx.result : v, method, failure)),
      (e) => settle(id, failure(e, method)),
    );
    return undefined;
  }, mw.methods);
}

/**
 * The middleware's answer as JSON text: the core checks it (a value that is not an object is its
 * -32603 "a middleware returned a result that is not an object", the same in every language).
 */
function answer(v, method, failure) {
  try {
    return JSON.stringify(v ?? null);
  } catch (e) {
    return failure(e, method);
  }
}

module.exports = { install, parseUse, MiddlewareContext, HOOKS };
