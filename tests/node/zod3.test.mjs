// A TS SDK 1.x server written against zod 3 (tests/node/fixtures/zod3-server.mjs), run from a
// project on zod 3 on oxmcp and on the SDK 1.x: the official client must see the same tools,
// prompts and answers. The project is a temp dir with zod 3 and zod-to-json-schema from npm and
// oxmcp linked into its node_modules (run with --preserve-symlinks, so that oxmcp resolves the
// project's zod, as an installed copy would). The SDK comes from .cache/peers-node
// (scripts/setup.sh installs it).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { ROOT, withTimeout } from './helpers.mjs';

const SDK = path.join(ROOT, '.cache', 'peers-node', 'node_modules', '@modelcontextprotocol', 'sdk', 'dist', 'esm');
let home;

before(() => {
  assert.ok(fs.existsSync(SDK), `the TS SDK 1.x is not installed at ${SDK} (scripts/setup.sh)`);
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'oxmcp-zod3-'));
  fs.writeFileSync(path.join(home, 'package.json'), JSON.stringify({
    name: 'zod3-project', version: '0.0.0', private: true, type: 'module',
    dependencies: { zod: '~3.25.0', 'zod-to-json-schema': '^3.25.1' },
  }));
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: home, encoding: 'utf8', shell: process.platform === 'win32' });
  assert.equal(r.status, 0, r.stderr);
  fs.symlinkSync(ROOT, path.join(home, 'node_modules', 'oxmcp'), 'dir');
  const source = fs.readFileSync(path.join(ROOT, 'tests', 'node', 'fixtures', 'zod3-server.mjs'), 'utf8');
  fs.writeFileSync(path.join(home, 'oxmcp.mjs'), source);
  fs.writeFileSync(path.join(home, 'sdk.mjs'), source.replace(/'oxmcp\/server\/([a-z]+\.js)'/g, (_, f) => `'${pathToFileURL(path.join(SDK, 'server', f)).href}'`));
});

after(() => {
  if (home) fs.rmSync(home, { recursive: true, force: true });
});

async function session(script) {
  const client = new Client({ name: 'zod3', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath, args: ['--preserve-symlinks', '--preserve-symlinks-main', script], cwd: home, stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr += d; });
  await withTimeout(client.connect(transport), 15_000, `connect ${script}`).catch((e) => { throw new Error(`${e.message}\n${stderr}`); });
  try {
    const byName = (a, b) => a.name.localeCompare(b.name);
    const tools = (await client.listTools()).tools.sort(byName);
    const prompts = (await client.listPrompts()).prompts.sort(byName);
    const call = (name, args) => client.callTool({ name, arguments: args });
    return {
      tools,
      prompts,
      add: await call('add', { a: 2, b: 3 }),
      echo: await call('echo', { text: 'hi' }),
      greet: await call('greet', { name: 'bob' }),
      greetLoud: await call('greet', { name: 'amy', loud: true }),
      greetShort: await call('greet', { name: 'b' }),
      pair: await call('pair', { a: 'x', b: 'y' }),
      pairSame: await call('pair', { a: 'x', b: 'x' }),
      review: await client.getPrompt({ name: 'review', arguments: { code: 'x = 1' } }),
      summary: await client.getPrompt({ name: 'summary', arguments: { topic: 'zod' } }),
    };
  } finally {
    await client.close();
  }
}

test('a zod 3 server on oxmcp lists and answers as on the SDK 1.x', { timeout: 120_000 }, async () => {
  const ox = await session('oxmcp.mjs');
  const sdk = await session('sdk.mjs');

  // Listings: the same JSON Schemas (draft-07, as zod-to-json-schema writes them) and prompt arguments.
  // Except a refined object (zod 3 wraps it in ZodEffects): the SDK 1.x lists it with no
  // properties (it finds no `.shape`), oxmcp lists the object's properties (docs/COMPATIBILITY.md).
  const notPair = (tools) => tools.filter((t) => t.name !== 'pair');
  assert.deepEqual(notPair(ox.tools), notPair(sdk.tools));
  assert.deepEqual(sdk.tools.find((t) => t.name === 'pair').inputSchema, { type: 'object', properties: {} });
  assert.deepEqual(Object.keys(ox.tools.find((t) => t.name === 'pair').inputSchema.properties), ['a', 'b']);
  assert.deepEqual(ox.prompts, sdk.prompts);
  const add = ox.tools.find((t) => t.name === 'add');
  assert.equal(add.inputSchema.properties.a.description, 'the first');
  assert.deepEqual(ox.tools.find((t) => t.name === 'echo').annotations, { readOnlyHint: true });
  assert.deepEqual(ox.prompts.find((p) => p.name === 'review').arguments, [
    { name: 'code', description: 'the code', required: true }, { name: 'lang', required: false },
  ]);

  // Answers, zod's defaults applied.
  for (const k of ['add', 'echo', 'greet', 'greetLoud', 'pair', 'review', 'summary']) assert.deepEqual(ox[k], sdk[k], k);
  assert.deepEqual(ox.greet.structuredContent, { greeting: 'hello bob' });
  // Refused arguments: isError on both (the text is the validator's own, see docs/COMPATIBILITY.md),
  // the refinement checked by the server's zod 3 schema.
  for (const k of ['greetShort', 'pairSame']) {
    assert.equal(ox[k].isError, true, k);
    assert.equal(sdk[k].isError, true, k);
  }
  assert.match(ox.pairSame.content[0].text, /a and b must differ/);
});
