// The Skills extension from Node, over the real transports in both eras, the TS SDK's
// `ext/skills` spellings under `oxmcp/ext/skills`, and the TS SDK 2.4 client's SkillsClient,
// which verifies every file's size, digest and frontmatter against the entry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { Server, McpServer } from 'oxmcp';
import { SkillsExtension, SkillCatalog, SkillCatalogError, memorySkillFiles, skillEntry, SKILLS_EXTENSION_ID } from 'oxmcp/ext/skills';
import { loadSkills, nodeSkillFiles } from 'oxmcp/ext/skills/node';
import { ROOT, startHttp, post, exited, withTimeout, StdioPeer } from './helpers.mjs';

const EVERYTHING = path.join(ROOT, 'examples', 'node', 'everything.mjs');
const SQLITE = path.join(ROOT, 'examples', 'node', 'sqlite-explorer.mjs');
const SKILLS = path.join(ROOT, 'examples', 'skills');
const ALL = ['skill://explore-database/SKILL.md', 'skill://live/clock/SKILL.md', 'skill://ops/release-notes/SKILL.md'];
const sha = (b) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

function bytesOf(read) {
  assert.equal(read.contents.length, 1);
  const c = read.contents[0];
  return c.text !== undefined ? Buffer.from(c.text, 'utf8') : Buffer.from(c.blob, 'base64');
}

async function verifyAll(listing, read) {
  let files = 0;
  for (const s of listing.skills) {
    if (s.resources === 'dynamic') continue;
    assert.ok(s.resources.some((r) => r.uri === s.uri));
    for (const r of s.resources) {
      const got = bytesOf(await read(r.uri));
      assert.equal(got.length, r.size, r.uri);
      assert.equal(sha(got), r.digest, r.uri);
      files += 1;
    }
  }
  return files;
}

const result = (r) => { assert.ok(r.response?.result, r.body); return r.response.result; };

test('list, get and read every file over HTTP in both eras', async () => {
  const srv = await startHttp(EVERYTHING);
  try {
    const d = result(await post(srv.url, 'server/discover'));
    assert.deepEqual(d.capabilities.extensions[SKILLS_EXTENSION_ID], { directoryRead: true });
    const listing = result(await post(srv.url, 'skills/list'));
    assert.deepEqual(listing.skills.map((s) => s.uri), ALL);
    assert.equal(listing.resultType, 'complete');
    assert.ok('ttlMs' in listing && 'cacheScope' in listing);
    assert.equal(listing.skills[1].resources, 'dynamic');
    assert.equal(await verifyAll(listing, async (uri) => result(await post(srv.url, 'resources/read', { uri }))), 5);
    const got = result(await post(srv.url, 'skills/get', { uri: ALL[2] }));
    assert.deepEqual(got.skill, listing.skills[2]);
    const unknown = await post(srv.url, 'skills/get', { uri: 'skill://nope/SKILL.md' });
    assert.deepEqual(unknown.response.error, { code: -32602, message: 'Unknown skill URI: skill://nope/SKILL.md' });
    const dir = result(await post(srv.url, 'resources/directory/read', { uri: 'skill://explore-database' }));
    assert.deepEqual(dir.resources.map((c) => [c.name, c.mimeType]),
      [['SKILL.md', 'text/markdown'], ['references', 'inode/directory'], ['scripts', 'inode/directory']]);
    const clock = bytesOf(result(await post(srv.url, 'resources/read', { uri: ALL[1] })));
    assert.match(clock.toString(), /seconds since the Unix epoch/);

    // Legacy: a session, the same entries without cache hints, the same bytes.
    const init = await fetch(srv.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } } }),
    });
    const sid = init.headers.get('mcp-session-id');
    assert.deepEqual(JSON.parse(await init.text()).result.capabilities.extensions[SKILLS_EXTENSION_ID], { directoryRead: true });
    const legacy = async (method, params = {}) => {
      const r = await fetch(srv.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...(sid ? { 'mcp-session-id': sid } : {}) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method, params }),
      });
      const text = await r.text();
      return text ? JSON.parse(text.startsWith('event:') || text.startsWith('data:') ? text.split('\n').find((l) => l.startsWith('data:')).slice(5) : text) : {};
    };
    await legacy('notifications/initialized');
    const old = (await legacy('skills/list')).result;
    assert.deepEqual(old.skills, listing.skills);
    assert.equal(old.ttlMs, undefined);
    assert.equal(await verifyAll(old, async (uri) => (await legacy('resources/read', { uri })).result), 5);
  } finally {
    srv.kill();
  }
});

