'use strict';
/**
 * The `ctx` every handler receives: a thin view over the core's `Context` of
 * one call, addressed by the call's id through the server's `NativeCalls` (no
 * native object per call: bindings-node/src/calls.rs says why). Getters cross
 * into Rust only when read, and the AbortSignal is built only when a handler
 * asks for it.
 */
const { fromNative } = require('./errors.cjs');

const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** The calls of one server: its `NativeCalls`, and the controllers of the `ctx.signal`s in use. */
class Calls {
  /** @param {any} nativeServer NativeServer */
  constructor(nativeServer) {
    /** @type {Map<number, AbortController>} */
    this.signals = new Map();
    this.native = nativeServer.calls((id, reason) => {
      const controller = this.signals.get(id);
      if (controller === undefined) return;
      this.signals.delete(id);
      abort(controller, reason);
    });
  }

  /**
   * The answer of call `id` whose handler returned a Promise (`wire`d; null: it failed). The
   * answers settled in one turn cross napi together (`settleMany`, after the microtasks queued
   * so far): one native call and one wakeup of the runtime for all of them.
   */
  settle(id, answer) {
    if (this.#ids.length === 0) queueMicrotask(this.#flush);
    this.#ids.push(id);
    this.#answers.push(answer);
  }

  #ids = [];
  #answers = [];
  #flush = () => {
    const ids = this.#ids;
    const answers = this.#answers;
    this.#ids = [];
    this.#answers = [];
    try {
      this.native.settleMany(ids, answers);
    } catch {
      // One answer napi could not read: each on its own, that one as a failure.
      for (let i = 0; i < ids.length; i++) {
        try {
          this.native.settle(ids[i], answers[i]);
        } catch {
          try { this.native.settle(ids[i], null); } catch {}
        }
      }
    }
  };

  /** An AbortController that aborts when call `id` is cancelled or times out. */
  controller(id) {
    const controller = new AbortController();
    const ended = this.native.watch(id);
    if (ended === null) this.signals.set(id, controller);
    else queueMicrotask(() => abort(controller, ended));
    return controller;
  }
}

function abort(controller, reason) {
  if (reason && reason !== 'finished') {
    controller.abort(new DOMException(`request ${reason}`, reason === 'timed out' ? 'TimeoutError' : 'AbortError'));
  }
}

class Context {
  #calls;
  #id;
  #controller;
  #counters;

  /**
   * @param {Calls} calls the calls of the server serving this one
   * @param {number} id the call's id
   */
  constructor(calls, id) {
    this.#calls = calls;
    this.#id = id;
  }

