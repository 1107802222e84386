'use strict';
/**
 * Framework mounts over the core's transport-neutral HTTP handler
 * (`oxmcp::transport::http::handle`): WHATWG fetch and Node `http`/Express.
 * Closing the response (client gone) cancels the exchange, which the core
 * treats as cancellation of the request.
 */
const { fromNative } = require('./errors.cjs');

function headerPairs(headers) {
  const out = [];
  headers.forEach((value, name) => out.push([name, value]));
  return out;
}

function pathOf(url) {
  const u = new URL(url);
  return u.pathname + u.search;
}

/**
 * @param {any} native NativeServer
 * @param {Request} request
 * @param {{ parsedBody?: unknown, stateless?: boolean, peer?: string }} [opts] `peer`: the
 *   client's address, when the host knows it (the failed-authentication limit's key).
 * @returns {Promise<Response>}
 */
async function fetchHandler(native, request, opts = {}) {
  const body = opts.parsedBody !== undefined
    ? Buffer.from(JSON.stringify(opts.parsedBody))
    : request.method === 'GET' || request.method === 'HEAD' || request.method === 'DELETE'
      ? Buffer.alloc(0)
      : Buffer.from(await request.arrayBuffer());
  let pairs = headerPairs(request.headers);
  if (opts.stateless) pairs = pairs.filter(([k]) => k.toLowerCase() !== 'mcp-session-id');
  const exchange = native.handleHttp({
    method: request.method,
    path: pathOf(request.url),
    headers: pairs,
    body,
    peer: typeof opts.peer === 'string' ? opts.peer : undefined,
  });
  const onAbort = () => exchange.cancel();
  const signal = request.signal;
  if (signal) {
    if (signal.aborted) exchange.cancel();
    else signal.addEventListener('abort', onAbort, { once: true });
  }
  let res;
  try {
    res = await exchange.response();
  } catch (e) {
    signal?.removeEventListener('abort', onAbort);
    throw fromNative(e);
  }
  const headers = new Headers();
  for (const [k, v] of res.headers) {
    if (opts.stateless && k.toLowerCase() === 'mcp-session-id') continue;
    headers.append(k, v);
  }
  if (!res.streaming) {
    signal?.removeEventListener('abort', onAbort);
    const b = res.body;
    return new Response(res.status === 204 || res.status === 304 || !b || b.length === 0 ? null : b, { status: res.status, headers });
  }
  const stream = new ReadableStream({
    async pull(controller) {
      let chunk;
      try {
        chunk = await res.next();
      } catch (e) {
        signal?.removeEventListener('abort', onAbort);
        controller.error(fromNative(e));
        return;
      }
      if (chunk === null || chunk === undefined) {
        signal?.removeEventListener('abort', onAbort);
        controller.close();
      } else {
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      }
    },
    cancel() {
      signal?.removeEventListener('abort', onAbort);
      exchange.cancel();
    },
  }, { highWaterMark: 0 });
  return new Response(stream, { status: res.status, headers });
}

/**
 * The request's body, or its first `limit + 1` bytes when it is longer: the core, which holds
 * the cap, answers those with its 413, and the rest is never read (nor held).
 */
function readBody(req, limit) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    const onData = (c) => {
      chunks.push(c);
      size += c.length;
      if (size > limit) {
        req.off('data', onData);
        req.pause();
        resolve(Buffer.concat(chunks, size).subarray(0, limit + 1));
      }
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks, size)));
    req.on('error', reject);
  });
}

function rawHeaderPairs(req) {
  const out = [];
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i], raw[i + 1]]);
  return out;
}

/**
 * `(req, res, next?) => void` for `http.createServer` and Express. If Express
 * already parsed the body (`req.body` is an object), it is re-serialised.
 * @param {any} native NativeServer
 */
function nodeHandler(native) {
  return function oxmcpNodeHandler(req, res, next) {
    handleNode(native, req, res).catch((err) => {
      if (typeof next === 'function') return next(err);
      if (!res.headersSent) {
        res.statusCode = err.statusCode ?? 500;
        res.setHeader('content-type', 'text/plain');
        res.end(err.statusCode === 413 ? 'Payload Too Large' : 'Internal Server Error');
      } else {
        res.destroy(err);
      }
    });
  };
}

