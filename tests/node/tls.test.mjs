// TLS serving through the Node binding (`tlsCert`/`tlsKey`): a test CA made here with the openssl
// CLI, Node's https and http2 clients checking the chain, and a mismatched key refused by listen().
// Reload and the ALPN details are in tests/python/test_tls.py: the rules live in the core.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http2 from 'node:http2';

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

async function server(t, key) {
  const { Server } = await import('oxmcp');
  const s = new Server({ name: 'tls', version: '1', handleSignals: false });
  s.registerTool('search', { description: 'x' }, () => 'found');
  const bound = await s.listen({ host: '127.0.0.1', port: 0, tlsCert: f('a.pem'), tlsKey: f(key) });
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