test('skills over stdio in both eras', async () => {
  const peer = new StdioPeer(EVERYTHING);
  try {
    const listing = (await peer.request('skills/list')).result;
    assert.deepEqual(listing.skills.map((s) => s.uri), ALL);
    const read = (await peer.request('resources/read', { uri: 'skill://ops/release-notes/template.md' })).result;
    assert.equal(sha(bytesOf(read)), listing.skills[2].resources[1].digest);
  } finally {
    peer.kill();
  }
  const legacy = new StdioPeer(EVERYTHING);
  try {
    const init = await legacy.initialize();
    assert.equal(init.result.capabilities.extensions[SKILLS_EXTENSION_ID].directoryRead, true);
    const got = (await legacy.request('skills/get', { uri: ALL[0] }, { modern: false })).result;
    assert.equal(got.skill.frontmatter.name, 'explore-database');
    assert.equal(got.ttlMs, undefined);
  } finally {
    legacy.kill();
  }
});

test('hidden skills are answered like unknown ones', async () => {
  const tokens = JSON.stringify({ alice: { tokens: ['alice-tok'], resources: ['skill://explore-database/*'] }, bob: { tokens: ['bob-tok'] } });
  const prev = process.env.OXMCP_TOKENS;
  process.env.OXMCP_TOKENS = tokens;
  let srv;
  try {
    srv = await startHttp(EVERYTHING);
  } finally {
    if (prev === undefined) delete process.env.OXMCP_TOKENS; else process.env.OXMCP_TOKENS = prev;
  }
  const as = (tok) => ({ headers: { authorization: `Bearer ${tok}` } });
  try {
    assert.deepEqual(result(await post(srv.url, 'skills/list', {}, as('bob-tok'))).skills.map((s) => s.uri), ALL);
    assert.deepEqual(result(await post(srv.url, 'skills/list', {}, as('alice-tok'))).skills.map((s) => s.uri), [ALL[0]]);
    const hidden = await post(srv.url, 'skills/get', { uri: ALL[2] }, as('alice-tok'));
    assert.deepEqual(hidden.response.error, { code: -32602, message: `Unknown skill URI: ${ALL[2]}` });
    const dir = await post(srv.url, 'resources/directory/read', { uri: 'skill://ops/release-notes' }, as('alice-tok'));
    assert.equal(dir.response.error.code, -32602);
    const read = await post(srv.url, 'resources/read', { uri: 'skill://ops/release-notes/template.md' }, as('alice-tok'));
    assert.equal(read.response.error.message, 'Resource not found');
  } finally {
    srv.kill();
  }
});

const UNLISTED = 'skill://internal/handover/SKILL.md'; // examples/unlisted-skills, served { listed: false }

async function listedUris(url, method, key) {
  const out = [];
  let params = {};
  for (let i = 0; i < 100; i += 1) {
    const page = result(await post(url, method, params));
    out.push(...page[key].map((r) => r.uri ?? r.uriTemplate));
    if (page.nextCursor === undefined) return out;
    params = { cursor: page.nextCursor };
  }
  throw new Error(`${method} did not end`);
}

