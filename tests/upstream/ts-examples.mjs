// Servers the oxmcp team did not write, run unmodified on the TypeScript SDK and on oxmcp's
// zero-change mode (`node --import oxmcp/register`), driven by the official TS client (the SDK
// 1.32 client) through the same generic session, and compared answer by answer.
//
// Two suites (tests/upstream/ts-targets.json; the choice and the reasons in CHOICE-ts.md):
// - `examples`: the example servers that `@modelcontextprotocol/sdk` ships in
//   dist/esm/examples/server/, copied out of the installed package (.cache/peers-node) with their
//   package-relative imports (`../../server/mcp.js`) spelled as the package's own specifiers
//   (`@modelcontextprotocol/sdk/server/mcp.js`), which on the SDK run is the same module;
//   the SDK is pinned in tests/upstream/ts-packages.json with the packages below;
// - `packages`: published npm servers built on the SDK, pinned in tests/upstream/ts-packages.json
//   and installed by scripts/setup.sh into .cache/upstream-ts (never committed), run from their
//   `bin` file as `npx` would run them.
//
// The session: initialize; list tools, resources, templates and prompts; call every tool with
// arguments made from its inputSchema (or the target's own); read every listed resource; get every
// prompt. The client answers sampling with a fixed message, form elicitation by accepting values
// made from the requested schema, and roots with the target's roots. Every difference between the
// two runs must be classified in ts-known.json (bug / protocol / security / internal, with the
// reason), or the run fails.
//
//   node tests/upstream/ts-examples.mjs [--json FILE] [name ...]
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const PACKAGES = path.join(ROOT, '.cache/upstream-ts');
const SDK_PKG = path.join(PACKAGES, 'node_modules/@modelcontextprotocol/sdk');
const EXAMPLES = path.join(PACKAGES, 'examples'); // beside the SDK's node_modules
const SHIM = pathToFileURL(path.join(HERE, 'harness-shim.mjs')).href;
const REGISTER = pathToFileURL(path.join(ROOT, 'bindings-node/lib/register.mjs')).href;
const CALL_TIMEOUT_MS = 8000;

const peers = createRequire(path.join(PACKAGES, 'package.json'));
const sdk = async (p) => import(pathToFileURL(peers.resolve(`@modelcontextprotocol/sdk/${p}`)).href);

