// What every verb shares: the error type, the target forms, the JSON spellings. The Python CLI
// (bindings-python/python/oxmcp/_cli/_common.py) prints the same bytes.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const JS_SUFFIXES = ['.mjs', '.js', '.cjs'];
export const WATCHED_SUFFIXES = ['.py', '.mjs', '.js', '.cjs', '.mts', '.ts', '.json'];
export const MAIN = path.join(path.dirname(fileURLToPath(import.meta.url)), 'main.mjs');

export class CliError extends Error {
  constructor(message, detail) {
    super(message);
    this.detail = detail;
  }
}

/** `path/app.py:server` -> [path, attr]; a Windows drive letter is not an attr separator. */
export function splitSpec(spec) {
  const i = spec.lastIndexOf(':');
  if (i > 1) {
    const attr = spec.slice(i + 1);
    if (!attr.includes('/') && !attr.includes('\\')) return [spec.slice(0, i), attr];
  }
  return [spec, ''];
}

/** The app file a spec names (absolute); null for a module name; CliError when it does not exist. */
export function appFile(spec) {
  const [p] = splitSpec(spec);
  if (p.endsWith('.py') || JS_SUFFIXES.some((s) => p.endsWith(s)) || p.includes('/') || p.includes(path.sep)) {
    let st;
    try { st = fs.statSync(p); } catch { st = null; }
    if (!st || !st.isFile()) throw new CliError(`no such file: ${p}`);
    return path.resolve(p);
  }
  return null;
}

export const isJs = (file) => JS_SUFFIXES.includes(path.extname(file));
// OXMCP_PYTHON, else the active virtualenv's interpreter, else python3 on PATH.
export const python = () => process.env.OXMCP_PYTHON
  || (process.env.VIRTUAL_ENV ? path.join(process.env.VIRTUAL_ENV, process.platform === 'win32' ? 'Scripts/python.exe' : 'bin/python') : null)
  || (process.platform === 'win32' ? 'python' : 'python3');

/** The stdio command that serves `spec`: `node oxmcp run app.mjs[:x]` or `python -m oxmcp run app.py`. */
export function launchCommand(spec) {
  const file = appFile(spec);
  const [, attr] = splitSpec(spec);
  const resolved = file ? (attr ? `${file}:${attr}` : file) : spec;
  if (file && isJs(file)) return [process.execPath, MAIN, 'run', resolved];
  return [python(), '-m', 'oxmcp', 'run', resolved];
}

function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    const out = {};
    for (const k of Object.keys(v).sort()) out[k] = sortKeys(v[k]);
    return out;
  }
  return v;
}
export const dumpsPretty = (v) => JSON.stringify(sortKeys(v), null, 2);
export const dumpsCompact = (v) => JSON.stringify(sortKeys(v));

export function parseHostPort(value) {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(value);
  if (!m) throw new CliError(`--http wants HOST:PORT, got '${value}'`);
  return [m[1] ?? (m[2] || '127.0.0.1'), Number(m[3])];
}

/** The `run` flags for a transport choice (used by `dev` to start its child). */
export function serveArgs(transport, http, urlPath, fallback) {
  const mode = transport || (http ? 'http' : fallback);
  if (mode === 'stdio') {
    if (http) throw new CliError('--transport stdio and --http contradict each other');
    return ['--transport', 'stdio'];
  }
  return ['--http', http || '127.0.0.1:8000', '--path', urlPath];
}
