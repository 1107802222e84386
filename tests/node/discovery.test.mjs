// Discovery: `defineTool` & co. make definitions with no server; `server.discover(dir)` imports a
// directory tree in sorted order and registers what its modules export. The same cases as
// tests/python/test_discovery.py: a fixture with nested modules and an excluded folder, a name
// registered by hand wins in either order, two discovered with one name are an error naming both
// places, a module that fails to import is an error naming its file. (The three languages' fixtures
// are compared over HTTP in the Python test.)
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Server, defineTool, defineResource, defineResourceTemplate, definePrompt, RegistrationError } from 'oxmcp';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../fixtures/discovery/node/tools', import.meta.url));
const PAIR = { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['a', 'b'] };

const tools = async (server) => (await server.client().request('tools/list', {})).tools;

const made = [];
after(() => { for (const root of made) rmSync(root, { recursive: true, force: true }); });

function tree(files) {
  const root = mkdtempSync(path.join(tmpdir(), 'oxmcp-discovery-'));
  made.push(root);
  // `import ... from 'oxmcp'` in the tree resolves to this checkout (discovery never enters node_modules).
  mkdirSync(path.join(root, 'node_modules'));
  symlinkSync(ROOT, path.join(root, 'node_modules', 'oxmcp'), 'dir');
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  return root;
}

const TOOL = (name, desc) => `import { defineTool } from 'oxmcp';
export const t = defineTool(${JSON.stringify(name)}, { description: ${JSON.stringify(desc)}, inputSchema: { type: 'object' } }, () => 'x');
`;

test('a fixture tree is discovered in order without its excluded folder', async () => {
  const server = new Server({ name: 'd', version: '1' });
  const found = await server.discover(FIXTURE, { exclude: ['vendor'] });
  assert.deepEqual(found.map((f) => [f.name, f.module]), [['add', 'math.mjs'], ['multiply', 'math.mjs'], ['shout', 'text/shout.cjs']]);
  assert.equal(found[0].file, path.join(FIXTURE, 'math.mjs'));
  assert.equal(found[0].line, 5);
  const list = await tools(server);
  assert.deepEqual(list.map((t) => t.name), ['add', 'multiply', 'shout']);
  assert.deepEqual(list[0].inputSchema, PAIR);
  assert.equal(list[0].description, 'Add two integers (discovered)');
  const r = await server.client().request('tools/call', { name: 'shout', arguments: { text: 'hi' } });
  assert.equal(r.content[0].text, 'HI');
  assert.deepEqual(server.discovered(), found);
});

test('a name registered by hand wins in either order', async () => {
  const manual = (s) => s.registerTool('add', { description: 'by hand', inputSchema: PAIR }, () => 'manual');
  const before = new Server({ name: 'd', version: '1' });
  manual(before);
  await before.discover(FIXTURE, { exclude: ['vendor'] });
  const later = new Server({ name: 'd', version: '1' });
  await later.discover(FIXTURE, { exclude: ['vendor'] });
  manual(later);
  for (const server of [before, later]) {
    const list = await tools(server);
    assert.deepEqual(list.map((t) => t.name), ['add', 'multiply', 'shout']);
    assert.equal(list[0].description, 'by hand');
    assert.deepEqual(server.discovered().map((d) => d.name), ['multiply', 'shout']);
    const r = await server.client().request('tools/call', { name: 'add', arguments: { a: 1, b: 2 } });
    assert.equal(r.content[0].text, 'manual');
  }
  assert.throws(() => manual(later), (e) => e instanceof RegistrationError && e.code === 'DUPLICATE_NAME');
});

