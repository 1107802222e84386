// Per-registration OAuth scopes from Node over real HTTP: the TS SDK's
// `scopeChallenge: requireScopes(...)` and oxmcp's `requiredScopes` on tools, resources, templates
// and prompts; the 403 step-up challenge (the TS SDK's bytes); lists that show (default) or hide
// (`hideOutOfScope`) what a token's scopes do not cover; and the TS client's step-up: its
// client-credentials provider asks a test authorization server (made here, signing with a test
// key) for the union of its scopes and the challenged ones, then retries.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, StreamableHTTPClientTransport, ClientCredentialsProvider } from '@modelcontextprotocol/client';
import { McpServer, ResourceTemplate, Server, requireScopes } from 'oxmcp';
import { ROOT, post, callTool } from './helpers.mjs';

const BODY = '{"error":"insufficient_scope","error_description":"Insufficient scope"}';
const { publicKey, privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'RS256', use: 'sig' };
const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');

/** An authorization server on loopback: RFC 8414 metadata and a client-credentials token endpoint. */
let as;
let issuer;
const granted = [];
let audience = '';
function jwt(scope) {
  const now = Math.floor(Date.now() / 1000);
  const head = b64({ alg: 'RS256', typ: 'JWT', kid: 'k1' });
  const body = b64({ iss: issuer, aud: audience, sub: 'svc', exp: now + 300, iat: now, scope });
  return `${head}.${body}.${crypto.sign('RSA-SHA256', Buffer.from(`${head}.${body}`), privateKey).toString('base64url')}`;
}

/** A port free now (the resource URL, which the token's `aud` names, needs it before listen). */
async function freePort() {
  const probe = http.createServer();
  await new Promise((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address();
  await new Promise((r) => probe.close(r));
  return port;
}

const servers = [];
async function start(server) {
  const port = await freePort();
  const resource = `http://127.0.0.1:${port}/mcp`;
  const listening = await server.listen({
    host: '127.0.0.1', port,
    oauth: { resource, authorizationServers: [issuer], scopes: ['mcp:tools'], issuer, jwks: { keys: [jwk] } },
  });
  servers.push(server);
  return listening;
}

function sdkShaped(options = {}) {
  const s = new McpServer({ name: 'scoped', version: '1' }, { handleSignals: false, ...options });
  s.registerTool('open_tool', {}, async () => ({ content: [{ type: 'text', text: 'open' }] }));
  s.registerTool('deploy', { scopeChallenge: requireScopes('deploy:run', 'deploy:read') }, async () => ({ content: [{ type: 'text', text: 'deployed' }] }));
  s.registerResource('payroll', 'mem://payroll', { scopeChallenge: requireScopes('hr:read') }, async (uri) => ({ contents: [{ uri: uri.href, text: 'salaries' }] }));
  s.registerResource('hr', new ResourceTemplate('mem://hr/{id}', { list: undefined }), { requiredScopes: ['hr:read'] }, async (uri, { id }) => ({ contents: [{ uri: uri.href, text: `person ${id}` }] }));
  s.registerPrompt('review', { scopeChallenge: requireScopes('hr:read') }, async () => ({ messages: [] }));
  return s;
}

before(async () => {
  as = http.createServer((req, res) => {
    const json = (doc) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(JSON.stringify(doc)); };
    if (req.method === 'GET' && req.url.startsWith('/.well-known/oauth-authorization-server')) {
      return json({ issuer, token_endpoint: `${issuer}/token`, authorization_endpoint: `${issuer}/authorize`, grant_types_supported: ['client_credentials'], response_types_supported: ['token'], token_endpoint_auth_methods_supported: ['client_secret_basic'] });
    }
    if (req.method === 'POST' && req.url === '/token') {
      let data = '';
      req.on('data', (d) => { data += d; });
      req.on('end', () => {
        const scope = new URLSearchParams(data).get('scope') ?? '';
        granted.push(scope);
        json({ access_token: jwt(scope), token_type: 'Bearer', expires_in: 300, scope });
      });
      return undefined;
    }
    res.writeHead(404).end();
    return undefined;
  });
  await new Promise((r) => as.listen(0, '127.0.0.1', r));
  issuer = `http://127.0.0.1:${as.address().port}`;
});

after(async () => {
  for (const s of servers) await s.close();
  as.close();
});

const bearer = (t) => ({ headers: { authorization: `Bearer ${t}` } });
const challenge = (port, scope) => `Bearer error="insufficient_scope", error_description="Insufficient scope", scope="${scope}", resource_metadata="http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp"`;

test('requireScopes and requiredScopes: the step-up challenge, then a token with the scopes runs the call', async () => {
  const { url, port } = await start(sdkShaped());
  audience = url;
  const weak = jwt('mcp:tools deploy:read');
  const r = await callTool(url, 'deploy', {}, bearer(weak));
  assert.equal(r.status, 403, r.body);
  assert.equal(r.headers.get('www-authenticate'), challenge(port, 'deploy:run deploy:read'));
  assert.equal(r.body, BODY);
  for (const [method, params] of [['resources/read', { uri: 'mem://payroll' }], ['resources/read', { uri: 'mem://hr/7' }], ['prompts/get', { name: 'review' }]]) {
    const x = await post(url, method, params, bearer(weak));
    assert.equal(x.status, 403, `${method}: ${x.body}`);
    assert.equal(x.headers.get('www-authenticate'), challenge(port, 'hr:read'));
    assert.equal(x.body, BODY);
  }
  const strong = jwt('mcp:tools deploy:run deploy:read hr:read');
  assert.equal((await callTool(url, 'deploy', {}, bearer(strong))).response.result.content[0].text, 'deployed');
  const read = await post(url, 'resources/read', { uri: 'mem://hr/7' }, bearer(strong));
  assert.equal(read.response.result.contents[0].text, 'person 7', read.body);
});

test('lists show scoped registrations by default and hide them with hideOutOfScope', async () => {
  const lists = async (url, token) => {
    const names = async (method, member, key) => (await post(url, method, {}, bearer(token))).response.result[member].map((e) => e[key]).sort();
    return [await names('tools/list', 'tools', 'name'), await names('resources/list', 'resources', 'uri'),
      await names('resources/templates/list', 'resourceTemplates', 'uriTemplate'), await names('prompts/list', 'prompts', 'name')];
  };
  const everything = [['deploy', 'open_tool'], ['mem://payroll'], ['mem://hr/{id}'], ['review']];
  const shown = await start(sdkShaped());
  audience = shown.url;
  assert.deepEqual(await lists(shown.url, jwt('mcp:tools')), everything);
  const hidden = await start(sdkShaped({ hideOutOfScope: true }));
  audience = hidden.url;
  assert.deepEqual(await lists(hidden.url, jwt('mcp:tools')), [['open_tool'], [], [], []]);
  assert.deepEqual(await lists(hidden.url, jwt('deploy:run deploy:read hr:read')), everything);
  assert.equal((await callTool(hidden.url, 'deploy', {}, bearer(jwt('mcp:tools')))).status, 403);
});

test('a scopeChallenge the core cannot enforce is refused at registration', () => {
  const s = new Server({ name: 'x', version: '1', handleSignals: false });
  assert.throws(() => s.registerTool('t', { scopeChallenge: () => undefined }, () => 'x'), /requireScopes/);
  assert.throws(() => requireScopes(), /at least one scope/);
  assert.throws(() => requireScopes('a b'), /scope-token grammar/);
});

test("the TS client's step-up: 403 insufficient_scope, a token for the union of scopes, the retry runs", async () => {
  const { url } = await start(sdkShaped());
  audience = url;
  granted.length = 0;
  const authProvider = new ClientCredentialsProvider({ clientId: 'svc', clientSecret: 'secret', scope: 'mcp:tools', expectedIssuer: issuer });
  const client = new Client({ name: 't', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider }));
  try {
    const result = await client.callTool({ name: 'deploy', arguments: {} });
    assert.equal(result.content[0].text, 'deployed');
  } finally {
    await client.close();
  }
  assert.equal(granted[0], 'mcp:tools');
  assert.deepEqual(granted.at(-1).split(' ').sort(), ['deploy:read', 'deploy:run', 'mcp:tools']);
});

