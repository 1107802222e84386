// `oxmcp/server/auth/middleware/bearerAuth.js` (the TS SDK 1.x's `requireBearerAuth`) over real
// HTTP on 127.0.0.1: the app's `OAuthTokenVerifier` is asked about each token and the core decides
// (expiry, the resource the token was issued for, the required scopes), answering as the SDK's
// middleware does; a request it lets through reaches the handler with the caller the core made of
// the grant, and nothing more. Express comes from .cache/peers-node (scripts/setup.sh).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ROOT, withTimeout, exited, post } from './helpers.mjs';

const PEERS = path.join(ROOT, '.cache', 'peers-node', 'node_modules');
const FIXTURE = path.join(ROOT, 'tests', 'node', 'fixtures', 'sdk-bearer.mjs');
let srv;

before(async () => {
  assert.ok(fs.existsSync(path.join(PEERS, 'express')), `express is not installed in ${PEERS} (scripts/setup.sh)`);
  const child = spawn(process.execPath, [FIXTURE], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_PATH: PEERS } });
  let stderr = '';
  const url = await withTimeout(new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = /listening on (http:\/\/\S+)/.exec(stderr);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${stderr}`)));
  }), 15_000, 'server to listen');
  srv = { child, url, metadata: url.replace('/mcp', '/.well-known/oauth-protected-resource/mcp') };
});

after(async () => {
  srv.child.kill('SIGTERM');
  await exited(srv.child);
});

const bearer = (token) => ({ headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });

/** What the `whoami` tool saw of its caller, called by the official client with `token`. */
async function whoami(token) {
  const client = new Client({ name: 'bearer', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(srv.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  await withTimeout(client.connect(transport), 15_000, 'connect');
  try {
    const r = await withTimeout(client.callTool({ name: 'whoami', arguments: {} }), 15_000, 'whoami');
    return JSON.parse(r.content[0].text);
  } finally {
    await client.close();
  }
}

test('a valid token is served with what the verifier granted, and nothing more', async () => {
  const seen = await whoami('good');
  // The verifier's `extra` cannot rename the client it reported.
  assert.equal(seen.clientId, 'app');
  assert.deepEqual(seen.scopes, ['notes:read']);
  assert.equal(seen.resource, srv.url);
  assert.ok(seen.expiresAt > Date.now() / 1000);
  assert.deepEqual((await whoami('wide')).scopes, ['notes:read', 'notes:write']);
});

for (const [token, description] of [
  [undefined, 'Missing Authorization header'],
  ['unknown', 'Invalid token'],
  ['expired', 'Token has expired'],
  ['forever', 'Token has no expiration time'],
  ['elsewhere', 'Token was not issued for this resource'],
]) {
  test(`${token ?? 'no token'}: 401 invalid_token "${description}"`, async () => {
    const r = await post(srv.url, 'tools/list', {}, bearer(token));
    assert.equal(r.status, 401);
    assert.deepEqual(JSON.parse(r.body), { error: 'invalid_token', error_description: description });
    assert.equal(r.headers.get('www-authenticate'),
      `Bearer error="invalid_token", error_description="${description}", scope="notes:read", resource_metadata="${srv.metadata}"`);
  });
}

test('a token without the required scope: 403 insufficient_scope', async () => {
  const r = await post(srv.url, 'tools/list', {}, bearer('no-scope'));
  assert.equal(r.status, 403);
  assert.deepEqual(JSON.parse(r.body), { error: 'insufficient_scope', error_description: 'Insufficient scope' });
  assert.equal(r.headers.get('www-authenticate'),
    `Bearer error="insufficient_scope", error_description="Insufficient scope", scope="notes:read", resource_metadata="${srv.metadata}"`);
});
