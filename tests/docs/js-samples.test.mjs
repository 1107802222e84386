// Every JavaScript sample of the README and the site runs (tests/docs/samples.py extracts them and
// says how they are marked). A server sample is started with `node FILE` on HTTP (its port 8000
// replaced by a free one, or a `listen` appended) and checked with the official TS client.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
// Under the checkout, so that `import 'oxmcp'` resolves to this package and `zod` to its devDependency.
const WORK = path.join(ROOT, '.cache', 'doc-samples');
const samples = JSON.parse(execFileSync('python3', [path.join(ROOT, 'tests', 'docs', 'samples.py'), '--json', 'javascript'], { encoding: 'utf8' }));

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
    s.on('error', reject);
  });
}

/** Resolves once 127.0.0.1:port accepts a connection (bounded), rejects if the child exits first. */
function listening(child, port, stderr, ms = 15_000) {
  const deadline = Date.now() + ms;
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the sample exited ${code}: ${stderr()}`)));
    const attempt = () => {
      const c = net.connect(port, '127.0.0.1', () => { c.destroy(); resolve(); });
      c.on('error', () => {
        if (Date.now() > deadline) reject(new Error(`the sample did not listen within ${ms} ms: ${stderr()}`));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

const textOf = (r) => [
  ...(r.content ?? r.contents ?? []).map((b) => b.text ?? ''),
  ...(r.messages ?? []).map((m) => m.content?.text ?? ''),
  r.structuredContent === undefined ? '' : JSON.stringify(r.structuredContent),
].join('\n');

function write(sample, code) {
  const dir = path.join(WORK, sample.id.replace(/[^\w.-]+/g, '_'));
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'sample.mjs');
  fs.writeFileSync(file, sample.setup.map((l) => l + '\n').join('') + code);
  return file;
}

async function runServer(sample) {
  const port = await freePort();
  let code = sample.code;
  if (/listen\(/.test(code)) code = code.replaceAll('8000', String(port));
  else code += `\nawait server.listen({ host: '127.0.0.1', port: ${port}, path: '/mcp' });\n`;
  const file = write(sample, code);
  const child = spawn(process.execPath, [file], { cwd: path.dirname(file), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const client = new Client({ name: 'doc-samples', version: '1.0.0' });
  try {
    await listening(child, port, () => stderr);
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
    for (const c of sample.checks) {
      let r;
      if (c.kind === 'call') {
        r = await client.callTool({ name: c.target, arguments: c.args });
        assert.notEqual(r.isError, true, `${c.target}: ${textOf(r)}`);
      } else if (c.kind === 'read') r = await client.readResource({ uri: c.target });
      else r = await client.getPrompt({ name: c.target, arguments: c.args });
      assert.ok(textOf(r).includes(c.expect), `${c.kind} ${c.target}: ${JSON.stringify(textOf(r))} has no ${JSON.stringify(c.expect)}`);
    }
  } finally {
    await client.close().catch(() => {});
    child.kill('SIGKILL');
  }
}

/** A sample without checks runs to its end; one that listens (a configuration sample) must start
 * listening, and is then stopped. */
async function runScript(sample) {
  const port = await freePort();
  const listens = /listen\(/.test(sample.code);
  const file = write(sample, listens ? sample.code.replaceAll('8000', String(port)) : sample.code);
  const child = spawn(process.execPath, [file], { cwd: path.dirname(file), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  if (listens) {
    try {
      await listening(child, port, () => stderr);
    } finally {
      child.kill('SIGKILL');
    }
    return;
  }
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`still running after 30 s: ${stderr}`)); }, 30_000);
    child.once('exit', (code) => { clearTimeout(timer); (code === 0 ? resolve() : reject(new Error(`exit ${code}: ${stderr}`))); });
  });
}

for (const sample of samples) {
  test(sample.id, { skip: sample.skip ?? false, timeout: 60_000 }, async () => {
    if (sample.checks.length) await runServer(sample);
    else await runScript(sample);
  });
}
