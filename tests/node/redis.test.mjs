// The Node everything server with a Redis, one replica: a 2026-07-28 stateless
// tools/call needs no Redis (it works with Redis stopped), /readyz says so and stays ready, and a
// Redis without a state key is refused naming it. Two in-process replicas sharing a Redis refuse a
// DPoP proof replayed from one to the other. The same core rules as tests/it/redis.rs and
// tests/python/test_redis.py; a missing redis-server fails (scripts/setup.sh installs it).
import test from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import http from 'node:http';
import { ROOT, callTool, dpopKeys, withTimeout } from './helpers.mjs';
import { Server } from 'oxmcp';

const EVERYTHING = path.join(ROOT, 'examples', 'node', 'everything.mjs');

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

async function startRedis() {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const failed = new Promise((_, reject) => child.once('error', (e) => reject(new Error(`redis-server is missing (${e.message}): \`bash scripts/setup.sh\` installs it (apt-get install redis-server)`))));
  const up = (async () => {
    for (;;) {
      const ok = await new Promise((resolve) => {
        const c = net.connect(port, '127.0.0.1', () => { c.end(); resolve(true); });
        c.once('error', () => resolve(false));
      });
      if (ok) return;
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  await withTimeout(Promise.race([up, failed]), 10_000, 'redis-server to listen');
  return { port, stop: () => new Promise((r) => { if (child.exitCode !== null || child.signalCode !== null) return r(); child.once('exit', r); child.kill('SIGKILL'); }) };
}

function startEverything(env) {
  const child = spawn(process.execPath, [EVERYTHING, '--http', '127.0.0.1:0'],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const url = withTimeout(new Promise((resolve, reject) => {
    child.stderr.on('data', () => { const m = /listening on (http:\/\/\S+)/.exec(stderr); if (m) resolve(m[1]); });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  }), 15_000, 'server to listen');
  return { url, kill: () => { if (child.exitCode === null) child.kill('SIGKILL'); } };
}

test('modern calls need no Redis; /readyz stays ready while Redis is down', async (t) => {
  const redis = await startRedis();
  t.after(() => redis.stop());
  const srv = startEverything({ OXMCP_REDIS_URL: `redis://127.0.0.1:${redis.port}/`, OXMCP_STATE_KEY: 'node-redis-test-state-key-0123456' });
  t.after(() => srv.kill());
  const url = await srv.url;
  const base = url.replace(/\/mcp$/, '');
  let r = await callTool(url, 'test_simple_text', {});
  assert.equal(r.status, 200, r.body);
  assert.equal(r.response.result.content[0].type, 'text');
  assert.deepEqual(await (await fetch(`${base}/readyz`)).json(), { status: 'ok', redis: 'up' });
  await redis.stop();
  const start = Date.now();
  for (let i = 0; i < 20; i++) {
    r = await callTool(url, 'test_simple_text', {});
    assert.equal(r.status, 200, r.body);
    assert.equal(r.response.result.content[0].type, 'text');
  }
  assert.ok(Date.now() - start < 5000, `${Date.now() - start} ms`);
  const ready = await fetch(`${base}/readyz`);
  assert.equal(ready.status, 200);
  assert.deepEqual(await ready.json(), { status: 'ok', redis: 'down' });
  assert.equal((await fetch(`${base}/healthz`)).status, 200);
});

test('a Redis without a state key is refused, naming it', () => {
  assert.throws(() => new Server({ name: 'r', version: '1', redisUrl: 'redis://127.0.0.1:9/' }),
    (e) => e.code === 'INVALID_OPTION' && /redisUrl needs stateKey \(OXMCP_STATE_KEY\)/.test(e.message));
  assert.throws(() => new Server({ name: 'r', version: '1', rateLimitStore: 'redis' }),
    (e) => /rateLimitStore "redis" needs redisUrl/.test(e.message));
  new Server({ name: 'r', version: '1', redisUrl: 'redis://127.0.0.1:9/', stateKey: 'node-redis-test-state-key-0123456', rateLimitStore: 'redis' });
});

test('replicas sharing a Redis refuse a DPoP proof replayed to another', async (t) => {
  const redis = await startRedis();
  t.after(() => redis.stop());
  const keys = dpopKeys();
  const replica = async () => {
    const s = new Server({ name: 'dpop', version: '1', handleSignals: false, redisUrl: `redis://127.0.0.1:${redis.port}/`, stateKey: 'node-dpop-state-key-0123456789' });
    s.registerTool('whoami', {}, (ctx) => ctx.caller?.name ?? '-');
    s.configureHttp({ oauth: { ...keys.oauth, dpop: 'required' } });
    const hs = http.createServer(s.nodeHandler());
    await new Promise((r) => hs.listen(0, '127.0.0.1', r));
    t.after(() => new Promise((r) => hs.close(r)));
    return `http://127.0.0.1:${hs.address().port}/mcp`;
  };
  const a = await replica();
  const b = await replica();
  const proof = keys.proof();
  const first = await callTool(a, 'whoami', {}, keys.headers(proof));
  assert.equal(first.status, 200, first.body);
  assert.equal(first.response.result.content[0].text, 'dpop-user');
  const replayed = await callTool(b, 'whoami', {}, keys.headers(proof));
  assert.equal(replayed.status, 401);
  assert.deepEqual(JSON.parse(replayed.body), { error: 'invalid_dpop_proof', error_description: 'The DPoP proof was used before' });
  assert.equal((await callTool(b, 'whoami', {}, keys.headers(keys.proof()))).status, 200);
});
