'use strict';
/**
 * The TS SDK v2 serving entries (`@modelcontextprotocol/server` + `/stdio`, `@modelcontextprotocol/node`):
 * `serveStdio(factory)`, `createMcpHandler(factory)` and `toNodeHandler(handler)`.
 *
 * The SDK builds a fresh server from the factory per HTTP request (and per stdio connection). oxmcp's
 * core serves both eras from one registry, so a factory that takes no argument runs once per entry,
 * on first use, and that one instance serves every request. A factory that reads its context
 * (`(ctx) => ...`: it may vary its surface by `era` or `authInfo`) gets exactly the context the SDK
 * gives it, and its instance serves every later request with the same context: instances are kept
 * per (era, authInfo), at most MAX_INSTANCES of them, least recently used first out.
 */
const http = require('../http.cjs');
const { SESSIONLESS, PASSED_AUTH } = require('../server.cjs');

/** Instances of a context-reading factory kept at once, each for one (era, authInfo). */
const MAX_INSTANCES = 64;

function once(factory) {
  if (typeof factory !== 'function') throw new TypeError('expected a server factory: () => McpServer');
  let p;
  return () => (p ??= Promise.resolve().then(() => factory({ era: 'modern' })).then((s) => {
    if (!s || typeof s.fetch !== 'function' || !s.native) throw new TypeError('the factory must return an oxmcp McpServer');
    return s;
  }));
}

/** `serveStdio(factory, { legacy? })`: serve the process's stdio; resolves nothing, returns `{ close }`. */
function serveStdio(factory, options = {}) {
  const get = once(factory);
  const onerror = options.onerror ?? ((e) => process.stderr.write(`oxmcp: stdio server failed: ${e && e.stack ? e.stack : e}\n`));
  const running = get().then((s) => s.serveStdio()).catch(onerror);
  return {
    async close() {
      const s = await get();
      await s.close();
      await running;
    },
  };
}

/** The era a request is served in: a modern (2026) request names its revision in the header. */
function eraOf(request) {
  return request.headers.get('mcp-protocol-version')?.startsWith('2026') ? 'modern' : 'legacy';
}

/**
 * The instances createMcpHandler serves from: one for a factory that takes no argument; one per
 * (era, authInfo) for a factory that reads its context, the least recently used dropped (and
 * closed once its requests have had a minute to finish) past MAX_INSTANCES.
 * @returns {{ get(ctx: object): Promise<any>, all(): Promise<any[]> }}
 */
function instances(factory, prepare) {
  if (typeof factory !== 'function') throw new TypeError('expected a server factory: () => McpServer');
  const cache = new Map();
  const build = (ctx) => Promise.resolve().then(() => factory(ctx)).then((s) => {
    if (!s || typeof s.fetch !== 'function' || !s.native) throw new TypeError('the factory must return an oxmcp McpServer');
    s[PASSED_AUTH] = ctx.authInfo;
    prepare(s);
    return s;
  });
  const perContext = factory.length > 0;
  return {
    get(ctx) {
      const key = perContext ? JSON.stringify([ctx.era, ctx.authInfo ?? null]) : '';
      let p = cache.get(key);
      if (p) {
        cache.delete(key);
      } else {
        p = build(perContext ? ctx : { era: 'modern' });
        p.catch(() => cache.delete(key));
      }
      cache.set(key, p);
      if (cache.size > MAX_INSTANCES) {
        const oldest = cache.keys().next().value;
        const dropped = cache.get(oldest);
        cache.delete(oldest);
        dropped.then((s) => setTimeout(() => s.close().catch(() => {}), 60_000).unref(), () => {});
      }
      return p;
    },
    all: () => Promise.allSettled([...cache.values()])
      .then((rs) => rs.filter((r) => r.status === 'fulfilled').map((r) => r.value)),
  };
}

