'use strict';
/**
 * The TS SDK's transports as oxmcp spells them. oxmcp's core frames and serves the wire itself,
 * so a transport here is the wiring between `server.connect(transport)` and the core:
 * `StdioServerTransport` starts the core's stdio loop; `StreamableHTTPServerTransport` hands each
 * `handleRequest(req, res, parsedBody)` to the core's HTTP handler.
 */
const http = require('../http.cjs');
const { SESSIONLESS } = require('./extra.cjs');

/** On an app from `createMcpExpressApp` (server-express.cjs): the Host rule the SDK's app would apply. */
const EXPRESS_HOSTS = Symbol('oxmcp.expressHosts');

/** The server let go of transport `t`: its `onclose` runs, once. */
function detached(t) {
  const cb = t.onclose;
  t.onclose = undefined;
  try { cb?.(); } catch {}
}

/** When `done` (what serves `t`) settles, `t` is detached; a failure goes to its `onerror` first. */
function detachWhen(t, done) {
  return done.then(
    () => t._oxmcpDetached(),
    (e) => {
      try { t.onerror?.(e); } catch {}
      t._oxmcpDetached();
    },
  );
}

class StdioServerTransport {
  #server;
  #done;

  /** `stdin`/`stdout` other than the process's are not supported: the core owns fds 0 and 1. */
  constructor(stdin, stdout) {
    if ((stdin && stdin !== process.stdin) || (stdout && stdout !== process.stdout)) {
      throw new TypeError('StdioServerTransport: oxmcp serves the process stdin/stdout only (custom streams are not supported)');
    }
    this.onclose = undefined;
    this.onerror = undefined;
    this.onmessage = undefined;
    this.sessionId = undefined;
  }

  async start() {}

