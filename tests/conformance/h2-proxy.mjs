// An HTTP/1.1 to HTTP/2 forwarding proxy on loopback, for running the conformance suite (whose
// client speaks HTTP/1.1) through an HTTP/2 hop: every request it takes is sent as a stream on one
// h2c connection (prior knowledge) to the server, as a reverse proxy that speaks h2 upstream does.
//
//   node tests/conformance/h2-proxy.mjs http://127.0.0.1:UPSTREAM_PORT
//
// Prints `listening PORT` once it accepts, then serves until SIGTERM or its parent is gone. Requests and
// answers are streamed both ways (SSE answers and listen streams arrive as they are written); the
// request's Host becomes `:authority` (so the server's DNS-rebinding guard sees what the client
// sent), and the connection-specific headers HTTP/2 forbids are dropped. A client that goes away
// cancels its stream. `X-H2-Hop: 1` on each answer lets the runner check that it went through.
import http from 'node:http';
import http2 from 'node:http2';

let upstream;
try {
  upstream = new URL(process.argv[2]);
} catch {
  console.error('usage: h2-proxy.mjs http://HOST:PORT (the server to forward to, over h2c)');
  process.exit(2);
}

// RFC 9113 §8.2.2: these are not sent over HTTP/2 (`te` only as `trailers`).
const HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'host', 'http2-settings']);

let session = null;
function h2() {
  if (!session || session.closed || session.destroyed) {
    const s = http2.connect(upstream.origin);
    s.on('error', (e) => console.error(`h2-proxy: upstream session: ${e.message}`));
    s.on('close', () => { if (session === s) session = null; });
    session = s;
  }
  return session;
}

const server = http.createServer((req, res) => {
  const headers = {
    ':method': req.method,
    ':path': req.url,
    ':scheme': 'http',
    ':authority': req.headers.host ?? upstream.host,
  };
  for (const [k, v] of Object.entries(req.headersDistinct)) {
    if (HOP.has(k) || (k === 'te' && v.join(',').trim().toLowerCase() !== 'trailers')) continue;
    headers[k] = v.length === 1 ? v[0] : v;
  }
  let stream;
  try {
    stream = h2().request(headers, { endStream: false });
  } catch (e) {
    res.writeHead(502, { 'content-type': 'text/plain' }).end(`h2-proxy: ${e.message}\n`);
    return;
  }
  stream.on('response', (h) => {
    const out = { 'x-h2-hop': '1' };
    for (const [k, v] of Object.entries(h)) if (!k.startsWith(':')) out[k] = v;
    res.writeHead(h[':status'], out);
    res.flushHeaders();
  });
  stream.on('data', (d) => res.write(d));
  stream.on('end', () => res.end());
  stream.on('error', (e) => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end(`h2-proxy: ${e.message}\n`);
    else res.destroy();
  });
  req.pipe(stream);
  // The client went away before its answer ended: cancel the stream upstream.
  res.on('close', () => { if (!res.writableFinished && !stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL); });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));

function stop() {
  server.close();
  server.closeAllConnections();
  session?.close();
  process.exit(0);
}
process.on('SIGTERM', stop);
// Killed with its runner (a time-out's SIGKILL leaves no chance to stop it): it then belongs to
// another parent, and stops.
const parent = process.ppid;
setInterval(() => { if (process.ppid !== parent) stop(); }, 1000).unref();