async function legacySession(url) {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
  const send = async (method, params = {}, id = 2) => {
    const r = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', ...(id === null ? {} : { id }), method, params }) });
    if (r.headers.get('mcp-session-id')) headers['mcp-session-id'] = r.headers.get('mcp-session-id');
    const text = await r.text();
    return text ? JSON.parse(text.startsWith('event:') || text.startsWith('data:') ? text.split('\n').find((l) => l.startsWith('data:')).slice(5) : text) : {};
  };
  await send('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } }, 0);
  await send('notifications/initialized', {}, null);
  return send;
}

test('an unlisted skill is served by its URI only', async () => {
  const srv = await startHttp(EVERYTHING);
  try {
    assert.deepEqual(result(await post(srv.url, 'skills/list')).skills.map((s) => s.uri), ALL);
    for (const [method, key] of [['resources/list', 'resources'], ['resources/templates/list', 'resourceTemplates']]) {
      const uris = await listedUris(srv.url, method, key);
      assert.ok(uris.some((u) => u.startsWith('skill://')), method);
      assert.ok(!uris.some((u) => u.startsWith('skill://internal/')), `${method}: ${uris}`);
    }
    const entry = result(await post(srv.url, 'skills/get', { uri: UNLISTED })).skill;
    assert.equal(entry.frontmatter.name, 'handover');
    assert.equal(entry.resources.length, 2);
    assert.equal(await verifyAll({ skills: [entry] }, async (uri) => result(await post(srv.url, 'resources/read', { uri }))), 2);
    const dir = result(await post(srv.url, 'resources/directory/read', { uri: 'skill://internal/handover' }));
    assert.deepEqual(dir.resources.map((c) => c.name), ['SKILL.md', 'checklist.md']);
    const legacy = await legacySession(srv.url);
    assert.deepEqual((await legacy('skills/list')).result.skills.map((s) => s.uri), ALL);
    assert.deepEqual((await legacy('skills/get', { uri: UNLISTED })).result.skill, entry);
  } finally {
    srv.kill();
  }
});

test('skills built in code can be unlisted', async () => {
  const s = new Server({ name: 'unlisted', version: '1.0.0', handleSignals: false });
  s.addSkill('quiet', { 'SKILL.md': '---\nname: quiet\ndescription: Not advertised.\n---\nHush.\n' }, { listed: false });
  s.addSkill('loud', { 'SKILL.md': '---\nname: loud\ndescription: Advertised.\n---\nHello.\n' });
  s.dynamicSkill('gen/echo', { description: 'Generated, not advertised.', listed: false },
    () => '---\nname: echo\ndescription: Generated, not advertised.\n---\nEcho.\n');
  const { url } = await s.listen({ host: '127.0.0.1', port: 0 });
  try {
    assert.deepEqual(result(await post(url, 'skills/list')).skills.map((e) => e.uri), ['skill://loud/SKILL.md']);
    assert.ok(!(await listedUris(url, 'resources/list', 'resources')).some((u) => u.includes('quiet')));
    assert.deepEqual(await listedUris(url, 'resources/templates/list', 'resourceTemplates'), []);
    assert.equal(result(await post(url, 'skills/get', { uri: 'skill://quiet/SKILL.md' })).skill.frontmatter.name, 'quiet');
    assert.equal(result(await post(url, 'skills/get', { uri: 'skill://gen/echo/SKILL.md' })).skill.resources, 'dynamic');
    assert.match(bytesOf(result(await post(url, 'resources/read', { uri: 'skill://gen/echo/SKILL.md' }))).toString(), /Echo\./);
  } finally {
    await s.close();
  }
});

function scratch(tag) {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), `oxmcp-skills-${tag}-`));
  fs.cpSync(SKILLS, d, { recursive: true });
  return d;
}

test('a changed file changes its digest', async () => {
  const d = scratch('changed');
  try {
    const digest = async () => (await loadSkills(d)).entries.find((e) => e.uri === ALL[2]).resources[1].digest;
    const before = await digest();
    assert.equal(before, sha(fs.readFileSync(path.join(d, 'ops/release-notes/template.md'))));
    fs.writeFileSync(path.join(d, 'ops/release-notes/template.md'), '# changed\n');
    const after = await digest();
    assert.notEqual(before, after);
    assert.equal(after, sha(Buffer.from('# changed\n')));
    // And served: a server built on the changed folder lists the new digest.
    const s = new Server({ name: 'x', version: '1' });
    assert.deepEqual(s.addSkillsDir(d), [ALL[0], ALL[2]]);
  } finally {
    fs.rmSync(d, { recursive: true, force: true });
  }
});

