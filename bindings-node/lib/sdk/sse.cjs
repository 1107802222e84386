'use strict';
/**
 * `oxmcp/server/sse.js`: the TS SDK v1 `SSEServerTransport` (the 2024-11-05 HTTP+SSE transport),
 * over the core's HTTP+SSE framing. The host routes: its `GET` handler makes a transport with
 * the response and connects it, its `POST` handler finds the transport by `sessionId` and calls
 * `handlePostMessage`. The core admits both (Host/Origin, auth, limits), keeps the session and
 * writes the stream; the stream's id comes from the core (128 random bits).
 */
const http = require('../http.cjs');
const { loadNative } = require('../native.cjs');
const { fromNative } = require('../errors.cjs');
const { detached, detachWhen } = require('./transports.cjs');

function head(req, method) {
  return {
    method,
    path: req?.originalUrl ?? req?.url ?? '/',
    headers: req ? http.rawHeaderPairs(req) : [],
    body: /** @type {Buffer} */ (Buffer.alloc(0)),
    peer: req?.socket?.remoteAddress,
  };
}

class SSEServerTransport {
  #server;
  #endpoint;
  #sessionId;
  #exchange;
  #hosts;

  /**
   * `endpoint`: where the client POSTs (relative URL); `res`: the `GET`'s response. The SDK's
   * `allowedHosts`/`allowedOrigins` options become the core's Host/Origin rule for this server
   * (as `StreamableHTTPServerTransport`'s do); without them the core's rule applies as configured
   * with `configureHttp`, loopback-only by default.
   * @param {string} endpoint
   * @param {any} res
   * @param {{ allowedHosts?: string[], allowedOrigins?: string[], enableDnsRebindingProtection?: boolean }} [options]
   */
  constructor(endpoint, res, options = undefined) {
    this.#endpoint = endpoint;
    this.#hosts = {};
    if (Array.isArray(options?.allowedHosts)) this.#hosts.allowedHosts = options.allowedHosts;
    if (Array.isArray(options?.allowedOrigins)) this.#hosts.allowedOrigins = options.allowedOrigins;
    this.res = res;
    this.#sessionId = loadNative().NativeServer.sseSessionId();
    this.onclose = undefined;
    this.onerror = undefined;
    this.onmessage = undefined;
  }

  get sessionId() { return this.#sessionId; }

  /** `server.connect(transport)` opens the stream; the stream is the core's, so this does nothing. */
  async start() {}

  async _oxmcpAttach(server) {
    if (this.#server) throw new Error('SSEServerTransport already started! If using Server class, note that connect() calls start() automatically.');
    this.#server = server;
    if (Object.keys(this.#hosts).length) server.configureHttp(this.#hosts);
    // The endpoint event, as the SDK writes it: the URL relative to the origin, naming the session.
    const url = new URL(this.#endpoint, 'http://localhost');
    url.searchParams.set('sessionId', this.#sessionId);
    const endpoint = url.pathname + url.search + url.hash;
    let exchange;
    try {
      exchange = server.native.sseOpen(head(this.res.req, 'GET'), this.#sessionId, endpoint);
    } catch (e) {
      throw fromNative(e);
    }
    this.#exchange = exchange;
    const res = this.res;
    res.on('close', () => {
      exchange.cancel();
      this._oxmcpDetached();
    });
    const r = await exchange.response().catch((e) => { throw fromNative(e); });
    res.statusCode = r.status;
    for (const [k, v] of r.headers) res.setHeader(k, v);
    if (!r.streaming) {
      res.end(r.body ?? undefined);
      this._oxmcpDetached();
      return;
    }
    detachWhen(this, http.pipeStream(exchange, r, res));
  }

  _oxmcpDetached() {
    detached(this);
  }

  /** One POSTed message: answered 202 (its answer goes down the stream) or with its refusal. */
  async handlePostMessage(req, res, parsedBody) {
    if (!this.#server || !this.#exchange) {
      const message = 'SSE connection not established';
      res.writeHead(500).end(message);
      throw new Error(message);
    }
    const h = head(req, 'POST');
    if (parsedBody !== undefined) {
      h.body = Buffer.isBuffer(parsedBody) ? parsedBody
        : Buffer.from(typeof parsedBody === 'string' ? parsedBody : JSON.stringify(parsedBody));
    } else if (req.body !== undefined && req.readableEnded) {
      h.body = Buffer.from(typeof req.body === 'string' ? req.body : JSON.stringify(req.body));
    } else {
      // One byte over the core's cap is enough for it to answer 413.
      h.body = await http.readBody(req, this.#exchange.maxBodyBytes);
    }
    let r;
    try {
      r = await this.#server.native.ssePost(h, this.#sessionId).response();
    } catch (e) {
      throw fromNative(e);
    }
    res.statusCode = r.status;
    for (const [k, v] of r.headers) res.setHeader(k, v);
    res.end(r.body ?? (r.status === 202 ? 'Accepted' : undefined));
  }

  /** A message from the host itself: the core writes the wire, so this is not supported. */
  async handleMessage() {
    throw new Error('SSEServerTransport.handleMessage: oxmcp reads the messages itself (use handlePostMessage)');
  }

  async close() {
    this.#exchange?.cancel();
    this.res.end?.();
    this._oxmcpDetached();
  }

  async send() {
    throw new Error('SSEServerTransport.send: oxmcp writes the wire itself');
  }
}

module.exports = { SSEServerTransport };
