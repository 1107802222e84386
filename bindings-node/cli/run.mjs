// `oxmcp run app.mjs[:export]`: import the app, find its server, serve it.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { CliError, appFile, isJs, parseHostPort, python, splitSpec } from './common.mjs';

const CAPTURE = Symbol.for('oxmcp.cli.capture');
const { servingStarted } = createRequire(import.meta.url)('../lib/server.cjs');
/** What loadServer gives for a script that exports no server but started serving when imported. */
const SERVES_ITSELF = Symbol('serves itself');
const isServer = (v) => v && typeof v === 'object' && typeof v.serveStdio === 'function' && typeof v.listen === 'function';

export async function loadServer(target) {
  const [spec, attr] = splitSpec(target);
  const file = appFile(target);
  // An app that ends with `await runFromArgs(server)` hands its server to us instead of serving.
  const captured = [];
  globalThis[CAPTURE] = captured;
  let mod;
  try {
    mod = await import(file ? pathToFileURL(file).href : spec);
  } catch (e) {
    const name = e?.name && e.name !== 'Error' ? `${e.name}: ` : '';
    throw new CliError(`cannot import ${spec}: ${name}${String(e?.message ?? e).split('\n')[0]}`);
  } finally {
    delete globalThis[CAPTURE];
  }
  if (attr) {
    // `app.mjs:createServer`: a factory is called (and awaited) with no arguments.
    const v = typeof mod[attr] === 'function' && !isServer(mod[attr]) ? await mod[attr]() : mod[attr];
    if (!isServer(v)) throw new CliError(`${spec}: '${attr}' is not an oxmcp.Server`);
    return v;
  }
  if (captured.length === 1) return captured[0];
  for (const name of ['default', 'server', 'mcp', 'app']) if (isServer(mod[name])) return mod[name];
  if (typeof mod.createServer === 'function') {
    const v = await mod.createServer();
    if (isServer(v)) return v;
  }
  const found = [...new Set(Object.values(mod).filter(isServer))];
  // A script that serves itself when imported (`await server.connect(new StdioServerTransport())`,
  // or an HTTP app that listens): it runs as `node script.js` would.
  if (found.length === 0 && (servingStarted() > 0 || process.getActiveResourcesInfo().includes('TCPServerWrap'))) return SERVES_ITSELF;
  if (found.length !== 1) throw new CliError(`${spec}: found ${found.length} oxmcp.Server objects; name one with ${spec}:NAME`);
  return found[0];
}

/** `--discover`: register what each directory's modules export, and say on stderr what and from where. */
async function discover(server, dirs, exclude) {
  for (const dir of dirs) {
    let found;
    try {
      found = await server.discover(dir, { exclude });
    } catch (e) {
      if (e?.name === 'RegistrationError') throw new CliError(e.message);
      throw e;
    }
    const kept = new Set(server.discovered().map((d) => `${d.kind}\0${d.name}\0${d.module}`));
    for (const d of found) {
      const note = kept.has(`${d.kind}\0${d.name}\0${d.module}`) ? '' : ' (registered by hand instead)';
      process.stderr.write(`discovered: ${d.kind} ${d.name} \u2190 ${d.module}:${d.line}${note}\n`);
    }
  }
}

export async function run(target, transport, http, urlPath, discoverDirs = [], exclude = []) {
  const file = appFile(target);
  const mode = transport || (http ? 'http' : 'stdio');
  if (mode === 'stdio' && http) throw new CliError('--transport stdio and --http contradict each other');
  if (file && !isJs(file)) {
    // A Python app: the Python CLI serves it.
    const flags = mode === 'stdio' ? [] : ['--http', http || '127.0.0.1:8000', '--path', urlPath];
    for (const d of discoverDirs) flags.push('--discover', d);
    for (const x of exclude) flags.push('--exclude', x);
    const r = spawnSync(python(), ['-m', 'oxmcp', 'run', target, ...flags], { stdio: 'inherit' });
    if (r.error) throw new CliError(`${target} is a Python app and ${python()} cannot be started: ${/** @type {NodeJS.ErrnoException} */ (r.error).code}`);
    process.exit(r.status ?? 1);
  }
  // Zero-change mode: the TypeScript SDK's modules are oxmcp's mirrors in this process.
  await import('../lib/register.mjs');
  const server = await loadServer(target);
  if (server === SERVES_ITSELF) {
    if (transport || http) throw new CliError(`${target} serves itself when it runs; run it without --http/--transport`);
    return;
  }
  await discover(server, discoverDirs, exclude);
  if (mode === 'stdio') {
    await server.serveStdio();
    return;
  }
  const [host, port] = parseHostPort(http || '127.0.0.1:8000');
  let url;
  try {
    ({ url } = await server.listen({ host, port, path: urlPath }));
  } catch (e) {
    throw new CliError(`cannot listen on ${host}:${port}: ${e.message}`);
  }
  process.stderr.write(`listening on ${url}\n`);
}