test('malformed skills, symlinks and traversal are refused at registration', async () => {
  const refused = async (setup) => {
    const d = scratch('bad');
    try {
      setup(d);
      const s = new Server({ name: 'x', version: '1' });
      let own;
      try { s.addSkillsDir(d); } catch (e) { own = e; }
      assert.ok(own, 'addSkillsDir refuses');
      await assert.rejects(loadSkills(d), (e) => e instanceof SkillCatalogError && e.message.includes(e.problems[0].path));
      return own.message;
    } finally {
      fs.rmSync(d, { recursive: true, force: true });
    }
  };
  let m = await refused((d) => fs.writeFileSync(path.join(d, 'ops/release-notes/SKILL.md'), '---\nname: Release\ndescription: x\n---\n'));
  assert.match(m, /ops\/release-notes\/SKILL\.md.*lowercase/s);
  m = await refused((d) => fs.symlinkSync('/etc/passwd', path.join(d, 'explore-database', 'passwd')));
  assert.match(m, /explore-database\/passwd.*symlink/s);
  m = await refused((d) => fs.writeFileSync(path.join(d, 'explore-database/SKILL.md'), Buffer.from('---\nname: explore-database\ndescription: \xff\n---\n', 'latin1')));
  assert.match(m, /explore-database\/SKILL\.md.*UTF-8/s);
  const s = new Server({ name: 'x', version: '1' });
  assert.throws(() => s.addSkill('a', { 'SKILL.md': '---\nname: a\ndescription: d\n---\n', '../x': '1' }), /'\.\.'/);
  assert.throws(() => s.addSkill('a', { 'SKILL.md': '---\nname: a\n---\n' }), /description/);
  await assert.rejects(skillEntry('a', { 'SKILL.md': '---\nname: b\ndescription: d\n---\n' }), SkillCatalogError);
  await assert.rejects(SkillsExtension.load(memorySkillFiles({ 'big/SKILL.md': '---\nname: big\ndescription: d\n---\n',
    ...Object.fromEntries(Array.from({ length: 512 }, (_, i) => [`big/f${i}`, ''])) })), /at most 512 files/);
  assert.throws(() => new SkillsExtension({ source: { list() {}, get() {}, read() {} } }), /not supported/);
});

test('the TS SDK spellings: a memory catalog and loadSkills attached to McpServer', async () => {
  const files = memorySkillFiles({
    'team/review/SKILL.md': '---\nname: review\ndescription: Review a change.\n---\n# Review\n',
    'team/review/checklist.md': '- tests\n',
  });
  const catalog = await SkillsExtension.load(files, { prefix: 'acme' });
  assert.ok(catalog instanceof SkillCatalog);
  assert.deepEqual(catalog.entries.map((e) => e.uri), ['skill://acme/team/review/SKILL.md']);
  const entry = await skillEntry('team/review', { 'SKILL.md': '---\nname: review\ndescription: Review a change.\n---\n# Review\n', 'checklist.md': '- tests\n' });
  assert.deepEqual(entry.resources.map((r) => r.digest), catalog.entries[0].resources.map((r) => r.digest));
  const dir = await loadSkills(SKILLS);
  assert.deepEqual(dir.entries.map((e) => e.uri), [ALL[0], ALL[2]]);
  assert.deepEqual((await SkillsExtension.load(nodeSkillFiles(SKILLS))).entries, dir.entries);

  // attach(mcp) serves the catalog on an oxmcp McpServer: skills/list answers its entries.
  const mcp = new McpServer({ name: 'ported', version: '1.0.0' });
  catalog.attach(mcp);
  catalog.attach(mcp); // again for the same server: nothing
  assert.throws(() => dir.attach(mcp), /one per server/);
  const res = await mcp.fetch(new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'skills/list' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'skills/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } }),
  }));
  const body = await res.json();
  // Each as the catalog holds it, plus the digest oxmcp lists it with (docs/CATALOG.md).
  assert.ok(body.result.skills.every((e) => e._meta['io.oxmcp/digest'].startsWith('sha256:')));
  assert.deepEqual(body.result.skills.map(({ _meta, ...e }) => e), [...catalog.entries]);
});

