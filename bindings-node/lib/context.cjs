'use strict';
/**
 * The `ctx` every handler receives: a thin, lazy view over the core's
 * `Context`. The native context is fetched only when a handler first reads
 * `ctx` (most handlers never do), getters cross into Rust only when read, and
 * the AbortSignal is built only when a handler asks for it.
 */
const { fromNative } = require('./errors.cjs');

const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

class Context {
  #server;
  #id;
  #native;
  #controller;
  #counters;

  /**
   * @param {any} source the NativeServer serving call `id` (or, without `id`, a NativeContext)
   * @param {number} [id] the call's id in the server's table of calls
   */
  constructor(source, id) {
    if (id === undefined) this.#native = source;
    else {
      this.#server = source;
      this.#id = id;
    }
  }

  /** The NativeContext, fetched on first use. */
  #n() {
    return (this.#native ??= this.#server.callContext(this.#id));
  }

  /** The JSON-RPC id of the request being served. */
  get requestId() { return this.#n().requestId(); }
  /** The protocol version of this request (e.g. "2026-07-28", or the legacy session's). */
  get protocolVersion() { return this.#n().protocolVersion(); }
  /** "modern" (per-request `_meta`) or "legacy" (an `initialize` session). */
  get era() { return this.#n().era(); }
  /** The client's self-reported `{name, version}` (do not trust it for security decisions). */
  get clientInfo() { return this.#n().clientInfo() ?? undefined; }
  /** The client capabilities declared for this request (`{}` when none). */
  get clientCapabilities() { return this.#n().clientCapabilities() ?? {}; }
  /** The authenticated caller, when the transport knows one. */
  get caller() { return this.#n().caller() ?? undefined; }
  /** The request's `_meta` object. */
  get meta() { return this.#n().meta() ?? {}; }
  /** W3C traceparent from `_meta`, if any. */
  get traceparent() { return this.#n().traceparent() ?? undefined; }

  /**
   * Fires when the request is cancelled (client disconnect on HTTP,
   * `notifications/cancelled` on stdio), when the server closes, or when the
   * handler's timeout expires.
   */
  get signal() {
    if (!this.#controller) {
      const controller = new AbortController();
      this.#controller = controller;
      this.#n().cancelled().then(
        (reason) => {
          if (reason) controller.abort(new DOMException(`request ${reason}`, reason === 'timed out' ? 'TimeoutError' : 'AbortError'));
        },
        () => {},
      );
    }
    return this.#controller.signal;
  }

  /** Whether the client declared a capability on this request: "elicitation" | "sampling" | "roots" | "elicitation.url". */
  supports(capability) { return this.#n().supports(capability); }

  /**
   * Send `notifications/progress` (a no-op when the request carried no progressToken).
   * @param {number} progress
   * @param {number} [total]
   * @param {string} [message]
   */
  async progress(progress, total, message) {
    if (typeof progress === 'object' && progress !== null) ({ progress, total, message } = progress);
    await this.#n().progress(Number(progress), total === undefined ? undefined : Number(total), message);
  }

  /**
   * Send `notifications/message` (filtered by the request's / session's log level).
   * @param {'debug'|'info'|'notice'|'warning'|'error'|'critical'|'alert'|'emergency'} level
   * @param {unknown} data
   * @param {string} [logger]
   */
  async log(level, data, logger) {
    if (!LOG_LEVELS.includes(level)) throw new TypeError(`unknown log level ${JSON.stringify(level)}; expected one of ${LOG_LEVELS.join(', ')}`);
    await this.#n().log(level, data === undefined ? null : data, logger);
  }

  /**
   * Ask the user for input (`elicitation/create`). On a modern request this
   * ends the call with `input_required` and re-runs the handler with the
   * answer; on a legacy session it sends a real request and awaits it.
   * `ctx.elicit(params)` or `ctx.elicit(key, params)`; keys must be stable
   * across rounds (the default numbers the calls: "elicit-1", "elicit-2", …).
   */
  async elicit(keyOrParams, params) {
    const [key, p] = this.#keyed('elicit', keyOrParams, params);
    return this.#call(() => this.#n().elicit(key, p));
  }

  /** Ask the client's model for a completion (`sampling/createMessage`). Same keying as elicit. */
  async sample(keyOrParams, params) {
    const [key, p] = this.#keyed('sample', keyOrParams, params);
    return this.#call(() => this.#n().sample(key, p));
  }

  /** Ask the client for its roots (`roots/list`): resolves to `{ roots: [...] }`. */
  async roots(key) {
    const k = typeof key === 'string' ? key : `roots-${++this.#count().roots}`;
    return this.#call(() => this.#n().listRoots(k));
  }

  /**
   * Ask several inputs in one round: `{ key: { method: "elicitation/create" | "sampling/createMessage" | "roots/list", params } }`.
   * Resolves to an object with the same keys.
   */
  async inputs(requests) {
    const keys = Object.keys(requests);
    const values = await this.#call(() => this.#n().inputs(keys.map((k) => ({ key: k, ...requests[k] }))));
    return Object.fromEntries(keys.map((k, i) => [k, values[i]]));
  }

  /** Handler-defined state carried (sealed by the core) across MRTR rounds. */
  get requestState() { return this.#n().requestState() ?? undefined; }
  set requestState(value) { this.#n().setRequestState(value); }

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

module.exports = { Context, LOG_LEVELS };