/**
 * Serve one Node request. `opts.parsedBody`: a body already parsed (Express `req.body`);
 * `opts.stateless`: drop `Mcp-Session-Id` both ways (the TS SDK's `sessionIdGenerator: undefined`);
 * `opts.onResponse(headers, status)`: called with the response head before it is written.
 */
async function handleNode(native, req, res, opts = {}) {
  let body;
  if (opts.parsedBody !== undefined) {
    const b = opts.parsedBody;
    body = Buffer.isBuffer(b) ? b : Buffer.from(typeof b === 'string' ? b : JSON.stringify(b));
  } else if (req.body !== undefined && req.readableEnded) {
    body = Buffer.isBuffer(req.body) ? req.body : Buffer.from(typeof req.body === 'string' ? req.body : JSON.stringify(req.body));
  } else if (req.method === 'GET' || req.method === 'HEAD') {
    body = Buffer.alloc(0);
  }
  // Express mounts strip the mount path from req.url; originalUrl keeps it.
  let headers = rawHeaderPairs(req);
  if (opts.stateless) headers = headers.filter(([k]) => k.toLowerCase() !== 'mcp-session-id');
  const head = {
    method: req.method,
    path: req.originalUrl ?? req.url,
    headers,
    body: body ?? Buffer.alloc(0),
    // The socket's address: the core keys the failed-authentication limit by it (or, from a
    // trusted proxy, by the client the proxy forwards).
    peer: req.socket?.remoteAddress,
    // The caller the core decided for `requireBearerAuth` (never `req.auth`, which app code may
    // set): the core takes it where the mount has no auth of its own.
    host: req[BEARER_CALLER],
  };
  let exchange;
  if (body !== undefined) {
    exchange = native.handleHttp(head);
  } else {
    // The body still unread: the core admits the request from its head first, so a request it
    // refuses (no or a wrong token) is answered without reading its body, and the connection
    // closed rather than drained.
    exchange = native.handleHttpHead(head);
    let admitted;
    try {
      admitted = await exchange.admitted();
    } catch (e) {
      throw fromNative(e);
    }
    if (admitted) {
      let b;
      try {
        b = await readBody(req, exchange.maxBodyBytes);
        // Over the cap: the core answers 413, and the rest of the body is never read.
        if (b.length > exchange.maxBodyBytes) res.setHeader('connection', 'close');
      } catch (e) {
        exchange.cancel();
        throw e;
      }
      exchange.body(b);
    } else {
      res.setHeader('connection', 'close');
    }
  }
  let finished = false;
  res.on('close', () => {
    if (!finished) exchange.cancel();
  });
  let r;
  try {
    r = await exchange.response();
  } catch (e) {
    throw fromNative(e);
  }
  res.statusCode = r.status;
  let outHeaders = r.headers;
  if (opts.stateless) outHeaders = outHeaders.filter(([k]) => k.toLowerCase() !== 'mcp-session-id');
  if (opts.onResponse) opts.onResponse(outHeaders, r.status);
  for (const [k, v] of outHeaders) res.appendHeader ? res.appendHeader(k, v) : res.setHeader(k, v);
  if (!r.streaming) {
    finished = true;
    res.end(r.body ?? undefined);
    return;
  }
  await pipeStream(exchange, r, res);
  finished = true;
}

/** Write a streaming answer `r` of `exchange` to `res` until it ends or the client leaves. */
async function pipeStream(exchange, r, res) {
  res.flushHeaders();
  for (;;) {
    if (res.destroyed) {
      exchange.cancel();
      return;
    }
    const chunk = await r.next();
    if (chunk === null || chunk === undefined) break;
    if (!res.write(chunk)) {
      await new Promise((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve(undefined);
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
  }
  res.end();
}

/** Where `requireBearerAuth` keeps the core's caller of a request it let through. */
const BEARER_CALLER = Symbol.for('oxmcp.bearerCaller');

module.exports = { BEARER_CALLER, fetchHandler, nodeHandler, handleNode, pipeStream, readBody, rawHeaderPairs };
