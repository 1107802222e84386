// `npx oxmcp` (bindings-node/cli/main.mjs), each verb over real subprocesses; the same verbs and
// output as the Python console script (tests/python/test_cli.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ROOT, withTimeout, exited } from './helpers.mjs';

const CLI = path.join(ROOT, 'bindings-node', 'cli', 'main.mjs');
const QUICKSTART = path.join(ROOT, 'examples', 'node', 'quickstart.mjs');
const EVERYTHING = path.join(ROOT, 'examples', 'node', 'everything.mjs');
const PROGRESS = path.join(ROOT, 'tests', 'node', 'fixtures', 'progress.mjs');
const PY_QUICKSTART = path.join(ROOT, 'examples', 'python', 'quickstart.py');
const VENV_PY = path.join(ROOT, '.venv', 'bin', 'python');

function oxmcp(args, { env = {}, timeout = 60_000 } = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout, env: { ...process.env, ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

async function waitListening(port, child, ms = 20_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    const ok = await new Promise((resolve) => {
      const s = net.connect({ host: '127.0.0.1', port }, () => { s.destroy(); resolve(true); });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error('the server did not listen in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('help lists every verb', () => {
  const r = oxmcp(['--help']);
  assert.equal(r.code, 0);
  for (const verb of ['run', 'dev', 'inspect', 'call', 'install']) assert.match(r.stdout, new RegExp(`\\b${verb}\\b`));
  assert.equal(oxmcp(['frobnicate']).code, 2);
});

test('inspect: text with schemas, --json, and -- CMD', () => {
  let r = oxmcp(['inspect', QUICKSTART]);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.split('\n');
  assert.match(lines[0], /^quickstart 1\.0\.0 \(protocol /);
  for (const l of ['tools (1)', '  add: Add two numbers', 'resources (1)', '  demo://motd (motd) [text/plain]', 'resource templates (0)', 'prompts (1)', '  review(code)']) {
    assert.ok(lines.includes(l), `${l} in\n${r.stdout}`);
  }
  assert.ok(lines.some((l) => l.startsWith('    input: {"$schema"') && l.includes('"required":["a","b"]')), r.stdout);
  r = oxmcp(['inspect', '--json', QUICKSTART]);
  assert.equal(r.code, 0, r.stderr);
  const info = JSON.parse(r.stdout);
  assert.deepEqual(info.server, { name: 'quickstart', version: '1.0.0' });
  assert.deepEqual(info.tools.map((t) => t.name), ['add']);
  assert.deepEqual(info.resources.map((x) => x.uri), ['demo://motd']);
  r = oxmcp(['inspect', '--', process.execPath, QUICKSTART]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^ {2}add: Add two numbers$/m);
  // A module exporting a factory (createServer), as the everything server does.
  r = oxmcp(['inspect', EVERYTHING]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^ {2}test_simple_text: /m);
});

test('inspect and call a Python app through the Python CLI', () => {
  const env = { OXMCP_PYTHON: VENV_PY };
  const r = oxmcp(['call', PY_QUICKSTART, 'add', 'a=40', 'b=2'], { env });
  assert.deepEqual([r.code, r.stdout], [0, '42\n'], r.stderr);
});

test('inspect shows what the server discovered and from where', () => {
  // The discovery fixture discovers its tools in its own code; `add` is then registered by hand,
  // which wins, so it is not among the discovered.
  const app = path.join(ROOT, 'tests', 'fixtures', 'discovery', 'node', 'server.mjs');
  const r = oxmcp(['inspect', '--json', app]);
  assert.equal(r.code, 0, r.stderr);
  const found = JSON.parse(r.stdout).discovered;
  assert.deepEqual(found.map((d) => [d.kind, d.name]), [['tool', 'multiply'], ['tool', 'shout']]);
  assert.match(found[0].from, /^math\.mjs:\d+$/);
  const text = oxmcp(['inspect', app]).stdout.split('\n');
  const at = text.indexOf('discovered (2)');
  assert.ok(at > 0, text.join('\n'));
  assert.equal(text[at + 1], `  tool multiply \u2190 ${found[0].from}`);
  assert.equal(JSON.parse(oxmcp(['inspect', '--json', QUICKSTART]).stdout).discovered, undefined);
});

test('call: key=value, --args JSON, --json, -- CMD TOOL', () => {
  let r = oxmcp(['call', QUICKSTART, 'add', 'a=1', 'b=2']);
  assert.deepEqual([r.code, r.stdout], [0, '{"sum":3}\n'], r.stderr);
  r = oxmcp(['call', '--json', QUICKSTART, 'add', '--args', '{"a": 1}', 'b=5']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout).structuredContent, { sum: 6 });
  r = oxmcp(['call', '--', process.execPath, QUICKSTART, 'add', 'a=2', 'b=3']);
  assert.deepEqual([r.code, r.stdout], [0, '{"sum":5}\n'], r.stderr);
});

test('run --http serves what call and inspect reach by URL', async () => {
  const port = await freePort();
  const child = spawn(process.execPath, [CLI, 'run', QUICKSTART, '--http', `127.0.0.1:${port}`], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const url = `http://127.0.0.1:${port}/mcp`;
  try {
    await waitListening(port, child);
    const r = oxmcp(['call', url, 'add', 'a=1', 'b=2']);
    assert.deepEqual([r.code, r.stdout], [0, '{"sum":3}\n'], r.stderr);
  } finally {
    child.kill('SIGTERM');
    assert.equal((await exited(child)).code, 0, stderr);
  }
  // Read after the exit: spawnSync above blocks the loop that collects the child's stderr.
  assert.match(stderr, new RegExp(`listening on ${url}`));
});

test('call draws a progress bar on a terminal (script gives it a pty)', () => {
  assert.ok(spawnSync('script', ['--version']).status === 0, 'util-linux `script` is needed for the pty');
  const cmd = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} call ${JSON.stringify(PROGRESS)} countdown n=3`;
  const r = spawnSync('script', ['-qec', cmd, '/dev/null'], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stdout);
  const out = r.stdout.replace(/\r/g, '\n');
  assert.match(out, /countdown: 100%\|=+\| 3\/3/);
  assert.match(out, /countdown: +(33|67)%\|/);
  assert.match(out, /liftoff/);
  // Not a terminal: no bar, just the result.
  const plain = oxmcp(['call', PROGRESS, 'countdown', 'n=3']);
  assert.deepEqual([plain.code, plain.stdout, plain.stderr], [0, 'liftoff\n', '']);
});

test('errors are one line with a non-zero exit', async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'oxmcp-cli-'));
  let r = oxmcp(['inspect', 'missing.mjs']);
  assert.deepEqual([r.code, r.stderr], [1, 'oxmcp: error: no such file: missing.mjs\n']);
  const bad = path.join(tmp, 'bad.mjs');
  fs.writeFileSync(bad, "import 'no-such-package-here';\n");
  r = oxmcp(['run', bad]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, new RegExp(`^oxmcp: error: cannot import ${bad}: .*no-such-package-here.*\n$`));
  r = oxmcp(['inspect', bad]);
  assert.equal(r.code, 1);
  assert.equal(r.stderr.split('\n')[0], 'oxmcp: error: the server exited at start; its stderr:');
  assert.match(r.stderr, /cannot import .*no-such-package-here/);
  r = oxmcp(['call', '--', process.execPath, '-e', "process.stderr.write('boom at start\\n'); process.exit(3)", 'add']);
  assert.deepEqual([r.code, r.stderr], [1, 'oxmcp: error: the server exited at start; its stderr:\nboom at start\n']);
  const port = await freePort();
  r = oxmcp(['inspect', `http://127.0.0.1:${port}/mcp`]);
  assert.deepEqual([r.code, r.stderr], [1, `oxmcp: error: cannot connect to http://127.0.0.1:${port}/mcp: connection refused\n`]);
  r = oxmcp(['call', QUICKSTART, 'nope']);
  assert.deepEqual([r.code, r.stderr], [1, "oxmcp: error: no tool named 'nope' (tools: add)\n"]);
  const none = path.join(tmp, 'none.mjs');
  fs.writeFileSync(none, 'export const x = 1;\n');
  r = oxmcp(['run', none]);
  assert.deepEqual([r.code, r.stderr], [1, `oxmcp: error: ${none}: found 0 oxmcp.Server objects; name one with ${none}:NAME\n`]);
  r = oxmcp(['run', QUICKSTART, '--transport', 'stdio', '--http', '127.0.0.1:1']);
  assert.deepEqual([r.code, r.stderr], [1, 'oxmcp: error: --transport stdio and --http contradict each other\n']);
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('dev restarts the server when the app changes', async () => {
  const tmp = fs.mkdtempSync(path.join(ROOT, 'tests', 'node', 'fixtures', '.dev-'));
  const app = path.join(tmp, 'app.mjs');
  fs.writeFileSync(app, fs.readFileSync(QUICKSTART, 'utf8'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/mcp`;
  const child = spawn(process.execPath, [CLI, 'dev', app, '--http', `127.0.0.1:${port}`], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  try {
    await waitListening(port, child);
    assert.match(oxmcp(['inspect', url]).stdout, /^ {2}add: Add two numbers$/m);
    await new Promise((r) => setTimeout(r, 500));
    fs.writeFileSync(app, fs.readFileSync(QUICKSTART, 'utf8').replace("description: 'Add two numbers'", "description: 'Add, after a reload'"));
    await withTimeout((async () => {
      for (;;) {
        if (/^ {2}add: Add, after a reload$/m.test(oxmcp(['inspect', url, '--timeout', '5']).stdout)) return;
        await new Promise((r) => setTimeout(r, 300));
      }
    })(), 30_000, 'dev restart');
  } finally {
    child.kill('SIGTERM');
    await exited(child, 20_000);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  assert.match(stderr, new RegExp(`oxmcp dev: serving app\\.mjs on ${url}; restarting on changes under `));
  assert.match(stderr, /oxmcp dev: app\.mjs changed, restarting/);
});

const CLIENT_FILES = {
  'claude-code': ['.claude.json', 'mcpServers', true],
  'claude-desktop': ['.config/Claude/claude_desktop_config.json', 'mcpServers', false],
  cursor: ['.cursor/mcp.json', 'mcpServers', false],
  vscode: ['.config/Code/User/mcp.json', 'servers', true],
};

for (const [client, [rel, key, typed]] of Object.entries(CLIENT_FILES)) {
  test(`install ${client} merges into its file and keeps other entries`, () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'oxmcp-home-'));
    const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') };
    const file = path.join(home, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const other = { command: 'npx', args: ['-y', 'other-server'] };
    fs.writeFileSync(file, JSON.stringify({ theme: 'dark', [key]: { other } }));
    let r = oxmcp(['install', client, QUICKSTART, '--env', 'API_KEY=k1', '--env', 'MODE=a=b'], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `added 'quickstart' in ${client} config: ${file}\n`);
    let data = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.equal(data.theme, 'dark');
    assert.deepEqual(data[key].other, other);
    const expected = { command: process.execPath, args: [CLI, 'run', QUICKSTART], env: { API_KEY: 'k1', MODE: 'a=b' } };
    assert.deepEqual(data[key].quickstart, typed ? { type: 'stdio', ...expected } : expected);
    assert.equal(Object.keys(data[key].quickstart)[0], typed ? 'type' : 'command');
    assert.equal(oxmcp(['install', client, `${QUICKSTART}:server`, '--name', 'qs2'], { env }).code, 0);
    r = oxmcp(['install', client, QUICKSTART], { env });
    assert.match(r.stdout, /^updated 'quickstart'/);
    data = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.deepEqual(Object.keys(data[key]).sort(), ['other', 'qs2', 'quickstart']);
    assert.equal(data[key].qs2.args.at(-1), `${QUICKSTART}:server`);
    assert.equal(data[key].quickstart.env, undefined);
    if (client === 'cursor') {
      // The entry it writes starts the server: run it as the client would and list the tools.
      const e = data[key].quickstart;
      r = oxmcp(['inspect', '--', e.command, ...e.args]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /tools \(1\)/);
    }
    fs.rmSync(home, { recursive: true, force: true });
  });
}

test('install --print writes nothing; a file that is not JSON is left alone', () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'oxmcp-home-'));
  let r = oxmcp(['install', 'cursor', QUICKSTART, '--print', '--name', 'calc'], { env: { HOME: home } });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { mcpServers: { calc: { command: process.execPath, args: [CLI, 'run', QUICKSTART] } } });
  assert.equal(fs.existsSync(path.join(home, '.cursor')), false);
  const file = path.join(home, '.cursor', 'mcp.json');
  fs.mkdirSync(path.dirname(file));
  fs.writeFileSync(file, '{not json');
  r = oxmcp(['install', 'cursor', QUICKSTART], { env: { HOME: home } });
  assert.deepEqual([r.code, r.stderr], [1, `oxmcp: error: ${file} is not valid JSON; not touching it\n`]);
  assert.equal(fs.readFileSync(file, 'utf8'), '{not json');
  fs.rmSync(home, { recursive: true, force: true });
});

test("install keeps the file's mode and a symlink, and leaves no temp files", () => {
  // Client configs hold API keys in "env": a new one is private to its owner, an existing one
  // keeps the mode its owner gave it, and a symlinked one (dotfiles) stays a link to its target.
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'oxmcp-home-'));
  const env = { HOME: home };
  const cursor = path.join(home, '.cursor');
  const file = path.join(cursor, 'mcp.json');
  const mode = (p) => fs.statSync(p).mode & 0o7777;
  const names = (p) => JSON.parse(fs.readFileSync(p, 'utf8')).mcpServers;
  assert.equal(oxmcp(['install', 'cursor', QUICKSTART], { env }).code, 0);
  assert.equal(mode(file), 0o600);
  assert.equal(oxmcp(['install', 'cursor', QUICKSTART, '--name', 'b'], { env }).code, 0);
  assert.equal(mode(file), 0o600);
  fs.chmodSync(file, 0o640);
  assert.equal(oxmcp(['install', 'cursor', QUICKSTART, '--name', 'c'], { env }).code, 0);
  assert.equal(mode(file), 0o640);
  assert.deepEqual(Object.keys(names(file)).sort(), ['b', 'c', 'quickstart']);
  assert.deepEqual(fs.readdirSync(cursor), ['mcp.json']);

  const dotfiles = path.join(home, 'dotfiles');
  fs.mkdirSync(dotfiles);
  const target = path.join(dotfiles, 'cursor-mcp.json');
  fs.renameSync(file, target);
  fs.chmodSync(target, 0o600);
  const rel = path.join('..', 'dotfiles', 'cursor-mcp.json');
  fs.symlinkSync(rel, file);
  const r = oxmcp(['install', 'cursor', QUICKSTART, '--name', 'd'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(fs.lstatSync(file).isSymbolicLink());
  assert.equal(fs.readlinkSync(file), rel);
  assert.deepEqual(Object.keys(names(target)).sort(), ['b', 'c', 'd', 'quickstart']);
  assert.equal(mode(target), 0o600);
  assert.deepEqual(fs.readdirSync(cursor), ['mcp.json']);
  assert.deepEqual(fs.readdirSync(dotfiles), ['cursor-mcp.json']);
  // A link whose target does not exist yet: the target is created, the link kept.
  fs.unlinkSync(file);
  fs.symlinkSync(path.join(dotfiles, 'new.json'), file);
  assert.equal(oxmcp(['install', 'cursor', QUICKSTART], { env }).code, 0);
  assert.ok(fs.lstatSync(file).isSymbolicLink());
  assert.ok(Object.hasOwn(names(path.join(dotfiles, 'new.json')), 'quickstart'));
  assert.equal(mode(path.join(dotfiles, 'new.json')), 0o600);
  assert.deepEqual(fs.readdirSync(dotfiles).sort(), ['cursor-mcp.json', 'new.json']);
  fs.rmSync(home, { recursive: true, force: true });
});

test('verify pins the catalog and reports a changed tool', (t) => {
  // Inside the package, so that the copy resolves 'oxmcp' and 'zod' as the example does.
  const dir = fs.mkdtempSync(path.join(ROOT, '.cache', 'verify-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const app = path.join(dir, 'app.mjs');
  const pin = path.join(dir, 'pin.json');
  const source = fs.readFileSync(QUICKSTART, 'utf8');
  fs.writeFileSync(app, source);
  let r = oxmcp(['verify', app, '--pin', pin, '--write']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, `pinned 1 tool, 1 resource, 0 resource templates, 1 prompt in ${pin}\n`);
  const pinned = JSON.parse(fs.readFileSync(pin, 'utf8'));
  r = oxmcp(['verify', app, '--pin', pin]);
  assert.equal(r.code, 0, r.stderr);
  fs.writeFileSync(app, source.replace("description: 'Add two numbers'", "description: 'Add two numbers, changed'"));
  r = oxmcp(['verify', app, '--pin', pin]);
  assert.equal(r.code, 3, r.stderr);
  assert.ok(r.stdout.startsWith(`changed tool 'add': ${pinned.tools.add} -> sha256:`), r.stdout);
});

test("run hands the app its own arguments after --, in either language's app", () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'oxmcp-cli-'));
  const js = path.join(tmp, 'argv.mjs');
  fs.writeFileSync(js, 'process.stdout.write(JSON.stringify(process.argv.slice(2)));\nprocess.exit(0);\n');
  let r = oxmcp(['run', js, '--', 'a', '--http', 'b']);
  assert.deepEqual([r.code, r.stdout], [0, '["a","--http","b"]']);
  const py = path.join(tmp, 'argv.py');
  fs.writeFileSync(py, 'import json, sys\nsys.stdout.write(json.dumps(sys.argv[1:]))\nsys.exit(0)\n');
  r = oxmcp(['run', py, '--', 'a', '--http', 'b'], { env: { OXMCP_PYTHON: VENV_PY } });
  assert.deepEqual([r.code, r.stdout], [0, '["a", "--http", "b"]'], r.stderr);
  r = oxmcp(['dev', js, '--', 'a']);
  assert.deepEqual([r.code, r.stderr], [1, 'oxmcp: error: dev takes no -- ARGS; run, inspect, call and verify do\n']);
  fs.rmSync(tmp, { recursive: true, force: true });
});
