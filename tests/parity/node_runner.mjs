// The Node half of the parity harness: every corpus server under tests/parity/<name>/server.mjs
// is written for the original TypeScript SDK (v1 `@modelcontextprotocol/sdk` or v2
// `@modelcontextprotocol/server` + `@modelcontextprotocol/node`). It runs twice — on the SDK
// (installed by scripts/setup.sh into .cache/peers-node) and on oxmcp with only the package names
// in its imports rewritten — and the official clients (the v1 SDK client speaks the legacy era,
// the v2 client the modern one when the server offers it) drive both over stdio and HTTP through
// the steps of tests/parity/<name>/scenario.json. The normalised results must be equal.
//
//   node tests/parity/node_runner.mjs [name ...]     # prints a report, exits 1 on a difference
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(HERE, '../..');
export const PEERS = path.join(ROOT, '.cache/peers-node');
const OX_DIR = path.join(ROOT, '.cache/parity-node'); // inside the checkout: `oxmcp` resolves to this package
const SDK_DIR = path.join(PEERS, 'corpus'); // beside the peers' node_modules

/** The import rewrite a user does to port: the SDK package names → oxmcp's. */
export function portImports(source) {
  return source
    .replace(/(['"])@modelcontextprotocol\/sdk\//g, '$1oxmcp/')
    .replace(/(['"])@modelcontextprotocol\/server\/stdio\1/g, '$1oxmcp/stdio$1')
    .replace(/(['"])@modelcontextprotocol\/server\1/g, '$1oxmcp$1')
    .replace(/(['"])@modelcontextprotocol\/node\1/g, '$1oxmcp/node$1');
}

/** The Node corpus: directories with a server.mjs. */
export function corpus() {
  return readdirSync(HERE, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(HERE, d.name, 'server.mjs')))
    .map((d) => d.name)
    .sort();
}

async function loadClients() {
  if (!existsSync(path.join(PEERS, 'node_modules/@modelcontextprotocol/sdk'))) {
    throw new Error(`the original SDKs are not installed in ${PEERS}: run bash scripts/setup.sh`);
  }
  const peers = createRequire(path.join(PEERS, 'package.json'));
  const v1 = async (p) => import(pathToFileURL(peers.resolve(`@modelcontextprotocol/sdk/${p}`)).href);
  const root = createRequire(path.join(ROOT, 'package.json'));
  const v2 = async (p) => import(pathToFileURL(root.resolve(p)).href);
  const [c1, s1, h1, t1, c2, s2] = await Promise.all([
    v1('client/index.js'), v1('client/stdio.js'), v1('client/streamableHttp.js'), v1('types.js'),
    v2('@modelcontextprotocol/client'), v2('@modelcontextprotocol/client/stdio'),
  ]);
  return {
    v1: { Client: c1.Client, Stdio: s1.StdioClientTransport, Http: h1.StreamableHTTPClientTransport, types: t1 },
    v2: { Client: c2.Client, Stdio: s2.StdioClientTransport, Http: c2.StreamableHTTPClientTransport, types: c2 },
  };
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

async function waitListening(port, child, ms = 15000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    const ok = await new Promise((r) => {
      const c = net.connect(port, '127.0.0.1', () => { c.end(); r(true); });
      c.on('error', () => r(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`server did not listen on ${port} within ${ms} ms`);
}

/** Sort object keys (deep), drop undefined: order-insensitive comparison. */
export function canonical(v) {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') {
    const out = {};
    for (const k of Object.keys(v).sort()) if (v[k] !== undefined) out[k] = canonical(v[k]);
    return out;
  }
  return v;
}

// oxmcp puts each listed definition's catalog digest in `_meta["io.oxmcp/digest"]` (docs/CATALOG.md),
// which the SDK's server has no counterpart of: left out before the lists are compared.
const unstamped = (d) => {
  if (!d?._meta) return d;
  const meta = Object.fromEntries(Object.entries(d._meta).filter(([k]) => !k.startsWith('io.oxmcp/')));
  const { _meta, ...rest } = d;
  return Object.keys(meta).length ? { ...rest, _meta: meta } : rest;
};
const byName = (a, b) => String(a.name ?? a.uri ?? a.uriTemplate).localeCompare(String(b.name ?? b.uri ?? b.uriTemplate));

function errorOf(e) {
  // JSON-RPC errors compare by code: the human text of protocol errors is each implementation's own.
  return { error: { code: typeof e?.code === 'number' ? e.code : 'thrown' } };
}

/** Run one step; what it returns is compared. */
async function step(client, s, state) {
  try {
    switch (s.op) {
      case 'serverInfo': {
        const v = client.getServerVersion();
        return { name: v?.name, version: v?.version };
      }
      case 'capabilities': {
        const c = client.getServerCapabilities() ?? {};
        return Object.fromEntries((s.keys ?? Object.keys(c)).map((k) => [k, c[k] !== undefined]));
      }
      case 'listTools': {
        const r = await client.listTools();
        return r.tools.map(unstamped).sort(byName).map((t) => (s.only ? Object.fromEntries(s.only.map((k) => [k, t[k]])) : t));
      }
      case 'callTool': {
        // `progress: ["v2"]`: the clients whose progress callbacks are compared (the v1 client drops
        // progress that arrives after its response, which the v1 SDK server's stdio writes can cause).
        const opts = s.progress && (s.progress === true || s.progress.includes(state.gen)) ? { onprogress: (p) => state.progress.push({ progress: p.progress, total: p.total, message: p.message }) } : undefined;
        const r = await client.callTool({ name: s.name, arguments: s.arguments ?? {} }, undefined, opts);
        if (s.compare === 'isError') return { isError: Boolean(r.isError) };
        const out = { content: r.content, isError: Boolean(r.isError) };
        if (r.structuredContent !== undefined) out.structuredContent = r.structuredContent;
        return out;
      }
      case 'callToolStream': {
        // The v1 client's experimental tasks API (2025-11-25 task augmentation): how the task
        // started and how it ended (the polls in between depend on timing; task ids are random).
        const out = { created: null, final: null };
        for await (const m of client.experimental.tasks.callToolStream({ name: s.name, arguments: s.arguments ?? {} })) {
          if (m.type === 'taskCreated') out.created = m.task.status;
          if (m.type === 'result') out.final = { content: m.result.content, isError: Boolean(m.result.isError) };
          if (m.type === 'error') out.final = errorOf(m.error);
        }
        return out;
      }
      case 'listTasks': return (await client.experimental.tasks.listTasks()).tasks.map((t) => t.status).sort();
      case 'listResources': return (await client.listResources()).resources.map(unstamped).sort(byName);
      case 'listResourceTemplates': return (await client.listResourceTemplates()).resourceTemplates.map(unstamped).sort(byName);
      case 'readResource': return (await client.readResource({ uri: s.uri })).contents;
      case 'listPrompts': return (await client.listPrompts()).prompts.map(unstamped).sort(byName);
      case 'getPrompt': return await client.getPrompt({ name: s.name, arguments: s.arguments ?? {} });
      case 'complete': return (await client.complete({ ref: s.ref, argument: s.argument, context: s.context })).completion;
      case 'subscribe': return await client.subscribeResource({ uri: s.uri });
      case 'unsubscribe': return await client.unsubscribeResource({ uri: s.uri });
      case 'setLevel': return await client.setLoggingLevel(s.level);
      case 'setRoots': {
        state.roots = s.roots;
        await client.sendRootsListChanged();
        await new Promise((r) => setTimeout(r, s.settleMs ?? 300));
        return null;
      }
      case 'wait': {
        await new Promise((r) => setTimeout(r, s.ms ?? 200));
        return null;
      }
      default:
        throw new Error(`unknown step op ${s.op}`);
    }
  } catch (e) {
    if (e && e.message && /unknown step op/.test(e.message)) throw e;
    return errorOf(e);
  }
}

/**
 * One run: start the server (`impl`: 'sdk' | 'oxmcp') on `transport`, connect client `gen`,
 * run every step, collect the notifications. Returns the normalised record.
 */
async function runOnce(name, scenario, impl, transport, gen, clients) {
  const file = path.join(impl === 'sdk' ? SDK_DIR : OX_DIR, `${name}.mjs`);
  const { Client, Stdio, Http, types } = clients[gen];
  const state = { roots: scenario.roots ?? [], progress: [], notes: [], gen };
  const capabilities = {};
  if (scenario.roots) capabilities.roots = { listChanged: true };
  if (scenario.elicit) capabilities.elicitation = { form: {} };
  if (scenario.sample) capabilities.sampling = {};
  const client = new Client({ name: `parity-${gen}`, version: '1.0.0' }, { capabilities });
  if (scenario.roots) client.setRequestHandler(types.ListRootsRequestSchema ?? 'roots/list', async () => ({ roots: state.roots }));
  if (scenario.elicit) client.setRequestHandler(types.ElicitRequestSchema ?? 'elicitation/create', async () => scenario.elicit);
  if (scenario.sample) client.setRequestHandler(types.CreateMessageRequestSchema ?? 'sampling/createMessage', async () => scenario.sample);
  const keep = new Set(scenario.notifications ?? ['notifications/message']);
  client.fallbackNotificationHandler = async (n) => {
    if (keep.has(n.method)) state.notes.push(canonical({ method: n.method, params: n.params }));
  };
  for (const m of keep) {
    const schemaName = {
      'notifications/message': 'LoggingMessageNotificationSchema',
      'notifications/resources/updated': 'ResourceUpdatedNotificationSchema',
      'notifications/tools/list_changed': 'ToolListChangedNotificationSchema',
      'notifications/resources/list_changed': 'ResourceListChangedNotificationSchema',
    }[m];
    const sch = gen === 'v1' ? types[schemaName] : m;
    if (sch) {
      try {
        client.setNotificationHandler(sch, (n) => { state.notes.push(canonical({ method: n.method ?? m, params: n.params ?? n })); });
      } catch {}
    }
  }
  let child;
  const env = { ...process.env, TRANSPORT: transport, OXMCP_LOG: process.env.OXMCP_LOG ?? 'error' };
  try {
    if (transport === 'stdio') {
      await client.connect(new Stdio({ command: process.execPath, args: [file], env, stderr: 'pipe' }));
    } else {
      const port = await freePort();
      child = spawn(process.execPath, [file], { env: { ...env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      child.stderr.on('data', (d) => { err = (err + d).slice(-4000); });
      try {
        await waitListening(port, child);
      } catch (e) {
        throw new Error(`${e.message}\n${err}`);
      }
      await client.connect(new Http(new URL(`http://127.0.0.1:${port}${scenario.path ?? '/mcp'}`)));
    }
    const results = [];
    for (const s of scenario.steps) {
      if (s.only_clients && !s.only_clients.includes(gen)) continue;
      if (s.only_transports && !s.only_transports.includes(transport)) continue;
      state.progress = [];
      const before = state.notes.length;
      const r = await step(client, s, state);
      if (s.settleMs) await new Promise((res) => setTimeout(res, s.settleMs));
      const entry = { step: s.label ?? s.op + (s.name ? ` ${s.name}` : s.uri ? ` ${s.uri}` : ''), result: canonical(r) };
      const notes = state.notes.slice(before);
      if (notes.length) entry.notifications = notes;
      if (state.progress.length) entry.progress = state.progress;
      results.push(entry);
    }
    return results;
  } finally {
    await client.close().catch(() => {});
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => { const t = setTimeout(() => { child.kill('SIGKILL'); r(); }, 3000); child.once('exit', () => { clearTimeout(t); r(); }); });
    }
  }
}

function firstDifference(a, b, at = '') {
  if (JSON.stringify(a) === JSON.stringify(b)) return undefined;
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const d = firstDifference(a[k], b[k], `${at}/${k}`);
      if (d) return d;
    }
  }
  return { at: at || '/', sdk: a, oxmcp: b };
}

/**
 * Run the corpus (or `names`). Returns `[{ name, transport, client, ok, difference?, error? }]`.
 */
export async function runParity(names = corpus(), { log = () => {} } = {}) {
  const clients = await loadClients();
  mkdirSync(OX_DIR, { recursive: true });
  mkdirSync(SDK_DIR, { recursive: true });
  const out = [];
  for (const name of names) {
    const dir = path.join(HERE, name);
    const source = readFileSync(path.join(dir, 'server.mjs'), 'utf8');
    // `$CORPUS` in a scenario is this server's directory (roots, file paths).
    const scenario = JSON.parse(readFileSync(path.join(dir, 'scenario.json'), 'utf8').replaceAll('$CORPUS', dir));
    writeFileSync(path.join(SDK_DIR, `${name}.mjs`), source);
    writeFileSync(path.join(OX_DIR, `${name}.mjs`), portImports(source));
    for (const transport of scenario.transports ?? ['stdio', 'http']) {
      for (const gen of scenario.clients ?? ['v1', 'v2']) {
        const row = { name, transport, client: gen, ok: false };
        try {
          const sdk = await runOnce(name, scenario, 'sdk', transport, gen, clients);
          const ox = await runOnce(name, scenario, 'oxmcp', transport, gen, clients);
          const d = firstDifference(sdk, ox);
          row.ok = !d;
          if (d) row.difference = d;
        } catch (e) {
          row.error = String(e && e.stack ? e.stack : e);
        }
        log(row);
        out.push(row);
      }
    }
  }
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await runParity(process.argv.length > 2 ? process.argv.slice(2) : corpus(), {
    log: (r) => console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.name} ${r.transport} client-${r.client}${r.difference ? ` at ${r.difference.at}: sdk=${JSON.stringify(r.difference.sdk)?.slice(0, 300)} oxmcp=${JSON.stringify(r.difference.oxmcp)?.slice(0, 300)}` : ''}${r.error ? `\n${r.error}` : ''}`),
  });
  const bad = rows.filter((r) => !r.ok).length;
  console.log(`${rows.length - bad}/${rows.length} runs equal`);
  process.exit(bad ? 1 : 0);
}