test("the 403 is the TS SDK 2.4's, byte for byte, on the same registration", async () => {
  const entry = path.join(ROOT, '.cache', 'peers-node', 'node_modules', '@modelcontextprotocol', 'server', 'dist', 'index.mjs');
  assert.ok(fs.existsSync(entry), `the TS SDK is not installed in .cache/peers-node (scripts/setup.sh)`);
  const peer = await import(pathToFileURL(entry).href);
  const { url, port } = await start(sdkShaped());
  audience = url;
  const metadata = `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`;

  const theirs = new peer.McpServer({ name: 'scoped', version: '1' });
  theirs.registerTool('deploy', { scopeChallenge: peer.requireScopes('deploy:run', 'deploy:read') }, async () => ({ content: [] }));
  const transport = new peer.WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await theirs.connect(transport);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'deploy', arguments: {} } });
  const answer = await transport.handleRequest(new Request(url, {
    method: 'POST', body,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  }), { authInfo: { token: 't', clientId: 'svc', scopes: ['mcp:tools', 'deploy:read'], resourceMetadataUrl: metadata } });
  await theirs.close();

  const ours = await callTool(url, 'deploy', {}, bearer(jwt('mcp:tools deploy:read')));
  assert.equal(answer.status, 403);
  assert.equal(ours.status, answer.status);
  assert.equal(ours.headers.get('www-authenticate'), answer.headers.get('www-authenticate'));
  assert.equal(ours.headers.get('content-type'), answer.headers.get('content-type'));
  assert.equal(ours.body, await answer.text());
});
