// TLS serving through the Node binding (`tlsCert`/`tlsKey`): a test CA made here with the openssl
// CLI, Node's https and http2 clients checking the chain, a connection over the cap refused in the
// protocol ALPN chose, and a mismatched key refused by listen().
// Reload and the ALPN details are in tests/python/test_tls.py: the rules live in the core.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http2 from 'node:http2';
import https from 'node:https';
import tls from 'node:tls';
import { once } from 'node:events';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oxmcp-tls-'));
const ssl = (...args) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
ssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-subj', '/CN=oxmcp node test CA', '-days', '2', '-out', 'ca.pem');
fs.writeFileSync(path.join(dir, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1\n');
for (const name of ['a', 'b']) {
  ssl('req', '-new', ...ec, '-keyout', `${name}.key`, '-subj', '/CN=127.0.0.1', '-out', `${name}.csr`);
  ssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-set_serial', '5', '-days', '2',
    '-extfile', 'ext.cnf', '-out', `${name}.pem`);
}
const f = (n) => path.join(dir, n);
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

async function server(t, key, options = {}) {
  const { Server } = await import('oxmcp');
  const s = new Server({ name: 'tls', version: '1', handleSignals: false });
  s.registerTool('search', { description: 'x' }, () => 'found');
  const bound = await s.listen({ host: '127.0.0.1', port: 0, tlsCert: f('a.pem'), tlsKey: f(key), ...options });
  t.after(() => s.close());
  return new URL(bound.url).port;
}

test('a call over TLS and HTTP/2 (ALPN h2), the chain checked against the test CA', async (t) => {
  const port = await server(t, 'a.key');
  const session = http2.connect(`https://127.0.0.1:${port}`, { ca: fs.readFileSync(f('ca.pem')) });
  t.after(() => session.close());
  const text = await new Promise((resolve, reject) => {
    const req = session.request({
      ':method': 'POST', ':path': '/mcp', 'content-type': 'application/json',
      accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call', 'mcp-name': 'search',
    });
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d) => { body += d; });
    req.on('end', () => resolve(body));
    req.on('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search', arguments: {}, _meta: META } }));
  });
  assert.equal(session.alpnProtocol, 'h2');
  assert.match(text, /"found"/);
});

test('a key that is not the certificate\'s is refused by listen()', async (t) => {
  await assert.rejects(server(t, 'b.key'), /is not the private key of the certificate/);
});

test('a TLS connection over the cap reads its refusal, over HTTP/2 and HTTP/1.1 as ALPN chose', async (t) => {
  const port = await server(t, 'a.key', { maxConnections: 1 });
  const ca = fs.readFileSync(f('ca.pem'));
  // One connection served and kept alive holds the one place.
  const held = tls.connect({ host: '127.0.0.1', port, ca, ALPNProtocols: ['http/1.1'] });
  t.after(() => held.destroy());
  await once(held, 'secureConnect');
  held.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
  const [first] = await once(held, 'data');
  assert.match(first.toString(), /^HTTP\/1\.1 200/);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search', arguments: {}, _meta: META } });
  const head = { 'content-type': 'application/json', accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'search' };
  const refused = (status, retryAfter, text) => {
    assert.equal(status, 503, text);
    assert.match(String(retryAfter), /^\d+$/);
    assert.equal(JSON.parse(text).error.code, -31503);
  };

  const session = http2.connect(`https://127.0.0.1:${port}`, { ca });
  t.after(() => session.destroy());
  session.on('error', () => {});
  const goaway = once(session, 'goaway');
  const h2 = await new Promise((resolve, reject) => {
    const req = session.request({ ':method': 'POST', ':path': '/mcp', ...head });
    let h = {};
    let text = '';
    req.on('response', (x) => { h = x; });
    req.setEncoding('utf8');
    req.on('data', (d) => { text += d; });
    req.on('end', () => resolve({ h, text }));
    req.on('error', reject);
    req.end(body);
  });
  assert.equal(session.alpnProtocol, 'h2');
  refused(h2.h[':status'], h2.h['retry-after'], h2.text);
  await goaway;

  const h1 = await new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', ca, agent: false, headers: head }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ res, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
  refused(h1.res.statusCode, h1.res.headers['retry-after'], h1.text);
  assert.equal(h1.res.headers.connection, 'close');
});
