// DPoP (RFC 9449) through nodeHandler(): every row of the shared table
// tests/config/dpop-cases.json, the answers the Rust server and the Python ASGI mount give.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { Server } from 'oxmcp';

const TABLE = JSON.parse(fs.readFileSync(new URL('../config/dpop-cases.json', import.meta.url), 'utf8'));
const ISSUER = 'https://auth.example.com';
const RESOURCE = 'https://mcp.example.com/mcp';

const b64 = (o) => Buffer.from(typeof o === 'string' ? o : JSON.stringify(o)).toString('base64url');
const sha = (s) => crypto.createHash('sha256').update(s).digest('base64url');
const members = (jwk) => ({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });

/** An issuer key, a client key, a token bound to the client key, one bound to none, and an
 * ID-JAG of the same issuer. */
function keys() {
  const as = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const client = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const cjwk = members(client.publicKey.export({ format: 'jwk' }));
  const now = Math.floor(Date.now() / 1000);
  const sign = (claims, typ = 'JWT') => {
    const head = b64({ alg: 'RS256', typ, kid: 'k1' });
    const body = b64({ iss: ISSUER, aud: RESOURCE, exp: now + 300, iat: now, sub: 'node-user', scope: 'mcp:tools', ...claims });
    return `${head}.${body}.${crypto.sign('RSA-SHA256', Buffer.from(`${head}.${body}`), as.privateKey).toString('base64url')}`;
  };
  const jwks = { keys: [{ ...as.publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'RS256' }] };
  // RFC 7638: the required members, in lexicographic order, compact.
  return { jwks, client, cjwk, bound: sign({ cnf: { jkt: sha(JSON.stringify(cjwk)) } }), unbound: sign({}), id_jag: sign({}, 'oauth-id-jag+jwt') };
}

/** A proof of `c` (a row of the table) for a request carrying `token`. */
function proofOf(k, c, token) {
  const claims = {
    htm: 'POST', htu: RESOURCE, iat: Math.floor(Date.now() / 1000) + (c.iat_offset ?? 0),
    jti: crypto.randomUUID(), ath: sha(c.ath_of ?? token), ...(c.claims ?? {}),
  };
  let key = k.client.privateKey;
  let jwk = { ...k.cjwk };
  if (c.key === 'other_key' || c.key === 'thief') {
    const other = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
    key = other.privateKey;
    if (c.key === 'thief') jwk = members(other.publicKey.export({ format: 'jwk' }));
  } else if (c.key === 'private_jwk') {
    jwk.d = 'AAAA';
  }
  const header = { typ: 'dpop+jwt', alg: 'ES256', jwk, ...(c.header ?? {}) };
  if (c.key === 'unsigned') return `${b64({ ...header, alg: 'none' })}.${b64(claims)}.`;
  if (c.key === 'hmac') {
    const h = b64({ ...header, alg: 'HS256', jwk: { kty: 'oct', k: 'c2hhcmVk' } });
    const mac = crypto.createHmac('sha256', 'shared-secret-of-32-bytes-length').update(`${h}.${b64(claims)}`).digest('base64url');
    return `${h}.${b64(claims)}.${mac}`;
  }
  const h = b64(header);
  const sig = crypto.sign('sha256', Buffer.from(`${h}.${b64(claims)}`), { key, dsaEncoding: 'ieee-p1363' });
  return `${h}.${b64(claims)}.${sig.toString('base64url')}`;
}

/** `tools/call whoami` with this Authorization and DPoP header(s); node:http sends an array as
 * repeated headers, so two proofs are two DPoP headers. */
function call(port, authorization, dpop) {
  const body = JSON.stringify({
    jsonrpc: '2.0', id: 1, method: 'tools/call',
    params: {
      name: 'whoami', arguments: {},
      _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
    },
  });
  const headers = {
    'content-type': 'application/json', accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'whoami',
    authorization, 'content-length': Buffer.byteLength(body),
  };
  if (dpop !== undefined) headers.dpop = dpop;
  return new Promise((resolve, reject) => {
    const rq = http.request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode, rawHeaders: res.rawHeaders, json: JSON.parse(text) }));
    });
    rq.on('error', reject);
    rq.end(body);
  });
}

const firstChallenge = (raw) => raw[raw.findIndex((h, i) => i % 2 === 0 && h.toLowerCase() === 'www-authenticate') + 1];

test('every DPoP case of the shared table, through nodeHandler()', async (t) => {
  const k = keys();
  const s = new Server({ name: 'dpop', version: '1', handleSignals: false, ...TABLE.server });
  s.registerTool('whoami', { description: 'who' }, () => 'dpop');
  s.configureHttp({ oauth: { resource: RESOURCE, issuer: ISSUER, jwks: k.jwks, ...TABLE.oauth } });
  const hs = http.createServer(s.nodeHandler());
  await new Promise((r) => hs.listen(0, '127.0.0.1', r));
  t.after(() => new Promise((r) => hs.close(r)));
  const { port } = hs.address();
  for (const c of TABLE.cases) {
    const token = k[c.token];
    const auth = `${c.scheme} ${token}`;
    let proof;
    if (c.proof === 'good' || c.proof === 'replayed') proof = proofOf(k, c, token);
    else if (c.proof === 'two') proof = [proofOf(k, c, token), proofOf(k, c, token)];
    if (c.proof === 'replayed') assert.equal((await call(port, auth, proof)).status, 200, c.name);
    const r = await call(port, auth, proof);
    assert.equal(r.status, c.expect.status, `${c.name}: ${JSON.stringify(r.json)}`);
    if (r.status === 200) {
      assert.equal(r.json.result.content[0].text, 'dpop', c.name);
      continue;
    }
    assert.deepEqual({ error: r.json.error, error_description: r.json.error_description },
      { error: c.expect.error, error_description: c.expect.error_description }, c.name);
    assert.ok(firstChallenge(r.rawHeaders).startsWith(c.expect.challenge), `${c.name}: ${firstChallenge(r.rawHeaders)}`);
  }
});