/** Copy the SDK's examples out, with `../../x` → `@modelcontextprotocol/sdk/x`. */
function prepareExamples() {
  rmSync(EXAMPLES, { recursive: true, force: true });
  for (const dir of ['server', 'shared']) {
    const from = path.join(SDK_PKG, 'dist/esm/examples', dir);
    mkdirSync(path.join(EXAMPLES, dir), { recursive: true });
    for (const f of readdirSync(from).filter((n) => n.endsWith('.js'))) {
      const src = readFileSync(path.join(from, f), 'utf8')
        .replace(/(from\s+|import\s*\(\s*)(['"])\.\.\/\.\.\//g, '$1$2@modelcontextprotocol/sdk/');
      writeFileSync(path.join(EXAMPLES, dir, f), src);
    }
  }
  writeFileSync(path.join(EXAMPLES, 'package.json'), '{ "type": "module", "private": true }\n');
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** The line of a server's stderr that says why it stopped (the thrown error's, else the last). */
function errorLine(stderr) {
  const lines = stderr.trim().split('\n').map((l) => l.trim()).filter(Boolean);
  return (lines.find((l) => /^(\w*Error|Error)\b/.test(l)) ?? lines.at(-1) ?? '').slice(0, 300);
}

async function waitListening(port, child, err, ms = 15000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}: ${errorLine(err())}`);
    const ok = await new Promise((r) => {
      const c = net.connect(port, '127.0.0.1', () => { c.end(); r(true); });
      c.on('error', () => r(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`did not listen within ${ms} ms: ${errorLine(err())}`);
}

/** A value that satisfies `schema` (JSON Schema), for a tool's or a prompt's arguments. */
export function sampleOf(schema, depth = 0) {
  if (!schema || typeof schema !== 'object' || depth > 6) return 'example';
  if (schema.const !== undefined) return schema.const;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  for (const k of ['anyOf', 'oneOf']) {
    if (Array.isArray(schema[k])) return sampleOf(schema[k].find((s) => s.type !== 'null') ?? schema[k][0], depth + 1);
  }
  if (Array.isArray(schema.allOf)) return Object.assign({}, ...schema.allOf.map((s) => sampleOf(s, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type ?? (schema.properties ? 'object' : 'string')) {
    case 'string': {
      const fmt = { email: 'user@example.com', uri: 'https://example.com/', date: '2024-01-01', 'date-time': '2024-01-01T00:00:00Z' }[schema.format];
      if (fmt) return fmt;
      const s = 'example';
      return s.padEnd(schema.minLength ?? 0, 'x').slice(0, schema.maxLength ?? Infinity);
    }
    case 'integer':
    case 'number': {
      let n = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1);
      if (schema.maximum !== undefined && n > schema.maximum) n = schema.maximum;
      return type === 'integer' ? Math.ceil(n) : n;
    }
    case 'boolean': return true;
    case 'array': return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => sampleOf(schema.items ?? {}, depth + 1));
    case 'object': {
      const out = {};
      for (const k of schema.required ?? []) out[k] = sampleOf(schema.properties?.[k] ?? {}, depth + 1);
      return out;
    }
    default: return null;
  }
}

/** Strings that differ between any two runs of the same server, whatever the framework. */
function normaliseString(s, masks) {
  let out = s
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?/g, '<time>')
    .replace(/\b[0-9a-f]{32}\b/gi, '<hex32>')
    // Date#toString and #toLocaleTimeString (a file's times, "created at 1:16:47 AM")
    .replace(/\w{3} \w{3} \d{2} \d{4} \d{2}:\d{2}:\d{2} GMT[+-]\d{4} \([^)]*\)/g, '<date>')
    .replace(/\b\d{1,2}:\d{2}:\d{2}( [AP]M)?\b/g, '<clock>');
  for (const m of masks) out = out.replace(new RegExp(m, 'g'), '<masked>');
  return out;
}

function normalise(v, masks) {
  if (typeof v === 'string') return normaliseString(v, masks);
  if (Array.isArray(v)) return v.map((x) => normalise(x, masks));
  if (v && typeof v === 'object') {
    const out = {};
    for (const k of Object.keys(v).sort()) if (v[k] !== undefined) out[k] = normalise(v[k], masks);
    return out;
  }
  return v;
}

function errorOf(e) {
  // JSON-RPC errors compare by code (the text of a protocol error is each implementation's own);
  // a client-side failure (a timeout, a closed connection) by its kind.
  if (typeof e?.code === 'number') return { error: { code: e.code } };
  return { error: { thrown: String(e?.message ?? e).split('\n')[0].slice(0, 120) } };
}

const byKey = (a, b) => String(a.name ?? a.uri ?? a.uriTemplate).localeCompare(String(b.name ?? b.uri ?? b.uriTemplate));

/** One run of `target` on `impl` ('sdk' | 'oxmcp'): the session's record. */
async function runOnce(target, impl, lib) {
  const { Client, Stdio, Http, Sse, types } = lib;
  const file = target.file;
  const importArgs = ['--import', SHIM, ...(impl === 'oxmcp' ? ['--import', REGISTER] : [])];
  // The same directory for both runs (one after the other), so paths in answers are equal.
  const work = path.join(os.tmpdir(), `oxmcp-upstream-${process.pid}-${target.name}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  if (target.files) for (const [name, text] of Object.entries(target.files)) writeFileSync(path.join(work, name), text);
  const expand = (s) => s.replaceAll('$WORK', work);
  const args = (target.args ?? []).map(expand);
  const env = { ...process.env, UPSTREAM_SEED: '1', OXMCP_LOG: process.env.OXMCP_LOG ?? 'error' };
  for (const [k, v] of Object.entries(target.env ?? {})) env[k] = expand(v);
  const roots = (target.roots ?? []).map((r) => ({ ...r, uri: expand(r.uri) }));
  const capabilities = { sampling: {}, elicitation: { form: {} } };
  if (target.roots) capabilities.roots = { listChanged: true };
  const client = new Client({ name: 'upstream-ts', version: '1.0.0' }, { capabilities });
  const notes = [];
  client.setRequestHandler(types.CreateMessageRequestSchema, async () => ({
    role: 'assistant', model: 'upstream-model', content: { type: 'text', text: 'A short summary.' }, stopReason: 'endTurn',
  }));
  client.setRequestHandler(types.ElicitRequestSchema, async (req) => (req.params.mode === 'url'
    ? { action: 'decline' }
    : { action: 'accept', content: sampleOf({ ...req.params.requestedSchema, required: Object.keys(req.params.requestedSchema?.properties ?? {}) }) }));
  if (target.roots) client.setRequestHandler(types.ListRootsRequestSchema, async () => ({ roots }));
  client.setNotificationHandler(types.LoggingMessageNotificationSchema, (n) => { notes.push({ method: n.method, params: n.params }); });
  client.setNotificationHandler(types.ResourceListChangedNotificationSchema, (n) => { notes.push({ method: n.method }); });
  client.setNotificationHandler(types.ToolListChangedNotificationSchema, (n) => { notes.push({ method: n.method }); });
  // Progress is recorded here rather than by `onprogress`: the client drops a progress
  // notification that it reads in the same chunk as the result (its progress handler is gone by
  // the time the notification is dispatched), which depends on timing, not on the server.
  const progressNotes = [];
  client.setNotificationHandler(types.ProgressNotificationSchema, (n) => {
    progressNotes.push({ progress: n.params.progress, total: n.params.total, message: n.params.message });
  });
  let child;
  let stderr = '';
  const record = { start: 'ok' };
  try {
    if (target.transport === 'stdio') {
      const t = new Stdio({ command: process.execPath, args: [...importArgs, file, ...args], env, stderr: 'pipe', cwd: work });
      t.stderr?.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
      await client.connect(t);
    } else {
      const port = await freePort();
      child = spawn(process.execPath, [...importArgs, file, ...args], { env: { ...env, UPSTREAM_PORT: String(port) }, cwd: work, stdio: ['ignore', 'ignore', 'pipe'] });
      child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
      await waitListening(port, child, () => stderr);
      const url = new URL(`http://127.0.0.1:${port}${target.path ?? '/mcp'}`);
      await client.connect(target.transport === 'sse' ? new Sse(url) : new Http(url));
    }
  } catch (e) {
    await client.close().catch(() => {});
    if (child && child.exitCode === null) child.kill('SIGKILL');
    return { start: `fails to start: ${String(e?.message ?? e).split('\n')[0]}${stderr ? ` (stderr: ${errorLine(stderr)})` : ''}` };
  }
  const masks = target.masks ?? [];
  const step = async (label, fn) => {
    const before = notes.length;
    const progressBefore = progressNotes.length;
    let result;
    try {
      result = await fn();
    } catch (e) {
      result = errorOf(e);
    }
    const entry = { result };
    if (notes.length > before) entry.notifications = notes.slice(before);
    if (progressNotes.length > progressBefore) entry.progress = progressNotes.slice(progressBefore);
    record[label] = normalise(entry, masks);
    return result;
  };
  try {
    const info = client.getServerVersion();
    record.serverInfo = normalise({ name: info?.name, version: info?.version, title: info?.title }, masks);
    record.capabilities = normalise(client.getServerCapabilities() ?? {}, masks);
    record.instructions = client.getInstructions?.();
    const tools = await step('tools/list', async () => (await client.listTools()).tools.sort(byKey));
    const resources = await step('resources/list', async () => (await client.listResources()).resources.sort(byKey));
    await step('resources/templates/list', async () => (await client.listResourceTemplates()).resourceTemplates.sort(byKey));
    const prompts = await step('prompts/list', async () => (await client.listPrompts()).prompts.sort(byKey));
    const plan = target.calls ?? (Array.isArray(tools) ? tools.map((t) => ({ name: t.name })) : []);
    const schemas = new Map(Array.isArray(tools) ? tools.map((t) => [t.name, t.inputSchema]) : []);
    for (const [i, c] of plan.entries()) {
      if (target.skipCalls?.[c.name]) continue;
      const args = c.arguments ?? target.arguments?.[c.name] ?? sampleOf(schemas.get(c.name) ?? {});
      const label = `tools/call ${c.name}${target.calls ? ` #${i}` : ''}`;
      await step(label, async () => {
        // `onprogress` makes the client send a progress token; the notifications are recorded above.
        const r = await client.callTool({ name: c.name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS, onprogress: () => {} });
        const out = { content: r.content, isError: Boolean(r.isError) };
        if (r.structuredContent !== undefined) out.structuredContent = r.structuredContent;
        return out;
      });
    }
    for (const r of Array.isArray(resources) ? resources.slice(0, 20) : []) {
      await step(`resources/read ${r.uri}`, async () => (await client.readResource({ uri: r.uri })).contents);
    }
    for (const p of Array.isArray(prompts) ? prompts : []) {
      const a = target.promptArguments?.[p.name] ?? Object.fromEntries((p.arguments ?? []).filter((x) => x.required).map((x) => [x.name, 'example']));
      await step(`prompts/get ${p.name}`, async () => client.getPrompt({ name: p.name, arguments: a }));
    }
  } finally {
    await client.close().catch(() => {});
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => { const t = setTimeout(() => { child.kill('SIGKILL'); r(); }, 3000); child.once('exit', () => { clearTimeout(t); r(); }); });
    }
    rmSync(work, { recursive: true, force: true });
  }
  return record;
}

/** Every difference between two records, as `{ at, sdk, oxmcp }` (leaves only). */
function differences(a, b, at = '', out = []) {
  if (JSON.stringify(a) === JSON.stringify(b)) return out;
  const obj = (x) => x && typeof x === 'object';
  if (obj(a) && obj(b) && Array.isArray(a) === Array.isArray(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) differences(a[k], b[k], `${at}/${k}`, out);
  } else {
    out.push({ at: at || '/', sdk: a, oxmcp: b });
  }
  return out;
}

/** The ts-known.json entry that classifies difference `d` of `target`, if any. */
function classify(known, target, d) {
  return known.find((k) => (k.targets ?? [k.target]).includes(target) && new RegExp(k.at).test(d.at));
}

export function targets() {
  const t = JSON.parse(readFileSync(path.join(HERE, 'ts-targets.json'), 'utf8'));
  const pkgs = JSON.parse(readFileSync(path.join(HERE, 'ts-packages.json'), 'utf8')).dependencies;
  return [
    ...t.examples.map((e) => ({ ...e, suite: 'examples', api: e.api, version: JSON.parse(readFileSync(path.join(SDK_PKG, 'package.json'), 'utf8')).version, file: path.join(EXAMPLES, 'server', `${e.example ?? e.name}.js`) })),
    ...t.packages.map((p) => ({ ...p, suite: 'packages', version: pkgs[p.package], file: path.join(PACKAGES, 'node_modules', p.package, p.bin) })),
  ];
}

export async function runUpstream(names, { log = () => {} } = {}) {
  if (!existsSync(SDK_PKG)) throw new Error(`the TypeScript SDK is not installed in ${PACKAGES}: run bash scripts/setup.sh`);
  prepareExamples();
  const [c, s, h, e, types] = await Promise.all([sdk('client/index.js'), sdk('client/stdio.js'), sdk('client/streamableHttp.js'), sdk('client/sse.js'), sdk('types.js')]);
  const lib = { Client: c.Client, Stdio: s.StdioClientTransport, Http: h.StreamableHTTPClientTransport, Sse: e.SSEClientTransport, types };
  const known = JSON.parse(readFileSync(path.join(HERE, 'ts-known.json'), 'utf8')).differences;
  const chosen = targets().filter((t) => !names.length || names.includes(t.name));
  const rows = new Array(chosen.length);
  // Three targets at a time (UPSTREAM_JOBS): each run mostly waits on its server's start.
  let next = 0;
  const worker = async () => {
    while (next < chosen.length) {
      const i = next++;
      rows[i] = await runTarget(chosen[i], lib, known);
      log(rows[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Number(process.env.UPSTREAM_JOBS ?? 3)) }, worker));
  return rows;
}

/** Run `target` on the SDK, then on oxmcp, and compare. */
async function runTarget(target, lib, known) {
  const t0 = Date.now();
  const row = { suite: target.suite, name: target.name, version: target.version, api: target.api, transport: target.transport };
  if (!existsSync(target.file)) {
    Object.assign(row, { result: 'not installed', unclassified: [{ at: 'start', sdk: 'installed', oxmcp: `${target.file} missing (run scripts/setup.sh)` }], classified: [] });
  } else {
    const a = await runOnce(target, 'sdk', lib);
    const b = await runOnce(target, 'oxmcp', lib);
    // A run that did not start has nothing else to compare.
    const diffs = a.start !== 'ok' || b.start !== 'ok' ? differences({ start: a.start }, { start: b.start }) : differences(a, b);
    row.classified = [];
    row.unclassified = [];
    for (const d of diffs) {
      const k = classify(known, target.name, d);
      if (k) row.classified.push({ ...d, class: k.class, reason: k.reason });
      else row.unclassified.push(d);
    }
    if (a.start !== 'ok') row.result = 'fails on the SDK';
    else if (b.start !== 'ok') row.result = 'fails to start';
    else row.result = diffs.length ? 'differs' : 'same';
    row.first = diffs[0];
  }
  row.seconds = (Date.now() - t0) / 1000;
  return row;
}

const short = (v) => (v === undefined ? 'absent' : JSON.stringify(v)?.slice(0, 240));

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const argv = process.argv.slice(2);
  const j = argv.indexOf('--json');
  const jsonOut = j >= 0 ? argv.splice(j, 2)[1] : undefined;
  const t0 = Date.now();
  const rows = await runUpstream(argv, {
    log: (r) => {
      const mark = r.unclassified.length ? 'FAIL' : 'ok  ';
      console.log(`${mark} ${r.suite}/${r.name} (${r.transport}, ${r.seconds.toFixed(1)} s): ${r.result}${r.classified.length ? `, ${r.classified.length} classified difference(s) (${[...new Set(r.classified.map((d) => d.class))].join(', ')})` : ''}`);
      for (const d of r.unclassified.slice(0, 5)) console.log(`       unclassified at ${d.at}: sdk=${short(d.sdk)} oxmcp=${short(d.oxmcp)}`);
      if (r.unclassified.length > 5) console.log(`       ... ${r.unclassified.length - 5} more`);
    },
  });
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify(rows, null, 2));
  const count = (f) => rows.filter(f).length;
  const bad = count((r) => r.unclassified.length);
  console.log(`upstream-ts: ${rows.length} servers: ${count((r) => r.result === 'same')} same, ${count((r) => r.result === 'differs')} differ, `
    + `${count((r) => r.result === 'fails to start')} fail to start on oxmcp, ${count((r) => r.result === 'fails on the SDK' || r.result === 'not installed')} not run; `
    + `${bad} with unclassified differences (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  process.exit(bad ? 1 : 0);
}