/**
 * `createMcpHandler(factory, { legacy: 'stateless' | 'reject' })` -> `{ fetch, close, notify }`.
 * Legacy traffic is served statelessly by default, as in the SDK (no `Mcp-Session-Id`); GET and
 * DELETE of a legacy session answer 405. `fetch(request, { authInfo })` passes `authInfo` to the
 * factory and to the handlers' `extra.authInfo`, unverified, as the SDK does; the core's own
 * authentication (tokens, OAuth), when configured, names the caller instead.
 */
function createMcpHandler(factory, options = {}) {
  const legacy = options.legacy ?? 'stateless';
  if (legacy !== 'stateless' && legacy !== 'reject') throw new TypeError("createMcpHandler: legacy must be 'stateless' or 'reject'");
  // No sessions, as in the SDK: modern requests have none, legacy ones are served statelessly
  // (the core's endpoint keeps none).
  const servers = instances(factory, (s) => {
    s[SESSIONLESS] = true;
    if (legacy === 'stateless') s.configureHttp({ sessionless: true });
  });
  const fetch = async (request, opts = {}) => {
    const era = eraOf(request);
    if (legacy === 'stateless' && (request.method === 'GET' || request.method === 'DELETE') && era === 'legacy') {
      return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }), {
        status: 405, headers: { 'content-type': 'application/json', allow: 'POST' },
      });
    }
    const server = await servers.get({ era, authInfo: opts.authInfo, requestInfo: request });
    return http.fetchHandler(server.native, request, { stateless: legacy === 'stateless', parsedBody: opts.parsedBody, peer: opts.peer });
  };
  const each = (f) => servers.all().then((list) => Promise.all(list.map(f))).then(() => undefined);
  const notify = {
    toolsChanged: () => each((s) => s.sendToolListChanged()),
    promptsChanged: () => each((s) => s.sendPromptListChanged()),
    resourcesChanged: () => each((s) => s.sendResourceListChanged()),
    resourceUpdated: (uri) => each((s) => s.notifyResourceUpdated(uri)),
  };
  return {
    fetch,
    notify,
    close: () => each((s) => s.close()),
  };
}

/** Node `IncomingMessage` (+ an optional parsed body) -> WHATWG `Request`. */
async function toWebRequest(req, parsedBody) {
  const host = req.headers.host ?? 'localhost';
  const url = new URL(req.originalUrl ?? req.url ?? '/', `http://${host}`);
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  let body;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    if (parsedBody !== undefined) body = typeof parsedBody === 'string' ? parsedBody : JSON.stringify(parsedBody);
    else {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      body = Buffer.concat(chunks);
    }
  }
  return new Request(url, { method: req.method, headers, body });
}

/**
 * `toNodeHandler(handler)`: a `(req, res, parsedBody?)` function for node:http and Express over a
 * `{ fetch }` handler (from `createMcpHandler`).
 */
function toNodeHandler(handler, _opts) {
  if (!handler || typeof handler.fetch !== 'function') throw new TypeError('toNodeHandler(handler): handler must have fetch(request)');
  return async function oxmcpToNodeHandler(req, res, parsedBody) {
    if (typeof parsedBody === 'function') parsedBody = undefined; // Express `next`
    if (parsedBody === undefined && req.body !== undefined && req.readableEnded) parsedBody = req.body;
    const ac = new AbortController();
    res.on('close', () => ac.abort());
    let response;
    try {
      const request = await toWebRequest(req, parsedBody);
      response = await handler.fetch(request, { parsedBody, peer: req.socket?.remoteAddress });
    } catch (e) {
      if (!res.headersSent) {
        res.statusCode = e.statusCode ?? 500;
        res.end('Internal Server Error');
      }
      return;
    }
    res.statusCode = response.status;
    response.headers.forEach((v, k) => res.appendHeader(k, v));
    if (!response.body) {
      res.end();
      return;
    }
    res.flushHeaders();
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (!res.write(value)) await new Promise((r) => { res.once('drain', r); res.once('close', r); });
        if (res.destroyed) { reader.cancel().catch(() => {}); return; }
      }
    } finally {
      res.end();
    }
  };
}

module.exports = { serveStdio, createMcpHandler, toNodeHandler, toWebRequest };
