'use strict';
/**
 * The TS SDK v2 serving entries (`@modelcontextprotocol/server` + `/stdio`, `@modelcontextprotocol/node`):
 * `serveStdio(factory)`, `createMcpHandler(factory)` and `toNodeHandler(handler)`.
 *
 * The SDK builds a fresh server from the factory per HTTP request (and per stdio connection). oxmcp's
 * core serves both eras from one registry, so the factory runs once per entry, on first use, and that
 * one instance serves every request (see docs/COMPATIBILITY.md: a factory that varies its surface by
 * `authInfo` or `era` sees `{ era: 'modern' }` once).
 */
const http = require('../http.cjs');
const { SESSIONLESS } = require('./extra.cjs');

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

/**
 * `createMcpHandler(factory, { legacy: 'stateless' | 'reject' })` -> `{ fetch, close, notify }`.
 * Legacy traffic is served statelessly by default, as in the SDK (no `Mcp-Session-Id`); GET and
 * DELETE of a legacy session answer 405.
 */
function createMcpHandler(factory, options = {}) {
  const get = once(factory);
  const legacy = options.legacy ?? 'stateless';
  if (legacy !== 'stateless' && legacy !== 'reject') throw new TypeError("createMcpHandler: legacy must be 'stateless' or 'reject'");
  let mounted = false;
  const fetch = async (request, opts = {}) => {
    const server = await get();
    // No sessions, as in the SDK: modern requests have none, legacy ones are served statelessly
    // (the core's endpoint keeps none).
    server[SESSIONLESS] = true;
    if (!mounted && legacy === 'stateless') {
      server.configureHttp({ sessionless: true });
      mounted = true;
    }
    if (legacy === 'stateless' && (request.method === 'GET' || request.method === 'DELETE') &&
        !request.headers.get('mcp-protocol-version')?.startsWith('2026')) {
      return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }), {
        status: 405, headers: { 'content-type': 'application/json', allow: 'POST' },
      });
    }
    return http.fetchHandler(server.native, request, { stateless: legacy === 'stateless', parsedBody: opts.parsedBody, peer: opts.peer });
  };
  const notify = {
    toolsChanged: () => get().then((s) => s.sendToolListChanged()),
    promptsChanged: () => get().then((s) => s.sendPromptListChanged()),
    resourcesChanged: () => get().then((s) => s.sendResourceListChanged()),
    resourceUpdated: (uri) => get().then((s) => s.notifyResourceUpdated(uri)),
  };
  return {
    fetch,
    notify,
    async close() {
      const s = await get();
      await s.close();
    },
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
