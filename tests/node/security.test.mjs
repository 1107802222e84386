// HTTP security options over real HTTP on 127.0.0.1: named bearer tokens (per-caller allow-lists
// and scopes), OAuth/JWT, the per-caller rate limit, and the same options on the fetch mount.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { Server } from 'oxmcp';
import { post, callTool, dpopKeys } from './helpers.mjs';

const bearer = (t) => ({ headers: { authorization: `Bearer ${t}` } });

function tokenServer(options = {}) {
  const s = new Server({ name: 'sec', version: '1', handleSignals: false, ...options });
  s.registerTool('search', { description: 'who am I' }, (ctx) => `${ctx.caller?.name}:${(ctx.caller?.scopes ?? []).join(' ')}`);
  s.registerTool('write', { requiredScopes: ['files:write'] }, () => 'written');
  return s;
}

test('tokens: accepted, missing/wrong → 401 Bearer, allow-list filters and refuses, ctx.caller, requiredScopes → 403', async () => {
  const s = tokenServer();
  const { url } = await s.listen({
    host: '127.0.0.1',
    port: 0,
    tokens: {
      alice: { tokens: ['alice-tok'], tools: ['search'] },
      bob: { tokens: ['bob-tok'], scopes: ['files:read'] },
      carol: { tokens: ['carol-tok'], scopes: ['files'] },
    },
  });
  try {
    const missing = await post(url, 'tools/list');
    assert.equal(missing.status, 401);
    assert.match(missing.headers.get('www-authenticate') ?? '', /^Bearer\b/);

    const wrong = await post(url, 'tools/list', {}, bearer('nope'));
    assert.equal(wrong.status, 401);
    assert.match(wrong.headers.get('www-authenticate') ?? '', /^Bearer\b.*invalid_token/);

    const aliceList = await post(url, 'tools/list', {}, bearer('alice-tok'));
    assert.equal(aliceList.status, 200, aliceList.body);
    assert.deepEqual(aliceList.response.result.tools.map((t) => t.name), ['search']);
    const bobList = await post(url, 'tools/list', {}, bearer('bob-tok'));
    assert.deepEqual(bobList.response.result.tools.map((t) => t.name).sort(), ['search', 'write']);

    const who = await callTool(url, 'search', {}, bearer('alice-tok'));
    assert.equal(who.response.result.content[0].text, 'alice:', who.body);
    const refused = await callTool(url, 'write', {}, bearer('alice-tok'));
    assert.equal(refused.response.error.code, -32602, refused.body);
    assert.match(refused.response.error.message, /Unknown tool/);
    const unknown = await callTool(url, 'no_such_tool', {}, bearer('alice-tok'));
    assert.equal(unknown.response.error.code, refused.response.error.code, 'refused exactly like an unknown tool');

    const bobWho = await callTool(url, 'search', {}, bearer('bob-tok'));
    assert.equal(bobWho.response.result.content[0].text, 'bob:files:read');
    const noScope = await callTool(url, 'write', {}, bearer('bob-tok'));
    assert.equal(noScope.status, 403, noScope.body);
    assert.match(noScope.headers.get('www-authenticate') ?? '', /insufficient_scope/);
    assert.match(noScope.headers.get('www-authenticate') ?? '', /files:write/);

    const carol = await callTool(url, 'write', {}, bearer('carol-tok'));
    assert.equal(carol.status, 200, carol.body);
    assert.equal(carol.response.result.content[0].text, 'written', 'scope "files" covers "files:write"');
  } finally {
    await s.close();
  }
});

test('constructor tokens (string form) and rateLimit apply to listen() → 429 with Retry-After', async () => {
  const s = tokenServer({ tokens: 'alice=a1,bob=b1', rateLimit: { rate: 0.05, burst: 2 } }); // no refill while the test runs
  const { url } = await s.listen({ host: '127.0.0.1', port: 0 });
  try {
    assert.equal((await post(url, 'tools/list')).status, 401);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await post(url, 'tools/list', {}, bearer('a1'))).status);
    assert.deepEqual(statuses, [200, 200, 429]);
    const limited = await post(url, 'tools/list', {}, bearer('a1'));
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) >= 1, 'Retry-After');
    // Per caller: bob has his own bucket.
    assert.equal((await post(url, 'tools/list', {}, bearer('b1'))).status, 200);
    const who = await callTool(url, 'search', {}, bearer('b1'));
    assert.equal(who.response.result.content[0].text, 'bob:');
  } finally {
    await s.close();
  }
});

test('constructor tokens reach the fetch mount; the in-memory client sends its token', async () => {
  const s = tokenServer({ tokens: { alice: { tokens: ['alice-tok'], tools: ['search'] } } });
  const req = (token) => new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: { host: '127.0.0.1', 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 't', version: '0' }, 'io.modelcontextprotocol/clientCapabilities': {} } } }),
  });
  const denied = await s.fetch(req());
  assert.equal(denied.status, 401);
  assert.match(denied.headers.get('www-authenticate') ?? '', /^Bearer\b/);
  assert.equal((await s.fetch(req('alice-tok'))).status, 200);
  const c = s.client({ token: 'alice-tok' });
  assert.deepEqual((await c.listTools()).tools.map((t) => t.name), ['search']);
  assert.equal((await c.callTool('search', {})).content[0].text, 'alice:');
  // configureHttp keeps the constructor's tokens unless it overrides them.
  s.configureHttp({ maxBodyBytes: 1 << 20 });
  assert.equal((await s.fetch(req())).status, 401);
  s.configureHttp({ tokens: 'zed=z1' });
  assert.equal((await s.fetch(req('alice-tok'))).status, 401);
  assert.equal((await s.fetch(req('z1'))).status, 200);
});