  async _oxmcpAttach(server) {
    if (this.#server) throw new Error('StdioServerTransport already started');
    this.#server = server;
    this.#done = detachWhen(this, server.serveStdio());
  }

  _oxmcpDetached() {
    detached(this);
  }

  async close() {
    if (this.#server) await this.#server.close();
    await this.#done;
  }

  async send() {
    throw new Error('StdioServerTransport.send: oxmcp writes the wire itself');
  }
}

/**
 * The core mount options an SDK HTTP transport's own options ask for: an endpoint that keeps no
 * sessions (the core decides, and refuses a sessionless legacy request where it keeps them), and
 * the Host/Origin rule.
 */
function mountOptions(opts, stateless) {
  const mount = stateless ? { sessionless: true } : {};
  if (Array.isArray(opts.allowedHosts)) mount.allowedHosts = opts.allowedHosts;
  if (Array.isArray(opts.allowedOrigins)) mount.allowedOrigins = opts.allowedOrigins;
  return mount;
}

/**
 * After an answer on a stateful transport: `onsessioninitialized` for the session the core made
 * (once), and `onsessionclosed` for the one a successful DELETE ended, then the detach.
 */
function sessionEvents(transport, opts, madeId, endedId) {
  if (madeId && transport.sessionId === undefined) {
    transport.sessionId = madeId;
    opts.onsessioninitialized?.(madeId);
  }
  if (endedId) {
    opts.onsessionclosed?.(endedId);
    queueMicrotask(() => transport._oxmcpDetached());
  }
}

/**
 * `new StreamableHTTPServerTransport({ sessionIdGenerator, enableJsonResponse, onsessioninitialized, onsessionclosed })`.
 * `sessionIdGenerator: undefined` is stateless serving (no `Mcp-Session-Id` either way); with a
 * generator the core makes the session ids (random, 128 bits) and `onsessioninitialized` gets them.
 */
class StreamableHTTPServerTransport {
  #server;
  #opts;
  #stateless;
  #appHosts;

  constructor(options = {}) {
    this.#opts = options ?? {};
    this.#stateless = typeof this.#opts.sessionIdGenerator !== 'function';
    this.sessionId = undefined;
    this.onclose = undefined;
    this.onerror = undefined;
    this.onmessage = undefined;
  }

  async start() {}

  async _oxmcpAttach(server) {
    if (this.#server) throw new Error('Transport already started');
    this.#server = server;
    if (this.#stateless) server[SESSIONLESS] = true;
    const mount = this.#mount();
    if (Object.keys(mount).length) server.configureHttp(mount);
  }

  /** The mount options this transport was given (they win over an Express app's). */
  #mount() {
    return mountOptions(this.#opts, this.#stateless);
  }

  /** A request of a `createMcpExpressApp` app: the core's mount takes that app's Host rule. */
  #useAppHosts(req) {
    const hosts = req.app?.[EXPRESS_HOSTS];
    if (hosts === undefined || hosts === this.#appHosts) return;
    this.#appHosts = hosts;
    const own = this.#mount();
    const mount = own.allowedHosts ? { ...own } : { ...hosts, ...own };
    this.#server.configureHttp(mount);
  }

  _oxmcpDetached() {
    detached(this);
  }

  /**
   * Serve one request: `(req, res)` from node:http or Express; `parsedBody` when a body parser
   * already read it (`req.body`).
   */
  async handleRequest(req, res, parsedBody) {
    if (!this.#server) throw new Error('handleRequest before server.connect(transport)');
    this.#useAppHosts(req);
    const isDelete = req.method === 'DELETE';
    const sid = req.headers?.['mcp-session-id'];
    try {
      await http.handleNode(this.#server.native, req, res, {
        parsedBody,
        stateless: this.#stateless,
        onResponse: (headers, status) => {
          if (this.#stateless) return;
          const h = headers.find(([k]) => k.toLowerCase() === 'mcp-session-id');
          sessionEvents(this, this.#opts, h?.[1], isDelete && status < 300 ? sid : undefined);
        },
      });
    } catch (err) {
      try { this.onerror?.(err); } catch {}
      if (!res.headersSent) {
        res.statusCode = err.statusCode ?? 500;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null }));
      } else {
        res.destroy(err);
      }
    }
  }

  async close() {
    this._oxmcpDetached();
  }

  async send() {
    throw new Error('StreamableHTTPServerTransport.send: oxmcp writes the wire itself');
  }
}

/**
 * `new WebStandardStreamableHTTPServerTransport(options)` (the SDK's Web-standard transport, for
 * Hono, Deno, Bun, Workers): `handleRequest(request)` answers a WHATWG `Response`. The options are
 * StreamableHTTPServerTransport's.
 */
class WebStandardStreamableHTTPServerTransport {
  #server;
  #opts;
  #stateless;

  constructor(options = {}) {
    this.#opts = options ?? {};
    this.#stateless = typeof this.#opts.sessionIdGenerator !== 'function';
    this.sessionId = undefined;
    this.onclose = undefined;
    this.onerror = undefined;
    this.onmessage = undefined;
  }

  async start() {}

  async _oxmcpAttach(server) {
    if (this.#server) throw new Error('Transport already started');
    this.#server = server;
    if (this.#stateless) server[SESSIONLESS] = true;
    const mount = mountOptions(this.#opts, this.#stateless);
    if (Object.keys(mount).length) server.configureHttp(mount);
  }

  _oxmcpDetached() {
    detached(this);
  }

  /** `handleRequest(request, { parsedBody })` -> `Response`. */
  async handleRequest(request, options = {}) {
    if (!this.#server) throw new Error('handleRequest before server.connect(transport)');
    // The SDK hands `authInfo` (verified by the app's own middleware) to the handlers; this
    // transport cannot, and a handler that decides on it must not run without it. The core's
    // authentication (docs/SECURITY.md) names the caller instead.
    if (options?.authInfo !== undefined) {
      throw new TypeError('WebStandardStreamableHTTPServerTransport.handleRequest: authInfo is not supported on oxmcp (configure the core\'s authentication, docs/SECURITY.md)');
    }
    const sid = request.headers.get('mcp-session-id');
    const response = await http.fetchHandler(this.#server.native, request, { parsedBody: options?.parsedBody, stateless: this.#stateless });
    if (!this.#stateless) {
      const ended = request.method === 'DELETE' && response.status < 300 ? sid : undefined;
      sessionEvents(this, this.#opts, response.headers.get('mcp-session-id'), ended);
    }
    return response;
  }

  async close() {
    this._oxmcpDetached();
  }

  async send() {
    throw new Error('WebStandardStreamableHTTPServerTransport.send: oxmcp writes the wire itself');
  }
}

module.exports = { StdioServerTransport, StreamableHTTPServerTransport, WebStandardStreamableHTTPServerTransport, EXPRESS_HOSTS, detached, detachWhen };
