// `oxmcp run app.mjs[:export]`: import the app, find its server, serve it, as the core's plan says
// (the target, transport, address and listener options were parsed and checked by `oxmcp::cli`).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { CliError, python } from './common.mjs';

const CAPTURE = Symbol.for('oxmcp.cli.capture');
const { servingStarted } = createRequire(import.meta.url)('../lib/server.cjs');
/** What loadServer gives for a script that exports no server but started serving when imported. */
const SERVES_ITSELF = Symbol('serves itself');
const isServer = (v) => v && typeof v === 'object' && typeof v.serveStdio === 'function' && typeof v.listen === 'function';

async function loadServer(spec, attr, file) {
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

/** `--discover`: register what each directory's modules export. Then say on stderr what was
 * discovered and from where, by `--discover` or by the app's own `server.discover()` (`oxmcp
 * inspect` shows these lines of a server it starts). */
async function discover(server, dirs, exclude) {
  const said = new Set();
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
      said.add(`${d.kind}\0${d.name}\0${d.module}`);
      process.stderr.write(`discovered: ${d.kind} ${d.name} \u2190 ${d.module}:${d.line}${note}\n`);
    }
  }
  for (const d of server.discovered?.() ?? []) {
    if (!said.has(`${d.kind}\0${d.name}\0${d.module}`)) {
      process.stderr.write(`discovered: ${d.kind} ${d.name} \u2190 ${d.module}:${d.line}\n`);
    }
  }
}

export async function run(plan) {
  const { target, spec, attr, file, mode, host, port } = plan;
  if (plan.language === 'python') {
    // A Python app: the Python CLI serves it.
    const r = spawnSync(python(), ['-m', 'oxmcp', 'run', target, ...plan.forward], { stdio: 'inherit' });
    if (r.error) throw new CliError(`${target} is a Python app and ${python()} cannot be started: ${/** @type {NodeJS.ErrnoException} */ (r.error).code}`);
    process.exit(r.status ?? 1);
  }
  // The app's own command line (`oxmcp run app.mjs -- ARGS`), as `node app.mjs ARGS` gives it; set
  // before the import, since a script may read it at import time.
  process.argv = [process.argv[0], file ?? spec, ...(plan.args ?? [])];
  // Zero-change mode: the TypeScript SDK's modules are oxmcp's mirrors in this process.
  await import('../lib/register.mjs');
  const server = await loadServer(spec, attr, file);
  if (server === SERVES_ITSELF) {
    if (plan.transportGiven) throw new CliError(`${target} serves itself when it runs; run it without --http/--transport`);
    return;
  }
  await discover(server, plan.discover, plan.exclude);
  if (mode === 'stdio') {
    await server.serveStdio();
    return;
  }
  let url;
  try {
    ({ url } = await server.listen({ host, port, path: plan.path, ...plan.options }));
  } catch (e) {
    throw new CliError(`cannot listen on ${plan.options.uds ?? `${host}:${port}`}: ${e.message}`);
  }
  process.stderr.write(`listening on ${url}\n`);
}