test('oauth: RFC 9728 metadata, JWT from an inline JWKS, caller from sub with claims', async () => {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'RS256', use: 'sig' };
  const s = tokenServer();
  s.registerTool('whoami', {}, (ctx) => JSON.stringify(ctx.caller));
  const resource = 'https://mcp.example.com/mcp';
  const { url, port } = await s.listen({
    host: '127.0.0.1',
    port: 0,
    oauth: { resource, authorizationServers: ['https://auth.example.com'], scopes: ['mcp:tools'], issuer: 'https://auth.example.com', jwks: { keys: [jwk] } },
  });
  try {
    const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const jwt = (claims) => {
      const head = b64({ alg: 'RS256', typ: 'JWT', kid: 'k1' });
      const body = b64({ iss: 'https://auth.example.com', aud: resource, exp: now + 300, iat: now, ...claims });
      const sig = crypto.sign('RSA-SHA256', Buffer.from(`${head}.${body}`), privateKey).toString('base64url');
      return `${head}.${body}.${sig}`;
    };
    const meta = await fetch(`http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`);
    assert.equal(meta.status, 200);
    const doc = await meta.json();
    assert.equal(doc.resource, resource);
    assert.deepEqual(doc.authorization_servers, ['https://auth.example.com']);

    const missing = await post(url, 'tools/list');
    assert.equal(missing.status, 401);
    assert.match(missing.headers.get('www-authenticate') ?? '', /resource_metadata=/);

    const ok = await callTool(url, 'search', {}, bearer(jwt({ sub: 'user-7', scope: 'mcp:tools files:write' })));
    assert.equal(ok.status, 200, ok.body);
    assert.equal(ok.response.result.content[0].text, 'user-7:mcp:tools files:write');
    const me = JSON.parse((await callTool(url, 'whoami', {}, bearer(jwt({ sub: 'user-7', scope: 'mcp:tools', tenant: 't1' })))).response.result.content[0].text);
    assert.equal(me.name, 'user-7');
    assert.deepEqual(me.scopes, ['mcp:tools']);
    assert.equal(me.claims.tenant, 't1');
    assert.equal(me.claims.iss, 'https://auth.example.com');
    const wrongAud = await post(url, 'tools/list', {}, bearer(jwt({ sub: 'x', aud: 'https://other.example.com' })));
    assert.equal(wrongAud.status, 401);
  } finally {
    await s.close();
  }
});

test('invalid security options are refused with a clear error', () => {
  assert.throws(() => tokenServer({ tokens: 42 }), /tokens/);
  assert.throws(() => tokenServer({ tokens: {} }), /tokens/);
  assert.throws(() => tokenServer({ oauth: { resource: 'https://x.example.com/mcp' } }), /jwks/);
  assert.throws(() => tokenServer({ oauth: { jwksUrl: 'http://idp/jwks' } }), /issuer/);
  assert.throws(() => tokenServer({ oauth: { resurce: 'x' } }), /oauth: unknown field `resurce`/);
  assert.throws(() => tokenServer({ rateLimit: { rate: 0 } }), /rateLimit/);
  assert.throws(() => tokenServer({ rateLimit: { rate: 1, brust: 2 } }), /rateLimit: unknown field `brust`/);
});

test('DPoP through nodeHandler(): a bound token with its proof is taken; a wrong htm and a Bearer copy are refused', async (t) => {
  const http = await import('node:http');
  const { token, proof, oauth, headers: dpop } = dpopKeys();
  const s = tokenServer();
  s.configureHttp({ oauth: { ...oauth, dpop: 'required', dpopNonce: true } });
  const hs = http.createServer(s.nodeHandler());
  await new Promise((r) => hs.listen(0, '127.0.0.1', r));
  t.after(() => new Promise((r) => hs.close(r)));
  const url = `http://127.0.0.1:${hs.address().port}/mcp`;

  const first = await callTool(url, 'search', {}, dpop(proof()));
  assert.equal(first.status, 401);
  assert.match(first.headers.get('www-authenticate') ?? '', /^DPoP error="use_dpop_nonce"/);
  const nonce = first.headers.get('dpop-nonce');
  assert.ok(nonce);
  const ok = await callTool(url, 'search', {}, dpop(proof({ nonce })));
  assert.equal(ok.status, 200, ok.body);
  assert.equal(ok.response.result.content[0].text, 'dpop-user:mcp:tools');
  const wrongHtm = await callTool(url, 'search', {}, dpop(proof({ htm: 'GET', nonce })));
  assert.equal(wrongHtm.status, 401);
  assert.match(wrongHtm.headers.get('www-authenticate') ?? '', /^DPoP error="invalid_dpop_proof".*algs="ES256 /);
  const copied = await callTool(url, 'search', {}, bearer(token));
  assert.equal(copied.status, 401);
  assert.match(copied.headers.get('www-authenticate') ?? '', /^DPoP error="invalid_token"/);
});