test('two discovered with one name are an error naming both places', async () => {
  const root = tree({ 'a.mjs': TOOL('same', 'one'), 'b.mjs': TOOL('same', 'two') });
  await assert.rejects(new Server({ name: 'd', version: '1' }).discover(root), (e) => {
    assert.ok(e instanceof RegistrationError && e.code === 'DUPLICATE_NAME', String(e));
    assert.ok(e.message.startsWith("tool 'same' is discovered twice: in a.mjs ("), e.message);
    assert.ok(e.message.includes(`${path.join(root, 'a.mjs')}:2) and in b.mjs (${path.join(root, 'b.mjs')}:2)`), e.message);
    return true;
  });
});

test('a module that fails to import is an error naming its file', async () => {
  const root = tree({ 'good.mjs': TOOL('good', 'g'), 'nested/bad.mjs': 'throw new Error("boom at import");\n' });
  await assert.rejects(new Server({ name: 'd', version: '1' }).discover(root), (e) => {
    assert.ok(e instanceof RegistrationError && e.code === 'IMPORT_FAILED', String(e));
    assert.ok(e.message.includes(path.join(root, 'nested', 'bad.mjs')) && e.message.includes('boom at import'), e.message);
    assert.equal(e.cause.message, 'boom at import');
    return true;
  });
});

test('the definitions take the register options; resources, templates and prompts are discovered too', async () => {
  const root = tree({
    'docs.mjs': `import { defineResource, defineResourceTemplate, definePrompt } from 'oxmcp';
export const readme = defineResource('readme', 'doc://readme', { mimeType: 'text/plain' }, (uri) => ({ contents: [{ uri: uri.href, text: 'hi' }] }));
export const page = defineResourceTemplate('page', 'doc://pages/{id}', {}, (uri, { id }) => ({ contents: [{ uri: uri.href, text: id }] }));
export const greet = definePrompt('greet', { description: 'Greet' }, () => ({ messages: [] }));
`,
  });
  const server = new Server({ name: 'd', version: '1' });
  const found = await server.discover(root);
  // One module: by name.
  assert.deepEqual(found.map((f) => [f.kind, f.name]), [['resource template', 'doc://pages/{id}'], ['resource', 'doc://readme'], ['prompt', 'greet']]);
  const c = server.client();
  assert.equal((await c.request('resources/read', { uri: 'doc://pages/7' })).contents[0].text, '7');
  assert.equal((await c.request('prompts/list', {})).prompts[0].description, 'Greet');
  assert.throws(() => defineTool('x', {}, 'not a function'), TypeError);
  assert.throws(() => defineResourceTemplate('p', 'doc://fixed', {}, () => ({})), /has a \{variable\}/);
  assert.equal(defineResource('r', 'doc://r', () => ({})).kind, 'resource');
  assert.equal(definePrompt('p', () => ({ messages: [] })).name, 'p');
});

test('oxmcp run --discover says what it found and from where', async () => {
  const root = tree({
    'app.mjs': `import { Server } from 'oxmcp';
export const server = new Server({ name: 'cli', version: '1' });
server.registerTool('add', { description: 'by hand', inputSchema: { type: 'object' } }, () => 'manual');
`,
  });
  const cli = fileURLToPath(new URL('../../bindings-node/cli/main.mjs', import.meta.url));
  const child = spawn(process.execPath, [cli, 'run', path.join(root, 'app.mjs'), '--http', '127.0.0.1:0', '--discover', FIXTURE, '--exclude', 'vendor'],
    { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  try {
    const url = await new Promise((resolve, reject) => {
      child.stderr.on('data', (d) => {
        stderr += d;
        const m = /listening on (http:\/\/\S+)/.exec(stderr);
        if (m) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } }),
    });
    assert.deepEqual((await res.json()).result.tools.map((t) => t.name), ['add', 'multiply', 'shout']);
  } finally {
    child.kill('SIGKILL');
  }
  assert.deepEqual(stderr.split('\n').filter((l) => l.startsWith('discovered:')), [
    'discovered: tool add \u2190 math.mjs:5 (registered by hand instead)',
    'discovered: tool multiply \u2190 math.mjs:6',
    'discovered: tool shout \u2190 text/shout.cjs:4',
  ]);
});