/** `cmd --http 127.0.0.1:PORT` (any language's server), once its port accepts connections. */
async function startCmd([bin, ...args]) {
  const net = await import('node:net');
  const port = await new Promise((resolve) => {
    const l = net.createServer().listen(0, '127.0.0.1', () => { const p = l.address().port; l.close(() => resolve(p)); });
  });
  const child = spawn(bin, [...args, '--http', `127.0.0.1:${port}`], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited ${child.exitCode}: ${stderr}`);
    const up = await new Promise((resolve) => {
      const sock = net.connect(port, '127.0.0.1', () => { sock.end(); resolve(true); });
      sock.on('error', () => resolve(false));
    });
    if (up) break;
    if (Date.now() > deadline) { child.kill('SIGKILL'); throw new Error(`${bin} did not listen: ${stderr}`); }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, url: `http://127.0.0.1:${port}/mcp`, kill: () => { if (child.exitCode === null) child.kill('SIGKILL'); } };
}

async function withClient(url, fn) {
  const client = new Client({ name: 'skills-host', version: '1.0.0' });
  await withTimeout(client.connect(new StreamableHTTPClientTransport(new URL(url))), 15_000, 'connect');
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

async function readAllWithSkillsClient(client) {
  const skills = new SkillsClient(client);
  assert.equal(skills.supported, true);
  assert.equal(skills.directoryRead, true);
  const { skills: entries } = await skills.list();
  const read = {};
  for (const e of entries) {
    if (e.resources === 'dynamic') {
      const f = await skills.read(e);
      assert.equal(f.verified, false);
      continue;
    }
    for (const r of e.resources) {
      const rel = r.uri.slice(e.uri.length - 'SKILL.md'.length);
      const f = await skills.read(e, rel); // size, digest and (SKILL.md) frontmatter checked
      assert.equal(f.verified, true);
      read[r.uri] = f.bytes.length;
    }
  }
  return { uris: entries.map((e) => e.uri), read };
}

for (const [language, cmd] of [
  ['node', () => [process.execPath, EVERYTHING]],
  ['python', () => [path.join(ROOT, '.venv', 'bin', 'python'), path.join(ROOT, 'examples', 'python', 'everything.py')]],
  ['rust', () => {
    const target = process.env.CARGO_TARGET_DIR || path.join(ROOT, 'target');
    const b = spawnSync('cargo', ['build', '-q', '-p', 'oxmcp-examples', '--bin', 'everything'], { cwd: ROOT, stdio: 'inherit', timeout: 900_000 });
    assert.equal(b.status, 0, 'cargo build');
    return [path.join(target, 'debug', 'everything')];
  }],
]) {
  test(`the TS SDK 2.4 SkillsClient verifies every file of the ${language} everything server`, { timeout: 900_000 }, async () => {
    const srv = await startCmd(cmd());
    try {
      const got = await withClient(srv.url, readAllWithSkillsClient);
      assert.deepEqual(got.uris, ALL);
      assert.equal(Object.keys(got.read).length, 5);
      assert.equal(got.read['skill://ops/release-notes/template.md'], fs.statSync(path.join(SKILLS, 'ops/release-notes/template.md')).size);
    } finally {
      srv.kill();
    }
  });
}

test('the TS SDK 2.4 SkillsClient over stdio against the node server', async () => {
  const client = new Client({ name: 'skills-stdio', version: '1.0.0' });
  await withTimeout(client.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING], cwd: ROOT, stderr: 'pipe' })), 15_000, 'connect');
  try {
    const got = await readAllWithSkillsClient(client);
    assert.deepEqual(got.uris, ALL);
  } finally {
    await client.close();
  }
});

test('the node SQLite explorer serves explore-database', async () => {
  const srv = await startHttp(SQLITE);
  try {
    const listing = result(await post(srv.url, 'skills/list'));
    assert.deepEqual(listing.skills.map((s) => s.uri), [ALL[0]]);
    assert.equal(await verifyAll(listing, async (uri) => result(await post(srv.url, 'resources/read', { uri }))), 3);
  } finally {
    srv.child.kill('SIGTERM');
    await exited(srv.child);
  }
});