  /** The JSON-RPC id of the request being served. */
  get requestId() { return this.#calls.native.requestId(this.#id); }
  /** The protocol version of this request (e.g. "2026-07-28", or the legacy session's). */
  get protocolVersion() { return this.#calls.native.protocolVersion(this.#id); }
  /** "modern" (per-request `_meta`) or "legacy" (an `initialize` session). */
  get era() { return this.#calls.native.era(this.#id); }
  /** The legacy HTTP session's id (`Mcp-Session-Id`); undefined on stdio and on modern (2026-07-28) requests, which have no session. */
  get sessionId() { return this.#calls.native.sessionId(this.#id) ?? undefined; }
  /**
   * The legacy session this request belongs to, which outlives it (`ping()`, `request()`,
   * `notify()`, `closed()`); undefined on modern (2026-07-28) and stateless HTTP requests, which
   * have no back-channel for server-to-client requests.
   */
  get session() { return this.#calls.native.session(this.#id) ?? undefined; }
  /** The client's self-reported `{name, version}` (do not trust it for security decisions). */
  get clientInfo() { return this.#calls.native.clientInfo(this.#id) ?? undefined; }
  /** The client capabilities declared for this request (`{}` when none). */
  get clientCapabilities() { return this.#calls.native.clientCapabilities(this.#id) ?? {}; }
  /** The authenticated caller, when the transport knows one. */
  get caller() { return this.#calls.native.caller(this.#id) ?? undefined; }
  /** The request's `_meta` object. */
  get meta() { return this.#calls.native.meta(this.#id) ?? {}; }
  /** W3C traceparent from `_meta`, if any. */
  get traceparent() { return this.#calls.native.traceparent(this.#id) ?? undefined; }

  /**
   * Fires when the request is cancelled (client disconnect on HTTP,
   * `notifications/cancelled` on stdio), when the server closes, or when the
   * handler's timeout expires.
   */
  get signal() {
    return (this.#controller ??= this.#calls.controller(this.#id)).signal;
  }

  /** Whether the client declared a capability on this request: "elicitation" | "sampling" | "roots" | "elicitation.url". */
  supports(capability) { return this.#calls.native.supports(this.#id, capability); }

  /**
   * Send `notifications/progress` (a no-op when the request carried no progressToken).
   * @param {number | { progress: number, total?: number, message?: string }} progress
   * @param {number} [total]
   * @param {string} [message]
   */
  async progress(progress, total, message) {
    if (typeof progress === 'object' && progress !== null) ({ progress, total, message } = progress);
    await this.#calls.native.progress(this.#id, Number(progress), total === undefined ? undefined : Number(total), message);
  }

  /**
   * Send `notifications/message` (filtered by the request's / session's log level).
   * @param {'debug'|'info'|'notice'|'warning'|'error'|'critical'|'alert'|'emergency'} level
   * @param {unknown} data
   * @param {string} [logger]
   */
  async log(level, data, logger) {
    if (!LOG_LEVELS.includes(level)) throw new TypeError(`unknown log level ${JSON.stringify(level)}; expected one of ${LOG_LEVELS.join(', ')}`);
    await this.#calls.native.log(this.#id, level, data === undefined ? null : data, logger);
  }

  /**
   * Ask the user for input (`elicitation/create`). On a modern request this
   * ends the call with `input_required` and re-runs the handler with the
   * answer; on a legacy session it sends a real request and awaits it.
   * `ctx.elicit(params)` or `ctx.elicit(key, params)`; keys must be stable
   * across rounds (the default numbers the calls: "elicit-1", "elicit-2", ...).
   */
  async elicit(keyOrParams, params) {
    const [key, p] = this.#keyed('elicit', keyOrParams, params);
    return this.#asWritten(key, await this.#call(() => this.#calls.native.elicit(this.#id, key, p)));
  }

  /** Ask the client's model for a completion (`sampling/createMessage`). Same keying as elicit. */
  async sample(keyOrParams, params) {
    const [key, p] = this.#keyed('sample', keyOrParams, params);
    return this.#asWritten(key, await this.#call(() => this.#calls.native.sample(this.#id, key, p)));
  }

  /** Ask the client for its roots (`roots/list`): resolves to `{ roots: [...] }`. */
  async roots(key) {
    const k = typeof key === 'string' ? key : `roots-${++this.#count().roots}`;
    return this.#call(() => this.#calls.native.listRoots(this.#id, k));
  }

  /**
   * Ask several inputs in one round: `{ key: { method: "elicitation/create" | "sampling/createMessage" | "roots/list", params } }`.
   * Resolves to an object with the same keys.
   */
  async inputs(requests) {
    const keys = Object.keys(requests);
    const values = await this.#call(() => this.#calls.native.inputs(this.#id, keys.map((k) => ({ key: k, ...requests[k] }))));
    return Object.fromEntries(keys.map((k, i) => [k, this.#asWritten(k, values[i])]));
  }

  /** The answer to input `key` as the client wrote it, where a legacy transport kept its text:
   * the core's parsed objects have their keys sorted, a JS object keeps the client's order. */
  #asWritten(key, value) {
    const text = this.#calls.native.answerText(this.#id, key);
    return text == null ? value : JSON.parse(text);
  }

  /** Handler-defined state carried (sealed by the core) across MRTR rounds. */
  get requestState() { return this.#calls.native.requestState(this.#id) ?? undefined; }
  set requestState(value) { this.#calls.native.setRequestState(this.#id, value); }

  #keyed(kind, keyOrParams, params) {
    if (typeof keyOrParams === 'string') return [keyOrParams, params ?? {}];
    return [`${kind}-${++this.#count()[kind]}`, keyOrParams ?? {}];
  }

  #count() {
    return (this.#counters ??= { elicit: 0, sample: 0, roots: 0 });
  }

  async #call(f) {
    try {
      return await f();
    } catch (e) {
      throw fromNative(e);
    }
  }
}

/**
 * The request as a middleware sees it: the call's `ctx` (era, caller, requestId, clientInfo,
 * meta, sessionId, signal, log, progress, ...) plus `method` and `params` (which `next()` passes
 * on: change them in place, or give `next(params)`), and `result` once `next()` has answered.
 */
class MiddlewareContext extends Context {
  constructor(calls, id, method, params) {
    super(calls, id);
    /** The JSON-RPC method, e.g. "tools/call". */
    this.method = method;
    /** The request's params (`name`, `arguments`, `uri`, `_meta`, ...). */
    this.params = params;
    /** What the rest of the chain answered (set by `next()`). */
    this.result = undefined;
  }
  /** `params.name` of a tools/call or prompts/get. */
  get name() { return this.params?.name; }
  /** `params.arguments` of a tools/call or prompts/get. */
  get arguments() { return this.params?.arguments; }
  /** `params.uri` of a resources/read. */
  get uri() { return this.params?.uri; }
}

module.exports = { Context, Calls, LOG_LEVELS, MiddlewareContext };
