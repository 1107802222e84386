'use strict';

/**
 * The SDK's `AuthInfo` of a caller the core verified: the token's client (`client_id`), expiry
 * (`exp`) and resource (`aud`) come from the caller's claims (a token verifier's grant keeps them there).
 * @param {{ name: string, scopes?: string[], claims?: Record<string, unknown> }} c
 */
function authInfoOf(c) {
  const claims = c.claims ?? undefined;
  /** @type {Record<string, unknown>} */
  const info = { token: '', clientId: c.name, scopes: c.scopes ?? [], extra: claims ? { claims } : {} };
  if (claims && typeof claims.client_id === 'string') info.clientId = claims.client_id;
  if (claims && typeof claims.aud === 'string') {
    try { info.resource = new URL(claims.aud); } catch {}
  }
  if (claims && typeof claims.exp === 'number') info.expiresAt = claims.exp;
  return info;
}
/**
 * The TS SDK's `extra` argument (`RequestHandlerExtra`) over an oxmcp `ctx`: what SDK-shaped
 * handlers read (`signal`, `requestId`, `sessionId`, `authInfo`, `_meta`) and the two calls they
 * make (`sendNotification`, `sendRequest`), mapped onto the core's per-call context. The `ctx`
 * itself stays reachable as `extra.ctx` for oxmcp's own calls (`ctx.elicit`, `ctx.inputs`, ...).
 */
const { McpError, ErrorCode } = require('../errors.cjs');
const { SESSIONLESS } = require('../server.cjs');

class RequestHandlerExtra {
  #ctx;
  #sessionId;

  /**
   * @param {import('../context.cjs').Context} ctx
   * @param {string | undefined} sessionId
   */
  #method;
  #sessionless;
  #passedAuth;

  /**
   * @param {unknown} [passedAuth] the `authInfo` the server instance was built for by
   *   createMcpHandler's `fetch(request, { authInfo })`, shown when the core authenticated no caller
   */
  constructor(ctx, sessionId, method, sessionless = false, passedAuth = undefined) {
    this.#ctx = ctx;
    this.#sessionId = sessionId;
    this.#method = method;
    this.#sessionless = sessionless;
    this.#passedAuth = passedAuth;
  }

  /** The oxmcp context of this call. */
  get ctx() { return this.#ctx; }

  // oxmcp's own `ctx` API, so a handler written for oxmcp's Server keeps working under McpServer.
  get protocolVersion() { return this.#ctx.protocolVersion; }
  get era() { return this.#ctx.era; }
  get clientInfo() { return this.#ctx.clientInfo; }
  get clientCapabilities() { return this.#ctx.clientCapabilities; }
  get caller() { return this.#ctx.caller; }
  get meta() { return this.#ctx.meta; }
  get traceparent() { return this.#ctx.traceparent; }
  get requestState() { return this.#ctx.requestState; }
  set requestState(v) { this.#ctx.requestState = v; }
  supports(capability) { return this.#ctx.supports(capability); }
  progress(...a) { return this.#ctx.progress(...a); }
  log(...a) { return this.#ctx.log(...a); }
  elicit(...a) { return this.#ctx.elicit(...a); }
  sample(...a) { return this.#ctx.sample(...a); }
  roots(...a) { return this.#ctx.roots(...a); }
  inputs(...a) { return this.#ctx.inputs(...a); }
  get signal() { return this.#ctx.signal; }
  get requestId() { return this.#ctx.requestId; }
  /**
   * The legacy HTTP session's id (`Mcp-Session-Id`), as the SDK gives its transport's: undefined
   * on stdio, in stateless serving and on modern (2026-07-28) requests, which have no session.
   */
  get sessionId() { return this.#sessionless ? undefined : this.#sessionId ?? this.#ctx.sessionId; }
  get _meta() { return this.#ctx.meta; }
  /** `{ token, clientId, scopes, extra }` as the SDK's bearer-auth middleware fills it, or undefined. */
  get authInfo() {
    const c = this.#ctx.caller;
    if (!c) return this.#passedAuth;
    return authInfoOf(c);
  }
  /** Request information (headers) is not exposed to handlers by oxmcp. */
  get requestInfo() { return undefined; }

  /** v2's `ctx.mcpReq`: the request (`id`, `method`, `_meta`, `signal`) and what a handler sends. */
  get mcpReq() {
    const ctx = this.#ctx;
    const self = this;
    return {
      get id() { return ctx.requestId; },
      method: this.#method,
      get _meta() { return ctx.meta; },
      get signal() { return ctx.signal; },
      requestState: () => ctx.requestState,
      send: (request, schemaOrOptions) => self.sendRequest(request, schemaOrOptions),
      notify: (n) => self.sendNotification(n),
      log: (level, data, logger) => ctx.log(level, data, logger),
      elicitInput: (params) => ctx.elicit(params),
      requestSampling: (params) => ctx.sample(params),
    };
  }
  /** v2's `ctx.http` (`authInfo`), on HTTP only. */
  get http() {
    const authInfo = this.authInfo;
    return authInfo ? { authInfo } : undefined;
  }

  /**
   * `notifications/progress` and `notifications/message` tied to this request (the core adds the
   * request's progressToken and applies the log level).
   */
  async sendNotification(notification) {
    const { method, params = {} } = notification ?? {};
    switch (method) {
      case 'notifications/progress':
        return this.#ctx.progress(params.progress, params.total, params.message);
      case 'notifications/message':
        return this.#ctx.log(params.level, params.data, params.logger);
      default:
        throw new McpError(ErrorCode.InvalidRequest, `sendNotification: oxmcp sends ${JSON.stringify(method)} itself or not at all inside a request; see docs/COMPATIBILITY.md`);
    }
  }

  /**
   * `elicitation/create`, `sampling/createMessage` and `roots/list` to the client. In a legacy
   * session this is a real request; in the modern era the call ends with `input_required` and the
   * handler runs again with the answer (MRTR), so code before it must be safe to re-run.
   * `resultSchema` (a zod schema) parses the answer when given.
   */
  async sendRequest(request, resultSchema) {
    const { method, params } = request ?? {};
    let out;
    switch (method) {
      case 'elicitation/create': out = await this.#ctx.elicit(params ?? {}); break;
      case 'sampling/createMessage': out = await this.#ctx.sample(params ?? {}); break;
      case 'roots/list': out = await this.#ctx.roots(); break;
      default:
        throw new McpError(ErrorCode.InvalidRequest, `sendRequest: ${JSON.stringify(method)} cannot be sent to the client from a handler`);
    }
    return resultSchema && typeof resultSchema.parse === 'function' ? resultSchema.parse(out) : out;
  }
}

module.exports = { RequestHandlerExtra, SESSIONLESS };
